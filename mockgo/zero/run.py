"""AlphaGo Zero's training loop, run the way MiniGo runs it.

No human games: a dual network (:func:`mockgo.nets.models.dual_network`) guides a
tree search (:mod:`mockgo.search.mcts`) that plays against itself; the network then
learns to predict the search's visit counts (a better policy than its own)
and the games' results; the better network makes a better search, and so on.
One *generation* g = 1, 2, ... is five steps, each a method of
:class:`ZeroRun` (and the command ``python -m mockgo.zero.run``):

``selfplay``
    The current model (the best so far; the latest when evaluation is off)
    plays ``games_per_generation`` games against itself,
    ``games_in_parallel`` at a time in lockstep (:func:`mockgo.search.mcts.search_many`):
    every step of the searches makes ONE network call for all the games'
    leaves, ``games_in_parallel * parallel_readouts`` positions. Each move
    yields a training example: the position (``agz17`` planes), the root's
    visit distribution pi, and, once the game is over, its result z (+1 if the
    player to move won, -1 if lost). A share of the games resigns never
    (``resign_disabled_share``) to measure how often resigning would have
    been wrong (:class:`mockgo.search.mcts.ResignationCheck`); a share of the games
    (``holdout_share``) goes to the holdout set, not to training. Each game is
    saved as SGF twice: clean, and with the search's statistics as comments.
``gather``
    The examples of the last ``window`` generations, shuffled (at most
    ``max_examples``), into training chunks.
``train``
    The latest model, trained on the chunks for ``epochs`` epochs (Adam;
    loss = policy cross-entropy with pi + value MSE with z + L2),
    each position under a random one of the 8 symmetries of the board, is
    the new model g.
``validate``
    The new model's losses on the holdout games of the window.
``evaluate``
    The new model plays ``eval_games`` games against the best model; at a
    win rate of ``promote_win_rate`` (55 %) or more it becomes the best, the
    model that plays the next self-play (AlphaGo Zero). With
    ``evaluate=False`` every new model plays the next self-play at once
    (AlphaZero).

The moves
---------
The search plays the *sensible* moves (:class:`ZeroGame`): legal moves
that do not fill the player's own single-point eye, and the pass only when
nothing else is left, so that games go on until the board is settled and
Tromp-Taylor scoring gives the right result. ``sensible_moves=False`` gives
AlphaGo Zero's plain legal moves.

The run lives in one folder (``base_dir``)::

    config.json                          the ZeroConfig, fixed for the run
    state.json                           latest and best model, one record per generation
    models/000000.keras                  generation 0: random weights; 000001.keras, ...
    models/.training/                    per-epoch checkpoints of the model being trained
    data/selfplay/<model>/<job>-b0000.npz   examples of one batch of games (planes, pi, z)
    data/selfplay/<model>/<job>.json     the self-play job's progress and statistics
    data/holdout/<model>/<job>-b0000.npz    the same for the held-out games
    data/training_chunks/<generation>/chunk-000.npz   the shuffled window
    sgf/<model>/clean/<job>-00000.sgf    self-play games
    sgf/<model>/full/<job>-00000.sgf     the same, with root value and visits per move
    sgf/evaluate/<new>-vs-<best>/00000.sgf   evaluation games
    strength.json                        matches for the notebook (win rates by model)

``<model>`` is the model that played (``000003``), ``<job>`` names the
self-play job (``gen000004``: the games generation 4 trains on).

Resuming
--------
Every step can be interrupted (Ctrl-C, a crash) and the same call or command
started again. ``state.json`` is rewritten atomically when a step completes,
and a step's outputs are written completely before that (files through
:func:`mockgo.data.files.atomic_open`; the chunks folder is renamed into place).
Self-play games are numbered, so batch b of a job is always games
``b * games_in_parallel`` onwards, with seeds from the game numbers: a batch
either completed (its examples and SGFs are on disk and the job's progress
file says so) or it is played again from its start, overwriting whatever it
had written; so a job ends with exactly the games asked for, none lost and
none twice. Training saves a checkpoint (with the optimiser's state) after
each epoch and continues from the last one.
"""

import argparse
import dataclasses
import json
import math
import os
import shutil
import sys
import time
import zlib
from pathlib import Path

import numpy as np

from mockgo.go import coords, symmetries
from mockgo.data import records
from mockgo.go.board import BLACK, EMPTY, WHITE
from mockgo.go.features import get_encoder
from mockgo.data.files import atomic_open, atomic_write_text, check_same_settings
from mockgo.search.games import GoGame
from mockgo.search.mcts import MCTSPlayer, ResignationCheck, search_many
from mockgo.learn.supervised import load_model, save_model_atomically

__all__ = ["MatchResult", "NetworkEvaluator", "ZeroConfig", "ZeroGame", "ZeroRun",
           "analyse_position", "augment", "bootstrap", "gather_examples", "job_name",
           "load_examples", "main", "model_name", "play_match", "play_selfplay_games",
           "selfplay_job"]

ENCODER = "agz17"
STEPS = ("selfplay", "gather", "train", "validate", "evaluate")
STATE_FORMAT = 1


# ------------------------------------------------------------------ config


@dataclasses.dataclass
class ZeroConfig:
    """Everything that defines a run; stored in ``config.json``.

    The defaults are a full 9x9 run sized for a CPU: a 4-block, 32-filter
    network, 64 readouts per move, 256 games a generation, 32 of them in
    lockstep with 8 leaves each (network batches of 256 positions).
    :meth:`for_test` is a tiny run of a minute.
    """

    board_size: int = 9
    komi: float = 7.5
    # the network (mockgo.nets.models.dual_network)
    blocks: int = 4
    filters: int = 32
    l2: float = 1e-4
    # self-play
    games_per_generation: int = 256
    readouts: int = 64  # simulations per move
    parallel_readouts: int = 8  # leaves per tree per network call
    games_in_parallel: int = 32  # games in lockstep: a network batch = this x parallel_readouts
    c_puct: float = 1.5
    fpu_reduction: float = 0.0  # an unvisited move's Q: the parent's value less this
    softpick_moves: int | None = None  # moves sampled by visit count; None: N*N/12 (6 on 9x9)
    max_moves: int | None = None  # None: 2 * N * N
    resign_threshold: float | None = -0.9  # None: never resign
    resign_disabled_share: float = 0.2
    holdout_share: float = 0.05
    random_symmetry: bool = True  # evaluate each position under a random symmetry
    sensible_moves: bool = True  # no filling one's own eyes; pass only when nothing else is left
    # training
    window: int = 5  # generations of self-play to train on
    max_examples: int = 200_000
    chunk_size: int = 50_000
    epochs: int = 1  # passes over the window (each example is in `window` windows)
    batch_size: int = 128
    learning_rate: float = 1e-3  # Adam
    value_weight: float = 1.0  # the value loss's weight against the policy's
    # evaluation
    evaluate: bool = True
    eval_games: int = 40
    eval_readouts: int | None = None  # None: readouts
    promote_win_rate: float = 0.55
    seed: int = 0

    def new_game(self):
        """The start of a game as the search sees it (see :class:`ZeroGame`)."""
        cls = ZeroGame if self.sensible_moves else GoGame
        return cls(self.board_size, komi=self.komi, max_moves=self.moves_cap)

    def __post_init__(self):
        if self.games_per_generation < 1 or self.games_in_parallel < 1:
            raise ValueError("games_per_generation and games_in_parallel must be >= 1")
        if not 0 <= self.holdout_share < 1 or not 0 <= self.resign_disabled_share <= 1:
            raise ValueError("holdout_share must be in [0, 1), resign_disabled_share in [0, 1]")
        if self.window < 1 or self.epochs < 1:
            raise ValueError("window and epochs must be >= 1")

    @classmethod
    def for_test(cls, board_size=9, **changes):
        """A tiny run for tests and ``--test``: a 1-block, 8-filter network,
        8 games a generation with 8 readouts a move, 4 evaluation games."""
        settings = dict(board_size=board_size, blocks=1, filters=8, games_per_generation=8,
                        readouts=8, parallel_readouts=4, games_in_parallel=8,
                        holdout_share=0.25, resign_disabled_share=0.5, window=2, epochs=2,
                        batch_size=64, eval_games=4, max_examples=10_000)
        settings.update(changes)
        return cls(**settings)

    @property
    def moves_cap(self):
        return 2 * self.board_size ** 2 if self.max_moves is None else self.max_moves

    @property
    def match_readouts(self):
        return self.readouts if self.eval_readouts is None else self.eval_readouts

    def to_dict(self):
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, values):
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(values) - known
        if unknown:
            raise ValueError(f"unknown config fields: {sorted(unknown)}")
        return cls(**values)


class ZeroGame(GoGame):
    """A Go game whose actions are the *sensible* moves: the legal ones that
    do not fill the player's own single-point eye (``Board.sensible_moves``),
    and the pass only when no such move is left.

    AlphaGo Zero searched all the legal moves. On a CPU budget (tens of
    readouts where it had 1600) and with a network that knows nothing yet,
    that makes games that end early, by two passes on a half-empty board
    (the side ahead on komi passes and wins), or that fill their own eyes: the
    value head then learns little beyond "white wins". With this rule every
    game goes on until the board is settled, so its Tromp-Taylor score is the
    right result; it is the rule random playouts have always used.
    ``ZeroConfig(sensible_moves=False)`` gives AlphaGo Zero's legal moves.
    """

    def legal_actions(self):
        if self._legal is None:
            mask = self.board.sensible_moves()
            mask[-1] = not mask[:-1].any()
            self._legal = mask
        return self._legal


def _seed(*parts):
    """A numpy seed from ints and strings (strings by CRC-32), so that game
    ``i`` of a job always gets the same random numbers."""
    return [int(p) if isinstance(p, (int, np.integer)) else zlib.crc32(str(p).encode())
            for p in parts]


def model_name(generation):
    return f"{generation:06d}"


def job_name(generation):
    """The self-play job that produces generation ``generation``'s games."""
    return f"gen{generation:06d}"


def is_holdout(game, share):
    """Whether game number ``game`` is held out: every 1/share-th game, so a
    job holds out round(games * share) of its games whatever its size."""
    return math.floor((game + 1) * share) > math.floor(game * share)


# --------------------------------------------------------- loading models


def _write_json(path, data):
    atomic_write_text(path, json.dumps(data, indent=1, sort_keys=True) + "\n")


# ------------------------------------------------------------- evaluator


class NetworkEvaluator:
    """The search's evaluator for a dual network: GoGame states to (priors,
    values) in one call of a compiled :class:`mockgo.nets.inference.Predictor`.

    The positions are encoded with ``encode_into`` into a preallocated batch
    of ``agz17`` planes; with ``random_symmetry`` each is turned by a random
    one of the 8 symmetries (AlphaGo Zero, Methods), and its policy turned
    back. The priors are masked to the legal moves and renormalised
    (``Predictor.policy_and_value``). ``evaluations``, ``calls`` and
    ``network_seconds`` count the work, for the speed figures.
    """

    def __init__(self, model, batch_size=256, random_symmetry=True, seed=None):
        from mockgo.nets.inference import Predictor

        self.predictor = Predictor(model, batch_size=batch_size)
        self.size = self.predictor.input_shape[0]
        self.encoder = get_encoder(ENCODER, self.size)
        if self.predictor.input_shape != self.encoder.shape:
            raise ValueError(f"the model takes {self.predictor.input_shape}, "
                             f"{ENCODER} makes {self.encoder.shape}")
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


def _evaluator(side, config, batch_size, seed):
    """A NetworkEvaluator for a side given as an evaluator (kept), a Keras
    model or the path of one."""
    if isinstance(side, NetworkEvaluator):
        return side
    model = load_model(side) if isinstance(side, (str, Path)) else side
    return NetworkEvaluator(model, batch_size=batch_size, random_symmetry=config.random_symmetry,
                            seed=seed)


# ---------------------------------------------------------------- self-play


@dataclasses.dataclass
class SelfPlayGame:
    """One finished self-play game: the final board (its history is the
    game), the training examples, one SGF comment per move, and the
    resignation bookkeeping."""

    number: int
    board: object
    planes: np.ndarray  # (moves, N, N, 17) uint8
    pi: np.ndarray  # (moves, N*N+1) float32
    z: np.ndarray  # (moves,) float32: +1 if the player to move then won
    comments: list
    resign_enabled: bool
    would_have_resigned: int | None
    winner: int


def search_comment(player, top=5):
    """The root's statistics as an SGF comment: its value for the player to
    move, the readouts, and the most visited moves with their visits and Q."""
    root = player.root
    size = root.state.size
    counts = root.child_N
    order = np.argsort(-counts, kind="stable")[:top]
    moves = ", ".join(f"{coords.to_gtp(int(a), size)} {int(counts[a])} ({root.child_Q[a]:+.2f})"
                      for a in order if counts[a] > 0)
    return f"value {player.root_value:+.3f}, visits {int(counts.sum())}: {moves}"


def play_selfplay_games(evaluate, config, numbers, seed_parts=(), callback=None, on_game=None):
    """Play games ``numbers`` (ints) against themselves in lockstep; returns
    their :class:`SelfPlayGame` records in order.

    Each step searches every unfinished game with one ``evaluate`` call per
    step of :func:`mockgo.search.mcts.search_many`, then each game plays its move
    (or resigns). Game ``i``'s random numbers (noise, sampling, whether it
    may resign) come from ``(config.seed, *seed_parts, i)``. ``callback(
    "selfplay_step", info)`` is called after each step, ``on_game(game)``
    as each game finishes.
    """
    encoder = get_encoder(ENCODER, config.board_size)
    check = ResignationCheck(config.resign_disabled_share)
    players, examples = [], []
    for number in numbers:
        rng = np.random.default_rng(_seed(config.seed, *seed_parts, number))
        enabled = config.resign_threshold is None or check.resign_enabled(rng)
        player = MCTSPlayer(evaluate, num_readouts=config.readouts, c_puct=config.c_puct,
                            parallel_readouts=config.parallel_readouts,
                            fpu_reduction=config.fpu_reduction,
                            softpick_moves=config.softpick_moves,
                            resign_threshold=config.resign_threshold, resign_enabled=enabled,
                            seed=int(rng.integers(2**63)))
        player.initialize(config.new_game())
        players.append(player)
        examples.append(([], [], [], []))  # planes, pi, colour to play, comment
    finished = [None] * len(players)
    active = list(range(len(players)))
    step = 0
    while active:
        search_many([players[i] for i in active], evaluate)
        still = []
        for i in active:
            player = players[i]
            board = player.state.board
            if player.should_resign():
                board.resign(board.to_play)
            else:
                planes, pis, colors, comments = examples[i]
                planes.append(encoder.encode(board))
                pis.append(player.visit_distribution().astype(np.float32))
                colors.append(board.to_play)
                comments.append(search_comment(player))
                player.play(player.pick_action())
                if not player.state.is_terminal():
                    still.append(i)
                    continue
            finished[i] = game = _finish(numbers[i], players[i], examples[i], encoder)
            if on_game is not None:
                on_game(game)
        active = still
        step += 1
        if callback is not None:
            callback("selfplay_step", {"step": step, "active": len(active)})
    return finished


def _finish(number, player, example, encoder):
    planes, pis, colors, comments = example
    board = player.state.board
    winner = board.winner()
    colors = np.array(colors, np.int8)
    z = np.where(colors == winner, 1.0, -1.0).astype(np.float32)
    if winner == EMPTY:
        z[:] = 0.0
    n = len(colors)
    size = board.size
    return SelfPlayGame(
        number=number, board=board,
        planes=np.array(planes, np.uint8).reshape(n, *encoder.shape),
        pi=np.array(pis, np.float32).reshape(n, size * size + 1), z=z, comments=comments,
        resign_enabled=player.resign_enabled, would_have_resigned=player.would_have_resigned,
        winner=int(winner))


def _stack(games):
    size = games[0].board.size
    moves = [len(g.z) for g in games]
    return {
        "planes": np.concatenate([g.planes for g in games]),
        "pi": np.concatenate([g.pi for g in games]),
        "z": np.concatenate([g.z for g in games]),
        "game": np.repeat([g.number for g in games], moves).astype(np.int32),
        "move": np.concatenate([np.arange(m) for m in moves]).astype(np.int16),
        "size": np.int32(size),
    }


def _save_npz(path, arrays):
    with atomic_open(path, "wb") as file:
        np.savez_compressed(file, **arrays)


def load_examples(paths):
    """Concatenate example files: ``(planes, pi, z, game)`` arrays."""
    parts = []
    for path in paths:
        with np.load(path) as data:
            parts.append((data["planes"], data["pi"], data["z"], data["game"]))
    if not parts:
        return None
    return tuple(np.concatenate(column) for column in zip(*parts))


def _progress(enabled, **kwargs):
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(**kwargs)


def selfplay_job(base_dir, model_path, games, config, job="selfplay", progress=True,
                 callback=None, evaluator=None):
    """Play ``games`` self-play games with the model at ``model_path`` into
    ``base_dir`` (the layout in the module docstring); returns the job's
    statistics.

    The games are played in batches of ``config.games_in_parallel`` in
    lockstep; after each batch its examples (``data/selfplay`` or, for held
    out games, ``data/holdout``) and SGF files are written, then the job's
    progress file. Started again, the job skips the batches it has done and
    plays the rest; a job that is complete returns at once.
    ``callback(event, info)`` sees ``"selfplay_step"`` and
    ``"selfplay_batch"`` events (tests interrupt jobs through it).
    ``evaluator``: a :class:`NetworkEvaluator` of that model already made
    (its compiled graph is reused), else the model is loaded.
    """
    base_dir, model_path = Path(base_dir), Path(model_path)
    model = model_path.stem
    data_dir = base_dir / "data" / "selfplay" / model
    holdout_dir = base_dir / "data" / "holdout" / model
    sgf_dirs = {kind: base_dir / "sgf" / model / kind for kind in ("clean", "full")}
    for folder in (data_dir, holdout_dir, *sgf_dirs.values()):
        folder.mkdir(parents=True, exist_ok=True)
    progress_path = data_dir / f"{job}.json"
    per_batch = config.games_in_parallel
    if progress_path.exists():
        done = json.loads(progress_path.read_text())
        if (done["games"], done["games_in_parallel"]) != (games, per_batch):
            raise ValueError(f"{progress_path} is a job of {done['games']} games in batches of "
                             f"{done['games_in_parallel']}, not {games} in batches of "
                             f"{per_batch}: choose another job name")
    else:
        done = {"model": model, "job": job, "games": games, "games_in_parallel": per_batch,
                "readouts": config.readouts, "batches": {}}
    batches = [(b, list(range(start, min(start + per_batch, games))))
               for b, start in enumerate(range(0, games, per_batch))]
    todo = [(b, numbers) for b, numbers in batches if str(b) not in done["batches"]]
    if todo:
        evaluator = _evaluator(evaluator or model_path, config,
                               per_batch * config.parallel_readouts, _seed(config.seed, model, job))
        bar = _progress(progress, total=games, initial=games - sum(len(n) for _, n in todo),
                        unit="game", desc=f"self-play {job} ({model})", smoothing=0)
        try:
            for b, numbers in todo:
                done["batches"][str(b)] = _selfplay_batch(
                    evaluator, config, model, job, b, numbers, data_dir, holdout_dir, sgf_dirs,
                    bar, callback)
                _write_json(progress_path, done)
                if callback is not None:
                    callback("selfplay_batch", {"job": job, "batch": b})
        finally:
            if bar is not None:
                bar.close()
    return summarise_selfplay(done)


def _selfplay_batch(evaluator, config, model, job, batch, numbers, data_dir, holdout_dir,
                    sgf_dirs, bar, callback):
    start = time.perf_counter()
    evaluations, network_seconds = evaluator.evaluations, evaluator.network_seconds
    finished = [0]

    def show():
        if bar is not None:
            elapsed = max(time.perf_counter() - start, 1e-9)
            bar.set_postfix({"games/h": f"{3600 * finished[0] / elapsed:.0f}",
                             "evals/s": f"{(evaluator.evaluations - evaluations) / elapsed:.0f}"},
                            refresh=False)

    def on_game(game):
        finished[0] += 1
        show()
        if bar is not None:
            bar.update(1)

    def step(event, info):
        if info["step"] % 10 == 0:
            show()
            if bar is not None:
                bar.refresh()
        if callback is not None:
            callback(event, dict(info, job=job, batch=batch))

    games = play_selfplay_games(evaluator, config, numbers, (model, job), step, on_game)
    for game in games:
        name = f"{job}-{game.number:05d}.sgf"
        note = (f"self-play by model {model}, {config.readouts} readouts a move, "
                f"resignation {'on' if game.resign_enabled else 'off'}")
        clean = records.record_from_board(game.board, black=model, white=model, date="")
        clean.game_comment = note
        records.save_sgf(clean, sgf_dirs["clean"] / name)
        full = records.record_from_board(game.board, black=model, white=model, date="",
                                         comments=game.comments)
        full.game_comment = note + "; comments: the root's value for the player to move, " \
                                   "then the most visited moves with visits and Q"
        records.save_sgf(full, sgf_dirs["full"] / name)
    held = [g for g in games if is_holdout(g.number, config.holdout_share)]
    kept = [g for g in games if not is_holdout(g.number, config.holdout_share)]
    for folder, part in ((holdout_dir, held), (data_dir, kept)):
        if part:
            _save_npz(folder / f"{job}-b{batch:04d}.npz", _stack(part))
    check = ResignationCheck()
    for game in games:
        if not game.resign_enabled:
            check.record(game.would_have_resigned, game.winner)
    lengths = [g.board.move_number for g in games]
    return {
        "games": len(games), "holdout_games": len(held),
        "examples": int(sum(len(g.z) for g in kept)),
        "holdout_examples": int(sum(len(g.z) for g in held)),
        "moves": int(sum(lengths)), "black_wins": sum(g.winner == BLACK for g in games),
        "resigned": sum(g.board.resigned is not None for g in games),
        "resign_disabled_games": check.games,
        "would_have_resigned": check.would_have_resigned,
        "false_positives": check.false_positives,
        "seconds": time.perf_counter() - start,
        "evaluations": evaluator.evaluations - evaluations,
        "network_seconds": evaluator.network_seconds - network_seconds,
    }


def summarise_selfplay(done):
    """A job's totals over its batches, and the rates: games per hour,
    network evaluations per second, the resignation false-positive rate."""
    total = {"games_requested": done["games"], "model": done["model"], "job": done["job"]}
    keys = ("games", "holdout_games", "examples", "holdout_examples", "moves", "black_wins",
            "resigned", "resign_disabled_games", "would_have_resigned", "false_positives",
            "seconds", "evaluations", "network_seconds")
    for key in keys:
        total[key] = sum(batch[key] for batch in done["batches"].values())
    seconds = max(total["seconds"], 1e-9)
    total["complete"] = total["games"] == done["games"]
    total["games_per_hour"] = 3600 * total["games"] / seconds
    total["evals_per_s"] = total["evaluations"] / seconds
    total["network_share"] = total["network_seconds"] / seconds
    total["mean_moves"] = total["moves"] / max(total["games"], 1)
    total["false_positive_rate"] = ResignationCheck(
        would_have_resigned=total["would_have_resigned"],
        false_positives=total["false_positives"]).false_positive_rate
    return total


# ------------------------------------------------------------ training data


def gather_examples(files, out_dir, max_examples, chunk_size, seed):
    """Shuffle the examples of ``files`` (at most ``max_examples``, drawn
    uniformly) into ``out_dir/chunk-000.npz``... The chunks are written to a
    temporary folder that is renamed to ``out_dir`` when complete."""
    out_dir = Path(out_dir)
    loaded = load_examples(files)
    if loaded is None:
        raise ValueError("no self-play examples to gather")
    planes, pi, z, game = loaded
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(z))[:max_examples]
    temporary = out_dir.parent / f".{out_dir.name}.tmp"
    shutil.rmtree(temporary, ignore_errors=True)
    temporary.mkdir(parents=True)
    chunks = 0
    for chunks, start in enumerate(range(0, len(order), chunk_size), start=1):
        rows = order[start:start + chunk_size]
        _save_npz(temporary / f"chunk-{chunks - 1:03d}.npz",
                  {"planes": planes[rows], "pi": pi[rows], "z": z[rows], "game": game[rows]})
    shutil.rmtree(out_dir, ignore_errors=True)
    os.replace(temporary, out_dir)
    return {"examples": int(len(order)), "available": int(len(z)), "chunks": chunks,
            "files": len(files)}


def augment(planes, pi, rng):
    """Each position and its pi under a random one of the 8 symmetries."""
    size = planes.shape[1]
    syms = rng.integers(0, 8, len(planes))
    out_planes, out_pi = np.empty_like(planes), np.empty_like(pi)
    for sym in range(8):
        rows = np.flatnonzero(syms == sym)
        out_planes[rows] = symmetries.apply_to_planes(sym, planes[rows])
        out_pi[rows] = symmetries.apply_to_policy(sym, pi[rows], size)
    return out_planes, out_pi


def compile_dual(model, config):
    """Policy cross-entropy (with the visit distribution as soft labels) +
    ``value_weight`` x value MSE, with Adam; the L2 penalty is the model's
    own (``dual_network(l2=...)``). AlphaGo Zero used SGD with momentum
    over 700,000 steps; a CPU run has a few thousand, where Adam learns the
    policy much faster (with SGD at lr 0.005 to 0.02 the policy loss of a
    3-block net hardly moved in 4 epochs of 18,000 examples, and a 1-filter
    value head died at 0.02)."""
    import keras

    model.compile(optimizer=keras.optimizers.Adam(config.learning_rate),
                  loss={"policy": keras.losses.CategoricalCrossentropy(),
                        "value": keras.losses.MeanSquaredError()},
                  loss_weights={"policy": 1.0, "value": config.value_weight})
    return model


def _epoch_bar(enabled, desc):
    """A Keras callback drawing a tqdm bar over each epoch's batches, with
    the running losses (nothing when not ``enabled``)."""
    import keras

    class EpochBar(keras.callbacks.Callback):
        bar = None

        def on_epoch_begin(self, epoch, logs=None):
            self.bar = _progress(enabled, total=self.params.get("steps"), unit="batch",
                                 desc=f"{desc} epoch {epoch + 1}", leave=False)

        def on_train_batch_end(self, batch, logs=None):
            if self.bar is not None:
                self.bar.update(1)
                if batch % 10 == 0 and logs:
                    self.bar.set_postfix({k: f"{float(v):.3f}" for k, v in logs.items()
                                          if k.endswith("loss")}, refresh=False)

        def on_epoch_end(self, epoch, logs=None):
            self.close()

        def close(self):
            if self.bar is not None:
                self.bar.close()
                self.bar = None

    return EpochBar()


# ---------------------------------------------------------------- matches


@dataclasses.dataclass
class MatchResult:
    """Games between ``first`` and ``second`` (``first`` is black in the even
    games); ``games`` holds one dict per game."""

    first: str
    second: str
    games: list

    @property
    def first_wins(self):
        return sum(g["winner"] == "first" for g in self.games)

    @property
    def win_rate(self):
        """The first side's share of wins (a draw counts half)."""
        draws = sum(g["winner"] == "draw" for g in self.games)
        return (self.first_wins + 0.5 * draws) / max(len(self.games), 1)


def play_match(first, second, games, config, readouts=None, seed=0, sgf_dir=None,
               progress=False, names=None, resign_threshold=None):
    """``games`` games between two sides, all in lockstep; ``first`` plays
    black in games 0, 2, 4...

    A side is a Keras dual network, the path of one, a
    :class:`NetworkEvaluator`, or ``"random"``
    (:class:`mockgo.play.players.RandomPlayer`: uniform over the sensible moves).
    Networks search with ``readouts`` (default ``config.match_readouts``)
    per move, no Dirichlet noise, the first ``softpick_moves`` moves sampled
    by visit count (so that the games differ). They resign at
    ``resign_threshold`` (default None: every game is played out, so that a
    value head that is still wrong cannot lose a won game by resigning).
    All the games where one network is to move are searched together, one
    network call per search step. ``sgf_dir``: save the games there.
    """
    from mockgo.play.players import RandomPlayer

    readouts = config.match_readouts if readouts is None else readouts
    sides = (first, second)
    if names is None:
        names = tuple(_side_name(side) for side in sides)
    batch = games * config.parallel_readouts
    evaluators = [None if isinstance(s, str) and s == "random"
                  else _evaluator(s, config, batch, _seed(config.seed, seed, k))
                  for k, s in enumerate(sides)]
    tables = []  # per game: the two agents, index 0 = first side
    states = []
    for i in range(games):
        agents = []
        for k in (0, 1):
            rng_seed = _seed(config.seed, seed, i, k)
            if evaluators[k] is None:
                agents.append(RandomPlayer(seed=rng_seed))
            else:
                player = MCTSPlayer(evaluators[k], num_readouts=readouts, c_puct=config.c_puct,
                                    dirichlet=False, parallel_readouts=config.parallel_readouts,
                                    fpu_reduction=config.fpu_reduction,
                                    softpick_moves=config.softpick_moves,
                                    resign_threshold=resign_threshold, seed=rng_seed)
                player.initialize(config.new_game())
                agents.append(player)
        tables.append(agents)
        states.append(config.new_game())
    first_color = [BLACK if i % 2 == 0 else WHITE for i in range(games)]
    active = list(range(games))
    bar = _progress(progress, total=games, unit="game", desc=f"{names[0]} vs {names[1]}")
    while active:
        movers = {i: 0 if states[i].to_play == first_color[i] else 1 for i in active}
        for k in (0, 1):
            searching = [tables[i][k] for i in active if movers[i] == k and evaluators[k]]
            if searching:
                search_many(searching, evaluators[k])
        still = []
        for i in active:
            agent = tables[i][movers[i]]
            board = states[i].board
            if isinstance(agent, MCTSPlayer):
                if agent.should_resign():
                    board.resign(board.to_play)
                    action = None
                else:
                    action = agent.pick_action()
            else:
                action = agent.select_move(board)
            if action is not None:
                for other in tables[i]:
                    if isinstance(other, MCTSPlayer):
                        other.play(action)
                states[i] = states[i].play(action)
            if states[i].is_terminal():
                if bar is not None:
                    bar.update(1)
            else:
                still.append(i)
        active = still
    if bar is not None:
        bar.close()
    results = []
    for i, state in enumerate(states):
        board = state.board
        winner = board.winner()
        outcome = "draw" if winner == EMPTY else "first" if winner == first_color[i] else "second"
        results.append({"game": i, "first_color": "B" if first_color[i] == BLACK else "W",
                        "winner": outcome, "result": board.result(), "moves": board.move_number})
        if sgf_dir is not None:
            Path(sgf_dir).mkdir(parents=True, exist_ok=True)
            black, white = (names if first_color[i] == BLACK else names[::-1])
            record = records.record_from_board(board, black=black, white=white, date="")
            records.save_sgf(record, Path(sgf_dir) / f"{i:05d}.sgf")
    return MatchResult(names[0], names[1], results)


def _side_name(side):
    if isinstance(side, str) and side == "random":
        return side
    if isinstance(side, (str, Path)):
        return Path(side).stem
    if isinstance(side, NetworkEvaluator):
        return side.predictor.model.name
    return side.name


def analyse_position(model, board, config, readouts=None, seed=0):
    """What the network and the search think of one position: the raw
    prior (masked to the legal moves), the network's value, and the root's
    visit counts and value after ``readouts`` simulations (no noise)."""
    readouts = config.match_readouts if readouts is None else readouts
    evaluator = _evaluator(model, config, config.parallel_readouts, seed)
    cls = ZeroGame if config.sensible_moves else GoGame
    state = cls.from_board(board.copy(), max_moves=config.moves_cap)
    prior, value = evaluator([state])
    player = MCTSPlayer(evaluator, num_readouts=readouts, c_puct=config.c_puct, dirichlet=False,
                        parallel_readouts=config.parallel_readouts,
                        fpu_reduction=config.fpu_reduction, seed=seed)
    player.initialize(state, move_number=board.move_number)
    player.search()
    return {"prior": prior[0], "value": float(value[0]), "visits": player.root.child_N.copy(),
            "search_value": player.root_value, "best": player.pick_action()}


# -------------------------------------------------------------------- the run


def bootstrap(base_dir, config):
    """Open the run in ``base_dir``: a new one (``config.json``, a randomly
    initialised model 000000, an empty ``state.json``), or the one already
    there, which must have been started with the same ``config``."""
    return ZeroRun(base_dir, config)


class ZeroRun:
    """One AlphaGo Zero run in a folder; the steps of a generation are
    methods, each doing only what is not done yet (see the module docstring).

    ::

        run = bootstrap("runs/zero", ZeroConfig.for_test())
        run.run(generations=3)          # or, step by step:
        run.selfplay(); run.gather(); run.train(); run.validate(); run.evaluate()
    """

    def __init__(self, base_dir, config):
        self.base_dir = Path(base_dir)
        self.config = config
        self.models_dir = self.base_dir / "models"
        self.state_path = self.base_dir / "state.json"
        config_path = self.base_dir / "config.json"
        if config_path.exists():
            stored = ZeroConfig.from_dict(json.loads(config_path.read_text()))
            check_same_settings(self.base_dir, "a run", stored.to_dict(), config.to_dict())
        else:
            self.base_dir.mkdir(parents=True, exist_ok=True)
            _write_json(config_path, config.to_dict())
        self.models_dir.mkdir(exist_ok=True)
        # Models and their compiled evaluators, kept between steps and
        # generations (tracing a graph costs seconds): generation -> object.
        self._models = {}
        self._evaluators = {}
        if self.state_path.exists():
            self.state = json.loads(self.state_path.read_text())
        else:
            self.state = {"format": STATE_FORMAT, "latest": 0, "best": 0, "generations": {}}
        if not self.model_path(0).exists():
            self._bootstrap_model()
        if not self.state_path.exists():
            self._save_state()

    def _bootstrap_model(self):
        import keras

        from mockgo.nets.models import dual_network

        keras.utils.set_random_seed(self.config.seed)
        model = dual_network(self.config.board_size, planes=get_encoder(ENCODER, self.config.board_size).num_planes,
                             blocks=self.config.blocks, filters=self.config.filters,
                             l2=self.config.l2, name="generation_000000")
        save_model_atomically(model, self.model_path(0))

    # ------------------------------------------------------ state

    def _save_state(self):
        _write_json(self.state_path, self.state)

    def model_path(self, generation):
        return self.models_dir / f"{model_name(generation)}.keras"

    @property
    def latest(self):
        """The newest model that finished all its steps."""
        return self.state["latest"]

    @property
    def best(self):
        """The model that plays self-play (the best one, under evaluation)."""
        return self.state["best"]

    @property
    def pending(self):
        """The generation being made: the latest + 1."""
        return self.latest + 1

    def record(self, generation=None):
        """The state's record of a generation (default: the pending one)."""
        generation = self.pending if generation is None else generation
        return self.state["generations"].setdefault(str(generation), {"generation": generation})

    def model(self, generation):
        """The Keras model of a generation (loaded once, then kept)."""
        if generation not in self._models:
            self._models[generation] = load_model(self.model_path(generation))
        return self._models[generation]

    def evaluator(self, generation):
        """A :class:`NetworkEvaluator` of a generation's model (made once)."""
        if generation not in self._evaluators:
            config = self.config
            self._evaluators[generation] = NetworkEvaluator(
                self.model(generation),
                batch_size=config.games_in_parallel * config.parallel_readouts,
                random_symmetry=config.random_symmetry, seed=_seed(config.seed, "net", generation))
        return self._evaluators[generation]

    def _trainable(self, generation):
        """The model of ``generation``, compiled, to be trained in place into
        the next one; and its evaluator, if one was made (its compiled graph
        follows the weights, so it will serve the next generation)."""
        model = self._models.get(generation)
        if model is None or not model.compiled:
            # Models after the first are saved with their optimiser's state.
            model = load_model(self.model_path(generation), compile=True)
            if not model.compiled:
                compile_dual(model, self.config)
            return model, None
        del self._models[generation]  # its weights are about to change
        return model, self._evaluators.pop(generation, None)

    def _window(self, generation):
        first = max(1, generation - self.config.window + 1)
        return [(model_name(self.record(g)["player"]), job_name(g)) for g in range(first, generation + 1)]

    def _files(self, kind, generation):
        files = []
        for model, job in self._window(generation):
            files += sorted((self.base_dir / "data" / kind / model).glob(f"{job}-b*.npz"))
        return files

    # ------------------------------------------------------ steps

    def selfplay(self, progress=True, callback=None):
        """Step 1: the pending generation's self-play games."""
        rec = self.record()
        if "selfplay" in rec:
            return rec["selfplay"]
        if "player" not in rec:
            rec["player"] = self.best if self.config.evaluate else self.latest
            self._save_state()
        summary = selfplay_job(self.base_dir, self.model_path(rec["player"]),
                               self.config.games_per_generation, self.config,
                               job=job_name(self.pending), progress=progress, callback=callback,
                               evaluator=self.evaluator(rec["player"]))
        rec["selfplay"] = summary
        self._save_state()
        return summary

    def gather(self):
        """Step 2: the window's examples, shuffled into training chunks."""
        rec = self.record()
        self._require(rec, "gather")
        if "gather" not in rec:
            g = self.pending
            summary = gather_examples(self._files("selfplay", g), self._chunks_dir(g),
                                      self.config.max_examples, self.config.chunk_size,
                                      _seed(self.config.seed, "gather", g))
            summary["window"] = [job for _, job in self._window(g)]
            rec["gather"] = summary
            self._save_state()
        return rec["gather"]

    def _chunks_dir(self, generation):
        return self.base_dir / "data" / "training_chunks" / model_name(generation)

    def _require(self, rec, step):
        earlier = STEPS[:STEPS.index(step)]
        missing = [s for s in earlier if s not in rec]
        if missing:
            raise RuntimeError(f"generation {self.pending}: {step} needs {', '.join(missing)} first")

    def train(self, progress=True, callback=None):
        """Step 3: train the latest model on the chunks into the new model;
        a checkpoint after each epoch, from which an interrupted run goes on."""
        rec = self.record()
        self._require(rec, "train")
        if "train" in rec:
            return rec["train"]
        g = self.pending
        config = self.config
        chunks = sorted(self._chunks_dir(g).glob("chunk-*.npz"))
        planes, pi, z, _ = load_examples(chunks)
        checkpoints = self.models_dir / ".training"
        checkpoints.mkdir(exist_ok=True)
        done = rec.get("train_progress", {"epochs": 0, "history": {}, "seconds": 0.0})
        evaluator = None
        if done["epochs"]:
            model = load_model(checkpoints / f"{model_name(g)}-epoch{done['epochs']:02d}.keras",
                               compile=True)
        else:
            model, evaluator = self._trainable(self.latest)
        bar = _epoch_bar(progress, f"train {model_name(g)}")
        try:
            for epoch in range(done["epochs"], config.epochs):
                start = time.perf_counter()
                rng = np.random.default_rng(_seed(config.seed, "train", g, epoch))
                x, y_pi = augment(planes, pi, rng)
                history = model.fit(x, {"policy": y_pi, "value": z.reshape(-1, 1)},
                                    batch_size=config.batch_size, epochs=epoch + 1,
                                    initial_epoch=epoch, shuffle=True, verbose=0,
                                    callbacks=[bar])
                path = checkpoints / f"{model_name(g)}-epoch{epoch + 1:02d}.keras"
                save_model_atomically(model, path)
                for key, values in history.history.items():
                    done["history"].setdefault(key, []).extend(float(v) for v in values)
                done["epochs"] = epoch + 1
                done["seconds"] += time.perf_counter() - start
                rec["train_progress"] = done
                self._save_state()
                for old in checkpoints.glob(f"{model_name(g)}-epoch*.keras"):
                    if old != path:
                        old.unlink()
                if callback is not None:
                    callback("train_epoch", {"generation": g, "epoch": epoch + 1})
        finally:
            bar.close()
        save_model_atomically(model, self.model_path(g))
        self._models[g] = model
        if evaluator is not None:
            self._evaluators[g] = evaluator
        rec["train"] = {"history": done["history"], "examples": int(len(z)),
                        "seconds": done["seconds"], "from": model_name(self.latest)}
        rec.pop("train_progress", None)
        self._save_state()
        for old in checkpoints.glob(f"{model_name(g)}-epoch*.keras"):
            old.unlink()
        for old in (self.base_dir / "data" / "training_chunks").iterdir():
            if old.name != model_name(g) and not old.name.startswith("."):
                shutil.rmtree(old)  # only the newest window is kept
        return rec["train"]

    def validate(self):
        """Step 4: the new model's losses on the window's holdout games."""
        rec = self.record()
        self._require(rec, "validate")
        if "validate" not in rec:
            files = self._files("holdout", self.pending)
            result = {"examples": 0}
            if files:
                planes, pi, z, _ = load_examples(files)
                model = self.model(self.pending)
                if not model.compiled:
                    compile_dual(model, self.config)
                losses = model.evaluate(planes, {"policy": pi, "value": z.reshape(-1, 1)},
                                        batch_size=256, verbose=0, return_dict=True)
                result = {key: float(value) for key, value in losses.items()}
                result["examples"] = int(len(z))
            rec["validate"] = result
            self._save_state()
        return rec["validate"]

    def evaluate(self, progress=True):
        """Step 5: the new model against the best; promoted at a win rate of
        ``promote_win_rate`` or more. Without evaluation it is promoted at
        once. Completes the generation."""
        rec = self.record()
        self._require(rec, "evaluate")
        if "evaluate" in rec:
            return rec["evaluate"]
        g, config = self.pending, self.config
        if config.evaluate:
            best = model_name(self.best)
            result = play_match(self.evaluator(g), self.evaluator(self.best), config.eval_games,
                                config, seed=_seed("evaluate", g)[0], names=(model_name(g), best),
                                sgf_dir=self.base_dir / "sgf" / "evaluate" / f"{model_name(g)}-vs-{best}",
                                progress=progress)
            summary = {"opponent": best, "games": len(result.games), "wins": result.first_wins,
                       "win_rate": result.win_rate,
                       "promoted": result.win_rate >= config.promote_win_rate}
        else:
            summary = {"opponent": None, "games": 0, "wins": 0, "win_rate": None, "promoted": True}
        rec["evaluate"] = summary
        rec["done"] = True
        self.state["latest"] = g
        if summary["promoted"]:
            self.state["best"] = g
        self._save_state()
        return summary

    def next_generation(self, progress=True, callback=None):
        """Run the pending generation's remaining steps; returns its record."""
        g = self.pending
        self.selfplay(progress, callback)
        self.gather()
        self.train(progress, callback)
        self.validate()
        self.evaluate(progress)
        rec = self.record(g)
        if callback is not None:
            callback("generation", {"generation": g})
        return rec

    def run(self, generations, progress=True, callback=None):
        """Make generations until the latest is ``generations`` (with
        ``progress``: bars, and a line on each generation)."""
        while self.latest < generations:
            rec = self.next_generation(progress, callback)
            if progress:
                print(generation_line(rec), flush=True)
        return self

    # ------------------------------------------------------ reading the run

    def generations(self):
        """The records of the completed generations, oldest first."""
        return [self.record(g) for g in range(1, self.latest + 1)]

    def curves(self):
        """Per-generation losses for :func:`mockgo.plotting.plot_curves`:
        the last epoch's training losses and the holdout losses (``val_``)."""
        curves = {}
        for rec in self.generations():
            for key in ("policy_loss", "value_loss"):
                curves.setdefault(key, []).append(rec["train"]["history"][key][-1])
                curves.setdefault(f"val_{key}", []).append(rec["validate"].get(key, float("nan")))
        return curves

    def selfplay_sgfs(self, generation, kind="clean"):
        """The SGF files of a generation's self-play (``kind``: clean or full)."""
        player = model_name(self.record(generation)["player"])
        return sorted((self.base_dir / "sgf" / player / kind).glob(f"{job_name(generation)}-*.sgf"))

    def example(self, generation, game=0, move=8):
        """One training example of a generation's self-play, with its
        position: ``{"board", "pi", "z", "comment"}`` (the Board replayed
        from the game's full SGF, the search's comment on the move)."""
        player, job = model_name(self.record(generation)["player"]), job_name(generation)
        for kind in ("selfplay", "holdout"):
            for path in sorted((self.base_dir / "data" / kind / player).glob(f"{job}-b*.npz")):
                with np.load(path) as data:
                    rows = np.flatnonzero(data["game"] == game)
                    if len(rows):
                        move = min(move, len(rows) - 1)
                        pi, z = data["pi"][rows[move]], float(data["z"][rows[move]])
                        break
            else:
                continue
            break
        else:
            raise ValueError(f"no examples of game {game} in generation {generation}")
        record = records.load_sgf(self.base_dir / "sgf" / player / "full" / f"{job}-{game:05d}.sgf")
        board = next(board for board, _, _ in records.replay(record) if board.move_number == move)
        return {"board": board.copy(), "pi": pi, "z": z, "comment": record.comments[move]}

    def strength(self, opponent, games, readouts=None, models=None, progress=True):
        """Win rate of each model (default: 0 to the latest) against
        ``opponent`` (``"random"`` or a generation number) over ``games``
        games; matches already played are read from ``strength.json``."""
        path = self.base_dir / "strength.json"
        table = json.loads(path.read_text()) if path.exists() else {}
        readouts = self.config.match_readouts if readouts is None else readouts
        other_name = opponent if opponent == "random" else model_name(opponent)
        rates = {}
        for g in range(self.latest + 1) if models is None else models:
            key = f"{model_name(g)} vs {other_name}, {games} games, {readouts} readouts"
            if key not in table:
                # Loaded only for a match still to play (evaluators are cached).
                other = opponent if opponent == "random" else self.evaluator(opponent)
                result = play_match(self.evaluator(g), other, games, self.config, readouts,
                                    seed=_seed("strength", g, other_name)[0], progress=progress,
                                    names=(model_name(g), other_name))
                table[key] = {"win_rate": result.win_rate, "wins": result.first_wins,
                              "games": len(result.games)}
                _write_json(path, table)
            rates[g] = table[key]["win_rate"]
        return rates


def generation_line(rec):
    """One line on a completed generation."""
    sp, tr, va, ev = rec["selfplay"], rec["train"], rec["validate"], rec["evaluate"]
    line = (f"generation {rec['generation']}: {sp['games']} games by {sp['model']} "
            f"({sp['mean_moves']:.0f} moves, {sp['games_per_hour']:.0f} games/h, "
            f"{sp['evals_per_s']:.0f} evals/s, resign FP {sp['false_positive_rate']:.0%} of "
            f"{sp['would_have_resigned']}); trained on {tr['examples']} examples: "
            f"policy {tr['history']['policy_loss'][-1]:.3f} value {tr['history']['value_loss'][-1]:.3f}")
    if va.get("examples"):
        line += f" (holdout {va['policy_loss']:.3f} / {va['value_loss']:.3f})"
    if ev["games"]:
        line += (f"; vs {ev['opponent']}: {ev['wins']}/{ev['games']}"
                 f" -> {'promoted' if ev['promoted'] else 'kept ' + ev['opponent']}")
    return line


# -------------------------------------------------------------------- command


DESCRIPTION = ("AlphaGo Zero's loop (self-play, gather, train, validate, evaluate), "
               "resumable: run the same command again to go on.")


def _parser():
    parser = argparse.ArgumentParser(prog="python -m mockgo.zero.run", description=DESCRIPTION)
    configure_parser(parser)
    return parser


def configure_parser(parser):
    """The options of ``mockgo zero`` and ``python -m mockgo.zero.run``."""
    parser.description = DESCRIPTION
    parser.add_argument("--base-dir", required=True, type=Path, help="the run's folder")
    parser.add_argument("--generations", type=int, default=10,
                        help="go on until this many generations are trained (default 10)")
    parser.add_argument("--test", action="store_true",
                        help="a tiny network, few games and readouts: the whole loop in a minute")
    parser.add_argument("--board-size", type=int)
    parser.add_argument("--games", type=int, help="self-play games per generation")
    parser.add_argument("--readouts", type=int, help="simulations per move")
    parser.add_argument("--blocks", type=int)
    parser.add_argument("--filters", type=int)
    parser.add_argument("--no-evaluate", action="store_true",
                        help="no evaluation matches: every new model plays at once (AlphaZero)")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                        help="any other ZeroConfig field, e.g. --set eval_games=20")
    parser.add_argument("--selfplay-only", action="store_true",
                        help="only play self-play games (--games of them) with --model")
    parser.add_argument("--model", type=Path,
                        help="with --selfplay-only: the model (default: the run's best)")
    parser.add_argument("--job", default="selfplay",
                        help="with --selfplay-only: the job's name (default selfplay)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    return parser


def _parse_value(field, text):
    kind = {f.name: f.type for f in dataclasses.fields(ZeroConfig)}[field]
    if text.lower() == "none":
        return None
    kind = str(kind)
    if "bool" in kind:
        if text.lower() not in ("1", "0", "true", "false", "yes", "no"):
            raise ValueError(f"{field}: {text!r} is not a boolean")
        return text.lower() in ("1", "true", "yes")
    if "int" in kind:
        return int(text)
    if "float" in kind:
        return float(text)
    return text


def config_from_args(args):
    """The ZeroConfig the command line asks for: the run's stored config if
    ``--base-dir`` has one (options that disagree with it are an error),
    else the defaults (``--test``: :meth:`ZeroConfig.for_test`) with the
    options."""
    changes = {}
    for option, field in (("board_size", "board_size"), ("games", "games_per_generation"),
                          ("readouts", "readouts"), ("blocks", "blocks"), ("filters", "filters"),
                          ("seed", "seed")):
        if getattr(args, option) is not None:
            changes[field] = getattr(args, option)
    if args.no_evaluate:
        changes["evaluate"] = False
    for item in args.set:
        field, eq, text = item.partition("=")
        if not eq or field not in {f.name for f in dataclasses.fields(ZeroConfig)}:
            raise ValueError(f"--set {item!r}: expected FIELD=VALUE with a ZeroConfig field")
        changes[field] = _parse_value(field, text)
    stored = args.base_dir / "config.json"
    if stored.exists():
        config = ZeroConfig.from_dict(json.loads(stored.read_text()))
        if args.selfplay_only and "games_per_generation" in changes:
            del changes["games_per_generation"]  # --games is the job's size there
        return dataclasses.replace(config, **changes)
    base = ZeroConfig.for_test() if args.test else ZeroConfig()
    return dataclasses.replace(base, **changes)


def main(argv=None):
    """``python -m mockgo.zero.run --base-dir DIR [--generations N] [--test] ...``"""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # before TensorFlow is imported
    return run_cli(_parser().parse_args(argv))


def run_cli(args):
    """Run the loop (or ``--selfplay-only``) as the parsed options ask."""
    try:
        config = config_from_args(args)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.test and args.generations == _parser().get_default("generations"):
        args.generations = 2
    try:
        run = bootstrap(args.base_dir, config)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.selfplay_only:
        model = args.model or run.model_path(run.best)
        games = args.games or config.games_per_generation
        summary = selfplay_job(args.base_dir, model, games, config, job=args.job,
                               progress=not args.quiet)
        print(json.dumps({k: round(v, 3) if isinstance(v, float) else v
                          for k, v in summary.items()}))
        return 0
    def report(event, info):
        if event == "generation" and args.quiet:  # else run() prints it
            print(generation_line(run.record(info["generation"])), flush=True)

    run.run(args.generations, progress=not args.quiet, callback=report)
    print(f"{args.base_dir}: latest model {model_name(run.latest)}, best {model_name(run.best)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
