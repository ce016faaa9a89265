"""The random player: uniform over ``board.sensible_moves()`` (legal and not
filling its own single-point eyes), passing when there is none; the
baseline, rated 0 on the ladder (spec ``random``, ``random:seed=3``)."""

import numpy as np

from mockgo.play.analysts import PolicyAnalyst
from mockgo.play.player import Choices, Player
from mockgo.play.sampling import sample_moves

__all__ = ["RandomPlayer", "uniform_priors"]


def uniform_priors(board):
    """The random player's policy on ``board``: uniform over the sensible
    moves (the pass when there is none), N*N + 1 probabilities."""
    return _uniform_over_points(board.sensible_moves()[None])[0]


def _uniform_over_points(masks):
    """Rows of move probabilities: uniform over each mask's points, all on
    pass for a row with none."""
    points = masks[:, :-1]
    counts = points.sum(axis=1, keepdims=True)
    out = np.zeros(masks.shape, np.float64)
    out[:, :-1] = points / np.maximum(counts, 1)
    out[:, -1] = counts[:, 0] == 0
    return out


class RandomPlayer(Player):
    """Uniform over the sensible moves (legal, not filling its own
    single-point eye); passes only when there is none. The usual baseline:
    rated 0 on the ladder. ``seed``: mixed into every game's seed."""

    def __init__(self, seed=None, name=None):
        self.seed = seed
        self.name = name or "random"

    def group_key(self):
        return ("random",)

    def choose(self, turns):
        masks = np.stack([turn.mask for turn in turns])
        moves, log_probs = sample_moves(_uniform_over_points(masks), [t.rng for t in turns])
        return Choices(moves, log_probs)

    def analyst(self, board, rng, limit):
        """Its policy, uniform over the sensible moves, as candidates."""
        return PolicyAnalyst(uniform_priors, board)
