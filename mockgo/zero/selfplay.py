"""Self-play: the search plays itself; every move is a training example
(with playout cap randomization, every move that got a full search).

An example is the position (``agz17`` planes), the root's visit distribution
pi, and, once the game is over, its result z (+1 if the player to move won);
for KataGo's auxiliary heads also the final owner of every point
(:func:`mockgo.go.ownership.final_owners`, +1 the player to move, -1 the
opponent, 0 no one) and the final margin in points, both for the player to
move, read off the scored end position (Tromp-Taylor, as z is: self-play
plays on until no sensible move is left). A game that ended by resignation
or at the move cap has no scored end position: its examples get
``aux_weight`` 0, so they train the policy and value only.

The module reads top to bottom, with one data type throughout,
:class:`SelfPlayGame` (a finished game and its examples):

- :func:`play_selfplay_game` plays ONE game, move by move, written to be
  read: search, record the example, play the move; then the results;
- :func:`selfplay_job` spreads a job's batches of games over workers (or
  plays them here) and keeps the job's progress file;
- :func:`play_batch` plays one batch timed, and :func:`play_selfplay_games`
  plays its games in lockstep (the runner, :mod:`mockgo.play.runner`), the
  fast way, with the same results as :func:`play_selfplay_game` game by
  game: the self-play player attaches the record of each move's search to
  its answer (:class:`~mockgo.play.search_player.MoveSearch`), the runner
  keeps it with the move, and :meth:`SelfPlayGame.from_played` makes the
  finished game's examples of them;
- :func:`write_batch` writes a batch's SGF files and its examples file, whose
  format is :mod:`mockgo.zero.examples`'s.
"""

import dataclasses
import time
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from mockgo.cluster import Recipe, ShippedModel
from mockgo.data import sgf_writer
from mockgo.go.board import BLACK, EMPTY, WHITE, Board
from mockgo.go.features import get_encoder
from mockgo.go.ownership import final_owners
from mockgo.play.runner import play_games
from mockgo.play.search_player import SearchPlayer, search_comment
from mockgo.search.evaluators import NetworkEvaluator
from mockgo.search.mcts import ResignationCheck, fewer_collections
from mockgo.zero.config import ENCODER, seed_of
from mockgo.zero.examples import save_npz, stack_games
from mockgo.zero.layout import RunLayout, is_holdout, read_job_progress, write_json

__all__ = ["SelfPlayGame", "SelfPlayWorker", "end_targets", "evaluator_for", "play_batch",
           "play_selfplay_game", "play_selfplay_games", "searcher", "selfplay_job",
           "selfplay_searcher", "summarise_selfplay", "write_batch"]


@dataclasses.dataclass
class SelfPlayGame:
    """One finished self-play game: the final board (its history is the
    game), the training examples, one SGF comment per move, and the
    resignation bookkeeping."""

    number: int
    board: object
    planes: np.ndarray  # (examples, N, N, 17) uint8
    pi: np.ndarray  # (examples, N*N+1) float32
    z: np.ndarray  # (examples,) float32: +1 if the player to move then won
    comments: list  # one per move searched
    resign_enabled: bool
    would_have_resigned: int | None
    winner: int
    moves: np.ndarray = None  # (examples,) int16: the move number of each example
    ownership: np.ndarray = None  # (examples, N*N) int8: +1 the player to move owns it at the end
    score: np.ndarray = None  # (examples,) float32: the final margin for the player to move
    aux_weight: float = 0.0  # 1 for a game scored at its end, 0 if resigned or move-capped
    full_searches: int = 0  # moves searched in full (each an example)
    fast_searches: int = 0  # moves searched fast (playout cap randomization), no example

    @classmethod
    def from_played(cls, number, played):
        """Game ``number``'s examples, from the runner's finished game
        ``played`` (a :class:`~mockgo.play.runner.PlayedGame` of the
        self-play player): the records of its moves' searches
        (:class:`~mockgo.play.search_player.MoveSearch`) give the examples
        of the full searches and the comments of all; z from the winner,
        the end targets (:func:`end_targets`), as :func:`play_selfplay_game`
        makes them."""
        board, searches = played.board, played.records
        full = [search for search in searches if search.full_search]
        colors = np.array([search.color for search in full], np.int8)
        winner = board.winner()
        z = np.where(colors == winner, 1.0, -1.0).astype(np.float32)
        if winner == EMPTY:
            z[:] = 0.0
        ownership, score, weight = end_targets(board, colors)
        # The last search's resignation bookkeeping is the game's (no search at
        # all: the game was resigned at its first move, so resigning was on).
        last = searches[-1] if searches else None
        shape = get_encoder(ENCODER, board.size).shape
        return cls(number=number, board=board,
                   planes=np.array([s.planes for s in full], np.uint8).reshape(len(full), *shape),
                   pi=np.array([s.pi for s in full], np.float32).reshape(len(full),
                                                                         board.pass_index + 1),
                   z=z, comments=[search.comment for search in searches],
                   resign_enabled=True if last is None else last.resign_enabled,
                   would_have_resigned=None if last is None else last.would_have_resigned,
                   winner=int(winner), moves=np.array([s.move_number for s in full], np.int16),
                   ownership=ownership, score=score, aux_weight=weight,
                   full_searches=len(full), fast_searches=len(searches) - len(full))


def play_selfplay_game(evaluate, config, number, seed_parts=()):
    """Self-play game ``number`` of a job, played move by move as AlphaGo
    Zero plays it; returns its :class:`SelfPlayGame`.

    Before each move, a tree search guided by ``evaluate`` (Dirichlet noise
    at the root of a full search); the root's visit distribution pi is the
    move's training target, kept with the position and the player to move;
    the move is drawn by visits in the opening, then the most visited is
    played. A player whose position looks lost resigns, unless resigning
    is off in this game (a share of games play on, to count how often a
    resignation would have been wrong). Once the game is over, each example
    gets z, +1 if its player to move won, and the end targets.

    The readable version: :func:`play_selfplay_games` plays the same games
    in lockstep, the fast way, and gives the same :class:`SelfPlayGame` to
    the bit when ``evaluate`` answers each position whatever is evaluated
    beside it (a network without random symmetries). The game's random
    numbers come from ``(config.seed, *seed_parts, number)`` alone."""
    encoder = get_encoder(ENCODER, config.board_size)
    board = Board(config.board_size, komi=config.komi)
    game_rng = np.random.default_rng(seed_of(config.seed, *seed_parts, number))
    tree = selfplay_searcher(evaluate, config).new_tree(board, game_rng)  # may it resign?
    planes, pi, colors, moves, comments = [], [], [], [], []
    while not board.is_over and board.move_number < config.moves_cap:
        tree.search()  # full (with noise) or fast, as playout cap randomization draws
        if tree.should_resign():  # the root and its best move both below the threshold
            board.resign(board.to_play)
            break
        if tree.full_search:  # the example: the position, the visits, who is to move
            planes.append(encoder.encode(board))
            pi.append(tree.visit_distribution())
            colors.append(board.to_play)
            moves.append(board.move_number)
        comments.append(search_comment(tree, full=tree.full_search))
        move = tree.pick_action()  # sampled by visits in the opening, then the most visited
        board.play(move)
        tree.play(move)  # the subtree under the move is the next search's start
    winner = board.winner()  # by area (Tromp-Taylor), or the resigner's opponent
    colors = np.array(colors, np.int8)
    z = np.where(colors == winner, 1.0, -1.0) if winner != EMPTY else np.zeros(len(colors))
    ownership, score, weight = end_targets(board, colors)
    return SelfPlayGame(
        number=number, board=board,
        planes=np.array(planes, np.uint8).reshape(len(colors), *encoder.shape),
        pi=np.array(pi, np.float32).reshape(len(colors), board.pass_index + 1),
        z=z.astype(np.float32), comments=comments, resign_enabled=tree.resign_enabled,
        would_have_resigned=tree.would_have_resigned, winner=int(winner),
        moves=np.array(moves, np.int16), ownership=ownership, score=score, aux_weight=weight,
        full_searches=len(colors), fast_searches=len(comments) - len(colors))


def selfplay_job(base_dir, model_path, games, config, job="selfplay", progress=True,
                 callback=None, evaluator=None, executor=None):
    """Play ``games`` self-play games with the model at ``model_path`` into
    ``base_dir`` (laid out by :class:`~mockgo.zero.layout.RunLayout`); returns the job's
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
        done = read_job_progress(progress_path)
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
    the games and ``{"seconds", "cpu_seconds", "evaluations", "network_seconds",
    "precision"}`` (``cpu_seconds``: all the playing process's threads;
    ``precision``: the network's, as ``"auto"`` chose it on this machine). The
    evaluator's random symmetries are seeded by the batch, so the games do
    not depend on what the evaluator did before (another batch, a match) or
    where they are played. ``step``, ``on_game``: as
    :func:`play_selfplay_games`'s ``callback`` and ``on_game``."""
    evaluator.rng = np.random.default_rng(seed_of(config.seed, model, job, batch, "symmetries"))
    start, cpu_start = time.perf_counter(), time.process_time()
    evaluations, network_seconds = evaluator.evaluations, evaluator.network_seconds
    games = play_selfplay_games(evaluator, config, numbers, (model, job), step, on_game)
    return games, {"seconds": time.perf_counter() - start,
                   "cpu_seconds": time.process_time() - cpu_start,
                   "evaluations": evaluator.evaluations - evaluations,
                   "network_seconds": evaluator.network_seconds - network_seconds,
                   "precision": evaluator.predictor.precision}


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


def play_selfplay_games(evaluate, config, numbers, seed_parts=(), callback=None, on_game=None):
    """Play games ``numbers`` (ints) against themselves in lockstep; returns
    their :class:`SelfPlayGame` records in order.

    One :class:`~mockgo.play.search_player.SearchPlayer` plays both colours of
    every game through the runner (:func:`mockgo.play.runner.play_games`):
    each step is one search step of every unfinished game's search
    (:func:`mockgo.search.mcts.search_step`, one ``evaluate`` call for
    all), with Dirichlet noise at the roots of full searches; each game
    whose search is done plays its move (or resigns) and begins its next
    search at the next step. The player attaches the record of each search
    to its move (the position, the root's visit distribution, the search's
    comment: :class:`~mockgo.play.search_player.MoveSearch`), of which
    :meth:`SelfPlayGame.from_played` makes the game's examples: game by
    game, the same as :func:`play_selfplay_game` (one game, move by move).
    Game ``i``'s random numbers (noise, sampling, whether it may resign) come
    from ``(config.seed, *seed_parts, i)``. ``callback("selfplay_step", info)``
    is called after each step (``info``: the ``step``, the games still
    ``active``, the ``moves`` played so far), ``on_game(game)`` as each game
    finishes (the runner's :class:`~mockgo.play.runner.PlayedGame`).
    """
    player = selfplay_searcher(evaluate, config, name="selfplay",
                               record_encoder=get_encoder(ENCODER, config.board_size))
    stats = {}
    step = None if callback is None else (
        lambda step, running: callback("selfplay_step", {"step": step, "active": running,
                                                         "moves": stats["moves"]}))
    with fewer_collections():
        played = play_games(player, player, len(numbers), config.board_size, komi=config.komi,
                            seeds=[seed_of(config.seed, *seed_parts, n) for n in numbers],
                            max_moves=config.moves_cap, stats=stats, on_step=step,
                            on_game=on_game)
    return [SelfPlayGame.from_played(numbers[game.index], game) for game in played]


def searcher(evaluate, config, readouts, **options):
    """A :class:`~mockgo.play.search_player.SearchPlayer` with the run's search
    settings (c_puct, leaves per call, first-play value, moves sampled by
    visits, the moves the run plays and its move cap) and ``readouts`` per
    move; ``options``: the rest (noise, resignation, records, name)."""
    return SearchPlayer(evaluate, readouts=readouts, c_puct=config.c_puct,
                        parallel_readouts=config.parallel_readouts,
                        fpu_reduction=config.fpu_reduction, softpick_moves=config.softpick_moves,
                        size=config.board_size, game=config.game_class,
                        max_moves=config.moves_cap, **options)


def selfplay_searcher(evaluate, config, **options):
    """The self-play player: :func:`searcher` with Dirichlet noise,
    resignation, and KataGo's search options of ``config`` (playout cap
    randomization, forced playouts), searching step-wise (each game moves
    as soon as its own search is done: ``stepwise`` of
    :class:`~mockgo.play.search_player.SearchPlayer`)."""
    return searcher(evaluate, config, config.readouts, dirichlet=True, stepwise=True,
                    resign_threshold=config.resign_threshold,
                    resign_disabled_share=config.resign_disabled_share,
                    full_search_share=config.full_search_share,
                    fast_readouts=config.fast_readouts,
                    forced_playouts=config.forced_playouts, **options)


def evaluator_for(side, config, batch_size, seed):
    """A :class:`~mockgo.search.evaluators.NetworkEvaluator` for a side given
    as an evaluator (kept), a Keras model or the path of one, its graph in
    the run's ``precision``."""
    if isinstance(side, NetworkEvaluator):
        return side
    return NetworkEvaluator(side, batch_size=batch_size, random_symmetry=config.random_symmetry,
                            seed=seed, precision=config.precision)


def end_targets(board, colors):
    """The ownership and score targets of a finished game for players to
    move ``colors`` (an array of BLACK and WHITE, one per example):
    ``(ownership (examples, N*N) int8, score (examples,) float32, weight)``,
    from the view of each example's player to move; ``weight`` is 1 for a
    game that ended by two passes, 0 for one that ended by resignation or at
    the move cap (module docstring)."""
    sign = np.where(np.asarray(colors) == BLACK, 1, -1).astype(np.int8)
    black_view = np.zeros(board.pass_index, np.int8)
    owners = final_owners(board)
    black_view[owners == BLACK] = 1
    black_view[owners == WHITE] = -1
    ownership = sign[:, None] * black_view[None, :]
    score = (sign * np.float32(board.area_score())).astype(np.float32)
    weight = 1.0 if board.passes >= 2 and board.resigned is None else 0.0
    return ownership.astype(np.int8), score, weight


def write_batch(layout, config, model, job, batch, games, played):
    """A played batch's files (its SGF games, then its examples) and its
    record for the job's progress file (``played``: :func:`play_batch`'s
    figures)."""
    for game in games:
        searches = f"{config.readouts} readouts a move"
        if config.full_search_share < 1:
            searches = (f"{config.readouts} readouts on {game.full_searches} moves, "
                        f"{config.fast_readouts} on {game.fast_searches} (fast searches)")
        note = (f"self-play by model {model}, {searches}, "
                f"resignation {'on' if game.resign_enabled else 'off'}")
        clean = sgf_writer.record_from_board(game.board, black=model, white=model, date="")
        clean.game_comment = note
        sgf_writer.save_sgf(clean, layout.sgf(model, job, game.number, "clean"))
        full = sgf_writer.record_from_board(game.board, black=model, white=model, date="",
                                            comments=game.comments)
        full.game_comment = note + "; comments: the root's value for the player to move, " \
                                   "then the most visited moves with visits and Q"
        sgf_writer.save_sgf(full, layout.sgf(model, job, game.number, "full"))
    held = [g for g in games if is_holdout(g.number, config.holdout_share)]
    kept = [g for g in games if not is_holdout(g.number, config.holdout_share)]
    for holdout, part in ((True, held), (False, kept)):
        if part:
            save_npz(layout.examples(model, job, holdout, batch), stack_games(part))
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
        "full_searches": int(sum(g.full_searches for g in games)),
        "fast_searches": int(sum(g.fast_searches for g in games)),
        "scored_games": int(sum(g.aux_weight > 0 for g in games)),
        "resign_disabled_games": check.games,
        "would_have_resigned": check.would_have_resigned,
        "false_positives": check.false_positives,
        "seconds": played["seconds"],
        "cpu_seconds": played["cpu_seconds"],  # all the playing process's threads
        "evaluations": played["evaluations"],
        "network_seconds": played["network_seconds"],
        "precision": played["precision"],
    }


def summarise_selfplay(done):
    """A job's totals over its batches, and the rates: games per hour (of a
    worker, and of the whole job: ``job_games_per_hour``, its ``workers``
    together), network evaluations per second, the resignation
    false-positive rate; the network ``precisions`` its batches were played
    with (``"auto"`` picks one per machine, and a job may be resumed on
    another)."""
    total = {"games_requested": done["games"], "model": done["model"], "job": done["job"]}
    keys = ("games", "holdout_games", "examples", "holdout_examples", "moves", "black_wins",
            "resigned", "resign_disabled_games", "would_have_resigned", "false_positives",
            "seconds", "evaluations", "network_seconds")
    for key in keys:
        total[key] = sum(batch[key] for batch in done["batches"].values())
    for key in ("full_searches", "fast_searches", "scored_games",
                "cpu_seconds"):  # not in older jobs' files
        total[key] = sum(batch.get(key, 0) for batch in done["batches"].values())
    total["precisions"] = sorted({batch["precision"] for batch in done["batches"].values()
                                  if batch.get("precision")})  # older jobs' files: none
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


def progress_bar(enabled, **kwargs):
    """A tqdm bar of ``kwargs``, or None when not ``enabled``."""
    return tqdm(**kwargs) if enabled else None
