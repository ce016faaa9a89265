"""The playout policy: random games played to the end, to estimate who wins.

A *playout* (a *rollout*) finishes a game from a position with quick random
moves and scores the end with Tromp-Taylor area: the classic Monte Carlo
evaluation of :mod:`mockgo.search.uct`, reached through
:meth:`mockgo.go.board.Board.random_playout`. Two policies, both compiled by
numba and built on the rules' kernels of :mod:`mockgo.go.kernels`
(:func:`~mockgo.go.kernels.check_move`, :func:`~mockgo.go.kernels.place_stone`):

- *light*: sensible moves (legal under simple ko, not filling one's own
  single-point eye) in uniform random order;
- *heavy*: MoGo's rules first (Gelly et al. 2006): answer the opponent's last
  move by a capture or by saving a group it put in atari, and no self-atari
  of two or more stones.
"""

import numpy as np
from numba import njit

from mockgo.go.kernels import (EMPTY, LEGAL, check_move, is_own_eye, ko_after, place_stone,
                               popcount)

__all__ = ["random_playout"]

_ONE = np.uint64(1)


@njit(cache=True)
def _next_random(state):
    """xorshift64*: the playouts' own generator, its state in ``state[0]``
    (a uint64 array), so a playout is reproducible from a seed without
    touching numba's global random state."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(0x2545F4914F6CDD1D)


@njit(cache=True)
def _only_liberty(liberty_bits, head):
    """The point of a group's one liberty (its lowest, if it has more)."""
    for w in range(liberty_bits.shape[1]):
        x = liberty_bits[head, w]
        if x:
            b = 0
            while not (x >> np.uint64(b)) & _ONE:
                b += 1
            return w * 64 + b
    return -1


@njit(cache=True)
def _captures_at(stones, group, liberties, neighbors, p, color):
    """Whether ``color`` playing at ``p`` captures something."""
    for k in range(4):
        q = neighbors[p, k]
        if q < 0:
            break
        if stones[q] == 3 - color and liberties[group[q]] == 1:
            return True
    return False


@njit(cache=True)
def _liberties_after(stones, group, liberty_bits, neighbors, p, color, scratch):
    """Liberties of the group a stone of ``color`` at ``p`` would be part
    of, before any capture: the empty neighbours of ``p`` and the liberties
    of the friendly groups it joins, less ``p`` itself."""
    scratch[:] = 0
    for k in range(4):
        q = neighbors[p, k]
        if q < 0:
            break
        if stones[q] == EMPTY:
            scratch[q >> 6] |= _ONE << np.uint64(q & 63)
        elif stones[q] == color:
            for w in range(len(scratch)):
                scratch[w] |= liberty_bits[group[q], w]
    scratch[p >> 6] &= ~(_ONE << np.uint64(p & 63))
    count = 0
    for w in range(len(scratch)):
        count += popcount(scratch[w])
    return count


@njit(cache=True)
def _joins_friends(stones, neighbors, p, color):
    for k in range(4):
        q = neighbors[p, k]
        if q < 0:
            break
        if stones[q] == color:
            return True
    return False


@njit(cache=True)
def _answer_to(stones, group, liberties, liberty_bits, group_hash, neighbors, zobrist,
               hash_box, last, color, ko, random_state, no_seen, scratch, candidates):
    """A move that answers the opponent's move at ``last`` (the first of
    MoGo's playout rules): capture an opponent group in atari at or next to
    it, or save a friendly group it put in atari by playing that group's
    last liberty when this gives it two or more. One of them at random, or
    -1 if there is none. ``no_seen``, ``scratch``, ``candidates``: the
    playout's work arrays (superko's unused table, a liberty bitset, room for
    five moves), made once per playout, not once per move."""
    count = 0
    for k in range(5):
        q = last if k == 4 else neighbors[last, k]
        if q < 0 or stones[q] == EMPTY or liberties[group[q]] != 1:
            continue
        target = _only_liberty(liberty_bits, group[q])
        if stones[q] == color and not _captures_at(stones, group, liberties, neighbors, target,
                                                   color) \
                and _liberties_after(stones, group, liberty_bits, neighbors, target, color,
                                     scratch) < 2:
            continue  # running would not help
        if target == ko or check_move(stones, group, liberties, group_hash, no_seen, neighbors,
                                      zobrist, hash_box[0], target, color, ko, False) != LEGAL:
            continue
        candidates[count] = target
        count += 1
    if count == 0:
        return -1
    return candidates[np.int64(_next_random(random_state) % np.uint64(count))]


@njit(cache=True)
def random_playout(stones, group, next_stone, group_size, liberties, liberty_bits, group_hash,
                   neighbors, diagonals, zobrist, hash_box, color, ko, passes, max_moves,
                   random_state, moves_out, first, last, heavy):
    """Play random sensible moves in place until two passes in a row or
    ``max_moves`` moves; the moves (``n`` for a pass) go to ``moves_out``.
    Returns the number of moves played. ``first``: a move to play before
    the random ones (known legal; ``n`` passes), or -1. ``last``: the move
    before the playout (-1 if none or a pass).

    ``heavy``: MoGo's playout rules (Gelly et al. 2006) before the random
    choice: answer the opponent's last move by a capture or by saving a
    group it put in atari (``_answer_to``), and never play a move that
    leaves a group of two or more stones in atari without capturing
    (self-atari). The random games then look a little more like Go, and
    their results say more about the position.

    Each move tries the empty points in random order and plays the first that
    is legal under simple ko and does not fill the mover's own single-point
    eye; with none left the player passes. The empty points are kept in a
    list (``empty``, with each point's place in it, ``where``), so a move
    costs a few tries, not a scan of the board. Positional superko is not
    checked: a playout is a rough estimate, and the move cap ends any cycle.
    """
    n = len(stones)
    empty = np.empty(n, np.int32)
    where = np.full(n, -1, np.int32)
    count = 0
    for p in range(n):
        if stones[p] == EMPTY:
            empty[count] = p
            where[p] = count
            count += 1
    no_seen = np.zeros(1, np.uint64)  # superko is off: the table is never read
    scratch = np.zeros(liberty_bits.shape[1], np.uint64)
    candidates = np.empty(5, np.int64)
    played = 0
    while played < max_moves and passes < 2:
        tries = 0 if played == 0 and first >= 0 else count
        move = first if played == 0 and first >= 0 else n
        if heavy and tries > 0 and last >= 0:
            answer = _answer_to(stones, group, liberties, liberty_bits, group_hash, neighbors,
                                zobrist, hash_box, last, color, ko, random_state, no_seen,
                                scratch, candidates)
            if answer >= 0:
                move = answer
                tries = 0
        while tries > 0:
            i = np.int64(_next_random(random_state) % np.uint64(tries))
            p = empty[i]
            if p != ko and not is_own_eye(stones, neighbors, diagonals, p, color) and \
                    check_move(stones, group, liberties, group_hash, no_seen, neighbors, zobrist,
                               hash_box[0], p, color, ko, False) == LEGAL and \
                    not (heavy and _joins_friends(stones, neighbors, p, color)
                         and not _captures_at(stones, group, liberties, neighbors, p, color)
                         and _liberties_after(stones, group, liberty_bits, neighbors, p, color,
                                              scratch) < 2):
                move = p
                break
            # Not playable now: move it behind the points still to try.
            tries -= 1
            q = empty[tries]
            empty[tries] = p
            empty[i] = q
            where[p] = tries
            where[q] = i
        if move == n:
            passes += 1
            ko = -1
        else:
            passes = 0
            captured = place_stone(stones, group, next_stone, group_size, liberties,
                                   liberty_bits, group_hash, neighbors, zobrist, hash_box,
                                   move, color)
            ko = ko_after(stones, group, group_size, liberties, neighbors, move, captured)
            if captured:  # rare: list the empty points again
                count = 0
                for q in range(n):
                    if stones[q] == EMPTY:
                        empty[count] = q
                        where[q] = count
                        count += 1
            else:  # take the point out of the list
                count -= 1
                i = where[move]
                last = empty[count]
                empty[i] = last
                where[last] = i
                where[move] = -1
        moves_out[played] = move
        played += 1
        last = move if move != n else -1
        color = 3 - color
    return played
