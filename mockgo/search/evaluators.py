"""Evaluators: what a tree search (:mod:`mockgo.search.mcts`) asks about the
positions it reaches::

    priors, values = evaluate(states)    # priors [B, num_actions], values [B]

``values[i]`` is the expected result for the player to move in ``states[i]``
(+1 win, -1 loss). :func:`uniform_evaluator` knows nothing (the search is
then plain PUCT on exact terminal values), :func:`random_rollout_evaluator`
plays one random game from each position, and :class:`NetworkEvaluator` asks
a dual network, many positions in one call.
"""

import time

import numpy as np

from mockgo.go import symmetries

__all__ = ["NetworkEvaluator", "random_rollout_evaluator", "uniform_evaluator"]


def uniform_evaluator(states):
    """Every action equally likely, every position even (value 0): the search
    is then plain PUCT on exact terminal values, and costs only its own time."""
    num_actions = states[0].num_actions
    return np.full((len(states), num_actions), 1.0 / num_actions), np.zeros(len(states))


def random_rollout_evaluator(rng, max_moves=1000):
    """Uniform priors, and the value of one random playout from each state
    (to the end, or ``max_moves`` moves, scored 0). For tests and small games
    only: AlphaGo Zero uses no rollouts, and each move of a playout copies the
    state, which is slow for Go."""
    def evaluate(states):
        values = np.zeros(len(states))
        for i, state in enumerate(states):
            end, moves = state, 0
            while not end.is_terminal() and moves < max_moves:
                end = end.play(rng.choice(np.flatnonzero(end.legal_actions())))
                moves += 1
            if end.is_terminal():
                value = end.terminal_value()
                values[i] = value if end.to_play == state.to_play else -value
        return uniform_evaluator(states)[0], values
    return evaluate


class NetworkEvaluator:
    """The search's evaluator for a dual network: GoGame states to (priors,
    values) in one call of a compiled :class:`mockgo.nets.inference.Predictor`.

    ``model``: a Keras dual network, the path of one, or a Predictor to
    share; ``encoder``: its planes (default: what the network records,
    :mod:`mockgo.nets.io`). The positions are encoded with ``encode_into``
    into a preallocated batch; with ``random_symmetry`` each is turned by a
    random one of the 8 symmetries (AlphaGo Zero, Methods), and its policy
    turned back. The priors are masked to the legal moves and renormalised
    (``Predictor.policy_and_value``). ``evaluations``, ``calls`` and
    ``network_seconds`` count the work, for the speed figures.
    """

    def __init__(self, model, batch_size=256, random_symmetry=True, seed=None, encoder=None):
        from mockgo.nets.inference import \
            network_input  # TensorFlow: imported only when a network is used

        self.predictor, self.encoder = network_input(model, encoder, batch_size)
        if not self.predictor.is_dual:
            raise ValueError(f"{self.predictor.model.name} is not a dual (policy and value) "
                             f"network: a search needs both")
        self.size = self.encoder.size
        self.random_symmetry = random_symmetry
        self.rng = np.random.default_rng(seed)
        self._planes = np.zeros((batch_size, *self.encoder.shape), np.uint8)
        self._legal = np.zeros((batch_size, self.size * self.size + 1), bool)
        self.calls = self.evaluations = 0
        self.network_seconds = 0.0

    def __call__(self, states):
        n = len(states)
        if n > len(self._planes):
            self._planes = np.zeros((n, *self.encoder.shape), np.uint8)
            self._legal = np.zeros((n, self.size * self.size + 1), bool)
        planes, legal = self._planes[:n], self._legal[:n]
        for i, state in enumerate(states):
            self.encoder.encode_into(state.board, planes[i])
            legal[i] = state.legal_actions()
        if self.random_symmetry:
            syms = self.rng.integers(0, 8, n)
            planes, legal = planes.copy(), legal.copy()
            for sym in np.unique(syms):
                rows = np.flatnonzero(syms == sym)
                planes[rows] = symmetries.apply_to_planes(sym, planes[rows])
                legal[rows] = symmetries.apply_to_policy(sym, legal[rows], self.size)
        start = time.perf_counter()
        priors, values = self.predictor.policy_and_value(planes, legal)
        self.network_seconds += time.perf_counter() - start
        if self.random_symmetry:
            for sym in np.unique(syms):
                rows = np.flatnonzero(syms == sym)
                priors[rows] = symmetries.apply_to_policy(symmetries.inverse(sym), priors[rows],
                                                          self.size)
        self.calls += 1
        self.evaluations += n
        return priors, values
