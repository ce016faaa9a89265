"""Supervised training of a policy network on dataset shards, with ``model.fit``.

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
``checkpoint.keras``
    The model *and its optimiser state* after the last finished epoch,
    written to a temporary file beside it and renamed over it
    (``os.replace``), so it is always a whole file.
``state.json``
    The number of epochs finished (``"epoch"``) and the settings of the run,
    written atomically *after* the checkpoint. A crash between the two costs
    one epoch done again, never a checkpoint and a state that disagree the
    other way.
``log.csv``
    One row per epoch (Keras' ``CSVLogger``, appending): loss, top-1 and
    top-5 accuracy, their validation twins, the learning rate, and the
    epoch's wall-clock ``seconds`` (validation included). On resume the
    rows of epochs after the checkpoint (an epoch that was logged but not
    checkpointed) are cut off first, so every epoch appears once.
``tensorboard/``
    With ``tensorboard=True``: ``tensorboard --logdir runs/...``.

Calling :func:`train_policy` again with the same run folder after an
interruption (Ctrl-C, a crash, a closed notebook) restores the model's
weights and optimiser state from the checkpoint and continues at the next
epoch (``initial_epoch``); calling it with more ``epochs`` trains further.

Optimiser and learning rate
---------------------------
``optimizer="adam"`` (the default, and both notebook modes'): Adam, forgiving
about the learning rate (1e-3 is the usual start). ``optimizer="sgd"``:
stochastic gradient descent with momentum 0.9, as AlphaGo trained (plain
asynchronous SGD there, step size 0.003 halved every 80 million steps, on 50
GPUs); it needs its learning rate tuned: at 0.05 the 6 x 64 network diverged
on KGS positions (measured, see :data:`FULL`). Both minimise sparse
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
On a CPU with bfloat16 instructions (``avx512_bf16`` or ``amx_bf16``) Keras'
``mixed_bfloat16`` policy computes the convolutions in bfloat16 while
keeping the weights in float32: measured twice the positions per second for
the 6 x 64 network on this project's 2-core machine. :func:`build_policy`
builds a network under the precision a :class:`Settings` asks for (``"auto"``:
mixed bfloat16 where the CPU has those instructions, else float32) and
:func:`save_policy` always saves a float32 copy, so whoever loads
``policy.keras`` gets an ordinary float32 model.

The notebook's two settings
---------------------------
:data:`QUICK` (``MOCKGO_QUICK=1``, a few hundred games and a tiny network,
a couple of minutes with everything else the notebook does) and :data:`FULL`
(all 28,559 games of the ten KGS archives, the default 6 x 64 network); see
their comments. :func:`policy_path` says where the notebook saves each
mode's model, for notebooks 02 and 03 to load.
"""

import csv
import dataclasses
import io
import json
import math
import time
from pathlib import Path

import numpy as np

from mockgo.data.dataset import read_manifest, tf_dataset
from mockgo.go.features import get_encoder
from mockgo.data.files import atomic_path, atomic_write_text

__all__ = [
    "FULL", "QUICK", "Settings", "as_float32", "build_policy", "compile_policy", "cpu_has_bf16",
    "kgs_archives", "learning_rate_at", "load_model", "load_policy", "played_positions", "policy_path",
    "read_history", "read_state", "resolve_precision", "run_folder", "run_summary",
    "save_model_atomically", "save_policy", "settings", "train_policy",
]

CHECKPOINT = "checkpoint.keras"
STATE = "state.json"
LOG = "log.csv"
SCHEDULES = ("constant", "step", "cosine")
OPTIMIZERS = ("sgd", "adam")


# ------------------------------------------------------------ the settings


@dataclasses.dataclass(frozen=True)
class Settings:
    """One notebook mode: which data, which network, how long to train."""

    mode: str
    archives: int | None  # KGS archives to fetch, oldest first (None: all)
    max_games: int | None  # games read into the dataset (None: all)
    layers: int
    filters: int
    batch_size: int
    epochs: int
    steps_per_epoch: int | None  # None: the whole train split each epoch
    validation_steps: int | None  # None: the whole validation split
    optimizer: str
    learning_rate: float
    schedule: str
    precision: str = "auto"  # "auto", "float32" or "mixed_bfloat16"
    workers: int = 2  # processes building the dataset
    test_games: int | None = None  # held-out games scored (None: the whole test split)
    match_games: int = 4  # games against the random player

    @property
    def download_args(self):
        """The arguments of ``data/download.sh`` that fetch this mode's archives."""
        return "" if self.archives is None else f"--archives {self.archives}"


# Quick: one archive (2,298 games from 2001), 300 of its games (~20 test games),
# a 3-layer, 16-filter network trained for 3 short epochs of 120 batches of 64
# with Adam: far from a good player (measured 24% top-1 on its test games), but
# every cell runs, the whole notebook in about a minute on 2 cores.
QUICK = Settings(mode="quick", archives=1, max_games=300, layers=3, filters=16,
                 batch_size=64, epochs=3, steps_per_epoch=120, validation_steps=20,
                 optimizer="adam", learning_rate=0.003, schedule="cosine")

# Full: all ten archives of the mirror (28,559 games, about 5.5 million
# positions, 11 GB of shards), the default 6 x 64 network, Adam at 1e-3 with
# a cosine decay, 10 "epochs" of 2,000 batches of 128 (256,000 positions,
# about 10 minutes each: a checkpoint and a log row each), 2.56 million
# positions in all. The reasoning, from measurements on this project's 2-core
# CPU (avx512_bf16; other jobs were running, load average 3 to 8):
# - speed: fit of the 6 x 64 network, batch 128, ran at 206 positions/s in
#   float32 and 426 in mixed bfloat16 (load ~3), so 3 hours are about 4.6
#   million positions; 10 epochs take about 1.7 hours at 430 positions/s,
#   which leaves room, inside one 3-hour sitting, for the dataset build (or
#   its check), scoring the whole test split and the games against random;
# - accuracy: with Adam at a constant 1e-3 on one archive (388,907 training
#   positions), validation top-1 after each 25,600 positions was 24.9, 30.1,
#   33.3, 33.9, 35.5, 36.1, 37.0, 37.8% (5,120 validation positions): about
#   +4 points per doubling of the positions seen, so 40% comes within the
#   first half million positions, a wide margin inside the budget (the
#   paper's 13 x 192 network reached 57%, a larger net would need more time);
# - SGD with momentum 0.9 at 0.05 diverged on the same data (loss 11.8 in
#   the first epoch, then stuck at ln 361): Adam is the safer default here;
# - the dataset build ran at 34 games/s on 2 workers (one archive), about
#   14 minutes for all 28,559 games (95 games/s, 5 minutes, when quiet).
# Measured, the whole full-mode run (2026-11-23, quiet machine): 10 epochs in
# 1.02 hours (about 700 positions/s), validation top-1 38.3% after the first
# epoch, 40.1% after the second, 44.3% after the tenth; on the 1,428 test
# games (279,843 positions) top-1 44.4%, top-5 75.6%; 20 of 20 games won
# against the random player.
FULL = Settings(mode="full", archives=None, max_games=None, layers=6, filters=64,
                batch_size=128, epochs=10, steps_per_epoch=2000, validation_steps=100,
                optimizer="adam", learning_rate=0.001, schedule="cosine",
                test_games=None, match_games=20)


def kgs_archives(repo_root, settings):
    """The KGS archives a mode trains on: the oldest ``settings.archives``
    in ``data/kgs`` (all of them for None), as paths. Raises FileNotFoundError
    when fewer are there (``bash data/download.sh`` fetches them)."""
    from mockgo.data.download import archives_in

    folder = Path(repo_root) / "data" / "kgs"
    present = sorted(archives_in(folder), key=lambda a: a.sort_key)
    wanted = len(present) if settings.archives is None else settings.archives
    if not present or len(present) < wanted:
        raise FileNotFoundError(f"{folder} holds {len(present)} KGS archives, {settings.mode} mode "
                                f"needs {wanted or 'some'}: run bash data/download.sh "
                                f"{settings.download_args}".strip())
    return [folder / archive.name for archive in present[:wanted]]


def settings(quick):
    """:data:`QUICK` or :data:`FULL`."""
    return QUICK if quick else FULL


def run_folder(repo_root, quick):
    """Where notebook 01 keeps a mode's dataset, run and model:
    ``runs/01_supervised/quick`` or ``runs/01_supervised/full``."""
    return Path(repo_root) / "runs" / "01_supervised" / ("quick" if quick else "full")


def policy_path(repo_root, quick):
    """The trained SL policy network notebook 01 saves and notebooks 02 and
    03 load: ``runs/01_supervised/{quick,full}/policy.keras``."""
    return run_folder(repo_root, quick) / "policy.keras"


# ---------------------------------------------------------- building, saving


def cpu_has_bf16(cpuinfo="/proc/cpuinfo"):
    """Whether the CPU has bfloat16 instructions (``avx512_bf16`` or
    ``amx_bf16`` among its flags); False where that cannot be read."""
    try:
        text = Path(cpuinfo).read_text()
    except OSError:
        return False
    flags = set()
    for line in text.splitlines():
        if line.startswith("flags"):
            flags.update(line.split(":", 1)[1].split())
    return bool(flags & {"avx512_bf16", "amx_bf16"})


def resolve_precision(precision):
    """``"auto"`` to ``"mixed_bfloat16"`` or ``"float32"`` (see the module docstring)."""
    if precision == "auto":
        return "mixed_bfloat16" if cpu_has_bf16() else "float32"
    if precision not in ("float32", "mixed_bfloat16"):
        raise ValueError(f"precision must be auto, float32 or mixed_bfloat16, got {precision!r}")
    return precision


def build_policy(settings, board_size=19, planes=48, seed=0):
    """A new, uncompiled :func:`mockgo.nets.models.policy_network` with the
    settings' layers and filters, built under their precision, with its
    weights drawn from ``seed`` (``keras.utils.set_random_seed``, which also
    seeds Python's and NumPy's global generators)."""
    import keras

    from mockgo.nets.models import policy_network

    precision = resolve_precision(settings.precision)
    keras.utils.set_random_seed(seed)
    previous = keras.config.dtype_policy()
    keras.config.set_dtype_policy(precision)
    try:
        model = policy_network(board_size=board_size, planes=planes, layers=settings.layers,
                               filters=settings.filters)
    finally:
        keras.config.set_dtype_policy(previous)
    return model


def _float32_config(config):
    """A model config with every mixed-precision dtype policy made float32."""
    if isinstance(config, dict):
        if config.get("class_name") == "DTypePolicy":
            name = config.get("config", {}).get("name", "")
            if name.startswith("mixed_"):
                return {**config, "config": {**config["config"], "name": "float32"}}
        return {key: _float32_config(value) for key, value in config.items()}
    if isinstance(config, list):
        return [_float32_config(value) for value in config]
    if isinstance(config, str) and config.startswith("mixed_"):
        return "float32"
    return config


def as_float32(model):
    """``model`` itself if it computes in float32, else a float32 copy with
    the same weights (mixed-precision models keep float32 weights)."""
    import keras

    import mockgo.nets.models  # noqa: F401  (PointBias)

    if all(layer.dtype_policy.name in ("float32", "uint8") or layer.dtype_policy.name.startswith("int")
           for layer in model.layers):
        return model
    copy = model.__class__.from_config(_float32_config(model.get_config()))
    copy.set_weights(model.get_weights())
    return copy


def save_model_atomically(model, path):
    """``model.save(path)`` through a temporary ``.keras`` file beside it,
    renamed over ``path``: a crash leaves the old file or the new one, and
    no temporary file behind."""
    with atomic_path(path, suffix=".tmp.keras") as temporary:
        model.save(temporary)
    return Path(path)


def save_policy(model, path):
    """Save a policy network for playing (float32, without optimiser state),
    atomically. Returns the path."""
    import keras

    model = as_float32(model)
    # A new Model on the same layers: no optimiser state. model.input, not
    # model.inputs: a one-element list would make the saved model expect a
    # list and warn when called on an array.
    plain = keras.Model(model.input, model.output, name=model.name)
    return save_model_atomically(plain, path)


def load_model(path, compile=False):
    """Any network of :mod:`mockgo.nets.models` saved as ``.keras`` (policy, value
    or dual), its custom layers registered first; uncompiled unless
    ``compile``."""
    import keras

    import mockgo.nets.models  # noqa: F401  (registers PointBias)

    return keras.models.load_model(path, compile=compile)


def load_policy(path):
    """A policy network saved by :func:`save_policy` (uncompiled)."""
    return load_model(path)


# -------------------------------------------------------------- compiling


def compile_policy(model, optimizer="adam", learning_rate=1e-3, momentum=0.9):
    """Compile for move prediction: sparse categorical cross-entropy, and
    top-1 (``top1``) and top-5 (``top5``) accuracy. ``optimizer`` is
    ``"sgd"`` (with ``momentum``) or ``"adam"``; see the module docstring."""
    import keras

    if optimizer == "sgd":
        opt = keras.optimizers.SGD(learning_rate=learning_rate, momentum=momentum)
    elif optimizer == "adam":
        opt = keras.optimizers.Adam(learning_rate=learning_rate)
    else:
        raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {optimizer!r}")
    model.compile(
        optimizer=opt,
        loss="sparse_categorical_crossentropy",
        metrics=[keras.metrics.SparseCategoricalAccuracy(name="top1"),
                 keras.metrics.SparseTopKCategoricalAccuracy(k=5, name="top5")],
    )
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
    """The run's ``state.json`` as a dict, or None before the first epoch."""
    path = Path(run_dir) / STATE
    return json.loads(path.read_text()) if path.exists() else None


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


def _truncate_log(path, epochs_done):
    """Drop the rows of epochs >= ``epochs_done`` (logged, not checkpointed)."""
    if not path.exists():
        return
    with open(path, newline="") as file:
        rows = list(csv.reader(file))
    if not rows:
        return
    header, body = rows[0], rows[1:]
    keep = [row for row in body if row and int(row[0]) < epochs_done]
    if len(keep) == len(body):
        return
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows([header] + keep)
    atomic_write_text(path, buffer.getvalue())


def _restore(model, checkpoint):
    """Copy weights and optimiser state from a checkpoint into ``model``
    (already compiled with the same kind of optimiser)."""
    import keras

    import mockgo.nets.models  # noqa: F401

    saved = keras.models.load_model(checkpoint)
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
    import keras

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


def _checkpoint_callback(run_dir, settings_record):
    import keras

    class EpochCheckpoint(keras.callbacks.Callback):
        """After each epoch: the model with its optimiser to ``checkpoint.keras``
        (atomically), then ``state.json`` with the epochs finished."""

        def on_epoch_end(self, epoch, logs=None):
            save_model_atomically(self.model, Path(run_dir) / CHECKPOINT)
            state = {"epoch": epoch + 1, "settings": settings_record,
                     "last_logs": {k: float(v) for k, v in (logs or {}).items()}}
            atomic_write_text(Path(run_dir) / STATE, json.dumps(state, indent=1))

    return EpochCheckpoint()


# -------------------------------------------------------------- training


def played_positions(dataset_dir, split):
    """Positions of a split where the expert played a point (not a pass):
    what the pipeline yields for a policy network. Reads only the moves."""
    manifest = read_manifest(dataset_dir)
    size = manifest["spec"]["board_size"]
    total = 0
    for name, _ in manifest["shards"][split]:
        with np.load(Path(dataset_dir) / name) as shard:
            total += int((shard["moves"] != size * size).sum())
    return total


def train_policy(model, dataset_dir, run_dir, epochs, batch_size, learning_rate,
                 steps_per_epoch=None, validation_steps=None, schedule="cosine",
                 optimizer="adam", momentum=0.9, seed=0, augment=True, tensorboard=False,
                 progress=True, callbacks=()):
    """Train ``model`` (a policy network from :mod:`mockgo.nets.models`) on the
    train split of the dataset in ``dataset_dir`` until ``epochs`` epochs are
    done, keeping its checkpoint, state and log in ``run_dir`` (module
    docstring); resume if ``run_dir`` holds an earlier run. ``model`` is
    trained in place, and compiled here.

    Each epoch is ``steps_per_epoch`` batches of ``batch_size`` positions
    from :func:`mockgo.data.dataset.tf_dataset` (shuffled, repeating, and with a
    random symmetry of the board per position if ``augment``; positions where
    the expert passed are left out); ``None`` means one pass over the train
    split. Validation after each epoch: the first ``validation_steps``
    batches of the validation split, the same ones every epoch (``None``: all
    of it; skipped when the split is empty). ``seed`` fixes the data order
    (a resumed run continues with an order of its own, drawn from ``seed``
    and the epoch it resumes at).

    ``progress``: Keras' progress bar, which redraws live in Jupyter too.
    ``callbacks`` are Keras callbacks run after the checkpoint of each epoch
    is written.

    Returns the history of the whole run, all sessions together, as
    ``{metric: [one value per epoch]}`` (read back from ``log.csv``).
    """
    import keras
    import tensorflow as tf

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

    compile_policy(model, optimizer, learning_rate, momentum)
    state = read_state(run_dir)
    initial_epoch = 0
    if state is not None and (run_dir / CHECKPOINT).exists():
        _restore(model, run_dir / CHECKPOINT)
        initial_epoch = int(state["epoch"])
    _truncate_log(run_dir / LOG, initial_epoch)
    if initial_epoch >= epochs:
        return read_history(run_dir)

    if steps_per_epoch is None:
        steps_per_epoch = max(1, played_positions(dataset_dir, "train") // batch_size)
    data_seed = int(np.random.SeedSequence([seed, initial_epoch]).generate_state(1)[0])
    train = tf_dataset(dataset_dir, "train", batch_size, shuffle=True, augment=augment,
                       seed=data_seed, repeat=True)
    validation = None
    playable = played_positions(dataset_dir, "validation")
    if playable > 0:
        # Known length, so Keras neither warns that the data ran out nor
        # counts the batches anew each epoch.
        steps = math.ceil(playable / batch_size)
        steps = steps if validation_steps is None else min(steps, validation_steps)
        validation = tf_dataset(dataset_dir, "validation", batch_size, shuffle=False,
                                augment=False, repeat=False).take(steps)
        validation = validation.apply(tf.data.experimental.assert_cardinality(steps))

    record = {"dataset": str(dataset_dir), "epochs": epochs, "batch_size": batch_size,
              "learning_rate": learning_rate, "steps_per_epoch": steps_per_epoch,
              "validation_steps": validation_steps, "schedule": schedule,
              "optimizer": optimizer, "momentum": momentum, "seed": seed, "augment": augment}
    all_callbacks = [
        _schedule_callback(lambda epoch: learning_rate_at(epoch, learning_rate, epochs, schedule)),
        keras.callbacks.CSVLogger(str(run_dir / LOG), append=True),
        _checkpoint_callback(run_dir, record),
    ]
    if tensorboard:
        all_callbacks.append(keras.callbacks.TensorBoard(str(run_dir / "tensorboard")))
    all_callbacks += list(callbacks)
    model.fit(train, epochs=epochs, initial_epoch=initial_epoch,
              steps_per_epoch=steps_per_epoch, validation_data=validation,
              callbacks=all_callbacks, verbose=1 if progress else 0,
              shuffle=False)  # the pipeline shuffles
    return read_history(run_dir)
