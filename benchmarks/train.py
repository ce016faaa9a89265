"""Training speed: ``fit`` fed by the shard pipeline against ``fit`` on
batches held in memory. Prints one JSON line.

The input pipeline (:class:`mockgo.data.pipeline.PackedBatches`: reading
shards, shuffling, a random symmetry per position, the planes still
bit-packed; unpacked and turned inside the compiled step,
:mod:`mockgo.nets.packed`) runs beside training, on the host; it should cost
at most 10% of the speed, so ``ratio`` (pipeline positions/s over in-memory
positions/s) should be at least 0.9. "In memory" is the same compiled step
fed ``--steps`` batches that the pipeline made beforehand, so it measures
the step alone.

Any Keras backend: ``KERAS_BACKEND=jax python benchmarks/train.py ...``
measures JAX (on a GPU where JAX sees one). The network defaults to notebook
01's full-mode one (6 x 64, batch 128); ``--layers 13 --filters 192 --batch
1024`` is AlphaGo's, the GPU recipe's. The dataset is built from one KGS
archive into ``--dataset`` if it is not there yet (about a minute). Each
"epoch" is ``--steps`` batches; the first epoch of each fit is a warm-up and
is not counted. Pipeline and memory fits alternate ``--cycles`` times, so
that other work on the machine weighs on both alike, and each figure is all
the positions of its timed epochs over their total time (so the pipeline's
pauses to load the next group of shards, every 32,768 positions, are
counted: keep ``steps * (epochs + 1) * batch`` above that).

    python benchmarks/train.py --steps 100 --epochs 3 --cycles 2   # about 8 minutes here

``--against-graph`` times, on the batches in memory, the same network
compiled without XLA too (TensorFlow's plain graph, what Keras' ``"auto"``
chooses where TensorFlow sees only a CPU): ``xla_speedup`` is XLA's
positions/s over the graph's, the reason training compiles with XLA in
float32 (``mockgo.nets.device.training_jit_compile``; what its compile costs:
``benchmarks/xla_fit.py``). TensorFlow only (JAX always compiles with XLA).
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

from mockgo.data.dataset import build_dataset, read_manifest  # noqa: E402
from mockgo.data.pipeline import HeldBatches, PackedBatches  # noqa: E402
from mockgo.learn import supervised as training  # noqa: E402
from mockgo.learn.trainers import wait_for  # noqa: E402
from mockgo.nets.device import compute_device, resolve_precision  # noqa: E402
from mockgo.nets.packed import packed_input_model  # noqa: E402


class EpochTimer(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.seconds = []

    def on_epoch_begin(self, epoch, logs=None):
        wait_for(self.model)
        self.start = time.perf_counter()

    def on_epoch_end(self, epoch, logs=None):
        wait_for(self.model)  # the device may still be running the epoch's last steps
        self.seconds.append(time.perf_counter() - self.start)


def add_dataset_options(parser):
    """``--dataset``, ``--archive`` and ``--workers``: the KGS dataset a
    training benchmark reads (this one and ``benchmarks/pipeline.py``)."""
    parser.add_argument("--dataset", default=str(REPO / "runs" / "benchmarks" / "kgs-2001"))
    parser.add_argument("--archive", default=str(REPO / "data" / "kgs" / "KGS-2001-19-2298-.tar.gz"),
                        help="what to build the dataset from if it is missing")
    parser.add_argument("--workers", type=int, default=2, help="processes building the dataset")


def ensure_dataset(args):
    """Build ``args.dataset`` from ``args.archive`` unless it is complete
    already (then it may come from any archives: a full run's dataset)."""
    if not (Path(args.dataset) / "dataset.json").exists() or not read_manifest(args.dataset)["complete"]:
        build_dataset([args.archive], args.dataset, workers=args.workers, progress=False)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_dataset_options(parser)
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--filters", type=int, default=64)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--precision", default="auto")
    parser.add_argument("--steps", type=int, default=100, help="batches per epoch")
    parser.add_argument("--epochs", type=int, default=3, help="timed epochs per fit")
    parser.add_argument("--cycles", type=int, default=2)
    parser.add_argument("--readers", type=int, default=4,
                        help="threads reading the next group of shards ahead (1: none; default 4)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--against-graph", action="store_true",
                        help="also time the step compiled without XLA (TensorFlow)")
    args = parser.parse_args(argv)
    if args.against_graph and keras.backend.backend() != "tensorflow":
        parser.error("--against-graph compares TensorFlow's plain graph with XLA: "
                     f"this is {keras.backend.backend()}")
    ensure_dataset(args)

    batch = args.batch
    precision = resolve_precision(args.precision)
    model = training.build_policy(args.layers, args.filters, precision=precision, seed=args.seed)
    trainer = packed_input_model(model)
    training.compile_policy(trainer)
    pipeline = PackedBatches(args.dataset, "train", batch, shuffle=True, augment=True,
                             seed=args.seed, repeat=True, readers=args.readers)
    memory = HeldBatches([pipeline[i] for i in range(args.steps)])

    fits = [("pipeline", trainer, pipeline), ("memory", trainer, memory)]
    if args.against_graph:
        graph = packed_input_model(training.build_policy(args.layers, args.filters,
                                                         precision=precision, seed=args.seed))
        training.compile_policy(graph, jit_compile=False)
        fits.append(("graph", graph, memory))
    seconds = {name: [] for name, _, _ in fits}
    for _ in range(args.cycles):
        for name, fitted, data in fits:
            timer = EpochTimer()
            fitted.fit(data, epochs=1 + args.epochs, steps_per_epoch=args.steps,
                       callbacks=[timer], verbose=0, shuffle=False)
            seconds[name] += timer.seconds[1:]

    positions = args.steps * batch
    pipeline_rate = positions * len(seconds["pipeline"]) / sum(seconds["pipeline"])
    memory_rate = positions * len(seconds["memory"]) / sum(seconds["memory"])
    xla = {}
    if args.against_graph:
        graph_rate = positions * len(seconds["graph"]) / sum(seconds["graph"])
        xla = {"xla": trainer.jit_compile, "graph_positions_per_s": round(graph_rate, 1),
               "xla_speedup": round(memory_rate / graph_rate, 3)}
    print(json.dumps({
        "model": f"policy {args.layers}x{args.filters} 19x19",
        "backend": keras.backend.backend(),
        "device": compute_device(),
        "precision": precision,
        "batch": batch,
        "readers": args.readers,
        "positions_per_epoch": positions,
        "timed_epochs_each": len(seconds["pipeline"]),
        "pipeline_positions_per_s": round(pipeline_rate, 1),
        "memory_positions_per_s": round(memory_rate, 1),
        "ratio": round(pipeline_rate / memory_rate, 3),
        **xla,
        "cpu_count": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }))


if __name__ == "__main__":
    main()
