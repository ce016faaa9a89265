"""Speed of the tree search itself: one JSON line of figures.

9x9 Go with the uniform evaluator (priors 1/82, value 0), so the figures
measure the search's own overhead: selection, virtual loss, creating states
(``Board.copy()`` + ``play``), legal-move masks, expansion and backup.
Three set-ups, each searching from the empty board and then playing on with
tree reuse for a few moves:

- ``single``: one tree, parallel_readouts=1 (one evaluator call per leaf);
- ``batched``: one tree, parallel_readouts=8 (virtual loss);
- ``lockstep``: 16 games' trees, parallel_readouts=8 each, one evaluator call
  per step for all of them (``search_many``).

``leaves_per_evaluator_call`` is the mean batch the evaluator saw. Each
set-up runs ``--repeat`` times and the fastest run is reported;
``cpu_readouts_per_s`` divides by the process's CPU time instead of the wall
clock, which is steadier when the machine is busy with other work.

Then ``selfplay``: 9x9 self-play as the AlphaGo Zero loop plays it
(:func:`mockgo.zero.selfplay.play_selfplay_games`: ``--games`` games in lockstep,
``--parallel`` leaves per tree, one network call per step, ``agz17`` planes
encoded into a preallocated batch, random symmetries) with an untrained
``--blocks`` x ``--filters`` dual network (speed does not depend on the
weights) and ``--selfplay-readouts`` simulations per move:

- ``evals_per_s``: positions the network evaluated per second of self-play;
- ``raw_evals_per_s``: the same network's throughput on random planes at
  the same batch size (``batch_size`` = games x parallel), measured just
  before and just after the self-play and averaged;
- ``ratio``: the first over the second; 1 - ratio is what the tree, the
  boards and the features cost on top of the network;
- ``network_share``: the share of the self-play's wall time spent inside the
  network calls (the same question, measured from the inside; steadier
  than ``ratio`` when other work shares the machine);
- ``mean_batch``: positions per network call (duplicated leaves and
  finished games make it smaller than ``batch_size``);
- ``games_per_hour`` and ``moves_per_game``: from playing the games to the
  end, as the loop plays them (sensible moves, resignation at -0.9; with an
  untrained network the games are longer than a trained one's);
  ``--selfplay-moves N`` stops once N moves a game have been played
  (games move at their own pace: self-play searches step-wise; a quicker
  look: then these two are null), ``--selfplay-moves 0`` skips self-play;
  ``moves_per_hour`` either way;
- ``raw_best`` and ``ratio_to_best_raw``: the network's best raw throughput
  at any batch size from 32 to 1024 (the same graph), and self-play's
  evaluations per second over it (the issue's target: at least 0.8);
- ``network_variants``: the raw throughput at ``batch_size`` of the plain
  graph (the present evaluator), XLA (``jit_compile``), bfloat16 mixed
  precision, and both (:class:`mockgo.nets.inference.Predictor`), measured
  in turns in this one run;
- ``selfplay_variants``: with ``--variants graph,bfloat16`` (any of those
  four), self-play is played with each, in this run (``--rounds N``: N
  times each, in turns, the fastest kept), and the main figures of each are
  listed (the first is ``selfplay``);
- ``--workers N``: then self-play in N worker processes at once, each with
  cores / N threads and its own ``--games`` games, as the Zero loop's
  ``--workers N`` plays it (``selfplay_workers``): the machine's
  evaluations per second (every worker's, over the time from the first
  start to the last end), its ``ratio_to_best_raw`` (over the in-process
  best, as above) and ``ratio_side_by_side`` (over the workers' networks
  run raw side by side). On 2 cores one process leaves a core idle while
  its tree search runs; two workers search one tree while the other's
  network runs;
- ``--katago``: self-play with :meth:`mockgo.zero.config.ZeroConfig.with_katago`'s
  search (a full search on a quarter of the moves, a fast one of a quarter
  of the readouts on the rest, forced playouts), for games per hour before
  and after.

    python benchmarks/mcts.py --readouts 800 --moves 4
    python benchmarks/mcts.py --selfplay-moves 20      # self-play figures in a few minutes
    python benchmarks/mcts.py --moves 1 --repeat 1 --selfplay-moves 30 --variants graph,bfloat16
    python benchmarks/mcts.py --moves 1 --repeat 1 --selfplay-moves 30 --workers 2
"""

import argparse
import json
import os
import time

from mockgo.search.games import GoGame
from mockgo.search.evaluators import uniform_evaluator
from mockgo.search.mcts import MCTSPlayer, search_many


class CountingEvaluator:
    def __init__(self, evaluate):
        self.evaluate, self.calls, self.leaves = evaluate, 0, 0

    def __call__(self, states):
        self.calls += 1
        self.leaves += len(states)
        return self.evaluate(states)


def run(games, parallel, readouts, moves, size, seed):
    evaluate = CountingEvaluator(uniform_evaluator)
    players = []
    for g in range(games):
        player = MCTSPlayer(evaluate, num_readouts=readouts, parallel_readouts=parallel,
                            seed=seed + g)
        player.initialize(GoGame(size))
        players.append(player)
    start, cpu_start = time.perf_counter(), time.process_time()
    for _ in range(moves):
        search_many(players)
        for player in players:
            player.play(player.pick_action())
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    total = games * readouts * moves
    return {
        "readouts_per_s": round(total / elapsed),
        "cpu_readouts_per_s": round(total / cpu),
        "leaves_per_evaluator_call": round(evaluate.leaves / evaluate.calls, 2),
        "games": games,
        "parallel_readouts": parallel,
        "seconds": round(elapsed, 2),
    }


class _Stop(Exception):
    pass


def network_throughput(predictor, planes, seconds):
    """Positions per second of ``predictor.predict`` on ``planes`` (one warm-up call)."""
    from inference import positions_per_second  # benchmarks/inference.py, beside this script

    return positions_per_second(lambda: predictor.predict(planes), len(planes), seconds)


# The self-play evaluator's graph: the present one, XLA, bfloat16, both.
VARIANTS = {"graph": dict(jit_compile=False, precision="float32"),
            "xla": dict(jit_compile=True, precision="float32"),
            "bfloat16": dict(jit_compile=False, precision="bfloat16"),
            "bfloat16_xla": dict(jit_compile=True, precision="bfloat16")}


def network_variants(model, batch, seconds, seed, rounds=2):
    """Raw positions/s of each of :data:`VARIANTS` at ``batch``, measured in
    turns (``rounds`` times each, the best kept), so that other load on the
    machine hits them alike."""
    import numpy as np

    from mockgo.nets.inference import Predictor

    size = model.inputs[0].shape[1]
    planes = np.random.default_rng(seed).integers(0, 2, (batch, size, size, 17), dtype=np.uint8)
    predictors = {name: Predictor(model, batch_size=batch, **options)
                  for name, options in VARIANTS.items()}
    rates = {name: 0.0 for name in VARIANTS}
    for _ in range(rounds):
        for name, predictor in predictors.items():
            rates[name] = max(rates[name], network_throughput(predictor, planes, seconds / rounds))
    return {name: round(rate, 1) for name, rate in rates.items()}


def best_raw(model, options, seconds, seed, batches=(32, 64, 128, 256, 512, 1024)):
    """The network's best raw positions/s at any of ``batches`` (and which)."""
    import numpy as np

    from mockgo.nets.inference import Predictor

    size = model.inputs[0].shape[1]
    rates = {}
    for batch in batches:
        planes = np.random.default_rng(seed).integers(0, 2, (batch, size, size, 17),
                                                      dtype=np.uint8)
        rates[batch] = network_throughput(Predictor(model, batch_size=batch, **options), planes,
                                          seconds)
    batch = max(rates, key=rates.get)
    return {"evals_per_s": round(rates[batch], 1), "batch_size": batch,
            "by_batch": {str(b): round(r, 1) for b, r in rates.items()}}


def selfplay(model, config, variant, moves, seconds, seed, sync=None):
    """The self-play figures (module docstring) with the evaluator's graph
    ``variant`` (a key of :data:`VARIANTS`); ``sync()``, if given, is
    called just before and just after the timed self-play (workers wait
    there for each other)."""
    import numpy as np

    from mockgo.search.evaluators import NetworkEvaluator
    from mockgo.zero.selfplay import play_selfplay_games

    games, parallel = config.games_in_parallel, config.parallel_readouts
    size = config.board_size
    batch = games * parallel
    evaluator = NetworkEvaluator(model, batch_size=batch, seed=seed, **VARIANTS[variant])
    planes = np.random.default_rng(seed).integers(0, 2, (batch, size, size, 17), dtype=np.uint8)
    raw_before = network_throughput(evaluator.predictor, planes, seconds)

    played = [0]

    def stop(event, info):
        played[0] = info["moves"]
        if moves > 0 and info["moves"] >= moves * games:  # as many as N moves a game
            raise _Stop

    if sync is not None:
        sync()
    started_at, start = time.time(), time.perf_counter()
    try:
        finished = play_selfplay_games(evaluator, config, list(range(games)), callback=stop)
    except _Stop:
        finished = None
    elapsed, ended_at = time.perf_counter() - start, time.time()
    if sync is not None:
        sync()
    raw_after = network_throughput(evaluator.predictor, planes, seconds)
    raw = (raw_before + raw_after) / 2
    evals_per_s = evaluator.evaluations / elapsed
    lengths = [game.board.move_number for game in finished] if finished else None
    return {
        "variant": variant, "readouts": config.readouts, "games": games,
        "parallel_readouts": parallel, "batch_size": batch,
        "full_search_share": config.full_search_share, "fast_readouts": config.fast_readouts,
        "evals_per_s": round(evals_per_s, 1), "raw_evals_per_s": round(raw, 1),
        "raw_before_after": [round(raw_before, 1), round(raw_after, 1)],
        "ratio": round(evals_per_s / raw, 3),
        "network_share": round(evaluator.network_seconds / elapsed, 3),
        "mean_batch": round(evaluator.evaluations / evaluator.calls, 1),
        "games_per_hour": round(3600 * games / elapsed, 1) if finished else None,
        "moves_per_game": round(sum(lengths) / games, 1) if finished else None,
        "moves_per_hour": round(3600 * (sum(lengths) if finished else played[0]) / elapsed),
        "seconds": round(elapsed, 1),
        "evaluations": evaluator.evaluations, "started_at": started_at, "ended_at": ended_at,
    }


_START = None  # a worker's barrier: the workers' self-play starts together


def _start_worker(barrier, threads):
    global _START
    from mockgo.cluster import limit_threads

    limit_threads(threads)
    _START = barrier


def _selfplay_in_worker(job):
    """In a worker process: :func:`selfplay`, whose raw throughput (before
    and after) is measured while the other workers measure theirs, and
    whose timed self-play starts when every worker is ready (and the raw
    throughput after it, when every worker is done)."""
    args, variant, seed = job
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    model, config = _model_and_config(args)
    _warm_up(model, config, variant, args)
    _START.wait()
    return selfplay(model, config, variant, args.selfplay_moves, args.raw_seconds, seed,
                    sync=_START.wait)


def selfplay_in_workers(args, variant):
    """Self-play in ``args.workers`` processes at once, each computing with
    ``cores / workers`` threads (as :class:`mockgo.cluster.Processes`) and
    playing ``--games`` games: the machine's evaluations per second (all
    workers' evaluations over the time from the first one's start to the
    last one's end) and the raw throughput of the workers' networks run
    side by side."""
    import multiprocessing

    from mockgo.cluster import cores_per_worker

    threads = cores_per_worker(args.workers)
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(args.workers)
    jobs = [(args, variant, args.seed + 1000 * w) for w in range(args.workers)]
    with context.Pool(args.workers, initializer=_start_worker,
                      initargs=(barrier, threads)) as pool:
        runs = pool.map(_selfplay_in_worker, jobs)
    seconds = max(r["ended_at"] for r in runs) - min(r["started_at"] for r in runs)
    evals_per_s = sum(r["evaluations"] for r in runs) / seconds
    raw = sum(r["raw_evals_per_s"] for r in runs)
    finished = all(r["games_per_hour"] is not None for r in runs)
    return {
        "workers": args.workers, "threads_each": threads, "variant": variant,
        "evals_per_s": round(evals_per_s, 1),
        "raw_evals_per_s_side_by_side": round(raw, 1),
        "ratio_side_by_side": round(evals_per_s / raw, 3),
        "games_per_hour": round(3600 * args.workers * args.games / seconds, 1)
        if finished else None,
        "moves_per_hour": round(sum(r["moves_per_hour"] * r["seconds"] for r in runs) / seconds),
        "mean_batch": [r["mean_batch"] for r in runs],
        "seconds": round(seconds, 1),
    }


def _warm_up(model, config, variant, args):
    """Load the compiled (numba) functions the search and the encoder use,
    from their cache, before anything is timed: a second or so, once per
    process."""
    run(1, 1, 50, 1, args.size, args.seed)
    selfplay(model, config, variant, 1, 0.1, args.seed)


def _model_and_config(args):
    from mockgo.nets.models import dual_network
    from mockgo.zero.config import ZeroConfig

    config = ZeroConfig(board_size=args.size, readouts=args.selfplay_readouts,
                        parallel_readouts=args.parallel, games_in_parallel=args.games,
                        seed=args.seed)
    if args.katago:
        config = config.with_katago()
    return dual_network(args.size, 17, args.blocks, args.filters), config


def selfplay_figures(args):
    """Self-play with each of ``args.variants``, the network's variants, and
    the best raw throughput at any batch size; one dict for the JSON line."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    model, config = _model_and_config(args)
    _warm_up(model, config, args.variants[0], args)
    batch = args.games * args.parallel
    figures = {"net": f"dual {args.blocks}x{args.filters}",
               "network_variants": network_variants(model, batch, 2 * args.raw_seconds,
                                                    args.seed)}
    runs = {}
    for _ in range(args.rounds):  # in turns, the fastest of each kept
        for variant in args.variants:
            run = selfplay(model, config, variant, args.selfplay_moves, args.raw_seconds,
                           args.seed)
            if variant not in runs or run["evals_per_s"] > runs[variant]["evals_per_s"]:
                runs[variant] = run
    best = best_raw(model, VARIANTS[args.variants[0]], args.raw_seconds, args.seed)
    for variant, run in runs.items():
        if variant == args.variants[0]:
            run["raw_best"] = best
            run["ratio_to_best_raw"] = round(run["evals_per_s"] / best["evals_per_s"], 3)
    figures["selfplay"] = runs[args.variants[0]]
    for run in runs.values():
        for key in ("evaluations", "started_at", "ended_at"):
            del run[key]
    if args.workers > 1:
        # After the in-process figures, so that this process's TensorFlow
        # (with all the cores' threads) is idle while the workers play.
        workers = selfplay_in_workers(args, args.variants[0])
        workers["ratio_to_best_raw"] = round(workers["evals_per_s"] / best["evals_per_s"], 3)
        figures["selfplay_workers"] = workers
    figures["selfplay_variants"] = {
        variant: {key: run[key] for key in ("evals_per_s", "raw_evals_per_s", "ratio",
                                            "games_per_hour", "moves_per_hour", "seconds")}
        for variant, run in runs.items()}
    return figures


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--readouts", type=int, default=800, help="per move and game")
    parser.add_argument("--moves", type=int, default=4, help="moves searched per game")
    parser.add_argument("--repeat", type=int, default=3, help="keep the fastest of this many runs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--blocks", type=int, default=6, help="self-play network")
    parser.add_argument("--filters", type=int, default=64, help="self-play network")
    parser.add_argument("--selfplay-readouts", type=int, default=200, help="per move")
    parser.add_argument("--games", type=int, default=32, help="self-play games in lockstep")
    parser.add_argument("--parallel", type=int, default=8, help="leaves per tree per call")
    parser.add_argument("--selfplay-moves", type=int, default=-1,
                        help="stop self-play after this many moves (-1: play the games out; "
                             "0: no self-play figures)")
    parser.add_argument("--raw-seconds", type=float, default=5.0,
                        help="time to measure the network's raw throughput, before and after")
    parser.add_argument("--variants", default="graph",
                        help="self-play evaluator graphs to compare in this one run, comma "
                             f"separated, the first reported as 'selfplay': {', '.join(VARIANTS)}")
    parser.add_argument("--rounds", type=int, default=1,
                        help="play the self-play of each of --variants this many times, in "
                             "turns, and keep each one's fastest (steadier on a busy machine)")
    parser.add_argument("--workers", type=int, default=1,
                        help="also play self-play in this many worker processes at once, "
                             "each with cores/workers threads and --games games "
                             "('selfplay_workers'; the Zero loop's --workers N)")
    parser.add_argument("--katago", action="store_true",
                        help="self-play with ZeroConfig.with_katago()'s search (playout cap "
                             "randomization, forced playouts)")
    args = parser.parse_args(argv)
    args.variants = args.variants.split(",")
    unknown = set(args.variants) - set(VARIANTS)
    if unknown:
        parser.error(f"--variants: unknown {', '.join(sorted(unknown))}; known: "
                     f"{', '.join(VARIANTS)}")
    run(1, 1, 50, 1, args.size, args.seed)  # compile (or load the numba cache) first
    figures = {"size": args.size, "readouts_per_move": args.readouts, "moves": args.moves}
    for name, games, parallel in (("single", 1, 1), ("batched", 1, 8), ("lockstep", 16, 8)):
        moves = args.moves if games == 1 else max(1, args.moves // 2)
        runs = [run(games, parallel, args.readouts, moves, args.size, args.seed)
                for _ in range(args.repeat)]
        figures[name] = max(runs, key=lambda figures: figures["readouts_per_s"])
    if args.selfplay_moves != 0:
        figures.update(selfplay_figures(args))
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
