"""Supervised training of a policy network (or of a policy-and-value network,
AlphaGo Zero's supervised experiment) on dataset shards, with ``model.fit``.

AlphaGo's first stage (Silver et al. 2016, "Supervised learning of policy
networks"): a convolutional network learns to predict the move a strong human
played, by maximising the log-likelihood of that move, i.e. minimising the
cross-entropy between the network's softmax over the points and the expert's
move. :func:`train_policy` does this with Keras::

    model = policy_network(layers=6, filters=64)            # mockgo.nets.models
    history = train_policy(model, "runs/ds", "runs/sl", epochs=8, batch_size=128,
                           learning_rate=1e-3)               # Adam

What a run folder holds
-----------------------
``state.json``
    The settings of the run, the number of epochs finished (``"epoch"``)
    and the checkpoint that holds them (``"checkpoint"``), written
    atomically: the run's single commit point. It is written before the
    first epoch (with ``"epoch": 0``), so a folder with work in it always
    has one.
``checkpoint_00003.keras``
    The model *and its optimiser state* after epoch 3, written to a
    temporary file beside it and renamed over it (``os.replace``), so it is
    always a whole file. Each epoch writes a checkpoint of its own name,
    then ``state.json`` naming it, then deletes the older one: a crash
    between the two leaves the state naming the previous checkpoint, still
    there, and that epoch is done again from it, never applied twice.
``log.csv``
    One row per epoch (Keras' ``CSVLogger``, appending): loss, top-1 and
    top-5 accuracy, their validation twins, the learning rate, and the
    epoch's wall-clock ``seconds`` (validation included). On resume the
    rows of epochs after the state's (an epoch that was logged but not
    committed) are cut off first, so every epoch appears once.
``tensorboard/``
    With ``tensorboard=True``: ``tensorboard --logdir runs/...``.

Calling :func:`train_policy` again with the same run folder after an
interruption (Ctrl-C, a crash, a closed notebook) restores the model's
weights and optimiser state from the checkpoint and continues at the next
epoch (``initial_epoch``); calling it with more ``epochs`` trains further.
It must be called with the same settings otherwise (dataset, batch size,
learning rate and schedule, ...): other ones are an error naming each
difference. A folder that holds checkpoints or a log but no readable
``state.json`` (deleted, or damaged) is refused, naming what it holds,
unless ``restart=True`` asks to delete that work and start over.

Optimiser and learning rate
---------------------------
``optimizer="adam"`` (the default, and both notebook modes'): Adam, forgiving
about the learning rate (1e-3 is the usual start). ``optimizer="sgd"``:
stochastic gradient descent with momentum 0.9, as AlphaGo trained (plain
asynchronous SGD there, step size 0.003 halved every 80 million steps, on 50
GPUs); it needs its learning rate tuned: at 0.05 the 6 x 64 network diverged
on KGS positions (measured; see notebook 01's full preset in :mod:`mockgo.notebook`). Both minimise sparse
categorical cross-entropy, the loss for one correct class among N*N.

The learning rate follows ``schedule``, set once per epoch from the epoch
number alone (so a resumed run gets the same rates):

- ``"constant"``: ``learning_rate`` throughout;
- ``"step"``: divided by 10 after 50% and again after 75% of the epochs
  (the classic step decay);
- ``"cosine"``: ``learning_rate * (1 + cos(pi * epoch / epochs)) / 2``, from
  the full rate down towards 0 in the last epoch (Loshchilov & Hutter's
  cosine annealing without restarts).

Mixed precision
---------------
On a GPU, or a CPU with bfloat16 instructions (``avx512_bf16`` or
``amx_bf16``), Keras' ``mixed_bfloat16`` policy computes the convolutions in
bfloat16 while keeping the weights in float32: measured twice the positions
per second for the 6 x 64 network on this project's 2-core machine.
:func:`build_policy` builds a network under the precision it is asked for
(``"auto"``: :func:`mockgo.nets.device.auto_precision` asks the device that
runs the network) and
:func:`mockgo.nets.io.save_for_play` always saves a float32 copy, so whoever
loads ``policy.keras`` gets an ordinary float32 model.

Notebook 01's two settings, quick and full, are its presets in
:mod:`mockgo.notebook`.
"""

import csv
import io
import json
import math
import time
import warnings
from pathlib import Path

import numpy as np

from mockgo.data.dataset import read_manifest
from mockgo.data.pipeline import PackedBatches
from mockgo.data.files import (atomic_write_text, check_same_settings, discard_work, job_folder,
                               list_work, read_json, read_npz, refuse_unrecorded_work)
from mockgo.go.features import get_encoder
from mockgo.nets.architectures import build_network
from mockgo.nets.device import (building_in, resolve_precision, set_random_seed,
                                training_jit_compile)
from mockgo.nets.io import NetworkInfo, kind_of, load_model, save_model

__all__ = [
    "build_policy", "compile_policy", "learning_rate_at", "played_positions",
    "read_history", "read_state", "run_summary", "split_scores", "train_policy",
]

CHECKPOINT = "checkpoint_{epoch:05d}.keras"  # after that many epochs
STATE = "state.json"
LOG = "log.csv"
# What a run writes besides its state ("checkpoint.keras": a run of an
# earlier mockgo, which kept one checkpoint of that name).
WORK = ("checkpoint*.keras", LOG, "tensorboard/**/*")
RESTART = "pass restart=True to train_policy"
SCHEDULES = ("constant", "step", "cosine")
OPTIMIZERS = ("sgd", "adam")
DUAL_VALUE_WEIGHT = 0.01  # AlphaGo Zero's weight on the value loss in supervised learning


# ---------------------------------------------------------- building, saving


def build_policy(layers, filters, board_size=19, planes=48, precision="auto", seed=0):
    """A new, uncompiled :func:`mockgo.nets.models.policy_network` of
    ``layers`` convolutions of ``filters`` filters, built under ``precision``
    (``"auto"``, ``"float32"`` or ``"mixed_bfloat16"``; module docstring),
    with its weights drawn from ``seed`` (``keras.utils.set_random_seed``,
    which also seeds Python's and NumPy's global generators)."""
    precision = resolve_precision(precision)
    set_random_seed(seed)
    with building_in(precision):
        return build_network("policy_network", board_size=board_size, planes=planes,
                             layers=layers, filters=filters)


# -------------------------------------------------------------- compiling


def compile_policy(model, optimizer="adam", learning_rate=1e-3, momentum=0.9, value_weight=None,
                   jit_compile=None):
    """Compile for move prediction: sparse categorical cross-entropy, and
    top-1 (``top1``) and top-5 (``top5``) accuracy. ``optimizer`` is
    ``"sgd"`` (with ``momentum``) or ``"adam"`` (see the module docstring), or
    an optimiser object to share with another model.

    A dual network (policy and value heads, :func:`mockgo.nets.models.dual_network`)
    learns both at once, AlphaGo Zero's supervised experiment: the policy's
    cross-entropy with the move played plus ``value_weight`` times the value's
    mean squared error with the game's result. AlphaGo Zero kept that weight
    low, 1/100 (MiniGo's ``value_cost_weight`` for supervised learning), so
    that the value head, one label per game, does not learn the games by
    heart (notebook 02 shows it doing so). Keras then names the metrics by
    output: ``policy_top1``, ``policy_top5``, ``value_loss``, ...

    ``jit_compile``: Keras' option; None chooses
    (:func:`mockgo.nets.device.training_jit_compile`, for a long fit)."""
    import keras  # TensorFlow: imported only when a network is used

    if isinstance(optimizer, keras.optimizers.Optimizer):
        opt = optimizer  # shared with another model (train_policy: the network and its trainer)
    elif optimizer == "sgd":
        opt = keras.optimizers.SGD(learning_rate=learning_rate, momentum=momentum)
    elif optimizer == "adam":
        opt = keras.optimizers.Adam(learning_rate=learning_rate)
    else:
        raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {optimizer!r}")
    if jit_compile is None:
        jit_compile = training_jit_compile(model)
    accuracy = [keras.metrics.SparseCategoricalAccuracy(name="top1"),
                keras.metrics.SparseTopKCategoricalAccuracy(k=5, name="top5")]
    if kind_of(model) == "dual":
        if len(model.outputs) != 2:
            raise ValueError(f"{model.name} has outputs {model.output_names}: supervised "
                             f"training takes a policy and a value, no auxiliary heads")
        model.compile(optimizer=opt, loss=["sparse_categorical_crossentropy", "mse"],
                      loss_weights=[1.0, DUAL_VALUE_WEIGHT if value_weight is None
                                    else value_weight],
                      metrics=[accuracy, []], jit_compile=jit_compile)
        return model
    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=accuracy,
                  jit_compile=jit_compile)
    return model


def learning_rate_at(epoch, learning_rate, epochs, schedule="cosine"):
    """The learning rate of epoch ``epoch`` (0-based) of ``epochs``."""
    if schedule == "constant":
        return float(learning_rate)
    if schedule == "step":
        factor = 1.0
        if epoch >= math.ceil(0.5 * epochs):
            factor /= 10
        if epoch >= math.ceil(0.75 * epochs):
            factor /= 10
        return float(learning_rate * factor)
    if schedule == "cosine":
        return float(learning_rate * 0.5 * (1 + math.cos(math.pi * epoch / max(1, epochs))))
    raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule!r}")


# ------------------------------------------------------------ run folders


def read_state(run_dir):
    """The run's ``state.json`` as a dict, or None before the run began.
    :class:`~mockgo.data.files.CorruptFileError` naming it when it is damaged."""
    return read_json(Path(run_dir) / STATE, "the training run's settings and progress",
                     missing_ok=True,
                     remedy=f"To delete the run's work and start over, {RESTART}",
                     # What is read of it (runs of an earlier mockgo named no checkpoint).
                     schema={"epoch": int, "checkpoint?": (str, None),
                             "settings": {"epochs": int, "batch_size": int,
                                          "steps_per_epoch": int}})


def _write_state(run_dir, state):
    """The commit point of an epoch (module docstring)."""
    atomic_write_text(Path(run_dir) / STATE, json.dumps(state, indent=1))


def read_history(run_dir):
    """The run's ``log.csv`` as ``{column: [values, one per epoch]}``
    (``epoch`` is 0-based, as Keras counts); empty before the first epoch."""
    path = Path(run_dir) / LOG
    if not path.exists():
        return {}
    with open(path, newline="") as file:
        rows = list(csv.DictReader(file))
    history = {}
    for row in rows:
        for key, value in row.items():
            if key == "epoch":
                history.setdefault(key, []).append(int(value))
            else:  # CSVLogger writes NA for what an epoch did not log
                history.setdefault(key, []).append(float("nan") if value == "NA" else float(value))
    # Without a validation split CSVLogger still writes val_ columns, all NA.
    return {key: values for key, values in history.items()
            if key == "epoch" or not all(math.isnan(v) for v in values)}


def run_summary(run_dir):
    """One line on a run folder's finished epochs: how many, the positions
    trained on, the hours they took (summed over sessions; epochs logged
    before ``seconds`` was logged are left out of the sum) and the last
    validation accuracy."""
    state, history = read_state(run_dir), read_history(run_dir)
    if state is None or not history:
        return f"{run_dir}: no finished epoch yet"
    epochs = len(history["epoch"])
    settings_record = state["settings"]
    positions = epochs * settings_record["steps_per_epoch"] * settings_record["batch_size"]
    seconds = [s for s in history.get("seconds", []) if not math.isnan(s)]
    line = f"{epochs} of {settings_record['epochs']} epochs, {positions:,} positions"
    if seconds:
        total = sum(seconds)
        took = (f"{total / 3600:.2f} h" if total >= 3600 else
                f"{total / 60:.1f} min" if total >= 60 else f"{total:.0f} s")
        line += f", {took} of training"
    if len(seconds) < epochs:
        line += f" ({epochs - len(seconds)} epochs untimed)"
    if "val_top1" in history:
        line += (f"; last validation top-1 {history['val_top1'][-1]:.1%}, "
                 f"top-5 {history['val_top5'][-1]:.1%}")
    return line


def _epoch_or(row, default):
    """The epoch of a log row, or ``default`` for a row cut short by a crash."""
    try:
        return int(row[0])
    except (IndexError, ValueError):
        return default


def _truncate_log(path, epochs_done):
    """Drop the rows of epochs >= ``epochs_done`` (logged, not committed)."""
    if not path.exists():
        return
    with open(path, newline="") as file:
        rows = list(csv.reader(file))
    if not rows:
        return
    header, body = rows[0], rows[1:]
    keep = [row for row in body if 0 <= _epoch_or(row, -1) < epochs_done]
    if len(keep) == len(body):
        return
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows([header] + keep)
    atomic_write_text(path, buffer.getvalue())


def _restore(model, checkpoint):
    """Copy weights and optimiser state from a checkpoint into ``model``
    (already compiled with the same kind of optimiser)."""
    # mockgo's loader: a damaged checkpoint is named as such, not "File not found".
    saved = load_model(checkpoint, compile=True)
    if [w.shape for w in saved.weights] != [w.shape for w in model.weights]:
        raise ValueError(f"{checkpoint} holds another network ({saved.name}, "
                         f"{saved.count_params():,} parameters) than the one given "
                         f"({model.name}, {model.count_params():,}); use another run folder")
    model.set_weights(saved.get_weights())
    model.optimizer.build(model.trainable_variables)
    source, target = saved.optimizer.variables, model.optimizer.variables
    if [v.shape for v in source] != [v.shape for v in target]:
        raise ValueError(f"{checkpoint} was trained with another optimiser "
                         f"({type(saved.optimizer).__name__}); use another run folder")
    for mine, theirs in zip(target, source):
        mine.assign(theirs)


def _schedule_callback(rate_of_epoch):
    import keras  # TensorFlow: imported only when a network is used

    class Schedule(keras.callbacks.Callback):
        """Keras' LearningRateScheduler, less its reading the rate back
        through ``np.array`` of a variable (a DeprecationWarning with NumPy 2):
        the rate set is the rate logged."""

        def on_epoch_begin(self, epoch, logs=None):
            self.rate = float(rate_of_epoch(epoch))
            self.model.optimizer.learning_rate = self.rate
            self.started = time.perf_counter()

        def on_epoch_end(self, epoch, logs=None):
            if logs is not None:
                logs["learning_rate"] = self.rate
                # Wall-clock seconds of the epoch, validation included, so
                # that a run resumed over several sessions still adds up.
                logs["seconds"] = time.perf_counter() - self.started

    return Schedule()


def _progress_callback(epochs):
    import keras  # TensorFlow: imported only when a network is used

    class RunProgress(keras.callbacks.ProgbarLogger):
        """Keras' progress bar, each epoch headed "Epoch k/N" with N the
        run's epochs. Each epoch is a fit of its own (``train_policy``),
        ``epochs=k`` from ``initial_epoch=k - 1``, whose own count Keras would
        print instead: "Epoch 3/3", and no header at all for the first."""

        def set_params(self, params):
            super().set_params(params)
            self.epochs = epochs

    return RunProgress()


def _checkpoint_callback(run_dir, settings_record, encoder, network):
    import keras  # TensorFlow: imported only when a network is used

    class EpochCheckpoint(keras.callbacks.Callback):
        """After each epoch: the network with its optimiser (shared with the
        model fit trains) to a checkpoint of the epoch's own name
        (atomically), then ``state.json`` naming it (the commit point), then
        the older checkpoints go (module docstring)."""

        def on_epoch_end(self, epoch, logs=None):
            name = CHECKPOINT.format(epoch=epoch + 1)
            save_model(network, Path(run_dir) / name, encoder=encoder)
            _write_state(run_dir, {"epoch": epoch + 1, "checkpoint": name,
                                   "settings": settings_record,
                                   "last_logs": {k: float(v) for k, v in (logs or {}).items()}})
            for old in Path(run_dir).glob("checkpoint*.keras"):
                if old.name != name:
                    old.unlink(missing_ok=True)

    return EpochCheckpoint()


# -------------------------------------------------------------- training


def _open_run(run_dir, record, restart):
    """The run's state: the one in ``run_dir``, whose settings must be
    ``record``'s but for ``epochs``; or a new one (epoch 0), written now,
    before any work, so that work never lies in a folder without a state."""
    state = None
    if restart:
        discard_work(run_dir, run_dir / STATE, list_work(run_dir, WORK))
    else:
        state = read_state(run_dir)
    if state is None:
        refuse_unrecorded_work(run_dir, run_dir / STATE, list_work(run_dir, WORK), RESTART)
        state = {"epoch": 0, "checkpoint": None, "settings": record, "last_logs": {}}
        _write_state(run_dir, state)
        return state
    # More epochs train further; anything else would continue another run.
    stored = {key: value for key, value in state["settings"].items() if key != "epochs"}
    given = {key: value for key, value in record.items() if key != "epochs"}
    if isinstance(stored.get("dataset"), str):
        # Runs before datasets were recorded by content named a folder.
        old = Path(stored["dataset"])
        if (old / "dataset.json").exists():
            stored["dataset"] = dataset_identity(old)
        else:
            warnings.warn(f"{run_dir} was trained on {old}, which is gone: cannot check that "
                          f"it is the dataset given now")
            stored["dataset"] = given["dataset"]
    check_same_settings(run_dir, "a training run", stored, given)
    return state


def dataset_identity(dataset_dir):
    """What a run is trained on, wherever the dataset's folder lies (a moved
    checkout resumes): its spec, its sources' file names and its positions
    per split, from its manifest."""
    manifest = read_manifest(dataset_dir)
    return {"spec": manifest["spec"], "sources": [Path(s).name for s in manifest["sources"]],
            "positions": manifest["positions"]}


def played_positions(dataset_dir, split, with_passes=False):
    """Positions of a split where the expert played a point (not a pass):
    what the pipeline yields for a policy network; ``with_passes``: all of
    them (a dual network's). Reads only the moves."""
    manifest = read_manifest(dataset_dir)
    size = manifest["spec"]["board_size"]
    total = 0
    for name, _ in manifest["shards"][split]:
        moves = read_npz(Path(dataset_dir) / name, ["moves"])["moves"]
        total += len(moves) if with_passes else int((moves != size * size).sum())
    return total


def split_scores(model, dataset_dir, split, batch_size):
    """``model``'s top-1 and top-5 accuracy (fractions) on every position of
    a split where the expert played a point, as ``{"top1", "top5"}`` (NaN
    for a split without one). Compiles ``model`` (its metrics are the
    scores), so call it after training."""
    from mockgo.nets.packed import packed_input_model  # Keras: only when a network is scored

    positions = played_positions(dataset_dir, split)
    if not positions:
        return {"top1": math.nan, "top5": math.nan}
    # A fit's rule, applied to one forward pass (about a third of a training
    # step's work): XLA from somewhat smaller splits than where it pays,
    # none for tiny ones, whose compile would cost more than the pass.
    jit_compile = training_jit_compile(model, positions)
    compile_policy(model, jit_compile=jit_compile)
    tester = packed_input_model(model)
    compile_policy(tester, jit_compile=jit_compile)
    batches = PackedBatches(dataset_dir, split, batch_size, shuffle=False, augment=False)
    scores = tester.evaluate(batches, verbose=0, return_dict=True)
    return {"top1": scores["top1"], "top5": scores["top5"]}


def _verbosity(progress):
    """Keras' ``verbose`` for :func:`train_policy`'s ``progress``."""
    return 2 if progress == "epoch" else 1 if progress else 0


def train_policy(model, dataset_dir, run_dir, epochs, batch_size, learning_rate,
                 steps_per_epoch=None, validation_steps=None, schedule="cosine",
                 optimizer="adam", momentum=0.9, seed=0, augment=True, tensorboard=False,
                 progress=True, callbacks=(), restart=False, value_weight=None):
    """Train ``model`` (a policy network from :mod:`mockgo.nets.models`) on the
    train split of the dataset in ``dataset_dir`` until ``epochs`` epochs are
    done, keeping its checkpoint, state and log in ``run_dir`` (module
    docstring); resume if ``run_dir`` holds an earlier run. ``model`` is
    trained in place, and compiled here.

    Each epoch is ``steps_per_epoch`` batches of ``batch_size`` positions
    from :class:`mockgo.data.pipeline.PackedBatches` (shuffled, repeating, and with a
    random symmetry of the board per position if ``augment``; positions where
    the expert passed are left out); ``None`` means one pass over the train
    split. Validation after each epoch: the first ``validation_steps``
    batches of the validation split, the same ones every epoch (``None``: all
    of it; skipped when the split is empty). ``seed`` fixes the data order:
    epoch e reads the split in an order drawn from ``(seed, e)`` alone, so a
    run stopped and resumed (at any moment, SIGKILL included) trains on the
    same batches as one that was not.

    A dual network (a policy and a value head, as
    :func:`mockgo.nets.models.dual_network` builds it) learns both from the
    same positions: the move played and the game's result from the mover's
    view, the value's loss weighted by ``value_weight`` (default
    ``DUAL_VALUE_WEIGHT``, AlphaGo Zero's 1/100; :func:`compile_policy`).
    Its policy has a pass output, and positions where the expert passed are
    kept: it learns when to pass.

    ``progress``: Keras' progress bar, which redraws live in Jupyter too;
    ``"epoch"``: one line per epoch (for logs); False: nothing.
    ``callbacks`` are Keras callbacks run after the checkpoint of each epoch
    is written (each epoch is a ``fit`` of its own: their ``on_train_begin``
    and ``on_train_end`` run every epoch).

    Resuming needs the settings the run began with (all these arguments but
    ``epochs``, ``progress``, ``tensorboard`` and ``callbacks``; others are
    a ValueError naming each difference). ``restart=True`` starts over:
    it deletes the folder's ``state.json`` (first), checkpoints, ``log.csv``
    and ``tensorboard/``, and is the one way to reuse a folder whose
    ``state.json`` is missing or damaged while it still holds that work
    (without it, that is an error naming the folder and its files).

    Returns the history of the whole run, all sessions together, as
    ``{metric: [one value per epoch]}`` (read back from ``log.csv``).
    """
    import keras  # the backend: imported only when a network is used

    from mockgo.nets.packed import packed_input_model  # Keras: imported only when a network is used

    run_dir, dataset_dir = Path(run_dir), Path(dataset_dir)
    manifest = read_manifest(dataset_dir)
    spec = manifest["spec"]
    size = spec["board_size"]
    planes = get_encoder(spec["encoder"], size).num_planes
    expected = (size, size, planes)
    if tuple(model.inputs[0].shape[1:]) != expected:
        raise ValueError(f"{model.name} takes planes of shape {tuple(model.inputs[0].shape[1:])}, "
                         f"the dataset in {dataset_dir} holds {expected}")
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule!r}")
    run_dir.mkdir(parents=True, exist_ok=True)
    kind = kind_of(model)
    # The model now knows its planes: saving it records them (mockgo.nets.io).
    model.mockgo_info = NetworkInfo(kind, spec["encoder"], size)
    # A dual network learns to pass too, as AlphaGo Zero's does (a policy's
    # positions where the expert passed are left out, as before).
    with_passes = kind == "dual"
    target = "dual" if kind == "dual" else "policy"
    if kind == "dual" and value_weight is None:
        value_weight = DUAL_VALUE_WEIGHT

    if steps_per_epoch is None:
        steps_per_epoch = max(1, played_positions(dataset_dir, "train", with_passes) // batch_size)
    record = {"dataset": dataset_identity(dataset_dir), "epochs": epochs, "batch_size": batch_size,
              "learning_rate": learning_rate, "steps_per_epoch": steps_per_epoch,
              "validation_steps": validation_steps, "schedule": schedule,
              "optimizer": optimizer, "momentum": momentum, "seed": seed, "augment": augment}
    if kind == "dual":  # (a policy run's record stays as it was, so older runs resume)
        record["value_weight"] = value_weight
    # One run a folder; a resumed one first deletes a killed one's temporaries.
    with job_folder(run_dir, "training a policy"):
        state = _open_run(run_dir, record, restart)

        initial_epoch = int(state["epoch"])
        jit_compile = training_jit_compile(
            model, max(0, epochs - initial_epoch) * steps_per_epoch * batch_size)
        compile_policy(model, optimizer, learning_rate, momentum, value_weight, jit_compile)
        if initial_epoch > 0:
            # Runs of an earlier mockgo kept one checkpoint.keras and named none.
            _restore(model, run_dir / state.get("checkpoint", "checkpoint.keras"))
        _truncate_log(run_dir / LOG, initial_epoch)
        if initial_epoch >= epochs:
            return read_history(run_dir)

        def epoch_data(epoch):
            """The batches of epoch ``epoch``: an order of its own, from the seed
            and the epoch alone (docstring)."""
            data_seed = int(np.random.SeedSequence([seed, epoch]).generate_state(1)[0])
            return PackedBatches(dataset_dir, "train", batch_size, shuffle=True, augment=augment,
                                 seed=data_seed, repeat=True, include_pass=with_passes,
                                 target=target)

        validation = None
        playable = played_positions(dataset_dir, "validation", with_passes)
        if playable > 0:
            steps = math.ceil(playable / batch_size)
            steps = steps if validation_steps is None else min(steps, validation_steps)
            validation = PackedBatches(dataset_dir, "validation", batch_size, shuffle=False,
                                       augment=False, repeat=False, include_pass=with_passes,
                                       target=target, steps=steps)
        # What fit trains: the network behind a layer that unpacks the batches'
        # planes inside the compiled step (mockgo.nets.packed), sharing the
        # network's weights and optimiser; the network itself is what the
        # checkpoints hold.
        trainer = packed_input_model(model)
        compile_policy(trainer, model.optimizer, value_weight=value_weight,
                       jit_compile=jit_compile)

        all_callbacks = [
            _schedule_callback(lambda epoch: learning_rate_at(epoch, learning_rate, epochs,
                                                              schedule)),
            keras.callbacks.CSVLogger(str(run_dir / LOG), append=True),
            _checkpoint_callback(run_dir, record, spec["encoder"], model),
        ]
        if tensorboard:
            all_callbacks.append(keras.callbacks.TensorBoard(str(run_dir / "tensorboard")))
        all_callbacks += list(callbacks)
        if progress:  # last, as Keras puts its own: it prints what the others logged
            all_callbacks.append(_progress_callback(epochs))
        # One fit an epoch, each on its own batches (epoch_data), so that what an
        # epoch trains on does not depend on where the run last resumed.
        for epoch in range(initial_epoch, epochs):
            train = epoch_data(epoch)
            try:
                trainer.fit(train, epochs=epoch + 1, initial_epoch=epoch,
                            steps_per_epoch=steps_per_epoch, validation_data=validation,
                            callbacks=all_callbacks, verbose=_verbosity(progress),
                            shuffle=False)  # the pipeline shuffles
            finally:
                train.close()  # its thread holds a group of shards
            if trainer.stop_training:  # a callback asked to stop (early stopping, ...)
                break
        return read_history(run_dir)
