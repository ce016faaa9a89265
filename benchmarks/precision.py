"""bfloat16 against float32 for AlphaGo's search with the shipped networks
(``sl-19`` and ``value-19``), in one run: one JSON line.

- ``readouts_per_s``: the ``alphago:`` player (mix 0.5, ``--readouts`` a move)
  from one middle-game position, in each precision, in turns (``--rounds``
  times each, the fastest kept, so that other load hits both alike), and
  ``speedup``, the second over the first;
- ``agreement``: on every ``--every``-th position of the games in ``--games``
  (a match folder), the share where the policy's most likely legal move is
  the same in both precisions, and the largest difference of the values.

``precision=auto`` (the ``alphago:`` default) picks bfloat16 where the CPU has
bfloat16 instructions (:func:`mockgo.nets.inference.fastest_precision`).

    python benchmarks/precision.py --games docs/matches/sl19-vs-gnugo10-ladder
"""

import argparse
import json
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # before TensorFlow is imported

import numpy as np  # noqa: E402

from move_time import positions  # noqa: E402  (benchmarks/move_time.py, beside this script)
from mockgo import Board, pretrained  # noqa: E402
from mockgo.go.features import get_encoder  # noqa: E402
from mockgo.nets.inference import Predictor, masked_policy  # noqa: E402
from mockgo.play.specs import make_player  # noqa: E402

PRECISIONS = ("float32", "bfloat16")


def search_speed(readouts, parallel, rounds, seed):
    board = Board(19)
    for move in (72, 288, 60, 300, 186, 174):  # a few stones: a fresh tree, as a game's move
        board.play(move)
    players = {p: make_player(f"alphago:policy_pretrained=sl-19,value_pretrained=value-19,"
                              f"readouts={readouts},mix=0.5,parallel={parallel},precision={p},"
                              f"seed={seed}")
               for p in PRECISIONS}
    for player in players.values():
        player.select_move(board)  # build the graphs first
    best = {}
    for _ in range(rounds):
        for precision, player in players.items():
            start = time.perf_counter()
            player.select_move(board)
            best[precision] = min(best.get(precision, np.inf), time.perf_counter() - start)
    return {p: round(readouts / seconds) for p, seconds in best.items()}


def agreement(policy, value, folder, files, every):
    boards = [board for _, _, board in positions(folder, files, every)]
    planes48 = np.stack([get_encoder("alphago48", 19).encode(b) for b in boards])
    planes49 = np.stack([get_encoder("alphago49", 19).encode(b) for b in boards])
    legal = np.stack([b.legal_moves() for b in boards])
    out = {}
    for precision in PRECISIONS:
        priors = masked_policy(Predictor(policy, precision=precision).predict(planes48), legal)
        values = np.asarray(Predictor(value, precision=precision).predict(planes49)).reshape(-1)
        out[precision] = priors.argmax(axis=1), values
    (moves_a, values_a), (moves_b, values_b) = out.values()
    return {"positions": len(boards), "same_move": round(float(np.mean(moves_a == moves_b)), 4),
            "value_difference_max": round(float(np.max(np.abs(values_a - values_b))), 4)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="docs/matches/sl19-vs-gnugo10-ladder")
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--every", type=int, default=30)
    parser.add_argument("--readouts", type=int, default=640)
    parser.add_argument("--parallel", type=int, default=16, help="leaves per network call")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    speed = search_speed(args.readouts, args.parallel, args.rounds, args.seed)
    policy, value = pretrained.load("sl-19"), pretrained.load("value-19")
    print(json.dumps({"readouts_per_s": speed,
                      "speedup": round(speed["bfloat16"] / speed["float32"], 3),
                      "parallel": args.parallel,
                      "agreement": agreement(policy, value, args.games, args.files, args.every)}))


if __name__ == "__main__":
    main()
