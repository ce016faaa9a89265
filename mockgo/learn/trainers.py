"""Each network trained once: a policy network on a dataset's shards, a
value network on positions held in memory.

``mockgo train`` (:mod:`mockgo.learn.train_cli`), ``mockgo recipe``
(:mod:`mockgo.learn.recipe`) and the notebooks' stand-ins
(:mod:`mockgo.notebook`) all train through these two functions, so a change
to how a network is built, timed, trained, saved or scored is made here once:

- :func:`train_policy_on_dataset`: :func:`~mockgo.learn.supervised.build_policy`,
  then :func:`~mockgo.learn.supervised.train_policy` for ``epochs`` passes
  over the train split or, given ``seconds``, for about that long (the
  epochs sized by the speed of the compiled step, :func:`timed_plan`); the
  network saved for play, then scored on the test split.
- :func:`train_value_on_positions`:
  :func:`~mockgo.learn.value.build_value`, then
  :func:`~mockgo.learn.value.fit_value_network` with early stopping, built
  again from the next seed when its training kills it.

Both resume: the policy's run folder and plan, the value fit's checkpoint
folder, hold what a call interrupted had done.
"""

import dataclasses
import json
import time
import warnings
from pathlib import Path

import numpy as np

from mockgo.data.dataset import read_manifest
from mockgo.data.files import atomic_write_text, read_json
from mockgo.go.features import get_encoder
from mockgo.learn.supervised import build_policy, split_scores, train_policy
from mockgo.learn.value import (DeadNetworkWarning, build_value, fit_value_network,
                                gives_one_value)
from mockgo.nets.device import resolve_precision, training_jit_compile
from mockgo.nets.io import save_for_play

__all__ = ["TrainedPolicy", "step_rate", "timed_plan", "train_policy_on_dataset",
           "train_value_on_positions", "wait_for"]


# ------------------------------------------------------------ timing a step


def step_rate(net, batch_size, steps=30, warmup=5, seed=0):
    """Positions a second of ``net``'s compiled training step (forward,
    backward, Adam) on one batch of random packed planes held in memory:
    what the input pipeline is measured against, and what a timed training
    sizes its epochs by. Trains a copy of ``net`` (same architecture and
    precision, its own weights): ``net`` is left as it was."""
    import keras

    from mockgo.data.pipeline import HeldBatches  # Keras: imported only when a network is used
    from mockgo.nets.packed import packed_input_model  # Keras: imported only when a network is used

    copy = keras.models.clone_model(net)
    trainer = packed_input_model(copy)
    trainer.compile(optimizer=keras.optimizers.Adam(1e-3), loss="sparse_categorical_crossentropy",
                    jit_compile=training_jit_compile(copy))
    size, _, planes = net.inputs[0].shape[1:]
    rng = np.random.default_rng(seed)
    packed = rng.integers(0, 256, (batch_size, size, size, (planes + 7) // 8), dtype=np.uint8)
    batch = ((packed, rng.integers(0, 8, batch_size).astype(np.int32)),
             rng.integers(0, size * size, batch_size).astype(np.int32))
    trainer.fit(HeldBatches([batch], warmup), epochs=1, verbose=0)  # compiles
    wait_for(trainer)
    started = time.perf_counter()
    trainer.fit(HeldBatches([batch], steps), epochs=1, verbose=0)
    wait_for(trainer)
    return steps * batch_size / (time.perf_counter() - started)


def timed_plan(net, batch_size, seconds, epochs, plan_path, precision):
    """How to train ``net`` for about ``seconds``: ``epochs`` epochs of a
    number of steps sized by the compiled step's rate (:func:`step_rate`),
    as ``{"step_rate", "steps_per_epoch", "epochs", "precision"}``. The plan
    is written to ``plan_path`` (atomically) before training starts, and read
    from there when it exists, so that a resumed run keeps it."""
    plan = read_json(plan_path, "the training's plan", missing_ok=True)
    if plan is None:
        rate = step_rate(net, batch_size)
        total_steps = max(epochs, int(seconds * rate / batch_size))
        plan = {"step_rate": round(rate), "steps_per_epoch": total_steps // epochs,
                "epochs": epochs, "precision": precision}
        atomic_write_text(plan_path, json.dumps(plan, indent=1) + "\n")
    return plan


def wait_for(model):
    """Wait until the device has finished every step given to ``model``.
    JAX (and a GPU under any backend) runs steps asynchronously: ``fit``
    can return while its last steps are still queued, and a clock read
    then times the queueing, not the work. Reading one weight back waits
    for all of them (each step updates every weight)."""
    import keras

    keras.ops.convert_to_numpy(model.trainable_variables[-1])


# ------------------------------------------------------------ the policy


@dataclasses.dataclass
class TrainedPolicy:
    """What :func:`train_policy_on_dataset` did: the trained ``network``
    (saved for play already), its ``history`` (:func:`train_policy`'s), the
    dataset's ``manifest``, the ``precision`` it trained in, the ``plan`` of
    a timed training (None otherwise), the ``steps_per_epoch`` it ran (None:
    one pass over the train split) and its ``scores`` on the test split
    (:func:`~mockgo.learn.supervised.split_scores`)."""

    network: object
    history: dict
    manifest: dict
    precision: str
    plan: dict | None
    steps_per_epoch: int | None
    scores: dict


def train_policy_on_dataset(dataset, out, run_dir, layers, filters, epochs, seconds=None,
                            plan_path=None, batch_size=128, learning_rate=1e-3, seed=0,
                            precision="auto", validation_steps=None, progress="epoch",
                            log=None):
    """Build a policy network of ``layers`` x ``filters`` for the dataset in
    ``dataset`` (its board size and encoder), train it there for ``epochs``
    epochs, each one pass over the train split or, given ``seconds``, sized
    so that the training takes about that long (:func:`timed_plan`, the plan
    kept in ``plan_path``), with its checkpoints in ``run_dir``; save it for
    play to ``out`` before scoring it on the test split (a network trained
    for hours outlives a failure in what follows). ``log``: given, called
    with one line saying the plan before training starts. Called again with
    the same arguments after an interruption, it goes on where it stopped.
    Returns a :class:`TrainedPolicy`."""
    manifest = read_manifest(dataset)
    size, encoder = manifest["spec"]["board_size"], manifest["spec"]["encoder"]
    precision = resolve_precision(precision)
    net = build_policy(layers, filters, size, get_encoder(encoder, size).num_planes, precision,
                       seed=seed)
    plan = steps_per_epoch = None  # None: one pass over the train split
    if seconds is not None:
        plan = timed_plan(net, batch_size, seconds, epochs, plan_path, precision)
        steps_per_epoch, epochs = plan["steps_per_epoch"], plan["epochs"]
        if log is not None:
            log(f"{net.count_params():,} parameters in {precision}; the compiled step trains "
                f"{plan['step_rate']:,} positions/s on one batch in memory: {epochs} epochs of "
                f"{steps_per_epoch:,} steps of {batch_size}")
    history = train_policy(net, dataset, run_dir, epochs=epochs, batch_size=batch_size,
                           learning_rate=learning_rate, steps_per_epoch=steps_per_epoch,
                           validation_steps=validation_steps, seed=seed, progress=progress)
    save_for_play(net, out, encoder=encoder)
    scores = split_scores(net, dataset, "test", batch_size)
    return TrainedPolicy(net, history, manifest, precision, plan, steps_per_epoch, scores)


# ------------------------------------------------------------ the value


def train_value_on_positions(planes, outcomes, validation, board_size, layers, filters,
                             hidden=256, encoder=None, precision="auto", seed=0, epochs=10,
                             batch_size=64, learning_rate=1e-3, symmetries=False, patience=None,
                             checkpoint_dir=None, progress=False, name="value_network", tries=3):
    """Build a value network (:func:`~mockgo.learn.value.build_value`:
    ``layers`` x ``filters``, ``hidden`` units, weights drawn from ``seed``,
    in ``precision``, recording ``encoder`` when given) for ``planes`` and
    train it to predict ``outcomes`` (:func:`~mockgo.learn.value.fit_value_network`,
    on the 8 ``symmetries`` of each position if asked), measured on
    ``validation`` (``(planes, outcomes)`` or None) after each epoch and
    stopped early after ``patience`` epochs without progress there (None:
    never), resuming from ``checkpoint_dir`` when given. A network that dies
    in its training (:func:`~mockgo.learn.value.gives_one_value`) is built
    and trained anew from ``seed + 1``, with a warning
    (:class:`~mockgo.learn.value.DeadNetworkWarning`; its checkpoints in a
    folder beside ``checkpoint_dir``, named as it is with ``_seed1`` added),
    and so on, ``tries`` times in all; one that died every time is an error.
    Returns ``(network, history)``; ``history["seed"]`` is the seed whose
    network lived."""
    if tries < 1:
        raise ValueError(f"a value network needs 1 or more trainings to try, got tries={tries}")
    for weights_seed in range(seed, seed + tries):
        folder = checkpoint_dir
        if checkpoint_dir is not None and weights_seed != seed:
            first = Path(checkpoint_dir)
            folder = first.with_name(f"{first.name}_seed{weights_seed}")
        net = build_value(layers, filters, board_size, planes.shape[-1], precision,
                          seed=weights_seed, hidden=hidden, encoder=encoder, name=name)
        with warnings.catch_warnings():
            # fit_value_network's own advice on a dead network is what happens next here.
            warnings.simplefilter("ignore", DeadNetworkWarning)
            history = fit_value_network(net, planes, outcomes, validation=validation,
                                        epochs=epochs, batch_size=batch_size,
                                        learning_rate=learning_rate, symmetries=symmetries,
                                        patience=patience, seed=weights_seed,
                                        checkpoint_dir=folder, progress=progress)
        if not gives_one_value(net, planes):
            return net, dict(history, seed=weights_seed)
        if weights_seed + 1 < seed + tries:
            warnings.warn(f"{name} died in its training from seed {weights_seed} (it gives every "
                          f"position the same value): training it again from seed "
                          f"{weights_seed + 1}", DeadNetworkWarning, stacklevel=2)
    where = "" if checkpoint_dir is None else f", in {checkpoint_dir} and beside it"
    raise RuntimeError(f"the value network died in each of {tries} trainings (seeds {seed} to "
                       f"{seed + tries - 1}{where}): train it with a lower learning_rate than "
                       f"{learning_rate:g}, in a new folder")
