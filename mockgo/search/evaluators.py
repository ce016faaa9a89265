"""Evaluators: what a tree search (:mod:`mockgo.search.mcts`) asks about the
positions it reaches::

    priors, values = evaluate(states)    # priors [B, num_actions], values [B]

``values[i]`` is the expected result for the player to move in ``states[i]``
(+1 win, -1 loss). :func:`uniform_evaluator` knows nothing (the search is
then plain PUCT on exact terminal values), :func:`random_rollout_evaluator`
plays one random game from each position, :class:`NetworkEvaluator` asks
a dual network (AlphaGo Zero), many positions in one call, and
:class:`AlphaGoEvaluator` asks AlphaGo's two networks and fast rollouts.
"""

import os
import time

import numpy as np

from mockgo.go import symmetries
from mockgo.search.uct import go_playout

__all__ = ["AlphaGoEvaluator", "NetworkEvaluator", "random_rollout_evaluator",
           "uniform_evaluator"]


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
    ``network_seconds`` count the work, for the speed figures. ``options``:
    the Predictor's (``jit_compile``, ``precision``).
    """

    def __init__(self, model, batch_size=256, random_symmetry=True, seed=None, encoder=None,
                 **options):
        from mockgo.nets.inference import \
            network_input  # TensorFlow: imported only when a network is used

        self.predictor, self.encoder = network_input(model, encoder, batch_size, **options)
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
            points = self.size * self.size
            planes = symmetries.apply_to_batch(
                syms, planes.reshape(n, points, -1), self.size).reshape(planes.shape)
            legal = symmetries.apply_to_batch(syms, legal, self.size)
        start = time.perf_counter()
        priors, values = self.predictor.policy_and_value(planes, legal)
        self.network_seconds += time.perf_counter() - start
        if self.random_symmetry:
            priors = symmetries.apply_to_batch(symmetries.INVERSES[syms], priors, self.size)
        self.calls += 1
        self.evaluations += n
        return priors, values


class AlphaGoEvaluator:
    """AlphaGo's leaf evaluation (Silver et al. 2016, "Mastering the game of
    Go with deep neural networks and tree search"): the priors are a policy
    network's move probabilities (notebook 01's SL policy, or 03's RL one:
    the paper found the SL policy the better prior, its moves more diverse),
    and a leaf's value mixes the value network's v (notebook 02) with the
    result z of one fast rollout to the end of the game::

        V = (1 - mix) * v + mix * z        (the paper's lambda; it used 0.5)

    ``mix=0``: the value network alone (no rollouts); ``mix=1``: rollouts
    alone (no value network needed). AlphaGo's rollouts used a fast linear
    policy of local patterns; here they are uniform over the sensible moves
    (:meth:`mockgo.go.board.Board.random_playout`, compiled), scored by area;
    ``heavy=True`` plays MoGo's rules first (answer an atari, no self-atari),
    the closest thing here to AlphaGo's patterns (notebook 02 measures how
    well each kind of rollout, and the value network, predicts a game's result).
    ``precision``: the networks' (:class:`mockgo.nets.inference.Predictor`):
    ``"bfloat16"`` made this search 1.38 times as fast with sl-19 and value-19
    on a 2-core CPU with bfloat16 instructions (859 readouts/s against 622,
    16 leaves a call), the policy choosing the same move as in float32 in 324
    of 327 positions of sl-19's games against GnuGo, the values within 0.0064
    (``benchmarks/precision.py``, beside a running match).

    ``policy``, ``value``: Keras models or paths (their encoders are the ones
    they record: alphago48 and alphago49); the positions of one call go
    through each network in one batch. Either may be a dual network
    (AlphaGo Zero's, such as ``zero-9``): its policy head gives the priors,
    its value head v; given as both (the same path), it answers both in one
    call. So the mixing of a value with rollouts can be measured on 9x9,
    where no AlphaGo value network ships. A policy without a pass output gives
    the pass a prior of 0 unless nothing else is legal (the player decides
    when to pass: :func:`mockgo.go.ownership.should_pass`). ``seed``: the
    rollouts' generator. ``evaluations``, ``calls``, ``network_seconds`` and
    ``rollout_seconds`` count the work.
    """

    def __init__(self, policy, value=None, mix=0.0, batch_size=256, seed=None, heavy=False,
                 precision="float32"):
        from mockgo.nets.inference import \
            network_input  # TensorFlow: imported only when a network is used

        if not 0.0 <= mix <= 1.0:
            raise ValueError(f"mix (lambda) must be in [0, 1], not {mix}")
        if value is None and mix < 1.0:
            raise ValueError("without a value network the leaf value is the rollout's "
                             "alone: give value= or mix=1")
        self.policy, self.policy_encoder = network_input(policy, None, batch_size,
                                                         precision=precision)
        self.size = self.policy_encoder.size
        self.value = self.value_encoder = None
        # One dual network for both: its one call gives the priors and v.
        self.shared = self.policy.is_dual and value is not None and mix < 1.0 and (
            value is policy or (isinstance(value, (str, os.PathLike)) and
                                isinstance(policy, (str, os.PathLike)) and
                                os.path.realpath(value) == os.path.realpath(policy)))
        if self.shared:
            self.value, self.value_encoder = self.policy, self.policy_encoder
        elif value is not None and mix < 1.0:
            self.value, self.value_encoder = network_input(value, None, batch_size,
                                                           precision=precision)
            if self.value_encoder.size != self.size:
                raise ValueError(f"the value network plays {self.value_encoder.size}x"
                                 f"{self.value_encoder.size}, the policy {self.size}x{self.size}")
        self.mix = float(mix)
        self.heavy = bool(heavy)
        rng = np.random.default_rng(seed)
        self._rollout_state = np.array([rng.integers(1, 2**63)], np.uint64)
        self.calls = self.evaluations = 0
        self.network_seconds = self.rollout_seconds = 0.0

    def _encode(self, encoder, states):
        planes = np.zeros((len(states), *encoder.shape), np.uint8)
        for i, state in enumerate(states):
            encoder.encode_into(state.board, planes[i])
        return planes

    def __call__(self, states):
        from mockgo.nets.inference import masked_policy  # lazy: it imports Keras

        legal = np.stack([np.asarray(state.legal_actions(), bool) for state in states])
        start = time.perf_counter()
        outputs = self.policy.predict(self._encode(self.policy_encoder, states))
        priors = masked_policy(outputs[0] if self.policy.is_dual else outputs, legal)
        values = np.zeros(len(states))
        if self.value is not None:
            v = outputs if self.shared else self.value.predict(
                self._encode(self.value_encoder, states))
            v = v[1] if self.value.is_dual else v
            values += (1.0 - self.mix) * np.asarray(v, np.float64).reshape(len(states))
        self.network_seconds += time.perf_counter() - start
        if self.mix > 0:
            start = time.perf_counter()
            for i, state in enumerate(states):
                z, _ = go_playout(state, self._rollout_state, heavy=self.heavy)  # +1, -1 or 0
                values[i] += self.mix * z
            self.rollout_seconds += time.perf_counter() - start
        self.calls += 1
        self.evaluations += len(states)
        return priors, values
