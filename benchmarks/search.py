"""Speed of the tree searches: one JSON line of figures, measured in one run.

Classic Monte Carlo tree search, on a ``--size`` board:

- ``raw_playouts_per_s``: compiled random playouts from the empty board
  (``Board.random_playout``), the most a playout search could do;
- ``api_playouts_per_s``: the same games played move by move through the
  public Board API (``benchmarks/board.py``'s loop), for scale;
- ``uct_playouts_per_s`` and ``rave_playouts_per_s``: simulations of
  :class:`mockgo.search.uct.UCTSearch` from the empty board (tree, playout,
  back-up), and their share of the raw rate: what the tree costs.

AlphaGo's search on 19x19 (``--alphago``), with the shipped SL policy
``sl-19`` and a value network of notebook 02's architecture (its weights do
not change the speed):

- ``policy_evals_per_s`` and ``value_evals_per_s``: the raw networks on
  batches of ``--parallel`` positions (encoding included);
- ``alphago_evals_per_s``: leaf evaluations per second of the search
  (``alphago:`` players: both networks and, at ``--mix`` above 0, a rollout
  per leaf), and ``alphago_share_of_raw``: that against the two networks'
  combined raw rate, what the tree and the batching cost; both networks in
  ``--precision`` (auto, as ``alphago:`` players: bfloat16 on a CPU with
  bfloat16 instructions; the figures name the one used).

    python benchmarks/search.py --size 9 --seconds 5 [--alphago]
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
    parser.add_argument("--alphago", action="store_true", help="also AlphaGo's search (19x19)")
    parser.add_argument("--parallel", type=int, default=16, help="leaves per network call")
    parser.add_argument("--mix", type=float, default=0.5, help="AlphaGo's lambda")
    parser.add_argument("--precision", default="auto", choices=("auto", "float32", "bfloat16"),
                        help="the networks' precision (auto: as alphago: players)")
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
    figures = alphago_figures(args) if args.alphago else {}
    print(json.dumps({
        "size": args.size,
        "raw_playouts_per_s": round(raw),
        "api_playouts_per_s": round(api),
        "uct_playouts_per_s": round(searches[False]),
        "rave_playouts_per_s": round(searches[True]),
        "uct_share_of_raw": round(searches[False] / raw, 3),
        "rave_share_of_raw": round(searches[True] / raw, 3),
        "raw_over_api": round(raw / api, 1),
        **figures,
    }))


def alphago_figures(args):
    import keras

    from mockgo import pretrained
    from mockgo.go.features import ALPHAGO48, ALPHAGO49, get_encoder
    from mockgo.nets.inference import Predictor
    from mockgo.nets.io import NetworkInfo
    from mockgo.nets.models import value_network
    from mockgo.play.search_player import SearchPlayer
    from mockgo.search.evaluators import AlphaGoEvaluator
    from mockgo.search.games import SensibleGoGame

    keras.utils.set_random_seed(args.seed)
    policy = pretrained.load("sl-19")
    value = value_network(19, 49, layers=6, filters=64, hidden=256)
    value.mockgo_info = NetworkInfo("value", ALPHAGO49, 19)
    board = Board(19)
    raws = {}
    for name, model, encoder in (("policy", policy, ALPHAGO48), ("value", value, ALPHAGO49)):
        predictor = Predictor(model, precision=args.precision)
        encode = get_encoder(encoder, 19)
        planes = np.zeros((args.parallel, *encode.shape), np.uint8)

        def step():
            for i in range(args.parallel):
                encode.encode_into(board, planes[i])
            predictor.predict(planes)
        raws[name] = args.parallel * rate(step, args.seconds)
    evaluate = AlphaGoEvaluator(policy, value, mix=args.mix, seed=args.seed,
                                precision=args.precision)
    player = SearchPlayer(evaluate, readouts=64, c_puct=5, parallel_readouts=args.parallel,
                          softpick_moves=0, size=19, game=SensibleGoGame, seed=args.seed)
    player.select_move(board)  # compile first
    before, start = evaluate.evaluations, time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        player.select_move(board)
    searched = (evaluate.evaluations - before) / (time.perf_counter() - start)
    combined = 1.0 / (1.0 / raws["policy"] + 1.0 / raws["value"])
    return {
        "alphago_size": 19,
        "parallel": args.parallel,
        "mix": args.mix,
        "precision": evaluate.policy.precision,
        "policy_evals_per_s": round(raws["policy"]),
        "value_evals_per_s": round(raws["value"]),
        "alphago_evals_per_s": round(searched),
        "alphago_share_of_raw": round(searched / combined, 3),
    }


if __name__ == "__main__":
    main()
