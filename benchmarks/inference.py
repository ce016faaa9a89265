"""Network evaluation speed: batched through a Predictor, against one position
at a time, eagerly and through the Predictor. Prints one JSON line.

The network is an untrained :func:`mockgo.nets.models.dual_network` (AlphaGo
Zero's residual net; speed does not depend on the weights) on random uint8
planes. Each figure is measured for about ``--seconds`` after a warm-up call.

    python benchmarks/inference.py --size 9 --blocks 6 --filters 64 --batch 256
"""

import argparse
import json
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # before TensorFlow is imported

import numpy as np  # noqa: E402

from mockgo.nets.inference import Predictor  # noqa: E402
from mockgo.nets.models import dual_network  # noqa: E402


def positions_per_second(evaluate, positions_per_call, seconds):
    """Call evaluate() once to warm up, then as often as fits in `seconds`."""
    evaluate()
    calls = 0
    start = time.perf_counter()
    while True:
        evaluate()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return calls * positions_per_call / elapsed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--planes", type=int, default=17)
    parser.add_argument("--blocks", type=int, default=6)
    parser.add_argument("--filters", type=int, default=64)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    model = dual_network(args.size, args.planes, args.blocks, args.filters)
    predictor = Predictor(model, batch_size=args.batch)
    rng = np.random.default_rng(args.seed)
    batch = rng.integers(0, 2, (args.batch, args.size, args.size, args.planes), dtype=np.uint8)
    one = batch[:1]

    def eager_single():
        # What a player written the obvious way does; .numpy() as it needs arrays.
        return [out.numpy() for out in model(one)]

    result = {
        "model": f"dual {args.blocks}x{args.filters} {args.size}x{args.size}",
        "batch": args.batch,
        "positions_per_s": round(positions_per_second(
            lambda: predictor.predict(batch), args.batch, args.seconds), 1),
        "eager_single_positions_per_s": round(positions_per_second(
            eager_single, 1, args.seconds), 1),
        "predictor_single_positions_per_s": round(positions_per_second(
            lambda: predictor.predict(one), 1, args.seconds), 1),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
