"""Training on self-play: the run's network (made new, or checked when the
run starts from one), gathering the window into shuffled chunks, the 8
symmetries, and the dual network's losses."""

import os
import shutil
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from mockgo.go import symmetries
from mockgo.go.features import get_encoder
from mockgo.nets.architectures import build_network
from mockgo.nets.device import set_random_seed
from mockgo.nets.io import load_model, model_info
from mockgo.zero.config import ENCODER
from mockgo.zero.examples import load_targets, save_npz

__all__ = ["augment", "check_init_model", "compile_dual", "epoch_bar", "first_network",
           "fit_epoch", "gather_examples", "new_network", "targets", "tower_of"]


def gather_examples(files, out_dir, max_examples, chunk_size, seed):
    """Shuffle the examples of ``files`` (at most ``max_examples``, drawn
    uniformly) into ``out_dir/chunk-000.npz``... The chunks are written to a
    temporary folder that is renamed to ``out_dir`` when complete."""
    out_dir = Path(out_dir)
    loaded = load_targets(files)
    if loaded is None:
        raise ValueError("no self-play examples to gather")
    available = len(loaded["z"])
    rng = np.random.default_rng(seed)
    order = rng.permutation(available)[:max_examples]
    temporary = out_dir.parent / f".{out_dir.name}.tmp"
    shutil.rmtree(temporary, ignore_errors=True)
    temporary.mkdir(parents=True)
    chunks = 0
    for chunks, start in enumerate(range(0, len(order), chunk_size), start=1):
        rows = order[start:start + chunk_size]
        save_npz(temporary / f"chunk-{chunks - 1:03d}.npz",
                 {key: column[rows] for key, column in loaded.items()})
    shutil.rmtree(out_dir, ignore_errors=True)
    os.replace(temporary, out_dir)
    return {"examples": int(len(order)), "available": int(available), "chunks": chunks,
            "files": len(files)}


def augment(planes, pi, rng, ownership=None):
    """Each position and its pi under a random one of the 8 symmetries;
    with ``ownership`` (N*N per position) that too, turned the same way
    (then three arrays are returned)."""
    size = planes.shape[1]
    syms = rng.integers(0, 8, len(planes))
    out_planes, out_pi = np.empty_like(planes), np.empty_like(pi)
    out_owner = None if ownership is None else np.empty_like(ownership)
    for sym in range(8):
        rows = np.flatnonzero(syms == sym)
        out_planes[rows] = symmetries.apply_to_planes(sym, planes[rows])
        out_pi[rows] = symmetries.apply_to_policy(sym, pi[rows], size)
        if out_owner is not None:
            grid = ownership[rows].reshape(len(rows), size, size, 1)
            out_owner[rows] = symmetries.apply_to_planes(sym, grid).reshape(len(rows), -1)
    return (out_planes, out_pi) if ownership is None else (out_planes, out_pi, out_owner)


def targets(model, examples, ownership=None):
    """``(y, sample_weight)`` for ``model.fit`` or ``evaluate``: the targets
    of ``examples`` (a dict of :data:`~mockgo.zero.examples.EXAMPLE_ARRAYS`)
    for each of ``model``'s outputs, in its order. A plain dual network
    gets ``{"policy": pi, "value": z}`` and no weights; one with the
    auxiliary heads lists, with per-output weights: 1 for policy and value,
    ``aux_weight`` for ownership and score (0 for games that ended without
    a scored position). The score target is the margin over N*N (the
    head's units). ``ownership``: the (augmented) ownership to use instead
    of the examples'."""
    names = list(model.output_names)
    z = examples["z"].reshape(-1, 1)
    if names == ["policy", "value"]:
        return {"policy": examples["pi"], "value": z}, None
    points = examples["ownership"].shape[1]
    y = {"policy": examples["pi"], "value": z,
         "ownership": (examples["ownership"] if ownership is None else ownership
                       ).astype(np.float32),
         "score": (examples["score"] / points).reshape(-1, 1).astype(np.float32)}
    ones = np.ones(len(z), np.float32)
    weights = {"policy": ones, "value": ones, "ownership": examples["aux_weight"],
               "score": examples["aux_weight"]}
    # Keras takes per-output weights as a list in the outputs' order (not as a dict).
    return [y[name] for name in names], [weights[name] for name in names]


def compile_dual(model, config):
    """Policy cross-entropy (with the visit distribution as soft labels) +
    ``value_weight`` x value MSE, with Adam; the L2 penalty is the model's
    own (``dual_network(l2=...)``). AlphaGo Zero used SGD with momentum
    over 700,000 steps; a CPU run has a few thousand, where Adam learns the
    policy much faster (with SGD at lr 0.005 to 0.02 the policy loss of a
    3-block net hardly moved in 4 epochs of 18,000 examples, and a 1-filter
    value head died at 0.02). A network with KataGo's auxiliary heads adds
    ``ownership_weight`` x :func:`mockgo.nets.models.ownership_loss` and
    ``score_weight`` x the score's MSE (weighted per example:
    :func:`targets`)."""
    import keras  # TensorFlow: imported only when a network is used

    from mockgo.nets.models import ownership_loss  # Keras: imported only when a network is used

    losses = {"policy": keras.losses.CategoricalCrossentropy(),
              "value": keras.losses.MeanSquaredError(),
              "ownership": ownership_loss, "score": keras.losses.MeanSquaredError()}
    weights = {"policy": 1.0, "value": config.value_weight,
               "ownership": config.ownership_weight, "score": config.score_weight}
    names = list(model.output_names)
    # Keras' jit_compile ("auto": no XLA where TensorFlow sees only a CPU), not
    # mockgo.nets.device.training_jit_compile: on 2 cores XLA halved an epoch
    # of 16,000 examples for the 4 x 32 network with KataGo's heads (21 s
    # against 41 s), but compiling took 15 to 20 s a batch shape (an epoch's
    # last, short batch is a second shape), where the quick runs' epochs take
    # 1 to 2 s.
    model.compile(optimizer=keras.optimizers.Adam(config.learning_rate),
                  loss={name: losses[name] for name in names},
                  loss_weights={name: weights[name] for name in names})
    return model


def new_network(config, name):
    """A randomly initialised dual network of ``config``'s architecture
    (board, tower, heads, global pooling, L2) with the run's input planes,
    named ``name`` (seed Keras first for a reproducible one)."""
    return build_network("dual_network", board_size=config.board_size,
                         planes=get_encoder(ENCODER, config.board_size).num_planes,
                         blocks=config.blocks, filters=config.filters, l2=config.l2, name=name,
                         ownership_head=config.ownership_head, score_head=config.score_head,
                         global_pooling=config.global_pooling)


def first_network(config, name):
    """Generation 0 of a run of ``config``, named ``name``: the model of
    ``config.init_model`` when the run starts from one (checked:
    :func:`check_init_model`), else a new network drawn from the run's seed."""
    if config.init_model is not None:
        model = load_model(config.init_model)
        check_init_model(model, config, config.init_model)
        return model
    set_random_seed(config.seed)
    return new_network(config, name)


def tower_of(model):
    """``(blocks, filters)`` of a dual network built by
    :func:`mockgo.nets.models.dual_network`, read off its layers' names."""
    names = {layer.name for layer in model.layers}
    blocks = sum(1 for name in names if name.startswith("res") and name.endswith("_conv1"))
    return blocks, model.get_layer("init_conv").filters


def check_init_model(model, config, path):
    """ValueError naming ``path`` and each difference when ``model`` cannot
    be generation 0 of a run of ``config``: a dual network on agz17 planes
    of the run's board size, with the run's blocks, filters and heads."""
    info = model_info(model)
    wanted = {"kind": "dual", "encoder": ENCODER, "board size": config.board_size,
              "blocks and filters": (config.blocks, config.filters),
              "ownership head": config.ownership_head, "score head": config.score_head}
    names = set(model.output_names)
    found = {"kind": info.kind, "encoder": info.encoder, "board size": info.board_size,
             "blocks and filters": tower_of(model) if "init_conv" in
             {layer.name for layer in model.layers} else None,
             "ownership head": "ownership" in names, "score head": "score" in names}
    differences = [f"{key} {found[key]} (the run wants {wanted[key]})"
                   for key in wanted if found[key] != wanted[key]]
    if differences:
        raise ValueError(f"{path} cannot start this run: {'; '.join(differences)}")


def fit_epoch(model, examples, config, epoch, rng, **fit_options):
    """Epoch ``epoch`` (0-based) of ``model`` (compiled: :func:`compile_dual`)
    on ``examples`` (a dict of :data:`~mockgo.zero.examples.EXAMPLE_ARRAYS`),
    each position turned by a random symmetry drawn from ``rng``, in
    batches of ``config.batch_size`` in an order drawn from ``rng`` too;
    ``fit_options`` go to ``model.fit`` (verbose, callbacks). Returns the
    epoch's Keras history dict."""
    # The order from rng, not from Keras' shuffle: that one draws from the
    # backend's global generator, whose state depends on all this process did
    # before (self-play, an earlier epoch), so a run resumed in a new process
    # trained on other batches than one that was never stopped.
    order = rng.permutation(len(examples["z"]))
    examples = {key: value[order] for key, value in examples.items()}
    x, y_pi, owner = augment(examples["planes"], examples["pi"], rng, examples["ownership"])
    y, weights = targets(model, dict(examples, pi=y_pi), owner)
    return model.fit(x, y, sample_weight=weights, batch_size=config.batch_size,
                     epochs=epoch + 1, initial_epoch=epoch, shuffle=False, **fit_options).history


def epoch_bar(enabled, desc):
    """A Keras callback drawing a tqdm bar over each epoch's batches, with
    the running losses (nothing when not ``enabled``)."""
    import keras  # TensorFlow: imported only when a network is used

    class EpochBar(keras.callbacks.Callback):
        bar = None

        def on_epoch_begin(self, epoch, logs=None):
            self.bar = tqdm(total=self.params.get("steps"), unit="batch",
                            desc=f"{desc} epoch {epoch + 1}", leave=False) if enabled else None

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
