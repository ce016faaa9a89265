"""Crash consistency, tested the way databases test it (issue 36).

A long job (a dataset build, SL training, value data, value training,
REINFORCE, a Zero generation, a match) says
it resumes after a crash and ends with the same products as a run that was
never interrupted. This module checks that claim from the outside: it runs
the job once to the end in one folder, then runs it again in a second
folder, killing it with SIGKILL at random moments and starting the same
command again after each kill until it exits 0, and compares the two
folders with a comparer made for the job.

The kills are real: each run is a subprocess in a session of its own
(``start_new_session=True``), and the whole process group gets SIGKILL, so
a job's workers (a dataset build's pool) die with it, no ``finally`` or
``atexit`` runs, and nothing is flushed that was not already written.

When to kill: a job prints :data:`READY` on stdout once it has imported
what it needs and is about to start (a command without the marker is timed
from its start). The run to the end measures the work's length W, from the
marker to the exit. Each of the N killed runs is killed a time drawn
uniformly in [0, 2W/(N+1)) after its own marker (from a seeded generator):
W/(N+1) on average, so that the N runs together get through about
N/(N+1) of the work (less what each kill loses since its last checkpoint)
and the kills fall all along it, each run getting past a checkpoint or two
before it dies when the job has many. A run that finishes before its kill
ends the test with fewer kills, counted as such, never faked.

Used by ``tests/test_crash_consistency.py`` (one kill a job, small
sizes) and ``benchmarks/crash_consistency.py`` (more kills, a table).
"""

import dataclasses
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent

READY = "CRASH-HARNESS-READY"


@dataclasses.dataclass
class Job:
    """A job to crash: ``command(folder)`` is the argv that runs it (or
    resumes it) with its products in ``folder``; ``compare(reference,
    crashed)`` returns the differences between two such folders as a list
    of strings (empty: the same), and may add notes (a dict) with
    :func:`note`. ``timeout``: seconds one run may take before it counts
    as hung."""

    name: str
    command: callable
    compare: callable
    timeout: float = 300.0


@dataclasses.dataclass
class Outcome:
    """What :func:`crash_test` found for one job."""

    job: str
    kills: int           # SIGKILLs delivered (a run that ended first is not one)
    resumed: int         # runs started again after a kill, the last (exit 0) included
    identical: bool
    differences: list
    seconds: float       # the whole test: the run to the end, the killed runs and the comparison
    reference_seconds: float
    notes: dict

    def line(self):
        """One JSON line, as the benchmark prints it."""
        return json.dumps({"job": self.job, "kills": self.kills, "resumed": self.resumed,
                           "identical": "yes" if self.identical else "no",
                           "seconds": round(self.seconds, 1), **self.notes,
                           **({"differences": self.differences[:5]} if self.differences else {})})


class JobFailed(RuntimeError):
    """A run of a job exited with an error (not killed by the harness)."""


def python_snippet(code):
    """The argv that runs ``code`` with this interpreter; the snippet
    should print :data:`READY` (flushed) before its work."""
    return [sys.executable, "-c", code]


def _environment():
    env = dict(os.environ)
    # The clone's mockgo, whatever the current directory; quiet TensorFlow.
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    env.setdefault("CUDA_VISIBLE_DEVICES", "")  # CPU: the same arithmetic every run
    return env


def _start(argv, log):
    out = open(log, "wb")
    try:
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, cwd=REPO, env=_environment(),
                                start_new_session=True)
    finally:
        out.close()  # the child has its own copy


def _ready_seen(log):
    try:
        return READY.encode() in Path(log).read_bytes()
    except FileNotFoundError:
        return False


def _kill_group(process):
    """SIGKILL to the run's whole process group (its workers too), then
    reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def _tail(log, characters=3000):
    text = Path(log).read_text(errors="replace")
    return text[-characters:]


def run_once(argv, log, timeout, kill_after=None):
    """Run ``argv``; with ``kill_after`` (seconds after its :data:`READY`,
    or after its start when it prints none), SIGKILL its group then.
    Returns ``(killed, seconds to the marker or None, seconds in all)``.
    :class:`JobFailed` with the log's tail when it exits non-zero by
    itself, TimeoutError when it runs past ``timeout``."""
    start = time.monotonic()
    process = _start(argv, log)
    ready_at = None
    try:
        while True:
            now = time.monotonic()
            if ready_at is None and _ready_seen(log):
                ready_at = now
            code = process.poll()
            if code is not None:
                if code != 0:
                    raise JobFailed(f"{' '.join(map(str, argv))[:200]} exited {code}:\n{_tail(log)}")
                return False, (None if ready_at is None else ready_at - start), now - start
            if kill_after is not None:
                # Without a marker (yet), the clock runs from the start; a
                # job that prints one is never killed before it.
                origin = ready_at if ready_at is not None else start
                if (ready_at is not None or not _prints_marker(argv)) and now - origin >= kill_after:
                    _kill_group(process)
                    return True, (None if ready_at is None else ready_at - start), now - start
            if now - start > timeout:
                raise TimeoutError(f"{' '.join(map(str, argv))[:200]} ran past {timeout} s:\n"
                                   f"{_tail(log)}")
            time.sleep(0.005)
    finally:
        if process.poll() is None:
            _kill_group(process)


def _prints_marker(argv):
    return any(READY in str(part) for part in argv)


_notes = {}


def note(key, value):
    """From a comparer: a note for the job's outcome line (e.g. whether
    weights are bit-identical), not a difference."""
    _notes[key] = value


def crash_test(job, scratch, kills=2, seed=0):
    """Run ``job`` to the end in ``scratch/reference``, then in
    ``scratch/crashed`` with ``kills`` SIGKILLs (see the module docstring),
    and compare. Returns an :class:`Outcome`."""
    scratch = Path(scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    reference, crashed = scratch / "reference", scratch / "crashed"
    began = time.monotonic()
    _, ready, total = run_once(job.command(reference), scratch / "reference.log", job.timeout)
    work = total - (ready or 0.0)
    rng = random.Random(f"{job.name}-{seed}")
    # Each run's own kill moment, drawn afresh (module docstring). Uniform
    # over the whole work, as this harness first drew them, a run got half
    # of it done on average and the job ended after two or three of ten
    # kills; sorted points with the gaps between them as delays shrank below
    # a resumed run's start-up (a network's compilation) with many kills.
    gaps = [rng.uniform(0, 2 * work / (kills + 1)) for _ in range(kills)]
    done_kills = resumed = 0
    argv = job.command(crashed)
    for attempt, gap in enumerate(gaps + [None]):
        killed, _, _ = run_once(argv, scratch / f"crashed-{attempt}.log", job.timeout,
                                kill_after=gap)
        if attempt > 0:
            resumed += 1
        if killed:
            done_kills += 1
        else:
            break  # it finished (before its kill, or the last run)
    _notes.clear()
    differences = list(job.compare(reference, crashed))
    notes = {"reference_seconds": round(total, 1), **_notes}
    return Outcome(job.name, done_kills, resumed, not differences, differences,
                   time.monotonic() - began, total, notes)


# ------------------------------------------------------------------ comparers


def _is_temporary(path, folder):
    # mockgo.data.files' temporaries (".name.XXXXXXXX.tmp..."), and what lies
    # in a temporary folder (a Zero run's ".000001.tmp" chunks, renamed into
    # place when whole).
    from mockgo.data.files import is_temporary
    return is_temporary(path) or any(part.startswith(".") and part.endswith(".tmp")
                                     for part in path.relative_to(folder).parts[:-1])


def files_of(folder, skip=(".lock",)):
    """The files under ``folder`` (relative paths, sorted), without the
    lock file and :mod:`mockgo.data.files`' temporaries."""
    folder = Path(folder)
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if p.is_file() and not _is_temporary(p, folder) and p.name not in skip)


def leftover_temporaries(folder):
    """Temporaries a SIGKILL left behind (``atomic_open``'s cleanup never
    ran) and the resumed job did not remove, as relative paths."""
    folder = Path(folder)
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if p.is_file() and _is_temporary(p, folder))


def same_file_list(reference, crashed, skip=(".lock",)):
    a, b = files_of(reference, skip), files_of(crashed, skip)
    differences = []
    if a != b:
        differences.append(f"files only in the reference: {sorted(set(a) - set(b))}, "
                           f"only after kills: {sorted(set(b) - set(a))}")
    # A resumed job deletes what its killed runs left half-written.
    leftovers = leftover_temporaries(crashed)
    if leftovers:
        differences.append(f"temporaries left after kills: {leftovers[:5]}"
                           + (f" ... ({len(leftovers)} in all)" if len(leftovers) > 5 else ""))
    return differences, sorted(set(a) & set(b))


def compare_bytes(reference, crashed, names):
    return [f"{name} differs" for name in names
            if (Path(reference) / name).read_bytes() != (Path(crashed) / name).read_bytes()]


def compare_json(reference, crashed, name, ignore=()):
    a = json.loads((Path(reference) / name).read_text())
    b = json.loads((Path(crashed) / name).read_text())
    for key in ignore:
        a.pop(key, None)
        b.pop(key, None)
    if a == b:
        return []
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k)) if isinstance(a, dict) else []
    return [f"{name} differs" + (f" in {keys}" if keys else "")]


def compare_npz(reference, crashed, name, arrays=None):
    from mockgo.data.files import read_npz
    a, b = read_npz(Path(reference) / name, arrays), read_npz(Path(crashed) / name, arrays)
    return [f"{name}: array {key} differs" for key in sorted(set(a) | set(b))
            if key not in a or key not in b or not np.array_equal(a[key], b[key])]


# ----------------------------------------------------------------------- jobs
#
# Each job's inputs are made once, in ``inputs`` (a folder shared by the
# jobs), by the function that makes the job; the job's command writes only
# into the folder it is given.


def _snippet(body, **values):
    """A ``python -c`` argv: ``values`` bound as Python literals, then the
    marker, then ``body``."""
    lines = [f"{name} = {value!r}" for name, value in values.items()]
    return python_snippet("\n".join(lines + [body]))


def sgf_games(folder, games=24, size=9, moves=40):
    """Random legal games as SGF files (tests/test_dataset.py's
    ``random_game``), made once."""
    from mockgo.data import sgf_writer
    from test_dataset import random_game  # tests/ is on the path, as for this module

    folder = Path(folder)
    if folder.is_dir() and len(list(folder.glob("*.sgf"))) == games:
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(games):
        record = random_game(size, i, moves=moves)
        sgf_writer.save_sgf(record, folder / f"game-{i:02d}.sgf")
    return folder


DATASET_SPEC = dict(encoder="simple2", board_size=9, min_rank="5d", validation_share=0.2,
                    test_share=0.2)


def dataset_job(inputs, games=24, shard_size=60, checkpoint_games=3):
    """build_dataset on random games: small shards and checkpoints, so that
    a kill lands between shards, between checkpoints and in the middle of
    writing them. The same: every file byte for byte but ``dataset.json``,
    which must be equal as JSON."""
    sources = sgf_games(Path(inputs) / f"sgf-{games}", games)

    def command(folder):
        return _snippet(
            "from mockgo.data.dataset import DatasetSpec, build_dataset\n"
            f"print({READY!r}, flush=True)\n"
            "build_dataset([sources], folder, DatasetSpec(**spec), workers=2,\n"
            "              shard_size=shard_size, checkpoint_games=checkpoint_games,\n"
            "              progress=False)",
            sources=str(sources), folder=str(folder), spec=DATASET_SPEC, shard_size=shard_size,
            checkpoint_games=checkpoint_games)

    def compare(reference, crashed):
        differences, common = same_file_list(reference, crashed)
        differences += compare_bytes(reference, crashed,
                                     [n for n in common if n != "dataset.json"])
        differences += compare_json(reference, crashed, "dataset.json")
        note("shards", sum(n.endswith(".npz") for n in common))
        return differences

    return Job("dataset build", command, compare)


def tiny_dataset(inputs, games=6):
    """A small 9x9 dataset (simple2 planes), built once, for training."""
    folder = Path(inputs) / f"dataset-{games}"
    if not (folder / "dataset.json").exists():
        sources = sgf_games(Path(inputs) / f"sgf-{games}", games, moves=60)
        # In a subprocess: the build's pool spawns processes that import
        # the caller's __main__, which a script need not guard.
        subprocess.run(_snippet(
            "from mockgo.data.dataset import DatasetSpec, build_dataset\n"
            "build_dataset([sources], folder, DatasetSpec(encoder='simple2', board_size=9,\n"
            "              validation_share=0.2, test_share=0.0), workers=1, progress=False)",
            sources=str(sources), folder=str(folder)), check=True, env=_environment(),
            stdin=subprocess.DEVNULL, timeout=300)
    return folder


# log.csv's columns that are not the training's arithmetic.
TIMING_COLUMNS = ("seconds",)


def training_job(inputs, epochs=6, steps=3, rtol=1e-4):
    """train_policy: a tiny policy network (tests/test_training.py's
    sizes), ``epochs`` epochs of ``steps`` batches. The same: the state's
    epoch and checkpoint, and log.csv's rows, losses and accuracies
    within ``rtol`` (TensorFlow on CPU need not be bit-exact; whether the
    final weights are bit-identical is noted, not required)."""
    dataset = tiny_dataset(inputs)

    def command(folder):
        return _snippet(
            "import keras\n"
            "from mockgo.learn.supervised import train_policy\n"
            "from mockgo.nets.models import policy_network\n"
            "keras.utils.set_random_seed(0)\n"
            "model = policy_network(board_size=9, planes=2, layers=3, filters=16, first_kernel=3)\n"
            f"print({READY!r}, flush=True)\n"
            "train_policy(model, dataset, folder, epochs=epochs, batch_size=16,\n"
            "             learning_rate=0.01, steps_per_epoch=steps, optimizer='adam',\n"
            "             progress=False)",
            dataset=str(dataset), folder=str(folder), epochs=epochs, steps=steps)

    def compare(reference, crashed):
        differences, common = same_file_list(reference, crashed)
        a = json.loads((Path(reference) / "state.json").read_text())
        b = json.loads((Path(crashed) / "state.json").read_text())
        if (a["epoch"], a["checkpoint"], a["settings"]) != (b["epoch"], b["checkpoint"],
                                                             b["settings"]):
            differences.append(f"state.json: epoch {a['epoch']} vs {b['epoch']}, checkpoint "
                               f"{a['checkpoint']} vs {b['checkpoint']}")
        differences += _compare_log(Path(reference) / "log.csv", Path(crashed) / "log.csv", rtol)
        if a["checkpoint"] in common:
            same = _weights_identical(Path(reference) / a["checkpoint"],
                                      Path(crashed) / a["checkpoint"], rtol)
            note("weights_bit_identical", "yes" if same is True else "no")
            if same is not True:
                differences += same
        return differences

    return Job("SL training", command, compare)


def _compare_log(a_path, b_path, rtol):
    import csv
    with open(a_path) as a_file, open(b_path) as b_file:
        a, b = list(csv.DictReader(a_file)), list(csv.DictReader(b_file))
    if [row["epoch"] for row in a] != [row["epoch"] for row in b]:
        return [f"log.csv: epochs {[r['epoch'] for r in a]} vs {[r['epoch'] for r in b]}"]
    differences = []
    for row_a, row_b in zip(a, b):
        for key in row_a:
            if key in TIMING_COLUMNS or key == "epoch":
                continue
            x, y = float(row_a[key]), float(row_b.get(key, "nan"))
            if not np.isclose(x, y, rtol=rtol, atol=0):
                differences.append(f"log.csv epoch {row_a['epoch']} {key}: {x} vs {y}")
    return differences


def _weights_identical(a_path, b_path, rtol):
    """True when the two checkpoints' weights are bit-identical; else []
    when they agree within ``rtol``, or the differences."""
    from mockgo.nets.io import load_model
    a, b = load_model(a_path).get_weights(), load_model(b_path).get_weights()
    if all(np.array_equal(x, y) for x, y in zip(a, b)):
        return True
    worst = max(float(np.max(np.abs(x - y) / (np.abs(x) + 1e-12))) for x, y in zip(a, b))
    return [] if worst <= rtol else [f"final weights differ (largest relative difference {worst:.3g})"]


def value_job(inputs, games=24, batch=4, size=5):
    """value_dataset with a folder: a tiny untrained alphago48 policy on
    5x5 (tests/test_reinforce.py's sizes), ``games`` positions in batches
    of ``batch``. The same: the planes, outcomes and steps arrays, and
    every batch file's arrays."""
    def command(folder):
        return _snippet(
            "import keras, numpy as np\n"
            "from mockgo.learn.value import value_dataset\n"
            "from mockgo.nets.models import policy_network\n"
            "keras.utils.set_random_seed(0)\n"
            "policy = policy_network(size, 48, layers=2, filters=4)\n"
            f"print({READY!r}, flush=True)\n"
            "data = value_dataset(policy, games, size, max_step=10, batch=batch, rng=0,\n"
            "                     folder=folder + '/batches')\n"
            "np.savez(folder + '/result.npz', planes=data.planes, outcomes=data.outcomes,\n"
            "         steps=data.steps)",
            folder=str(folder), games=games, size=size, batch=batch)

    def compare(reference, crashed):
        differences, common = same_file_list(reference, crashed)
        if "result.npz" in common:
            differences += compare_npz(reference, crashed, "result.npz")
        for name in common:
            # The batches' own timings ("seconds") are not data.
            if name.startswith("batches/batch_"):
                differences += compare_npz(reference, crashed, name,
                                           ["planes", "outcomes", "steps", "played"])
        return differences

    return Job("value data", command, compare)


def match_job(inputs, games=12, size=9, concurrent=1):
    """A match between two seeded random players into a folder (a
    resumable job, mockgo.arena.matches; what ``mockgo match --out``
    runs), ``concurrent`` games at a time so that games finish one by one
    and a kill falls between finished games (all twelve in lockstep would
    finish together, at the end). The same: games.jsonl's games (number,
    result, names, dead stones) and every game's SGF byte for byte."""
    def command(folder):
        return _snippet(
            "from mockgo.play.match import match\n"
            f"print({READY!r}, flush=True)\n"
            "match('random:seed=1', 'random:seed=2', games=games, size=size, seed=3,\n"
            "      scorer='tromp-taylor', concurrent=concurrent, out_dir=folder)",
            folder=str(folder), games=games, size=size, concurrent=concurrent)

    def compare(reference, crashed):
        differences, common = same_file_list(reference, crashed)
        differences += compare_json(reference, crashed, "match.json")
        a, b = _match_games(reference), _match_games(crashed)
        if a != b:
            differences.append(f"games.jsonl: {len(a)} games vs {len(b)}, first differing: "
                               f"{next((x, y) for x, y in zip(a + [None] * len(b), b + [None] * len(a)) if x != y)}")
        differences += compare_bytes(reference, crashed, [n for n in common if n.endswith(".sgf")])
        return differences

    return Job("match", command, compare)


# games.jsonl's fields that are timings, not the game.
MATCH_TIMING_FIELDS = ("seconds", "think")


def _match_games(folder):
    games = []
    for line in (Path(folder) / "games.jsonl").read_text().splitlines():
        game = json.loads(line)
        games.append({k: v for k, v in game.items() if k not in MATCH_TIMING_FIELDS})
    return sorted(games, key=lambda g: g.get("index", g.get("game", 0)))


# Timing fields of the state files of value training, REINFORCE and Zero:
# how long the work took, not what it made.
TIMING_KEYS = ("seconds", "cpu_seconds", "wall_seconds", "cost", "games_per_hour",
               "job_games_per_hour", "evals_per_s", "network_seconds", "network_share", "think")


def compare_values(a, b, rtol, where="", timing=TIMING_KEYS):
    """The differences between two JSON values, leaving out the ``timing``
    keys of objects at any depth, with floats equal within ``rtol`` (a
    loss, a win rate) and everything else exactly."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = (set(a) | set(b)) - set(timing)
        differences = []
        for key in sorted(keys, key=str):
            if key not in a or key not in b:
                differences.append(f"{where}{key}: only in the "
                                   f"{'reference' if key in a else 'run with kills'}")
            else:
                differences += compare_values(a[key], b[key], rtol, f"{where}{key}.", timing)
        return differences
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{where.rstrip('.')}: {len(a)} items vs {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b))
                for d in compare_values(x, y, rtol, f"{where}{i}.", timing)]
    if isinstance(a, float) or isinstance(b, float):
        if (isinstance(a, (int, float)) and isinstance(b, (int, float))
                and np.isclose(a, b, rtol=rtol, atol=0)):
            return []
    elif a == b:
        return []
    return [f"{where.rstrip('.')}: {a!r} vs {b!r}"]


def compare_json_values(reference, crashed, name, rtol):
    a = json.loads((Path(reference) / name).read_text())
    b = json.loads((Path(crashed) / name).read_text())
    return [f"{name}: {d}" for d in compare_values(a, b, rtol)]


def compare_models(reference, crashed, names, rtol):
    """Networks (``.keras`` files: a zip whose own timestamps differ) by
    their weights: within ``rtol``, and noted when all are bit-identical."""
    from mockgo.nets.io import load_model
    differences, identical = [], True
    for name in names:
        a = load_model(Path(reference) / name).get_weights()
        b = load_model(Path(crashed) / name).get_weights()
        if len(a) != len(b) or any(x.shape != y.shape for x, y in zip(a, b)):
            differences.append(f"{name}: other weight shapes")
            continue
        if all(np.array_equal(x, y) for x, y in zip(a, b)):
            continue
        identical = False
        worst = max(float(np.max(np.abs(x - y) / (np.abs(x) + 1e-12))) for x, y in zip(a, b))
        if worst > rtol:
            differences.append(f"{name}: weights differ (largest relative difference {worst:.3g})")
    note("weights_bit_identical", "yes" if identical else "no")
    return differences


def value_training_job(inputs, positions=256, epochs=6, size=5, rtol=1e-4):
    """fit_value_network with a checkpoint folder: a tiny value network on
    ``positions`` random 5x5 alphago49 positions (tests/test_reinforce.py's
    sizes and labels), ``epochs`` epochs of batches of 16 with validation
    data and early stopping's best-epoch bookkeeping. The same: the
    checkpoint files, ``state.json`` (epoch, the best epoch, the history's
    losses within ``rtol``) and the final weights (within ``rtol``;
    whether bit-identical is noted)."""
    def command(folder):
        return _snippet(
            "import json, keras, numpy as np\n"
            "from mockgo.data.files import atomic_path, atomic_write_text\n"
            "from mockgo.learn.value import fit_value_network\n"
            "from mockgo.nets.models import value_network\n"
            "def data(n, seed):\n"
            "    planes = np.random.default_rng(seed).integers(0, 2, (n, size, size, 49))\n"
            "    planes = planes.astype(np.uint8)\n"
            "    return planes, np.where(planes[:, 2, 2, 0] == 1, 1.0, -1.0).astype(np.float32)\n"
            "planes, outcomes = data(positions, 0)\n"
            "keras.utils.set_random_seed(0)\n"
            "model = value_network(size, 49, layers=2, filters=4, hidden=8)\n"
            f"print({READY!r}, flush=True)\n"
            "history = fit_value_network(model, planes, outcomes, validation=data(32, 1),\n"
            "                            epochs=epochs, batch_size=16, patience=epochs,\n"
            "                            checkpoint_dir=folder + '/fit')\n"
            "with atomic_path(folder + '/final.npz', suffix='.tmp.npz') as path:\n"
            "    np.savez(path, *model.get_weights())\n"
            "atomic_write_text(folder + '/history.json', json.dumps(history))",
            folder=str(folder), positions=positions, epochs=epochs, size=size)

    def compare(reference, crashed):
        differences, common = same_file_list(reference, crashed)
        for name in ("fit/state.json", "history.json"):
            if name in common:
                differences += compare_json_values(reference, crashed, name, rtol)
        if "final.npz" in common:
            a, b = (np.load(Path(folder) / "final.npz") for folder in (reference, crashed))
            same = all(np.array_equal(a[k], b[k]) for k in a.files)
            note("weights_bit_identical", "yes" if same else "no")
            for key in a.files:
                if not np.allclose(a[key], b[key], rtol=rtol, atol=1e-7):
                    differences.append(f"final weights: array {key} differs beyond rtol {rtol}")
        return differences

    return Job("value training", command, compare)


REINFORCE_CONFIG = dict(size=5, games=4, learning_rate=0.05, pool_every=2, eval_games=2,
                        eval_every=2, max_moves=30, seed=3)


def reinforce_job(inputs, iterations=6, rtol=1e-4):
    """A REINFORCE run (mockgo.learn.reinforce.Reinforce) in its folder:
    a tiny 5x5 SL policy, tests/test_reinforce.py's config, ``iterations``
    iterations, every game recorded as SGF. The same: every recorded game
    byte for byte, ``state.json`` (iteration, pool, the generator's state,
    the history: opponents, win rates, positions exactly, the objective and
    gradient figures within ``rtol``), and the learner's and the pool's
    weights (within ``rtol``; whether bit-identical is noted)."""
    def command(folder):
        return _snippet(
            "import keras\n"
            "from mockgo.learn.reinforce import Reinforce\n"
            "from mockgo.learn.reinforce_config import ReinforceConfig\n"
            "from mockgo.nets.models import policy_network\n"
            "keras.utils.set_random_seed(0)\n"
            "sl = policy_network(5, 48, layers=2, filters=4)\n"
            f"print({READY!r}, flush=True)\n"
            "run = Reinforce(folder, sl, ReinforceConfig(**config), record_every=1)\n"
            "run.run(until=iterations, progress=False)",
            folder=str(folder), config=REINFORCE_CONFIG, iterations=iterations)

    def compare(reference, crashed):
        differences, common = same_file_list(reference, crashed)
        differences += compare_json_values(reference, crashed, "state.json", rtol)
        differences += compare_bytes(reference, crashed, [n for n in common if n.endswith(".sgf")])
        differences += compare_models(reference, crashed,
                                      [n for n in common if n.endswith(".keras")], rtol)
        note("games", sum(n.endswith(".sgf") for n in common))
        return differences

    return Job("REINFORCE", command, compare)


def zero_job(inputs, games=8, in_parallel=2, rtol=1e-4):
    """One generation of a Zero run, through its command line (``mockgo
    zero --test``: a 1-block network on 9x9, few readouts): ``games``
    self-play games ``in_parallel`` at a time (small batches, so that a kill
    falls between finished ones), gathering, two epochs of training,
    validation and the evaluation match. The same: every SGF (self-play and
    evaluation) byte for byte, every example file's and the training
    window's arrays, the self-play job's progress file and ``state.json``
    but for their timings (losses within ``rtol``), the evaluation's games,
    and both models' weights (within ``rtol``; whether bit-identical is
    noted)."""
    def command(folder):
        return _snippet(
            "import keras\n"  # the slow import before the marker: the run's work after it
            "from mockgo.zero.cli import main\n"
            f"print({READY!r}, flush=True)\n"
            "raise SystemExit(main(['--base-dir', folder, '--test', '--generations', '1',\n"
            "                       '--games', str(games), '--quiet',\n"
            "                       '--set', f'games_in_parallel={in_parallel}']))",
            folder=str(folder), games=games, in_parallel=in_parallel)

    def compare(reference, crashed):
        differences, common = same_file_list(reference, crashed)
        for name in common:
            if name.endswith(".npz"):
                differences += compare_npz(reference, crashed, name)
            elif name.endswith(".json") and not name.endswith("match.json"):
                differences += compare_json_values(reference, crashed, name, rtol)
        differences += compare_bytes(reference, crashed,
                                     [n for n in common if n.endswith((".sgf", "match.json"))])
        for name in common:
            if name.endswith("games.jsonl"):
                a, b = (_match_games(Path(folder) / Path(name).parent)
                        for folder in (reference, crashed))
                if a != b:
                    differences.append(f"{name} differs")
        differences += compare_models(reference, crashed,
                                      [n for n in common if n.endswith(".keras")], rtol)
        note("games", sum(n.endswith(".sgf") and "/clean/" in n for n in common))
        return differences

    return Job("Zero generation", command, compare)
