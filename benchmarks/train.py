"""Training speed: ``model.fit`` fed by the shard pipeline against ``fit`` on
positions held in memory. Prints one JSON line.

The input pipeline (:func:`mockgo.data.dataset.tf_dataset`: reading shards,
unpacking bits, shuffling, a random symmetry per position) shares the CPU
with training; it should cost at most 10% of the speed, so ``ratio``
(pipeline positions/s over in-memory positions/s) should be at least 0.9.

The network and batch size are notebook 01's full-mode ones
(:data:`mockgo.learn.supervised.FULL`: 6 x 64, batch 128, its precision), on a
dataset built from one KGS archive (built into ``--dataset`` if it is not
there yet, about a minute). Each "epoch" is ``--steps`` batches; the first
epoch of each fit is a warm-up and is not counted. Pipeline and memory fits
alternate ``--cycles`` times, so that other work on the machine weighs on
both alike, and each figure is all the positions of its timed epochs over
their total time (so the pipeline's pauses to load the next group of shards,
every 32,768 positions, are counted: keep ``steps * (epochs + 1) * 128``
above that).

    python benchmarks/train.py --steps 100 --epochs 3 --cycles 2   # about 8 minutes
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # before TensorFlow is imported

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

from mockgo import notebook  # noqa: E402
from mockgo.learn import supervised as training  # noqa: E402
from mockgo.data.dataset import build_dataset, load_split, read_manifest, tf_dataset  # noqa: E402


class EpochTimer(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.seconds = []

    def on_epoch_begin(self, epoch, logs=None):
        self.start = time.perf_counter()

    def on_epoch_end(self, epoch, logs=None):
        self.seconds.append(time.perf_counter() - self.start)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default=str(REPO / "runs" / "benchmarks" / "kgs-2001"))
    parser.add_argument("--archive", default=str(REPO / "data" / "kgs" / "KGS-2001-19-2298-.tar.gz"),
                        help="what to build the dataset from if it is missing")
    parser.add_argument("--steps", type=int, default=100, help="batches per epoch")
    parser.add_argument("--epochs", type=int, default=3, help="timed epochs per fit")
    parser.add_argument("--cycles", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    settings = notebook.preset("01_supervised", quick=False)
    batch = settings.batch_size
    if not (Path(args.dataset) / "dataset.json").exists() or not read_manifest(args.dataset)["complete"]:
        build_dataset([args.archive], args.dataset, workers=settings.workers, progress=False)

    model = training.build_policy(settings.layers, settings.filters, precision=settings.precision,
                                  seed=args.seed)
    training.compile_policy(model, settings.optimizer, settings.learning_rate)
    positions = args.steps * batch
    x, y, _ = load_split(args.dataset, "train", max_positions=positions + 1000)
    played = y != 19 * 19  # the policy has no pass, and the pipeline leaves passes out
    x, y = x[played][:positions], y[played][:positions].astype("int32")
    # In memory: the same number of positions, already in batches, as
    # tensors; feeding them costs nothing but the training step itself.
    memory = tf.data.Dataset.from_tensor_slices(
        (x.reshape(args.steps, batch, *x.shape[1:]), y.reshape(args.steps, batch))).repeat()
    pipeline = tf_dataset(args.dataset, "train", batch, shuffle=True, augment=True,
                          seed=args.seed, repeat=True)

    seconds = {"pipeline": [], "memory": []}
    for _ in range(args.cycles):
        timer = EpochTimer()
        model.fit(pipeline, epochs=1 + args.epochs, steps_per_epoch=args.steps,
                  callbacks=[timer], verbose=0, shuffle=False)
        seconds["pipeline"] += timer.seconds[1:]
        timer = EpochTimer()
        model.fit(memory, epochs=1 + args.epochs, steps_per_epoch=args.steps,
                  callbacks=[timer], verbose=0, shuffle=False)
        seconds["memory"] += timer.seconds[1:]

    pipeline_rate = positions * len(seconds["pipeline"]) / sum(seconds["pipeline"])
    memory_rate = positions * len(seconds["memory"]) / sum(seconds["memory"])
    print(json.dumps({
        "model": f"policy {settings.layers}x{settings.filters} 19x19",
        "precision": training.resolve_precision(settings.precision),
        "batch": batch,
        "positions_per_epoch": positions,
        "timed_epochs_each": len(seconds["pipeline"]),
        "pipeline_positions_per_s": round(pipeline_rate, 1),
        "memory_positions_per_s": round(memory_rate, 1),
        "ratio": round(pipeline_rate / memory_rate, 3),
        "cpu_count": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }))


if __name__ == "__main__":
    main()
