"""The rules' compiled inner loops: the kernels that play a move, check one
move's legality or every point's, and score a position.

They work on the flat arrays of a position described at the top of
:mod:`mockgo.go.board` (``stones``, ``group``, ``next_stone``, ``group_size``,
``liberties``, ``liberty_bits``, ``group_hash``, the table of ``seen``
positions) and are plain Python compiled by numba: read them as Python, they
run as machine code. :class:`mockgo.go.board.Board` calls them; so does the
compiled code built on the rules (the playouts of :mod:`mockgo.go.playout`,
the ladder reader of :mod:`mockgo.go.ladders`, the feature planes of
:mod:`mockgo.go.features`), through the public ones: popcount, check_move
(one move's legality), legal_mask (every point's), place_stone, ko_after,
is_own_eye.
"""

import numpy as np
from numba import njit

#: What a point holds: nothing, a black stone or a white one (the Board's colours).
EMPTY, BLACK, WHITE = 0, 1, 2

#: Why a move is illegal: the codes check_move returns (and GAME_OVER, the
#: Board's, for a move after a resignation).
LEGAL, OCCUPIED, SUICIDE, KO, SUPERKO, GAME_OVER = 0, 1, 2, 3, 4, 5

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_ONE = np.uint64(1)


@njit(cache=True)
def popcount(x):
    """The number of bits set in a uint64 (a word of a liberty bitset)."""
    x = x - ((x >> np.uint64(1)) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return np.int64((x * _H01) >> np.uint64(56))


@njit(cache=True)
def seen_contains(seen, key):
    """Whether the open-addressing table ``seen`` holds the position hash ``key``."""
    mask = len(seen) - 1
    slot = np.int64(key & np.uint64(mask))
    while seen[slot] != 0:
        if seen[slot] == key:
            return True
        slot = (slot + 1) & mask
    return False


@njit(cache=True)
def seen_add(seen, key):
    """Add a position hash to the open-addressing table; True if it was new."""
    mask = len(seen) - 1
    slot = np.int64(key & np.uint64(mask))
    while seen[slot] != 0:
        if seen[slot] == key:
            return False
        slot = (slot + 1) & mask
    seen[slot] = key
    return True


@njit(cache=True)
def check_move(stones, group, liberties, group_hash, seen, neighbors, zobrist,
               position_hash, p, color, ko, superko):
    """Why the move at ``p`` is illegal for ``color``, or LEGAL."""
    if stones[p] != EMPTY:
        return OCCUPIED
    if p == ko:
        return KO
    has_liberty = False
    captures = False
    new_hash = position_hash ^ zobrist[color, p]
    for k in range(4):
        n = neighbors[p, k]
        if n < 0:
            break
        s = stones[n]
        if s == EMPTY:
            has_liberty = True
        elif s == color:
            if liberties[group[n]] > 1:
                has_liberty = True
        elif liberties[group[n]] == 1:
            g = group[n]
            counted = False  # two neighbours may belong to the same group
            for j in range(k):
                m = neighbors[p, j]
                if stones[m] == s and group[m] == g:
                    counted = True
            if not counted:
                captures = True
                new_hash ^= group_hash[g]
    if not has_liberty and not captures:
        return SUICIDE
    if superko and seen_contains(seen, new_hash):
        return SUPERKO
    return LEGAL


@njit(cache=True)
def _merge(a, b, group, next_stone, group_size, liberties, liberty_bits, group_hash):
    """Join groups ``a`` and ``b``; the larger one's head stays. Returns it."""
    if group_size[a] < group_size[b]:
        a, b = b, a
    s = b
    while True:
        group[s] = a
        s = next_stone[s]
        if s == b:
            break
    # Splice the two rings into one.
    next_a = next_stone[a]
    next_stone[a] = next_stone[b]
    next_stone[b] = next_a
    group_size[a] += group_size[b]
    group_hash[a] ^= group_hash[b]
    count = 0
    for w in range(liberty_bits.shape[1]):
        liberty_bits[a, w] |= liberty_bits[b, w]
        count += popcount(liberty_bits[a, w])
    liberties[a] = count
    return a


@njit(cache=True)
def _remove_group(head, stones, group, next_stone, liberties, liberty_bits,
                  neighbors, zobrist, hash_box):
    """Take a captured group off the board; its points become liberties of
    the capturing groups around it. Returns the number of stones taken."""
    captured_color = stones[head]
    taken = 0
    s = head
    while True:
        stones[s] = EMPTY
        group[s] = -1
        hash_box[0] ^= zobrist[captured_color, s]
        taken += 1
        word, bit = s >> 6, _ONE << np.uint64(s & 63)
        for k in range(4):
            n = neighbors[s, k]
            if n < 0:
                break
            if stones[n] != EMPTY and stones[n] != captured_color:
                g = group[n]
                if not liberty_bits[g, word] & bit:
                    liberty_bits[g, word] |= bit
                    liberties[g] += 1
        s = next_stone[s]
        if s == head:
            break
    return taken


@njit(cache=True)
def place_stone(stones, group, next_stone, group_size, liberties, liberty_bits,
                group_hash, neighbors, zobrist, hash_box, p, color):
    """Put a stone on an empty point, merge it with its friends and take
    opponent groups left without liberties. Legality is checked elsewhere.
    Returns the number of stones captured."""
    stones[p] = color
    hash_box[0] ^= zobrist[color, p]
    word, bit = p >> 6, _ONE << np.uint64(p & 63)
    # The point stops being a liberty of the groups around it.
    for k in range(4):
        n = neighbors[p, k]
        if n < 0:
            break
        if stones[n] != EMPTY:
            g = group[n]
            if liberty_bits[g, word] & bit:
                liberty_bits[g, word] &= ~bit
                liberties[g] -= 1
    # A new group of one stone...
    group[p] = p
    next_stone[p] = p
    group_size[p] = 1
    group_hash[p] = zobrist[color, p]
    liberty_bits[p, :] = 0
    count = 0
    for k in range(4):
        n = neighbors[p, k]
        if n < 0:
            break
        if stones[n] == EMPTY:
            liberty_bits[p, n >> 6] |= _ONE << np.uint64(n & 63)
            count += 1
    liberties[p] = count
    # ...joined to the friendly groups it touches...
    for k in range(4):
        n = neighbors[p, k]
        if n < 0:
            break
        if stones[n] == color and group[n] != group[p]:
            _merge(group[p], group[n], group, next_stone, group_size, liberties,
                   liberty_bits, group_hash)
    # ...and opponent groups it leaves without liberties are captured.
    captured = 0
    for k in range(4):
        n = neighbors[p, k]
        if n < 0:
            break
        if stones[n] == 3 - color and liberties[group[n]] == 0:
            captured += _remove_group(group[n], stones, group, next_stone, liberties,
                                      liberty_bits, neighbors, zobrist, hash_box)
    return captured


@njit(cache=True)
def play_move(stones, group, next_stone, group_size, liberties, liberty_bits, group_hash,
          seen, neighbors, zobrist, hash_box, p, color, ko, superko):
    """Play a stone if it is legal. Returns (LEGAL or the reason it is
    illegal, stones captured, the new ko point or -1)."""
    reason = check_move(stones, group, liberties, group_hash, seen, neighbors, zobrist,
                        hash_box[0], p, color, ko, superko)
    if reason != LEGAL:
        return reason, 0, ko
    captured = place_stone(stones, group, next_stone, group_size, liberties,
                           liberty_bits, group_hash, neighbors, zobrist, hash_box, p, color)
    seen_add(seen, hash_box[0])
    return LEGAL, captured, ko_after(stones, group, group_size, liberties, neighbors, p, captured)


@njit(cache=True)
def ko_after(stones, group, group_size, liberties, neighbors, p, captured):
    """Simple ko after a stone at ``p`` took ``captured`` stones: when it
    took one stone, is a lone stone, and has that point as its only liberty,
    the opponent may not take back at once: returns that point, else -1."""
    head = group[p]
    if captured == 1 and group_size[head] == 1 and liberties[head] == 1:
        for k in range(4):
            n = neighbors[p, k]
            if n < 0:
                break
            if stones[n] == EMPTY:
                return n
    return -1


@njit(cache=True)
def is_own_eye(stones, neighbors, diagonals, p, color):
    """A single-point eye of ``color``: every neighbour is its stone, and the
    opponent holds at most one diagonal (none on the edge or in a corner)."""
    if stones[p] != EMPTY:
        return False
    for k in range(4):
        n = neighbors[p, k]
        if n < 0:
            break
        if stones[n] != color:
            return False
    faults = 0
    on_board = 0
    for k in range(4):
        d = diagonals[p, k]
        if d < 0:
            break
        on_board += 1
        if stones[d] == 3 - color:
            faults += 1
    if on_board < 4:
        faults += 1
    return faults < 2


@njit(cache=True)
def two_point_eye_fills(stones, group, liberties, neighbors, color):
    """The points of ``color``'s own two-point eye spaces: an empty point
    whose neighbours are all ``color``'s stones but one, an empty point whose
    other neighbours are all ``color``'s stones too. Filling either point
    never gains: under area scoring the point is ``color``'s already, and it
    takes a liberty and half of an eye. The exception is a neighbouring
    chain in atari, whose last liberty is the point: playing there connects
    it (a false eye, as a single-point eye with an opponent's diagonal is)."""
    n = len(stones)
    fills = np.zeros(n, np.bool_)
    for p in range(n):
        if stones[p] != EMPTY:
            continue
        other = -1
        enclosed = True
        for k in range(4):
            q = neighbors[p, k]
            if q < 0:
                break
            if stones[q] == EMPTY:
                if other >= 0:
                    enclosed = False  # two empty neighbours: a larger space
                other = q
            elif stones[q] != color or liberties[group[q]] < 2:
                enclosed = False
        if not enclosed or other < 0:
            continue
        for k in range(4):
            q = neighbors[other, k]
            if q < 0:
                break
            if q != p and stones[q] != color:
                enclosed = False
        fills[p] = enclosed
    return fills


@njit(cache=True)
def legal_mask(stones, group, liberties, group_hash, seen, neighbors, diagonals, zobrist,
               position_hash, color, ko, superko, skip_own_eyes):
    """Legality of every point at once. The rule is check_move's, written
    out inline: a call per point would cost more than the check itself
    (even with numba's ``inline="always"``, this function ran 2 to 3 times
    slower calling check_move at each point)."""
    n = len(stones)
    mask = np.zeros(n + 1, np.bool_)
    mask[n] = True  # passing is always legal
    for p in range(n):
        if stones[p] != EMPTY or p == ko:
            continue
        has_liberty = False
        captures = False
        own_neighbors = 0
        on_board = 0
        new_hash = position_hash ^ zobrist[color, p]
        for k in range(4):
            q = neighbors[p, k]
            if q < 0:
                break
            on_board += 1
            s = stones[q]
            if s == EMPTY:
                has_liberty = True
            elif s == color:
                own_neighbors += 1
                if liberties[group[q]] > 1:
                    has_liberty = True
            elif liberties[group[q]] == 1:
                g = group[q]
                counted = False
                for j in range(k):
                    m = neighbors[p, j]
                    if stones[m] == s and group[m] == g:
                        counted = True
                if not counted:
                    captures = True
                    new_hash ^= group_hash[g]
        if not has_liberty and not captures:
            continue
        if skip_own_eyes and own_neighbors == on_board:
            # is_own_eye, inline: at most one diagonal fault
            faults = 0
            diagonal_count = 0
            for k in range(4):
                d = diagonals[p, k]
                if d < 0:
                    break
                diagonal_count += 1
                if stones[d] == 3 - color:
                    faults += 1
            if diagonal_count < 4:
                faults += 1
            if faults < 2:
                continue
        if superko and seen_contains(seen, new_hash):
            continue
        mask[p] = True
    return mask


@njit(cache=True)
def owners(stones, neighbors):
    """Each point's Tromp-Taylor owner: its stone's colour, or for an empty
    point the colour that alone borders its empty region (EMPTY if both or
    neither do). One flood fill per empty region."""
    n = len(stones)
    owner = stones.astype(np.int8)
    visited = np.zeros(n, np.bool_)
    stack = np.empty(n, np.int32)
    region = np.empty(n, np.int32)
    for start in range(n):
        if stones[start] != EMPTY or visited[start]:
            continue
        visited[start] = True
        stack[0] = start
        top = 1
        size = 0
        reaches = 0  # bit BLACK and bit WHITE
        while top > 0:
            top -= 1
            p = stack[top]
            region[size] = p
            size += 1
            for k in range(4):
                q = neighbors[p, k]
                if q < 0:
                    break
                if stones[q] == EMPTY:
                    if not visited[q]:
                        visited[q] = True
                        stack[top] = q
                        top += 1
                else:
                    reaches |= stones[q]
        color = reaches if reaches == BLACK or reaches == WHITE else EMPTY
        for i in range(size):
            owner[region[i]] = color
    return owner


@njit(cache=True)
def area(stones, neighbors):
    """Tromp-Taylor area: each colour's stones plus the empty regions that
    reach only that colour. Returns (black area, white area)."""
    owner = owners(stones, neighbors)
    black = 0
    white = 0
    for p in range(len(owner)):
        if owner[p] == BLACK:
            black += 1
        elif owner[p] == WHITE:
            white += 1
    return black, white


@njit(cache=True)
def liberty_map(stones, group, liberties):
    """Each point's group's liberties (0 on an empty point)."""
    out = np.zeros(len(stones), np.int32)
    for p in range(len(stones)):
        if stones[p] != EMPTY:
            out[p] = liberties[group[p]]
    return out


@njit(cache=True)
def group_size_map(stones, group, group_size):
    """Each point's group's size in stones (0 on an empty point)."""
    out = np.zeros(len(stones), np.int32)
    for p in range(len(stones)):
        if stones[p] != EMPTY:
            out[p] = group_size[group[p]]
    return out


@njit(cache=True)
def seen_rehash(old, new):
    """Add every hash of the table ``old`` to the (larger) table ``new``."""
    for key in old:
        if key != 0:
            seen_add(new, key)
