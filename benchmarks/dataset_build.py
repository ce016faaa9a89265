"""Dataset building speed: games a second with N worker processes. Prints
one JSON line per worker count.

:func:`mockgo.data.dataset.build_dataset` reads, replays and encodes games
(AlphaGo's 48 planes, ladders included) in a pool of worker processes; the
main process writes the shards in the games' order, so every worker count
gives the same shards, byte for byte (``tests/test_dataset.py``). Each count
builds ``--games`` games per worker of ``--archive`` into a fresh temporary
folder, timed from the call to its return (the pool's start included).

    python benchmarks/dataset_build.py --workers 1 2          # about a minute here
    python benchmarks/dataset_build.py --workers 1 2 16       # on a 16-core machine
"""

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mockgo.data.dataset import build_dataset  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--archive", default=str(REPO / "data" / "kgs" / "KGS-2003-19-7582-.tar.gz"))
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--games", type=int, default=150, help="games per worker process")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        # The first build compiles the board's numba functions into their cache:
        # a warm-up, not timed.
        build_dataset([args.archive], Path(scratch) / "warm-up", workers=1, max_games=5,
                      progress=False)
        for run, workers in enumerate(args.workers):
            games = args.games * workers
            started = time.perf_counter()
            manifest = build_dataset([args.archive], Path(scratch) / f"build-{run}",
                                     workers=workers, max_games=games, progress=False)
            seconds = time.perf_counter() - started
            positions = sum(manifest["positions"].values())
            print(json.dumps({"workers": workers, "games": manifest["games_looked_at"],
                              "seconds": round(seconds, 2),
                              "games_per_s": round(manifest["games_looked_at"] / seconds, 1),
                              "positions_per_s": round(positions / seconds),
                              "archive": Path(args.archive).name, "cpu_count": os.cpu_count(),
                              "load_average_1min": round(os.getloadavg()[0], 2)}), flush=True)


if __name__ == "__main__":
    main()
