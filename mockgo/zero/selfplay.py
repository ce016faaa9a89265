"""Self-play: the search plays itself; every move is a training example."""

import dataclasses
import json
import time
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from mockgo.data import records
from mockgo.data.files import atomic_open, read_npz
from mockgo.go import coords
from mockgo.go.board import BLACK, EMPTY
from mockgo.go.features import get_encoder
from mockgo.play.players import SearchPlayer
from mockgo.play.runner import play_games
from mockgo.search.evaluators import NetworkEvaluator
from mockgo.search.mcts import ResignationCheck
from mockgo.zero.config import ENCODER, seed_of
from mockgo.zero.layout import RunLayout, is_holdout, write_json

__all__ = ["SelfPlayGame", "SelfPlayWorker", "evaluator_for", "load_examples", "play_batch",
           "play_selfplay_games", "search_comment", "searcher", "selfplay_job",
           "summarise_selfplay", "write_batch"]


def searcher(evaluate, config, readouts, **options):
    """A :class:`~mockgo.play.players.SearchPlayer` with the run's search
    settings (c_puct, leaves per call, first-play value, moves sampled by
    visits, the moves the run plays and its move cap) and ``readouts`` per
    move; ``options``: the rest (noise, resignation, hooks, name)."""
    return SearchPlayer(evaluate, readouts=readouts, c_puct=config.c_puct,
                        parallel_readouts=config.parallel_readouts,
                        fpu_reduction=config.fpu_reduction, softpick_moves=config.softpick_moves,
                        size=config.board_size, game=config.game_class,
                        max_moves=config.moves_cap, **options)


def evaluator_for(side, config, batch_size, seed):
    """A :class:`~mockgo.search.evaluators.NetworkEvaluator` for a side given
    as an evaluator (kept), a Keras model or the path of one."""
    if isinstance(side, NetworkEvaluator):
        return side
    return NetworkEvaluator(side, batch_size=batch_size, random_symmetry=config.random_symmetry,
                            seed=seed)


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

    One :class:`~mockgo.play.players.SearchPlayer` plays both colours of
    every game through the runner (:func:`mockgo.play.runner.play_games`):
    each step searches every unfinished game with one ``evaluate`` call per
    step of :func:`mockgo.search.mcts.search_many`, with Dirichlet noise at
    the roots, then each game plays its move (or resigns). Before each move
    the position, the root's visit distribution and the search's comment are
    recorded. Game ``i``'s random numbers (noise, sampling, whether it may
    resign) come from ``(config.seed, *seed_parts, i)``. ``callback(
    "selfplay_step", info)`` is called after each step, ``on_game(game)``
    as each game finishes.
    """

    encoder = get_encoder(ENCODER, config.board_size)
    examples = {g: ([], [], [], []) for g in range(len(numbers))}  # planes, pi, colour, comment
    resigning = {}  # game -> (resign_enabled, would_have_resigned)
    finished = [None] * len(numbers)

    def record(game, tree):
        planes, pis, colors, comments = examples[game]
        board = tree.state.board
        planes.append(encoder.encode(board))
        pis.append(tree.visit_distribution().astype(np.float32))
        colors.append(board.to_play)
        comments.append(search_comment(tree))

    def keep(game, tree):
        resigning[game] = (tree.resign_enabled, tree.would_have_resigned)

    def done(played):
        g = played.index
        finished[g] = game = _finish(numbers[g], played.board, examples.pop(g), *resigning.pop(g),
                                     encoder)
        if on_game is not None:
            on_game(game)

    player = searcher(evaluate, config, config.readouts, dirichlet=True,
                      resign_threshold=config.resign_threshold,
                      resign_disabled_share=config.resign_disabled_share,
                      on_search=record, on_end_game=keep, name="selfplay")
    step = None if callback is None else (
        lambda step, running: callback("selfplay_step", {"step": step, "active": running}))
    play_games(player, player, len(numbers), config.board_size, komi=config.komi,
               seeds=[seed_of(config.seed, *seed_parts, n) for n in numbers],
               max_moves=config.moves_cap, on_step=step, on_game=done)
    return finished


def _finish(number, board, example, resign_enabled, would_have_resigned, encoder):
    planes, pis, colors, comments = example
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
        resign_enabled=resign_enabled, would_have_resigned=would_have_resigned,
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


def save_npz(path, arrays):
    with atomic_open(path, "wb") as file:
        np.savez_compressed(file, **arrays)


def load_examples(paths):
    """Concatenate example files: ``(planes, pi, z, game)`` arrays."""
    parts = []
    for path in paths:  # a damaged file is an error naming it (files.read_npz)
        data = read_npz(path, ("planes", "pi", "z", "game"))
        parts.append((data["planes"], data["pi"], data["z"], data["game"]))
    if not parts:
        return None
    return tuple(np.concatenate(column) for column in zip(*parts))


def progress_bar(enabled, **kwargs):
    if not enabled:
        return None

    return tqdm(**kwargs)


def selfplay_job(base_dir, model_path, games, config, job="selfplay", progress=True,
                 callback=None, evaluator=None, executor=None):
    """Play ``games`` self-play games with the model at ``model_path`` into
    ``base_dir`` (the layout in the module docstring); returns the job's
    statistics.

    The games are played in batches of ``config.games_in_parallel`` in
    lockstep; after each batch its examples (``data/selfplay`` or, for held
    out games, ``data/holdout``) and SGF files are written, then the job's
    progress file. Started again, the job skips the batches it has done and
    plays the rest; a job that is complete returns at once.
    ``callback(event, info)`` sees ``"selfplay_step"`` (in this process
    only) and ``"selfplay_batch"`` events (tests interrupt jobs through it).
    ``evaluator``: a :class:`NetworkEvaluator` of that model already made
    (its compiled graph is reused), else the model is loaded.

    ``executor`` (:mod:`mockgo.cluster`; None: here, one batch after
    another): the batches are tasks, named ``(model, job, batch)``, played
    by workers that keep the model's evaluator warm between batches (the
    model travels as its file's bytes); each batch comes back here, where
    its files and the progress file are written, in the order the batches
    finish. Batch b's games are the same wherever it is played (their seeds
    and the evaluator's symmetries come from the run's seed, the model, the
    job and the batch), and a batch that comes back twice is written once.
    """
    layout, model_path = RunLayout(base_dir), Path(model_path)
    model = model_path.stem
    for folder in (layout.examples_dir(model), layout.examples_dir(model, holdout=True),
                   layout.sgf_dir(model, "clean"), layout.sgf_dir(model, "full")):
        folder.mkdir(parents=True, exist_ok=True)
    progress_path = layout.job_progress(model, job)
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
    if not todo:
        return summarise_selfplay(done)
    bar = progress_bar(progress, total=games, initial=games - sum(len(n) for _, n in todo),
                       unit="game", desc=f"self-play {job} ({model})", smoothing=0)

    done["workers"] = 1 if executor is None else executor.workers
    mark = [time.perf_counter()]

    def finish(b, games_played, played):
        if str(b) in done["batches"]:
            return  # a batch that came back twice: written once
        done["batches"][str(b)] = write_batch(layout, config, model, job, b, games_played,
                                              played)
        now = time.perf_counter()
        done["wall_seconds"] = done.get("wall_seconds", 0.0) + now - mark[0]
        mark[0] = now
        write_json(progress_path, done)
        if callback is not None:
            callback("selfplay_batch", {"job": job, "batch": b})

    try:
        if executor is None:
            evaluator = evaluator_for(evaluator or model_path, config,
                                      per_batch * config.parallel_readouts,
                                      seed_of(config.seed, model, job))
            for b, numbers in todo:
                finish(b, *_selfplay_batch(evaluator, config, model, job, b, numbers, bar,
                                           callback))
        else:
            from mockgo.cluster import Recipe, ShippedModel

            recipe = Recipe(SelfPlayWorker, (config, ShippedModel.from_path(model_path)))
            tasks = {(model, job, b): {"model": model, "job": job, "batch": b, "numbers": numbers}
                     for b, numbers in todo}
            planes = get_encoder(ENCODER, config.board_size).num_planes
            for (_, _, b), (games_played, played) in executor.map(recipe, tasks):
                for game in games_played:
                    game.planes = np.unpackbits(game.planes, axis=-1, count=planes)
                finish(b, games_played, played)
                if bar is not None:
                    rate = 3600 * len(games_played) / played["seconds"]
                    bar.update(len(games_played))
                    bar.set_postfix({"games/h": f"{rate:.0f} a worker"}, refresh=True)
    finally:
        if bar is not None:
            bar.close()
    return summarise_selfplay(done)


class SelfPlayWorker:
    """A worker's self-play session (:mod:`mockgo.cluster`): one model's
    evaluator, compiled once and kept warm while the tasks name that model.
    A task is one batch: ``{"model", "job", "batch", "numbers"}``; it returns
    the batch's :class:`SelfPlayGame` records (planes packed into bits for
    the journey) and what playing them took."""

    def __init__(self, config, model):
        self.config = config
        self.evaluator = evaluator_for(model, config,
                                       config.games_in_parallel * config.parallel_readouts, None)

    def __call__(self, task):
        games, played = play_batch(self.evaluator, self.config, task["model"], task["job"],
                                   task["batch"], task["numbers"])
        for game in games:
            game.planes = np.packbits(game.planes, axis=-1)
        return games, played


def play_batch(evaluator, config, model, job, batch, numbers, step=None, on_game=None):
    """Play batch ``batch`` (games ``numbers``) of a self-play job; returns
    the games and ``{"seconds", "evaluations", "network_seconds"}``. The
    evaluator's random symmetries are seeded by the batch, so the games do
    not depend on what the evaluator did before (another batch, a match) or
    where they are played. ``step``, ``on_game``: as
    :func:`play_selfplay_games`'s ``callback`` and ``on_game``."""
    evaluator.rng = np.random.default_rng(seed_of(config.seed, model, job, batch, "symmetries"))
    start = time.perf_counter()
    evaluations, network_seconds = evaluator.evaluations, evaluator.network_seconds
    games = play_selfplay_games(evaluator, config, numbers, (model, job), step, on_game)
    return games, {"seconds": time.perf_counter() - start,
                   "evaluations": evaluator.evaluations - evaluations,
                   "network_seconds": evaluator.network_seconds - network_seconds}


def _selfplay_batch(evaluator, config, model, job, batch, numbers, bar, callback):
    """A batch played here, with the progress bar's rates and the callback's steps."""
    start = time.perf_counter()
    evaluations = evaluator.evaluations
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

    return play_batch(evaluator, config, model, job, batch, numbers, step, on_game)


def write_batch(layout, config, model, job, batch, games, played):
    """A played batch's files (its SGF games, then its examples) and its
    record for the job's progress file (``played``: :func:`play_batch`'s
    figures)."""
    for game in games:
        note = (f"self-play by model {model}, {config.readouts} readouts a move, "
                f"resignation {'on' if game.resign_enabled else 'off'}")
        clean = records.record_from_board(game.board, black=model, white=model, date="")
        clean.game_comment = note
        records.save_sgf(clean, layout.sgf(model, job, game.number, "clean"))
        full = records.record_from_board(game.board, black=model, white=model, date="",
                                         comments=game.comments)
        full.game_comment = note + "; comments: the root's value for the player to move, " \
                                   "then the most visited moves with visits and Q"
        records.save_sgf(full, layout.sgf(model, job, game.number, "full"))
    held = [g for g in games if is_holdout(g.number, config.holdout_share)]
    kept = [g for g in games if not is_holdout(g.number, config.holdout_share)]
    for holdout, part in ((True, held), (False, kept)):
        if part:
            save_npz(layout.examples(model, job, holdout, batch), _stack(part))
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
        "seconds": played["seconds"],
        "evaluations": played["evaluations"],
        "network_seconds": played["network_seconds"],
    }


def summarise_selfplay(done):
    """A job's totals over its batches, and the rates: games per hour (of a
    worker, and of the whole job: ``job_games_per_hour``, its ``workers``
    together), network evaluations per second, the resignation
    false-positive rate."""
    total = {"games_requested": done["games"], "model": done["model"], "job": done["job"]}
    keys = ("games", "holdout_games", "examples", "holdout_examples", "moves", "black_wins",
            "resigned", "resign_disabled_games", "would_have_resigned", "false_positives",
            "seconds", "evaluations", "network_seconds")
    for key in keys:
        total[key] = sum(batch[key] for batch in done["batches"].values())
    seconds = max(total["seconds"], 1e-9)
    total["complete"] = total["games"] == done["games"]
    total["games_per_hour"] = 3600 * total["games"] / seconds  # a worker's rate
    # The job's rate, all its workers together (from the first batch to the last written).
    total["workers"] = done.get("workers", 1)
    total["wall_seconds"] = done.get("wall_seconds", total["seconds"])
    total["job_games_per_hour"] = 3600 * total["games"] / max(total["wall_seconds"], 1e-9)
    total["evals_per_s"] = total["evaluations"] / seconds
    total["network_share"] = total["network_seconds"] / seconds
    total["mean_moves"] = total["moves"] / max(total["games"], 1)
    total["false_positive_rate"] = ResignationCheck(
        would_have_resigned=total["would_have_resigned"],
        false_positives=total["false_positives"]).false_positive_rate
    return total
