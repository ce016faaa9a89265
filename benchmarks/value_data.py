"""The value network's data (AlphaGo's recipe, one position a game): the
speed of the whole loop against its two parts alone. Prints one JSON line.

- ``positions_per_s``, ``games_per_s``: :func:`mockgo.learn.value.value_dataset`,
  wall clock, everything in (``--workers`` processes, each playing batches
  of ``--batch`` games in lockstep: the rules, the encoding, the network,
  sampling), from the shipped ``--policy`` to move U and ``--finish`` on
  (``games``: those played, with the ones that ended before their U);
- ``forward_per_s``: the policy's network alone, one process, on random
  planes at batch ``--batch`` (the loop's batch while every game runs);
- ``encode_per_s``: the ``alphago48`` planes alone, one process, on every
  position of self-play games replayed move by move.

On a GPU machine the network costs little and the loop's own time is the
rules and the encoding, which ``--workers`` share among the cores::

    python benchmarks/value_data.py --games 64 --workers 1
    KERAS_BACKEND=jax python benchmarks/value_data.py --games 4096 --batch 256 --workers 15
"""

import argparse
import json
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # before TensorFlow is imported

import numpy as np  # noqa: E402

from selfplay import raw_evaluations  # noqa: E402  (benchmarks/selfplay.py, beside this script)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", default="sl-19", help="shipped policy to move U (sl-19)")
    parser.add_argument("--finish", default="rl-19", help="shipped policy from U on (rl-19)")
    parser.add_argument("--games", type=int, default=64,
                        help="positions the loop keeps (64; 0: the two parts alone)")
    parser.add_argument("--batch", type=int, default=64, help="games a batch (64)")
    parser.add_argument("--workers", type=int, default=1, help="processes playing batches (1)")
    parser.add_argument("--seconds", type=float, default=5.0,
                        help="length of the forward pass's and the encoder's measurement (5)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error("--seconds must be above 0")

    from mockgo import pretrained
    from mockgo.cluster import Processes, share_one_gpu
    from mockgo.go.features import ALPHAGO48, get_encoder
    from mockgo.learn.value import value_dataset
    from mockgo.play.policy_player import PolicyPlayer
    from mockgo.play.runner import play_games

    share_one_gpu()  # before the policies load: the workers share the GPU with this process

    policy = PolicyPlayer(pretrained.load(args.policy), temperature=1.0, name=args.policy)
    finish = PolicyPlayer(pretrained.load(args.finish), temperature=1.0, name=args.finish)
    load_before = os.getloadavg()[0]

    # The network alone, as benchmarks/selfplay.py times it (after a warm-up call).
    planes = np.random.default_rng(args.seed).integers(0, 2, (args.batch, 19, 19, 48), np.uint8)
    evaluations, seconds = raw_evaluations(policy.predictor, planes, args.seconds)
    forward = evaluations / seconds

    # The encoder alone, on the positions of a few self-play games.
    games = play_games(policy, policy, 4, 19, rng=args.seed, max_moves=400)
    encoder = get_encoder(ALPHAGO48, 19)
    out = np.empty(encoder.shape, np.uint8)
    encoded, spent = 0, 0.0
    while spent < args.seconds:
        for game in games:
            board = game.starting_board()
            for color, move in game.board.history:
                tick = time.perf_counter()
                encoder.encode_into(board, out)
                spent += time.perf_counter() - tick
                encoded += 1
                board.play(move, color)

    result = {"policy": args.policy, "finish": args.finish, "batch": args.batch,
              "forward_per_s": round(forward, 1), "encode_per_s": round(encoded / spent, 1)}
    if args.games:  # the whole loop
        cluster = Processes(args.workers) if args.workers > 1 else None
        try:
            start = time.perf_counter()
            data = value_dataset(policy, args.games, 19, rl_policy=finish, batch=args.batch,
                                 rng=args.seed, cluster=cluster)
            elapsed = time.perf_counter() - start
        finally:
            if cluster is not None:
                cluster.close()
        result.update(workers=args.workers, positions=len(data), games=int(data.games_played),
                      elapsed_s=round(elapsed, 2),
                      positions_per_s=round(len(data) / elapsed, 2),
                      games_per_s=round(data.games_played / elapsed, 2))
    result["load_average"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
