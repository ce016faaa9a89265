"""What XLA costs and gives a fit on TensorFlow: the figures behind
:data:`mockgo.nets.device.XLA_MIN_MULTIPLY_ADDS`. Prints one JSON line.

The same value network (notebook 02's quick one by default: 2 layers of 8
filters on 19 x 19, AlphaGo's 49 planes) is trained ``--epochs`` epochs of
``--positions`` random positions, once compiled with Keras' ``"auto"``
(TensorFlow's plain graph where it sees only a CPU) and once with XLA,
alternating ``--cycles`` times so that other work on the machine weighs on
both alike. ``xla_speedup`` is the graph's seconds an epoch over XLA's, the
first epoch left out (it compiles); ``compile_extra_s`` is how much longer
XLA's first epoch took than the graph's, beyond what its faster steps
saved; ``break_even_multiply_adds`` the size of fit (multiply-adds of its
forward passes) from which XLA's faster epochs pay that back.

    python benchmarks/xla_fit.py                    # about a minute here
    python benchmarks/xla_fit.py --size 9 --layers 3 --filters 16 --positions 5120
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
import numpy as np  # noqa: E402

from mockgo.data.pipeline import ArrayBatches  # noqa: E402
from mockgo.nets.device import XLA_MIN_MULTIPLY_ADDS, compute_device, multiply_adds  # noqa: E402
from mockgo.nets.models import value_network  # noqa: E402


def epoch_seconds(jit_compile, x, y, args):
    """Seconds of each epoch of a new network compiled with ``jit_compile``."""
    keras.utils.set_random_seed(0)
    model = value_network(args.size, x.shape[-1], layers=args.layers, filters=args.filters,
                          hidden=args.hidden)
    model.compile(optimizer=keras.optimizers.Adam(1e-3), loss="mse", jit_compile=jit_compile)
    seconds = []
    for epoch in range(args.epochs):
        order = np.random.default_rng([0, epoch]).permutation(len(y))
        start = time.perf_counter()
        model.fit(ArrayBatches(x, y, order, args.batch), epochs=1, verbose=0, shuffle=False)
        seconds.append(time.perf_counter() - start)
    return seconds, multiply_adds(model)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=19)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--filters", type=int, default=8)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--positions", type=int, default=3000)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=3, help="at least 2: the first compiles")
    parser.add_argument("--cycles", type=int, default=2)
    args = parser.parse_args()
    if keras.backend.backend() != "tensorflow":
        parser.error("TensorFlow only: JAX compiles with XLA whatever jit_compile says")
    if args.epochs < 2:
        parser.error("--epochs must be at least 2")
    rng = np.random.default_rng(0)
    x = (rng.random((args.positions, args.size, args.size, 49)) < 0.2).astype(np.float32)
    y = rng.choice([-1.0, 1.0], args.positions).astype(np.float32)
    runs = {"graph": [], "xla": []}
    for _ in range(args.cycles):
        for name, jit_compile in (("graph", "auto"), ("xla", True)):
            seconds, per_position = epoch_seconds(jit_compile, x, y, args)
            runs[name].append(seconds)
    graph, xla = (np.array(runs[name]) for name in ("graph", "xla"))
    graph_epoch, xla_epoch = graph[:, 1:].mean(), xla[:, 1:].mean()
    # XLA's first epoch, less what its steps would have taken after compiling,
    # against the graph's first epoch less its steps: the compiles compared.
    compile_extra = (xla[:, 0].mean() - xla_epoch) - (graph[:, 0].mean() - graph_epoch)
    per_epoch = per_position * args.positions
    saved_per_multiply_add = (graph_epoch - xla_epoch) / per_epoch
    print(json.dumps({
        "benchmark": "xla_fit", "backend": keras.backend.backend(), "device": compute_device(),
        "network": f"value {args.layers} x {args.filters}, {args.size}x{args.size}",
        "positions": args.positions, "batch": args.batch, "epochs": args.epochs,
        "cycles": args.cycles,
        "graph_epoch_s": round(float(graph_epoch), 2), "xla_epoch_s": round(float(xla_epoch), 2),
        "xla_speedup": round(float(graph_epoch / xla_epoch), 2),
        "compile_extra_s": round(float(compile_extra), 2),
        "multiply_adds_per_epoch": per_epoch,
        "break_even_multiply_adds": (float(f"{compile_extra / saved_per_multiply_add:.2g}")
                                     if saved_per_multiply_add > 0 else None),
        "threshold_multiply_adds": XLA_MIN_MULTIPLY_ADDS}))


if __name__ == "__main__":
    main()
