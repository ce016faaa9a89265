"""The policy-network player: a Keras policy network (or the policy head of
a dual network) through a compiled :class:`mockgo.nets.inference.Predictor`,
masked to the sensible moves; greedy at temperature 0, else sampled from
``p ** (1 / T)``. Many positions, one network call (spec ``policy:...``).

TensorFlow is imported when the first :class:`PolicyPlayer` is made, not
when this module is: a GTP game with the random player stays light.

:func:`portable_player` is how a policy player held in memory travels to
worker processes (:mod:`mockgo.cluster`): as a recipe carrying its
network's bytes."""

import os
import time

import numpy as np

from mockgo.cluster import Recipe, ShippedModel
from mockgo.play.analysts import PolicyAnalyst
from mockgo.play.player import Choices, Player, passes_now
from mockgo.play.sampling import check_temperature, sample_moves, temper

__all__ = ["PolicyPlayer", "portable_player"]


class PolicyPlayer(Player):
    """Moves from a policy network, many positions in one network call.

    ``model``: a Keras model, the path of a ``.keras`` file, or a
    :class:`~mockgo.nets.inference.Predictor` to share. A one-output model
    is a policy; of a two-output model (a dual network) the first output,
    the policy, is used. The policy may cover the N*N points (AlphaGo's) or
    N*N + 1 moves (pass last). ``encoder``: the feature planes the network
    was trained on (a name for :func:`mockgo.go.features.get_encoder`), or
    None: the encoder the network records (:mod:`mockgo.nets.io`).

    The policy is masked to the sensible moves and renormalised
    (:func:`~mockgo.nets.inference.masked_policy`); with nothing sensible
    left but the pass, the player passes without asking the network. At
    temperature 0 it plays the most probable move; otherwise it samples from
    ``p ** (1 / temperature)``, normalised; a network without a pass output
    therefore passes only when nothing else is sensible. ``keep_planes``:
    the runner keeps the planes of the positions this player moved in
    (REINFORCE replays them for its update). ``answer_passes``: answer the
    opponent's pass with a pass when playing on cannot gain
    (:func:`mockgo.go.ownership.should_pass`; players made from specs do,
    for matches and GTP; the learning loops' players keep playing until
    nothing sensible is left). TensorFlow is imported when the first
    PolicyPlayer is made, not before.

    ``softpick_moves``: the first moves of a game (those with a move number
    below it) are drawn from the policy at temperature 1 whatever
    ``temperature`` says, as the search players draw theirs by visit count
    (:class:`~mockgo.search.mcts.SearchOptions`). A greedy player against a
    deterministic opponent plays the same few games again and again (the
    raw 9x9 network against GnuGo level 1: 17 different games in 40); its
    own distribution's first moves make each game another, at the price of
    those moves' quality, as for the searches it is compared with.
    """

    def __init__(self, model, encoder=None, temperature=0.0, seed=None, name=None,
                 keep_planes=False, batch_size=1024, answer_passes=False, softpick_moves=0):
        from mockgo.nets.inference import \
            network_input  # TensorFlow: imported only when a network is used

        self.predictor, self.encoder = network_input(model, encoder, batch_size)
        self.model = self.predictor.model
        self.size = self.encoder.size
        self.temperature = check_temperature(temperature)
        self.softpick_moves = int(softpick_moves)
        if self.softpick_moves < 0:
            raise ValueError(f"softpick_moves must be >= 0, not {softpick_moves}")
        self.keep_planes = bool(keep_planes)
        self.answer_passes = bool(answer_passes)
        self.seed = seed
        if isinstance(model, (str, bytes)) or hasattr(model, "__fspath__"):
            default_name = f"policy:{os.path.basename(str(model))}"
        else:
            default_name = self.model.name
        self.name = name or default_name
        self._batch = np.zeros((0, *self.encoder.shape), np.uint8)

    def group_key(self):
        return ("network", id(self.predictor), self.encoder.name)

    def with_temperature(self, temperature, name=None, keep_planes=None):
        """The same network (the same Predictor: no new graph) at another temperature."""
        return PolicyPlayer(self.predictor, self.encoder.name, temperature, seed=self.seed,
                            name=name or self.name,
                            keep_planes=self.keep_planes if keep_planes is None else keep_planes,
                            answer_passes=self.answer_passes, softpick_moves=self.softpick_moves)

    def probabilities(self, planes):
        """The network's raw policy for a batch of planes (one compiled call)."""
        outputs = self.predictor.predict(planes)
        return outputs[0] if isinstance(outputs, tuple) else outputs

    def policy(self, board):
        """The masked, renormalised move probabilities of one position (N*N + 1, pass last)."""
        from mockgo.nets.inference import \
            masked_policy  # TensorFlow: imported only when a network is used

        self.check_size(board.size)
        return masked_policy(self.probabilities(self.encoder.encode(board)[None])[0],
                             board.sensible_moves())

    def analyst(self, board, rng, limit):
        """Its policy's priors on ``board`` as candidates (no search)."""
        return PolicyAnalyst(self.policy, board)

    def choose(self, turns):
        from mockgo.nets.inference import \
            masked_policy  # TensorFlow: imported only when a network is used

        n = len(turns)
        masks = np.stack([turn.mask for turn in turns])
        if self.answer_passes:  # a real game: no filling its own two-point eyes either
            for j, turn in enumerate(turns):
                masks[j] &= turn.board.sensible_moves(eye_space=2)
        moves = np.full(n, masks.shape[1] - 1, np.int64)  # pass unless decided otherwise
        log_probs = np.zeros(n)
        rows = np.flatnonzero(masks[:, :-1].any(axis=1) & ~passes_now(turns))
        evaluated = np.zeros(n, bool)
        if not len(rows):
            return Choices(moves, log_probs, evaluated)
        if len(self._batch) < len(rows):
            self._batch = np.zeros((max(len(rows), 2 * len(self._batch)), *self.encoder.shape),
                                   np.uint8)
        batch = self._batch[:len(rows)]
        began = time.perf_counter()
        for k, j in enumerate(rows):
            self.encoder.encode_into(turns[j].board, batch[k])
        middle = time.perf_counter()
        raw = self.probabilities(batch)
        ended = time.perf_counter()
        distributions = temper(masked_policy(raw, masks[rows]),
                               [_temperature(turns[j]) for j in rows])
        moves[rows], log_probs[rows] = sample_moves(distributions, [turns[j].rng for j in rows])
        evaluated[rows] = True
        return Choices(moves, log_probs, evaluated, batch, calls=1, encode_s=middle - began,
                       network_s=ended - middle)


def _temperature(turn):
    """The temperature of a turn's move: 1 for the first ``softpick_moves``
    moves of its game, then the player's own."""
    player = turn.player
    return 1.0 if turn.board.move_number < player.softpick_moves else player.temperature


def portable_player(player, temperature=1.0):
    """A player as it travels to workers: a spec string or a :class:`Recipe`
    as it is; a :class:`~mockgo.play.policy_player.PolicyPlayer` (or a Keras policy
    model, played at ``temperature``) as a recipe that makes the same player
    from its network's bytes. Other Player objects cannot travel: give a
    spec."""
    if isinstance(player, (str, Recipe)):
        return player
    if not isinstance(player, Player):  # a Keras model
        player = PolicyPlayer(player, temperature=temperature)
    if not isinstance(player, PolicyPlayer):
        raise ValueError(f"{player.name} ({type(player).__name__}) cannot be sent to workers: "
                         f"give it as a spec (mockgo.play.specs.make_player)")
    model = ShippedModel.from_model(player.model, encoder=player.encoder.name)
    return Recipe(PolicyPlayer, (model,), dict(
        encoder=player.encoder.name, temperature=player.temperature, seed=player.seed,
        name=player.name, keep_planes=player.keep_planes, answer_passes=player.answer_passes,
        softpick_moves=player.softpick_moves), name=player.name)
