"""Self-play speed of the batched game runner (mockgo.play.runner), against the
network's own speed. Prints one JSON line.

The network is notebook 01's default policy net: ``policy_network(size, 48)``
with the builder's defaults (6 convolutions of 64 filters, AlphaGo's 48
planes; untrained: speed does not depend on the weights, and an untrained net
plays long, messy games, which is the hard case for the encoder). B games
(``--batch``, 64) run at once, refilled as they end, until ``--games`` have
been played (default 2 B per round, below), all moves sampled at temperature 1 from the
sensible moves. Reported:

- ``moves_per_s``, ``games_per_hour``: the runner, wall clock, everything in
  (encoding, masks, sampling, the rules, the tail of the last games);
- ``raw_evals_per_s``: the same network through the same Predictor on random
  planes at batch B;
- ``ratio``: moves_per_s / raw_evals_per_s (1.0 would be a free runner);
- where the runner's time went: ``encode_s``, ``network_s``, ``other_s``, and
  the mean batch of its network calls.

The two are measured in alternation, ``--rounds`` times (``--seconds`` of
raw evaluation, then a share of the games), and each figure is a total over
its rounds, so that other load on the machine, which comes and goes, weighs
on both alike; ``load_average`` shows how much there was.

    python benchmarks/selfplay.py --size 9
    python benchmarks/selfplay.py --size 19 --rounds 2
"""

import argparse
import json
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # before TensorFlow is imported

import numpy as np  # noqa: E402


def raw_evaluations(predictor, batch, seconds):
    """(evaluations, seconds taken) of ``predictor`` on ``batch``, called
    again and again for at least ``seconds`` after a warm-up call."""
    predictor.predict(batch)
    calls = 0
    start = time.perf_counter()
    while True:
        predictor.predict(batch)
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return calls * len(batch), elapsed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--batch", type=int, default=64, help="games at once (B)")
    parser.add_argument("--games", type=int, default=None,
                        help="games to play (default 2 B per round)")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="length of each raw-evaluation measurement")
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternations of raw evaluation and games")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    import keras

    from mockgo.nets.models import policy_network
    from mockgo.play.policy_player import PolicyPlayer
    from mockgo.play.runner import play_games

    keras.utils.set_random_seed(args.seed)
    model = policy_network(args.size, 48)
    layers = sum(1 for layer in model.layers if isinstance(layer, keras.layers.Conv2D))
    filters = model.get_layer("conv_1").filters
    policy = PolicyPlayer(model, encoder="alphago48", temperature=1.0, name="sl")
    games = args.games or 2 * args.batch * args.rounds
    rng = np.random.default_rng(args.seed)
    planes = rng.integers(0, 2, (args.batch, args.size, args.size, 48), dtype=np.uint8)

    # Warm up: the graph, numba's compiled kernels, oneDNN's first calls.
    play_games(policy, policy, 4, args.size, rng=rng, max_moves=20)
    load_before = os.getloadavg()[0]
    raw_evals = raw_seconds = elapsed = 0.0
    stats = {}
    played = []
    shares = np.diff(np.linspace(0, games, args.rounds + 1).round().astype(int))
    for share in shares:
        evaluations, seconds = raw_evaluations(policy.predictor, planes, args.seconds)
        raw_evals += evaluations
        raw_seconds += seconds
        start = time.perf_counter()
        played += play_games(policy, policy, int(share), args.size, rng=rng,
                             concurrent=args.batch, stats=stats)
        elapsed += time.perf_counter() - start
    raw = raw_evals / raw_seconds
    moves_per_s = stats["moves"] / elapsed
    result = {
        "size": args.size,
        "model": f"policy_network {layers}x{filters} alphago48 (untrained)",
        "batch": args.batch,
        "games": games,
        "moves": stats["moves"],
        "mean_game_length": round(float(np.mean([g.length for g in played])), 1),
        "elapsed_s": round(elapsed, 2),
        "games_per_hour": round(games / elapsed * 3600, 1),
        "moves_per_s": round(moves_per_s, 1),
        "raw_evals_per_s": round(raw, 1),
        "rounds": args.rounds,
        "ratio": round(moves_per_s / raw, 3),
        "network_calls": stats["network_calls"],
        "mean_batch": round(stats["evaluations"] / max(1, stats["network_calls"]), 1),
        "encode_s": round(stats["encode_s"], 2),
        "network_s": round(stats["network_s"], 2),
        "other_s": round(elapsed - stats["encode_s"] - stats["network_s"], 2),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
