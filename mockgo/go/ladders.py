"""Ladders: whether a group in atari, or about to be, can be chased down.

The two ladder planes of the alphago encoders (:mod:`mockgo.go.features`)
come from this small reader, compiled with numba, that plays moves on scratch copies of the board's arrays with
:func:`mockgo.go.kernels.place_stone`. It keeps the simple ko rule (a stone that
has just taken one stone cannot be taken back at once), so capturing and
retaking cannot go round in circles, and ignores superko:

- The *prey* is a group in atari, defender to move. Its options are to extend
  at its last liberty, or to capture an attacking group in atari that touches
  it. After an option, the prey with 3 or more liberties has escaped; with
  exactly 2, the attacker reads on (below); with 1, that option fails. The
  prey is captured when every option fails.
- With the prey on 2 liberties and the attacker to move, the attacker tries
  an atari at each of the two liberties in turn (a suicide is not tried); the
  ladder works if the defender fails to escape after one of them.
- *Ladder capture* at ``p``: ``p`` is a liberty of an opponent group with
  exactly 2 liberties, and after the player's stone at ``p`` that group
  cannot escape.
- *Ladder escape* at ``p``: ``p`` relieves one of the player's groups in
  atari, being its last liberty or capturing an opponent group that touches
  it, and after ``p`` that group has 3 or more liberties, or 2 and no ladder
  captures it.

Reading stops at :data:`LADDER_DEPTH` plies (a ladder across a 19x19 board,
corner to corner, is about 70) or after :data:`LADDER_NODES` moves read for
one candidate point; a ladder cut off either way counts as *not* working (so
the prey escapes).

:func:`ladder_captures` and :func:`ladder_escapes` read one candidate point on
scratch levels made by :func:`ladder_scratch` and filled by
:func:`load_position`; :func:`first_liberty`, :func:`liberty_after` and
:func:`extension_liberties` let the caller skip the plain cases.
"""

import numpy as np
from numba import njit

from mockgo.go.kernels import EMPTY, LEGAL, check_move, place_stone, popcount

LADDER_DEPTH = 100  #: Plies read ahead in one ladder, at most.
LADDER_NODES = 2000  #: Moves read for one candidate point, at most.

_ONE = np.uint64(1)

_ATTACK, _DEFEND = 0, 1
_MAX_OPTIONS = 16  # defender options tried at one node (its liberty and captures)


@njit(cache=True)
def _liberty_points(liberty_bits, head, out):
    """Write the liberties of group ``head`` into ``out`` (as many as fit);
    returns how many there are."""
    count = 0
    for w in range(liberty_bits.shape[1]):
        x = liberty_bits[head, w]
        while x != 0:
            low = x & (~x + _ONE)
            if count < len(out):
                out[count] = w * 64 + popcount(low - _ONE)
            count += 1
            x ^= low
    return count


@njit(cache=True)
def first_liberty(liberty_bits, head):
    """The lowest-numbered liberty of group ``head`` (-1 if it has none)."""
    for w in range(liberty_bits.shape[1]):
        x = liberty_bits[head, w]
        if x != 0:
            return w * 64 + popcount((x & (~x + _ONE)) - _ONE)
    return -1


@njit(cache=True)
def liberty_after(liberty_bits, head, p):
    """The lowest-numbered liberty of group ``head`` above the point ``p``."""
    for w in range(p >> 6, liberty_bits.shape[1]):
        x = liberty_bits[head, w]
        if w == p >> 6:
            x &= ~((_ONE << np.uint64(p & 63)) | ((_ONE << np.uint64(p & 63)) - _ONE))
        if x != 0:
            return w * 64 + popcount((x & (~x + _ONE)) - _ONE)
    return -1


@njit(cache=True)
def extension_liberties(stones, group, liberty_bits, neighbors, head, move, gone, bits):
    """At least how many liberties group ``head`` has after its colour plays
    ``move``, one of its liberties, when the opponent has first taken the
    point ``gone`` (or -1) without capturing: captures by ``move`` would only
    add liberties, and are not counted. Saves playing the obvious escapes."""
    color = stones[head]
    words = liberty_bits.shape[1]
    for w in range(words):
        bits[w] = liberty_bits[head, w]
    for k in range(4):
        q = neighbors[move, k]
        if q < 0:
            break
        if stones[q] == EMPTY:
            bits[q >> 6] |= _ONE << np.uint64(q & 63)
        elif stones[q] == color:
            g = group[q]
            for w in range(words):
                bits[w] |= liberty_bits[g, w]
    bits[move >> 6] &= ~(_ONE << np.uint64(move & 63))
    if gone >= 0:
        bits[gone >> 6] &= ~(_ONE << np.uint64(gone & 63))
    count = 0
    for w in range(words):
        count += popcount(bits[w])
    return count


def ladder_scratch(size):
    """Room to read ladders on a board of ``size``: one copy of the board's
    arrays per ply (level 0 is the position being encoded), the moves to try
    at each ply, and (kind, how many moves, the next one, ko point) per ply.
    An encoder keeps one per thread and reuses it."""
    levels, n = LADDER_DEPTH + 2, size * size
    return (np.zeros((levels, n), np.int8), np.zeros((levels, n), np.int32),
            np.zeros((levels, n), np.int32), np.zeros((levels, n), np.int32),
            np.zeros((levels, n), np.int32), np.zeros((levels, n, (n + 63) // 64), np.uint64),
            np.zeros((levels, _MAX_OPTIONS), np.int64), np.zeros((levels, 4), np.int32))


@njit(cache=True)
def _copy_level(st, gr, nx, sz, li, lb, source, target):
    """Copy the position of level ``source`` to level ``target``. Only the
    group heads' rows of ``liberty_bits`` mean anything, so only they are
    copied."""
    n = st.shape[1]
    a, b = st[source], st[target]
    for q in range(n):
        b[q] = a[q]
    for array in (gr, nx, sz, li):
        a, b = array[source], array[target]
        for q in range(n):
            b[q] = a[q]
    a, b = lb[source], lb[target]
    heads = gr[source]
    for q in range(n):
        if heads[q] == q:
            for w in range(lb.shape[2]):
                b[q, w] = a[q, w]


@njit(cache=True)
def load_position(st, gr, nx, sz, li, lb, stones, group, next_stone, group_size, liberties,
                  liberty_bits):
    """Put the board's arrays in level 0."""
    for q in range(len(stones)):
        st[0, q] = stones[q]
        gr[0, q] = group[q]
        nx[0, q] = next_stone[q]
        sz[0, q] = group_size[q]
        li[0, q] = liberties[q]
        if group[q] == q:
            for w in range(liberty_bits.shape[1]):
                lb[0, q, w] = liberty_bits[q, w]


@njit(cache=True)
def _play_on_level(st, gr, nx, sz, li, lb, scratch_hash, hash_box, neighbors, zobrist,
                   level, p, color):
    """Copy the position of ``level`` to ``level + 1`` and play there.
    Returns the point the opponent may not take back at once (simple ko),
    or -1."""
    _copy_level(st, gr, nx, sz, li, lb, level, level + 1)
    captured = place_stone(st[level + 1], gr[level + 1], nx[level + 1], sz[level + 1],
                           li[level + 1], lb[level + 1], scratch_hash, neighbors, zobrist,
                           hash_box, p, color)
    head = gr[level + 1, p]
    if captured == 1 and sz[level + 1, head] == 1 and li[level + 1, head] == 1:
        for k in range(4):
            q = neighbors[p, k]
            if q < 0:
                break
            if st[level + 1, q] == EMPTY:
                return q
    return -1


@njit(cache=True)
def _legal_on_level(st, gr, li, scratch_hash, seen, neighbors, zobrist, level, p, color, ko):
    return check_move(st[level], gr[level], li[level], scratch_hash, seen, neighbors,
                      zobrist, np.uint64(0), p, color, ko, False) == LEGAL


@njit(cache=True)
def _defender_options(st, gr, nx, li, lb, neighbors, level, prey, attacker, moves):
    """The defender's moves for the prey in atari: its last liberty, then the
    last liberty of each attacking group in atari that touches it."""
    head = gr[level, prey]
    _liberty_points(lb[level], head, moves)
    count = 1
    s = head
    while True:
        for k in range(4):
            q = neighbors[s, k]
            if q < 0:
                break
            if st[level, q] == attacker and li[level, gr[level, q]] == 1:
                last = first_liberty(lb[level], gr[level, q])
                known = False
                for i in range(count):
                    if moves[i] == last:
                        known = True
                if not known and count < len(moves):
                    moves[count] = last
                    count += 1
        s = nx[level, s]
        if s == head:
            break
    return count


@njit(cache=True)
def ladder_captures(st, gr, nx, sz, li, lb, moves, counts, scratch_hash, hash_box, seen,
                    neighbors, zobrist, root, root_ko, prey, attacker, only, budget):
    """Whether the attacker, to move in the position of level ``root``,
    captures the group of the stone ``prey`` (on exactly 2 liberties) by
    ladder; ``only``: the one atari to try, or -1 for both liberties;
    ``root_ko``: the point the attacker may not take back, or -1.

    A depth-first search without recursion: level d holds the position after
    d plies, its kind (attacker or defender to move), the moves to try there
    and the next one. A node's value is True when the prey is captured: an
    attacker node is True if one of its ataris is, a defender node if all its
    options are. ``budget[0]``: moves left to read."""
    defender = 3 - attacker
    bits = np.empty(lb.shape[2], np.uint64)
    d = root
    counts[d, 0] = _ATTACK
    counts[d, 1] = min(_liberty_points(lb[d], gr[d, prey], moves[d]), 2)
    counts[d, 2] = 0
    counts[d, 3] = root_ko
    if only >= 0:
        moves[d, 0] = only
        counts[d, 1] = 1
    have_value = False  # a child's value waiting for the node at level d
    value = False
    while True:
        kind = counts[d, 0]
        if have_value:
            have_value = False
            if value == (kind == _ATTACK):
                # an atari that works, or an escape: the node is decided
                d -= 1
                if d < root:
                    return value
                have_value = True
                continue
        if counts[d, 2] == counts[d, 1]:
            # every move tried: an attacker node failed, a defender node lost
            value = kind == _DEFEND
            d -= 1
            if d < root:
                return value
            have_value = True
            continue
        move = moves[d, counts[d, 2]]
        counts[d, 2] += 1
        if kind == _DEFEND and counts[d, 2] == 1 and move != counts[d, 3] and \
                extension_liberties(st[d], gr[d], lb[d], neighbors, gr[d, prey], move, -1,
                                    bits) >= 3:
            value = False  # extending at the last liberty escapes, plainly
            have_value = True
            continue
        mover = attacker if kind == _ATTACK else defender
        if not _legal_on_level(st, gr, li, scratch_hash, seen, neighbors, zobrist, d,
                               move, mover, counts[d, 3]):
            continue
        if budget[0] <= 0 or d + 1 >= LADDER_DEPTH:
            value = False  # read too far: the ladder does not work
            have_value = True
            continue
        budget[0] -= 1
        ko = _play_on_level(st, gr, nx, sz, li, lb, scratch_hash, hash_box, neighbors,
                            zobrist, d, move, mover)
        after = li[d + 1, gr[d + 1, prey]]
        if kind == _ATTACK:
            if after != 1:
                continue
            d += 1
            counts[d, 0] = _DEFEND
            counts[d, 1] = _defender_options(st, gr, nx, li, lb, neighbors, d, prey,
                                             attacker, moves[d])
            counts[d, 2] = 0
            counts[d, 3] = ko
        elif after >= 3:
            value = False
            have_value = True
        elif after == 2:
            d += 1
            counts[d, 0] = _ATTACK
            counts[d, 1] = _liberty_points(lb[d], gr[d, prey], moves[d])
            counts[d, 2] = 0
            counts[d, 3] = ko
        # after == 1: this option fails; try the next


@njit(cache=True)
def ladder_escapes(st, gr, nx, sz, li, lb, moves, counts, scratch_hash, hash_box, seen,
                   neighbors, zobrist, p, color, preys, count, budget):
    """Whether ``color`` playing ``p`` (in the position of level 0) leaves one
    of the groups of the stones ``preys[:count]``, in atari now, safe from
    capture by ladder."""
    ko = _play_on_level(st, gr, nx, sz, li, lb, scratch_hash, hash_box, neighbors, zobrist,
                        np.int64(0), p, color)
    for i in range(count):
        after = li[1, gr[1, preys[i]]]
        if after >= 3:
            return True
        if after == 2 and not ladder_captures(
                st, gr, nx, sz, li, lb, moves, counts, scratch_hash, hash_box, seen,
                neighbors, zobrist, np.int64(1), ko, np.int64(preys[i]), 3 - color,
                np.int64(-1), budget):
            return True
    return False
