"""Self-play through Ray against self-play in this process: one JSON line.

AlphaGo Zero's self-play job (:func:`mockgo.zero.selfplay.selfplay_job`) with
an untrained ``--blocks`` x ``--filters`` dual network (speed does not depend
on the weights), ``--readouts`` simulations a move, ``--games-in-parallel``
games in lockstep a batch, played three ways into a scratch run folder:

- ``in_process``: here, batch after batch (``mockgo zero`` without ``--cluster``);
- ``ray_1_worker``: one Ray actor with ``--cpus`` CPUs (all of this
  machine's) on a local Ray instance, the batches sent to it and written here, as
  ``mockgo zero --cluster ray --workers 1`` plays them;
- ``ray_2_workers``: two actors with half the CPUs each.

Each is warmed up first (a job of one batch a worker: the network loaded,
its graph traced), then ``--games`` games are timed from the first batch
sent to the last one written: ``games_per_hour``. ``ratio_1`` and
``ratio_2`` divide the Ray figures by the in-process one (the issue's
target: ``ratio_1`` at least 0.9). ``--repeat`` runs all three that many
times, interleaved, and keeps each one's best.

    python benchmarks/cluster.py                       # about two minutes on 2 cores
    python benchmarks/cluster.py --games 64 --repeat 3
"""

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from mockgo.cluster import RayExecutor  # noqa: E402
from mockgo.zero.config import ZeroConfig  # noqa: E402
from mockgo.zero.run import bootstrap  # noqa: E402
from mockgo.zero.selfplay import evaluator_for, selfplay_job  # noqa: E402


def timed_job(folder, model, games, config, job, executor=None, evaluator=None):
    start = time.perf_counter()
    summary = selfplay_job(folder, model, games, config, job=job, progress=False,
                           executor=executor, evaluator=evaluator)
    seconds = time.perf_counter() - start
    assert summary["complete"] and summary["games"] == games
    return {"games_per_hour": 3600 * games / seconds, "seconds": seconds,
            "moves_per_game": summary["mean_moves"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--blocks", type=int, default=4)
    parser.add_argument("--filters", type=int, default=32)
    parser.add_argument("--readouts", type=int, default=16, help="per move")
    parser.add_argument("--games-in-parallel", type=int, default=8, help="games a batch")
    parser.add_argument("--games", type=int, default=32, help="games timed per set-up")
    parser.add_argument("--cpus", type=int, default=os.cpu_count(),
                        help="CPUs the workers share (default: all of this machine's)")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()

    import ray

    config = ZeroConfig(board_size=args.size, blocks=args.blocks, filters=args.filters,
                        readouts=args.readouts, games_in_parallel=args.games_in_parallel,
                        parallel_readouts=8, games_per_generation=args.games, evaluate=False)
    best = {}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "run"
        run = bootstrap(folder, config)
        model = run.model_path(0)
        evaluator = evaluator_for(model, config, config.games_in_parallel * 8, 0)
        per_batch = config.games_in_parallel
        # Twice the CPUs, as Ray counts them: both executors' actors stay up (one
        # works at a time), each asking for the CPUs it may use.
        ray.init(num_cpus=2 * args.cpus, object_store_memory=200 * 1024**2,
                 include_dashboard=False, log_to_driver=False)
        try:
            executors = {"ray_1_worker": RayExecutor(workers=1, cpus_per_worker=args.cpus),
                         "ray_2_workers": RayExecutor(workers=2,
                                                      cpus_per_worker=args.cpus / 2)}
            selfplay_job(folder, model, per_batch, config, job="warmup-here", progress=False,
                         evaluator=evaluator)
            for name, executor in executors.items():
                selfplay_job(folder, model, per_batch * executor.workers, config,
                             job=f"warmup-{name}", progress=False, executor=executor)
            for attempt in range(args.repeat):
                figures = {"in_process": timed_job(folder, model, args.games, config,
                                                   f"here-{attempt}", evaluator=evaluator)}
                for name, executor in executors.items():
                    figures[name] = timed_job(folder, model, args.games, config,
                                              f"{name}-{attempt}", executor=executor)
                for name, value in figures.items():
                    if name not in best or value["games_per_hour"] > best[name]["games_per_hour"]:
                        best[name] = value
            for executor in executors.values():
                executor.close()
        finally:
            ray.shutdown()
    here = best["in_process"]["games_per_hour"]
    print(json.dumps({
        "size": args.size, "blocks": args.blocks, "filters": args.filters,
        "readouts": args.readouts, "games_in_parallel": args.games_in_parallel,
        "games": args.games, "cpus": args.cpus, "repeat": args.repeat,
        "in_process_games_per_hour": round(here, 1),
        "ray_1_worker_games_per_hour": round(best["ray_1_worker"]["games_per_hour"], 1),
        "ray_2_workers_games_per_hour": round(best["ray_2_workers"]["games_per_hour"], 1),
        "ratio_1": round(best["ray_1_worker"]["games_per_hour"] / here, 3),
        "ratio_2": round(best["ray_2_workers"]["games_per_hour"] / here, 3),
        "moves_per_game": round(best["in_process"]["moves_per_game"], 1),
    }))


if __name__ == "__main__":
    main()
