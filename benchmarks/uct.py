"""Speed of classic Monte Carlo tree search: one JSON line of figures.

Beside each other, measured in one run on the same board size:

- ``raw_playouts_per_s``: compiled random playouts from the empty board
  (``Board.random_playout``), the most a playout search could do;
- ``api_playouts_per_s``: the same games played move by move through the
  public Board API (``benchmarks/board.py``'s loop), for scale;
- ``uct_playouts_per_s`` and ``rave_playouts_per_s``: simulations of
  :class:`mockgo.search.uct.UCTSearch` from the empty board (tree, playout,
  back-up), and their share of the raw rate: what the tree costs.

    python benchmarks/uct.py --size 9 --seconds 5
"""

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from board import random_playout as api_playout  # noqa: E402

from mockgo import Board  # noqa: E402
from mockgo.search.games import GoGame  # noqa: E402
from mockgo.search.uct import UCTSearch  # noqa: E402


def rate(step, seconds):
    """Calls of ``step`` per second over about ``seconds``."""
    step()  # compile (or load the numba cache) first
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        step()
        count += 1
    return count / (time.perf_counter() - start)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    board = Board(args.size)
    state = np.array([args.seed + 1], np.uint64)
    raw = rate(lambda: board.random_playout(state), args.seconds)
    py_rng = random.Random(args.seed)
    api = rate(lambda: api_playout(args.size, py_rng), args.seconds)
    searches = {}
    for rave in (False, True):
        search = UCTSearch(playouts=1, rave=rave, seed=args.seed)
        root = search.new_root(GoGame(args.size))
        search.run(root, playouts=50)  # compile first
        before, start = search.simulations, time.perf_counter()
        search.run(root, seconds=args.seconds)
        searches[rave] = (search.simulations - before) / (time.perf_counter() - start)
    print(json.dumps({
        "size": args.size,
        "raw_playouts_per_s": round(raw),
        "api_playouts_per_s": round(api),
        "uct_playouts_per_s": round(searches[False]),
        "rave_playouts_per_s": round(searches[True]),
        "uct_share_of_raw": round(searches[False] / raw, 3),
        "rave_share_of_raw": round(searches[True] / raw, 3),
        "raw_over_api": round(raw / api, 1),
    }))


if __name__ == "__main__":
    main()
