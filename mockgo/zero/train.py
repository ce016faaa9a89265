"""Training on self-play: gathering the window into shuffled chunks, the 8
symmetries, and the dual network's losses."""

import os
import shutil
from pathlib import Path

import numpy as np

from mockgo.go import symmetries
from mockgo.zero.selfplay import load_examples, progress_bar, save_npz

__all__ = ["augment", "compile_dual", "epoch_bar", "gather_examples"]


def gather_examples(files, out_dir, max_examples, chunk_size, seed):
    """Shuffle the examples of ``files`` (at most ``max_examples``, drawn
    uniformly) into ``out_dir/chunk-000.npz``... The chunks are written to a
    temporary folder that is renamed to ``out_dir`` when complete."""
    out_dir = Path(out_dir)
    loaded = load_examples(files)
    if loaded is None:
        raise ValueError("no self-play examples to gather")
    planes, pi, z, game = loaded
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(z))[:max_examples]
    temporary = out_dir.parent / f".{out_dir.name}.tmp"
    shutil.rmtree(temporary, ignore_errors=True)
    temporary.mkdir(parents=True)
    chunks = 0
    for chunks, start in enumerate(range(0, len(order), chunk_size), start=1):
        rows = order[start:start + chunk_size]
        save_npz(temporary / f"chunk-{chunks - 1:03d}.npz",
                  {"planes": planes[rows], "pi": pi[rows], "z": z[rows], "game": game[rows]})
    shutil.rmtree(out_dir, ignore_errors=True)
    os.replace(temporary, out_dir)
    return {"examples": int(len(order)), "available": int(len(z)), "chunks": chunks,
            "files": len(files)}


def augment(planes, pi, rng):
    """Each position and its pi under a random one of the 8 symmetries."""
    size = planes.shape[1]
    syms = rng.integers(0, 8, len(planes))
    out_planes, out_pi = np.empty_like(planes), np.empty_like(pi)
    for sym in range(8):
        rows = np.flatnonzero(syms == sym)
        out_planes[rows] = symmetries.apply_to_planes(sym, planes[rows])
        out_pi[rows] = symmetries.apply_to_policy(sym, pi[rows], size)
    return out_planes, out_pi


def compile_dual(model, config):
    """Policy cross-entropy (with the visit distribution as soft labels) +
    ``value_weight`` x value MSE, with Adam; the L2 penalty is the model's
    own (``dual_network(l2=...)``). AlphaGo Zero used SGD with momentum
    over 700,000 steps; a CPU run has a few thousand, where Adam learns the
    policy much faster (with SGD at lr 0.005 to 0.02 the policy loss of a
    3-block net hardly moved in 4 epochs of 18,000 examples, and a 1-filter
    value head died at 0.02)."""
    import keras  # TensorFlow: imported only when a network is used

    model.compile(optimizer=keras.optimizers.Adam(config.learning_rate),
                  loss={"policy": keras.losses.CategoricalCrossentropy(),
                        "value": keras.losses.MeanSquaredError()},
                  loss_weights={"policy": 1.0, "value": config.value_weight})
    return model


def epoch_bar(enabled, desc):
    """A Keras callback drawing a tqdm bar over each epoch's batches, with
    the running losses (nothing when not ``enabled``)."""
    import keras  # TensorFlow: imported only when a network is used

    class EpochBar(keras.callbacks.Callback):
        bar = None

        def on_epoch_begin(self, epoch, logs=None):
            self.bar = progress_bar(enabled, total=self.params.get("steps"), unit="batch",
                                 desc=f"{desc} epoch {epoch + 1}", leave=False)

        def on_train_batch_end(self, batch, logs=None):
            if self.bar is not None:
                self.bar.update(1)
                if batch % 10 == 0 and logs:
                    self.bar.set_postfix({k: f"{float(v):.3f}" for k, v in logs.items()
                                          if k.endswith("loss")}, refresh=False)

        def on_epoch_end(self, epoch, logs=None):
            self.close()

        def close(self):
            if self.bar is not None:
                self.bar.close()
                self.bar = None

    return EpochBar()
