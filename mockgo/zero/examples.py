"""The file of self-play examples: what self-play writes and training reads.

One ``.npz`` file a batch of games (and one a training chunk), written
atomically (:func:`mockgo.data.files.atomic_open`), rows in game order, move
order within a game:

============  ======================  ==========================================
array         shape, dtype            what
============  ======================  ==========================================
planes        (n, N, N, 17) uint8     the position, ``agz17`` planes
pi            (n, N*N+1) float32      the root's visit distribution (the pass last)
z             (n,) float32            the game's result for the player to move:
                                      +1 won, -1 lost, 0 a draw
game          (n,) int32              the game's number in its job
move          (n,) int16              the move number of the position
ownership     (n, N*N) int8           each point's owner at the end, for the
                                      player to move: +1 theirs, -1 the
                                      opponent's, 0 no one's
score         (n,) float32            the final margin for the player to move
aux_weight    (n,) float32            1 where the game was scored at its end, 0
                                      (resigned, move cap): no ownership and
                                      score targets there
size          () int32                N (batch files only)
============  ======================  ==========================================

Self-play (:mod:`mockgo.zero.selfplay`) writes them with :func:`stack_games`
and :func:`save_npz`; training (:mod:`mockgo.zero.train`) reads them with
:func:`load_targets`; :func:`find_example` shows one with its position.
"""

import numpy as np

from mockgo.data import sgf_reader
from mockgo.data.files import CorruptFileError, atomic_open, read_npz

__all__ = ["EXAMPLE_ARRAYS", "find_example", "load_examples", "load_targets", "save_npz",
           "stack_games"]

#: What load_targets returns, and what a training chunk holds.
EXAMPLE_ARRAYS = ("planes", "pi", "z", "game", "ownership", "score", "aux_weight")


def stack_games(games):
    """The examples file's arrays (module docstring) of finished games
    (:class:`mockgo.zero.selfplay.SelfPlayGame`), one after another."""
    size = games[0].board.size
    counts = [len(g.z) for g in games]
    return {
        "planes": np.concatenate([g.planes for g in games]),
        "pi": np.concatenate([g.pi for g in games]),
        "z": np.concatenate([g.z for g in games]),
        "game": np.repeat([g.number for g in games], counts).astype(np.int32),
        "move": np.concatenate([g.moves for g in games]).astype(np.int16),
        "ownership": np.concatenate([g.ownership for g in games]).astype(np.int8),
        "score": np.concatenate([g.score for g in games]).astype(np.float32),
        "aux_weight": np.repeat([g.aux_weight for g in games], counts).astype(np.float32),
        "size": np.int32(size),
    }


def save_npz(path, arrays):
    """Write ``arrays`` (a dict) to ``path`` atomically, compressed."""
    with atomic_open(path, "wb") as file:
        np.savez_compressed(file, **arrays)


def load_examples(paths):
    """Concatenate example files: ``(planes, pi, z, game)`` arrays."""
    loaded = load_targets(paths)
    return None if loaded is None else tuple(loaded[k] for k in ("planes", "pi", "z", "game"))


def load_targets(paths):
    """Concatenate example files: a dict of :data:`EXAMPLE_ARRAYS`. Files
    written before the ownership and score targets existed give zeros there
    with ``aux_weight`` 0 (they train the policy and value only)."""
    parts = []
    for path in paths:  # a damaged file is an error naming it (files.read_npz)
        data = read_npz(path)
        missing = [k for k in ("planes", "pi", "z", "game") if k not in data]
        if missing:
            raise CorruptFileError(f"{path} is not a file of self-play examples: it has no "
                                   f"{', '.join(missing)}")
        if "aux_weight" not in data:
            n, points = len(data["z"]), data["pi"].shape[1] - 1  # pi: N*N points and the pass
            data.update(ownership=np.zeros((n, points), np.int8),
                        score=np.zeros(n, np.float32), aux_weight=np.zeros(n, np.float32))
        parts.append(data)
    if not parts:
        return None
    return {k: np.concatenate([part[k] for part in parts]) for k in EXAMPLE_ARRAYS}


def find_example(layout, player, job, game=0, move=8):
    """One training example of a self-play job, with its position:
    ``{"board", "pi", "z", "comment"}``: the Board replayed from the game's
    full SGF, and the search's comment on the move. ``layout`` is the run's
    :class:`mockgo.zero.layout.RunLayout`, ``player`` and ``job`` name the
    model that played and the job. With playout cap randomization only the
    full searches are examples: the first at or after ``move`` (else the
    game's last) is shown; the holdout files are looked in after the
    training files."""
    move, pi, z = _example_row(layout, player, job, game, move)
    record = sgf_reader.load_sgf(layout.sgf(player, job, game, "full"))
    board = next(board for board, _, _ in sgf_reader.replay(record) if board.move_number == move)
    return {"board": board.copy(), "pi": pi, "z": z, "comment": record.comments[move]}


def _example_row(layout, player, job, game, move):
    """The move number, pi and z of :func:`find_example`'s example."""
    for holdout in (False, True):
        for path in layout.examples(player, job, holdout=holdout):
            data = read_npz(path, ["game", "move", "pi", "z"])
            rows = np.flatnonzero(data["game"] == game)
            if len(rows):
                later = rows[data["move"][rows] >= move]
                row = later[0] if len(later) else rows[-1]
                return int(data["move"][row]), data["pi"][row], float(data["z"][row])
    raise ValueError(f"no examples of game {game} in {player}'s job {job}")
