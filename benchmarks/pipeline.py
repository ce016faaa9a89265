"""How fast the input pipeline makes batches, alone: positions/s of
:class:`mockgo.data.pipeline.PackedBatches` (reading shards, shuffling, a
random symmetry per position, the planes still bit-packed), taken one after
the other in this thread, with no network. Prints one JSON line.

This is the most a training step can be fed from one producer thread (and
``--readers`` threads reading the next group of shards ahead): a
step that trains faster than this waits for its data. On a GPU the 13 x 192
network trains about 57,000 positions/s and 6 x 64 about 410,000
(``benchmarks/train.py``, which measures the pipeline against the step
itself); so the pipeline should make well over the first here, on one core.
The dataset is built from one KGS archive into ``--dataset`` if it is not
there yet (about a minute). Each cycle takes ``--batches`` batches after a
warm-up; keep ``batches * batch`` above a group of shards (32,768
positions) so that the pauses to read the next group are counted.

    python benchmarks/pipeline.py --batch 1024 --batches 200 --cycles 3
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mockgo.data.dataset import read_manifest  # noqa: E402
from mockgo.data.pipeline import PackedBatches  # noqa: E402
from train import add_dataset_options, ensure_dataset  # noqa: E402  (benchmarks/train.py, beside this script)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_dataset_options(parser)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--batches", type=int, default=200, help="batches timed per cycle")
    parser.add_argument("--cycles", type=int, default=3)
    parser.add_argument("--readers", type=int, default=4,
                        help="threads reading the next group of shards ahead (1: none; default 4)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    ensure_dataset(args)

    pipeline = PackedBatches(args.dataset, "train", args.batch, shuffle=True, augment=True,
                             seed=args.seed, repeat=True, readers=args.readers)
    batches = pipeline._batches()  # the producer thread's own generator, in this thread
    next(batches)  # warm-up: the first group of shards read
    rates = []
    for _ in range(args.cycles):
        start = time.perf_counter()
        for _ in range(args.batches):
            next(batches)
        rates.append(args.batches * args.batch / (time.perf_counter() - start))
    manifest = read_manifest(args.dataset)
    print(json.dumps({
        "dataset": f"{manifest['spec']['encoder']} {manifest['spec']['board_size']}x"
                   f"{manifest['spec']['board_size']}",
        "batch": args.batch,
        "readers": args.readers,
        "positions_per_cycle": args.batches * args.batch,
        "positions_per_s": round(sorted(rates)[len(rates) // 2], 1),  # the median cycle
        "cycles": [round(rate, 1) for rate in rates],
        "cpu_count": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }))


if __name__ == "__main__":
    main()
