"""The 8 symmetries of the square board, for data augmentation.

A Go position means the same thing rotated or reflected, so a network can
learn from all 8 versions of each training position (AlphaGo, AlphaGo Zero),
and a search can evaluate a random one of them. A symmetry is an int from 0
to 7 (``SYMMETRIES``; ``SYMMETRY_NAMES`` says which is which):

- 0 to 3: rotate the board counter-clockwise by 0, 90, 180 or 270 degrees;
- 4 to 7: the same rotation, then a mirror image left to right.

Planes and moves are transformed together: for every symmetry ``sym``, the
move ``apply_to_moves(sym, m, size)`` is where the 1 of the one-hot plane of
``m`` lands after ``apply_to_planes(sym, plane)``; pass stays pass.

    >>> planes = np.zeros((19, 19, 1)); planes[0, 1, 0] = 1  # the move 1
    >>> turned = apply_to_planes(1, planes)
    >>> int(np.flatnonzero(turned[..., 0])[0]) == apply_to_moves(1, 1, 19)
    True
"""

import functools

import numpy as np

SYMMETRIES = tuple(range(8))
SYMMETRY_NAMES = ("identity", "rot90", "rot180", "rot270",
                  "flip", "rot90+flip", "rot180+flip", "rot270+flip")
# INVERSES[sym] undoes sym (:func:`inverse`), as an array to index with many.
INVERSES = np.array([0, 3, 2, 1, 4, 5, 6, 7])


def _check(sym):
    if sym not in SYMMETRIES:
        raise ValueError(f"a symmetry is an int from 0 to 7, got {sym!r}")
    return int(sym)


def inverse(sym):
    """The symmetry that undoes ``sym``: rotations undo each other, and each
    reflection is its own inverse."""
    sym = _check(sym)
    return (4 - sym) % 4 if sym < 4 else sym


def compose(first, second):
    """The symmetry that does ``first`` and then ``second``."""
    table = _composition_table()
    return int(table[_check(first), _check(second)])


def random_symmetry(rng=None):
    """One of the 8 symmetries, uniformly; ``rng`` is a numpy Generator or
    RandomState, or a ``random.Random`` (default: numpy's global state)."""
    if rng is None:
        return int(np.random.randint(8))
    if hasattr(rng, "integers"):
        return int(rng.integers(8))
    if hasattr(rng, "randrange"):
        return rng.randrange(8)
    return int(rng.randint(8))


def apply_to_planes(sym, planes):
    """Rotate and reflect planes shaped ``(..., N, N, C)`` (a view where
    numpy can, so copy before writing to it)."""
    sym = _check(sym)
    turned = np.rot90(planes, sym % 4, axes=(-3, -2))
    if sym >= 4:
        turned = np.flip(turned, axis=-2)
    return turned


def apply_to_moves(sym, moves, size):
    """Transform flat move indices (``size * size`` is pass and stays pass):
    an int gives an int, an array of ints an array."""
    table = _move_table(_check(sym), size)
    if isinstance(moves, (int, np.integer)):
        return int(table[moves])
    return table[np.asarray(moves)]


def apply_to_policy(sym, policy, size):
    """Transform probability vectors shaped ``(..., size * size + 1)`` (the
    last entry is pass), so the probability of move ``m`` ends up at
    ``apply_to_moves(sym, m, size)``."""
    table = _move_table(_check(sym), size)
    policy = np.asarray(policy)
    out = np.empty_like(policy)
    out[..., table] = policy
    return out


def apply_to_batch(syms, x, size):
    """Turn each row of a batch by its own symmetry: ``x`` is shaped
    ``(batch, size * size + 1, ...)`` (policies, legal-move masks: pass
    last) or ``(batch, size * size, ...)`` (planes with their points
    flattened), ``syms`` holds one symmetry per row. Row ``b`` of the result
    is ``apply_to_policy(syms[b], x[b], size)`` (for planes,
    ``apply_to_planes``), made by one gather for the whole batch instead of
    one call per symmetry."""
    x = np.ascontiguousarray(x)
    table = _gather_table(size)[np.asarray(syms)]  # table[b, new] = old
    moves = x.shape[1]
    if moves == size * size:
        table = table[:, :-1]
    # Flat row numbers, so that one take along the first axis of a
    # (batch * moves, ...) view does it: several times faster than indexing
    # with a pair of index arrays.
    rows = (np.arange(len(x))[:, np.newaxis] * moves + table).ravel()
    return x.reshape(len(x) * moves, *x.shape[2:]).take(rows, axis=0).reshape(x.shape)


@functools.lru_cache(maxsize=None)
def _gather_table(size):
    """``(8, size * size + 1)``: row ``sym`` is the inverse of
    :func:`_move_table`'s, the move each move of the turned board came from."""
    table = np.empty((8, size * size + 1), np.int64)
    for sym in SYMMETRIES:
        table[sym, _move_table(sym, size)] = np.arange(size * size + 1)
    table.setflags(write=False)
    return table


@functools.lru_cache(maxsize=None)
def _move_table(sym, size):
    """``table[m]``: where the move ``m`` goes, read off the transformed
    plane of move indices so moves and planes cannot disagree."""
    n = size * size
    index = np.arange(n).reshape(size, size, 1)
    landed = apply_to_planes(sym, index).reshape(n)  # landed[new] = old
    table = np.empty(n + 1, np.int64)
    table[landed] = np.arange(n)
    table[n] = n
    table.setflags(write=False)
    return table


@functools.lru_cache(maxsize=None)
def _composition_table():
    probe = np.arange(9).reshape(3, 3, 1)
    results = {apply_to_planes(s, probe).tobytes(): s for s in SYMMETRIES}
    table = np.empty((8, 8), np.int64)
    for a in SYMMETRIES:
        for b in SYMMETRIES:
            table[a, b] = results[apply_to_planes(b, apply_to_planes(a, probe)).tobytes()]
    return table


def symmetry_tables(size):
    """The 8 symmetries as index tables, to transform a whole batch at once,
    each position its own way: a point's planes come from ``gather[s]``
    (flat points) and a move goes to ``moves[s]`` (pass, ``size * size``,
    stays pass)."""
    n = size * size
    points = np.arange(n).reshape(size, size, 1)
    gather = np.array([apply_to_planes(s, points).reshape(n) for s in SYMMETRIES])
    moves = np.array([apply_to_moves(s, np.arange(n + 1), size) for s in SYMMETRIES])
    return gather, moves
