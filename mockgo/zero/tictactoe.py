"""The AlphaGo Zero loop on tic-tac-toe: notebook 04's warm-up.

The whole idea at the size of a toy, in about a minute on a laptop CPU: a
dual network with random weights, a tree search guided by it playing itself,
and the network trained on the search's visit counts and the games'
results, generation after generation, until it plays perfectly; then
:func:`mockgo.search.minimax.check_player` checks it against perfect play in
every one of the 4,520 positions where someone is to move.

What is the Go loop's, reused as it is:

- the network: :func:`mockgo.nets.models.dual_network` on a 3x3 board with
  two planes (the player to move's marks, the opponent's); its pass output
  is never legal in tic-tac-toe, so it is masked out like any illegal move;
- the search: :mod:`mockgo.search.mcts` (PUCT, Dirichlet noise at the
  roots, moves sampled by visit count early in a game), every game's tree
  searched in lockstep with one network call per step
  (:func:`~mockgo.search.mcts.search_many`), through a
  :class:`~mockgo.nets.inference.Predictor`;
- training: :func:`mockgo.zero.train.augment` (the board's 8 symmetries,
  planes and pi together) and :func:`mockgo.zero.train.compile_dual` (policy
  cross-entropy with pi, value MSE with z, Adam).

What is its own, because the Go loop's is Go's: the position planes
(:func:`encode`), the self-play of :func:`selfplay` (the Go loop plays through
the game runner and its Board), and :func:`train_tictactoe`, the loop kept in
memory (no run folder: it is a minute's work). Like AlphaZero it trains
every generation on the games of the last ``window`` and plays the next with
the newest network (no evaluation matches).
"""

import dataclasses
import time

import numpy as np

from mockgo.nets.architectures import build_network
from mockgo.nets.device import set_random_seed
from mockgo.search.games import TicTacToe
from mockgo.search.mcts import MCTSPlayer, search_many
from mockgo.zero.config import ZeroConfig
from mockgo.zero.train import augment, compile_dual

__all__ = ["TicTacToeEvaluator", "WarmUp", "encode", "network_player", "search_player",
           "selfplay", "tictactoe_network", "train_tictactoe"]

SIZE = 3


def encode(states):
    """``(batch, 3, 3, 2)`` uint8 planes: the player to move's marks, the
    opponent's (the colour to play is implicit, as the network only ever
    sees positions from the mover's side)."""
    cells = np.array([state.cells for state in states], np.int8).reshape(len(states), SIZE, SIZE)
    to_play = np.array([state.to_play for state in states], np.int8)[:, None, None]
    return np.stack([cells == to_play, (cells != 0) & (cells != to_play)], axis=-1).astype(
        np.uint8)


def tictactoe_network(blocks=2, filters=32, seed=0):
    """The Go loop's dual network at tic-tac-toe's size: 3x3, 2 planes,
    ``blocks`` residual blocks of ``filters``, a value head of 32 units;
    10 policy outputs (the 9 cells and Go's pass, never legal here)."""
    set_random_seed(seed)
    return build_network("dual_network", board_size=SIZE, planes=2, blocks=blocks,
                         filters=filters, value_hidden=32, name="tictactoe_network")


class TicTacToeEvaluator:
    """The search's evaluator for a tic-tac-toe network: states to (priors
    over the 9 cells, values), one compiled network call for all of them;
    the priors masked to the empty cells and renormalised."""

    def __init__(self, model, batch_size=512):
        from mockgo.nets.inference import Predictor, masked_policy  # lazy: it imports Keras

        self.predictor = Predictor(model, batch_size=batch_size)
        self._masked = masked_policy
        self.evaluations = 0

    def __call__(self, states):
        policy, value = self.predictor.predict(encode(states))
        legal = np.array([state.legal_actions() for state in states], bool)
        self.evaluations += len(states)
        return self._masked(policy[:, :SIZE * SIZE], legal), value.astype(np.float64)


@dataclasses.dataclass
class WarmUp:
    """The warm-up's settings (defaults: a full run of about a minute on a
    2-core CPU): ``generations`` of ``games`` self-play games with
    ``readouts`` simulations a move (``parallel_readouts`` per network
    call), the first ``softpick_moves`` moves of a game sampled by visit
    count; after each, the last ``window`` generations' games train the
    network for ``epochs`` epochs (batches of ``batch_size``, each position
    under a random symmetry); a network of ``blocks`` x ``filters``."""

    generations: int = 24
    games: int = 128
    readouts: int = 32
    parallel_readouts: int = 8
    c_puct: float = 1.5
    softpick_moves: int = 4
    window: int = 24  # all of them
    epochs: int = 2
    batch_size: int = 128
    learning_rate: float = 2e-3
    blocks: int = 2
    filters: int = 32
    seed: int = 0


def selfplay(evaluate, settings, rng):
    """``settings.games`` games of the search against itself, in lockstep;
    returns the examples ``(planes, pi, z)``, every position with the root's
    visit distribution over the 10 outputs (pass 0) and the game's result
    for the player to move, and the number of games drawn."""
    trees = []
    for _ in range(settings.games):
        tree = MCTSPlayer(evaluate, num_readouts=settings.readouts, c_puct=settings.c_puct,
                          parallel_readouts=settings.parallel_readouts,
                          softpick_moves=settings.softpick_moves, resign_threshold=None,
                          seed=int(rng.integers(2**63)))
        tree.initialize(TicTacToe())
        trees.append(tree)
    history = [[] for _ in trees]  # per game: (state, pi)
    playing = list(range(len(trees)))
    while playing:
        search_many([trees[g] for g in playing], evaluate)
        for g in playing:
            tree = trees[g]
            history[g].append((tree.state, tree.visit_distribution()))
            tree.play(tree.pick_action())
        playing = [g for g in playing if not trees[g].state.is_terminal()]
    states, pis, zs = [], [], []
    for g, tree in enumerate(trees):
        end = tree.state
        winner = end.winner  # 0: a draw
        for state, pi in history[g]:
            states.append(state)
            pis.append(np.append(pi, 0.0))  # the pass output
            zs.append(0.0 if not winner else (1.0 if state.to_play == winner else -1.0))
    draws = sum(not tree.state.winner for tree in trees)
    return encode(states), np.array(pis, np.float32), np.array(zs, np.float32), draws


def train_tictactoe(settings=None, progress=None, **changes):
    """Run the loop (module docstring); returns ``(model, history)``:
    the trained network and one dict per generation (examples, the last
    epoch's losses, the share of games drawn, the seconds of self-play and
    so far). ``settings``: a
    :class:`WarmUp` (with ``changes`` applied); ``progress(record)``: called
    after each generation."""
    settings = dataclasses.replace(settings or WarmUp(), **changes)
    rng = np.random.default_rng(settings.seed)
    model = tictactoe_network(settings.blocks, settings.filters, settings.seed)
    # The Go loop's losses and optimiser (compile_dual reads these fields).
    compile_dual(model, ZeroConfig(learning_rate=settings.learning_rate))
    evaluate = TicTacToeEvaluator(model, batch_size=settings.games * settings.parallel_readouts)
    window, history = [], []
    start = time.perf_counter()
    for generation in range(1, settings.generations + 1):
        played = time.perf_counter()
        planes, pi, z, draws = selfplay(evaluate, settings, rng)
        played = time.perf_counter() - played
        window = (window + [(planes, pi, z)])[-settings.window:]
        x, y_pi, y_z = (np.concatenate(part) for part in zip(*window))
        for _ in range(settings.epochs):
            x_turned, pi_turned = augment(x, y_pi, rng)
            fit = model.fit(x_turned, {"policy": pi_turned, "value": y_z.reshape(-1, 1)},
                            batch_size=settings.batch_size, epochs=1, shuffle=True, verbose=0)
        record = {"generation": generation, "examples": len(x),
                  "policy_loss": float(fit.history["policy_loss"][-1]),
                  "value_loss": float(fit.history["value_loss"][-1]),
                  "draws": draws / settings.games, "selfplay_seconds": played,
                  "seconds": time.perf_counter() - start}
        history.append(record)
        if progress is not None:
            progress(record)
    return model, history


def network_player(model):
    """The network alone as a player for :func:`mockgo.search.minimax.check_player`:
    in each state the legal move of highest prior (no search)."""
    evaluate = TicTacToeEvaluator(model)

    def choose(states):
        priors, _ = evaluate(states)
        return priors.argmax(axis=1)

    return choose


def search_player(model, readouts=32, seed=0):
    """The network with ``readouts`` simulations of search a move, no
    noise, the most visited move, as a player for ``check_player``."""
    evaluate = TicTacToeEvaluator(model)

    def choose(states):
        trees = []
        for state in states:
            tree = MCTSPlayer(evaluate, num_readouts=readouts, dirichlet=False,
                              softpick_moves=0, resign_threshold=None, seed=seed)
            tree.initialize(state)
            trees.append(tree)
        search_many(trees, evaluate)
        return [tree.pick_action() for tree in trees]

    return choose
