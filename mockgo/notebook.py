"""What the tutorial notebooks share: quick or full mode, each notebook's
presets, its run folder, and the networks one notebook leaves for the next.

Every notebook starts the same way::

    from mockgo import notebook
    NB = notebook.start("02_value_net")   # MOCKGO_QUICK picks the mode
    P = NB.preset                         # this notebook's settings in that mode
    NB.folder                             # runs/02_value_net/quick or .../full
    print(NB.describe())                  # the mode, preset and device that ran

Quick mode (``MOCKGO_QUICK=1``: ``make notebooks``, the tests) shrinks every
notebook to minutes and starts from an empty folder every time; full mode is
the real experiment, hours on a laptop, and resumes from its folder when run
again. The presets (:mod:`mockgo.presets`) are the one place where both
modes are declared, with the measurements behind the full ones.

Notebooks hand networks on: 01's SL policy is read by 02 and 03, 02's value
network by 03 (:func:`load_sl_policy`, :func:`load_value_network`). Missing
ones are replaced by small stand-ins in quick mode, and by the networks that
ship with mockgo (``sl-19``, ``value-19``) in full mode; with neither, full
mode stops (hours of work must not start from an untrained network).
"""

import dataclasses
import datetime
import numbers
import os
import platform
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

from mockgo import pretrained
from mockgo.cluster import share_one_gpu
from mockgo.data.download import archives_in
from mockgo.go.features import ALPHAGO48, ALPHAGO49
from mockgo.learn.supervised import build_policy
from mockgo.learn.trainers import train_value_on_positions
from mockgo.learn.value import value_dataset
from mockgo.nets.device import auto_precision, compute_device
from mockgo.nets.io import NetworkInfo, as_float32, load_model
from mockgo.notebook_folder import MARK
from mockgo.presets import preset, preset_name

__all__ = ["check", "gnugo9_archive", "kgs_archive", "kgs_archives", "load_sl_policy",
           "load_value_network", "LoadedModel", "Notebook", "quick_mode", "reinforce_dir",
           "repo_root", "rl_policy_path", "sl_policy_path", "standin_policy",
           "standin_value_network", "start", "table", "value_path", "zero_dir"]

_TRUE = {"1", "true", "yes"}
_FALSE = {"0", "false", "no", ""}


def quick_mode(default=False):
    """Whether MOCKGO_QUICK asks for a fast, shrunken run (as in `make notebooks` and tests).

    Unset means `default`; an unrecognised value is an error rather than a guess,
    so a typo does not silently start an hour-long training run.
    """
    value = os.environ.get("MOCKGO_QUICK")
    if value is None:
        return default
    value = value.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f"MOCKGO_QUICK={value!r}: use 1/true/yes or 0/false/no")


def repo_root(start=None):
    """The nearest folder at or above `start` (default: the cwd, notebooks/ in a notebook) holding
    pyproject.toml (a clone) or :data:`~mockgo.notebook_folder.MARK` (`mockgo notebooks`)."""
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "pyproject.toml").is_file() or (folder / MARK).is_file():
            return folder
    raise FileNotFoundError(f"no pyproject.toml or {MARK} in {here} or any folder above it")


def check(condition, message):
    """A notebook's check of its own result: ``message`` says what must hold,
    with the measured values. Printed when ``condition`` holds; else an
    AssertionError naming it, so that a broken notebook fails its test."""
    if not condition:
        raise AssertionError(f"notebook check failed: {message}")
    print(f"check passed: {message}")


def table(header, rows, digits=3):
    """A small text table for a notebook to print what it measured, so that
    the prose beside it need not repeat the figures. ``header``: the column
    names; ``rows``: lists as long as it, a label first. A number is written
    with ``digits`` decimals, an integer with thousands separators, None as a
    blank, anything else with ``str``; the first column is aligned left, the
    others right::

        >>> print(table(["", "top-1", "MSE"], [["dual", "38.3%", 1.4263], ["zero", None, 1]]))
              top-1    MSE
        dual  38.3%  1.426
        zero             1
    """
    if any(len(row) != len(header) for row in rows):
        raise ValueError(f"every row needs {len(header)} cells, one per column of {header}")

    def cell(value):
        if value is None:
            return ""
        if isinstance(value, numbers.Integral):  # NumPy's integers too
            return f"{value:,}"
        if isinstance(value, numbers.Real):
            return f"{value:.{digits}f}"
        return str(value)

    lines = [[str(name) for name in header]] + [[cell(value) for value in row] for row in rows]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join([line[0].ljust(widths[0])] +
                               [text.rjust(width) for text, width in zip(line[1:], widths[1:])])
                     .rstrip() for line in lines)


def _mode(quick):
    return "quick" if quick else "full"


# Where each notebook keeps its work, under runs/ (04's folder predates its name).
_FOLDERS = {"04_zero_selfplay": "04_zero"}


# ========================================================== run folders


@dataclasses.dataclass(frozen=True)
class Notebook:
    """One notebook in one mode on one device: its preset and where it keeps
    its work."""

    name: str
    quick: bool
    root: Path
    preset: object
    device: str = "CPU"

    @property
    def preset_name(self):
        """``"quick"``, ``"full"`` or ``"gpu"`` (:func:`~mockgo.presets.preset_name`)."""
        return preset_name(self.name, self.quick, self.device)

    @property
    def mode(self):
        return _mode(self.quick)

    @property
    def folder(self):
        """``runs/<notebook>/<mode>`` under the repository root."""
        return run_folder(self.root, self.name, self.quick)

    def describe(self):
        """One line for the notebook's first output: its mode, the preset and
        device that ran, its run folder, and when and on what it ran
        (``machine_summary``), so an executed notebook says where its
        numbers come from."""
        return (f"{self.name}, {self.mode} mode, the {self.preset_name} preset on "
                f"{self.device}, run folder {self.folder.relative_to(self.root)}"
                f"\nran {machine_summary(self.root)}")


def machine_summary(root=None):
    """When and on what this runs: the date (UTC), the CPU and its cores,
    memory, the device and precision the networks compute with, the versions
    of Python, TensorFlow (if imported) and Keras with its backend, and the
    mockgo commit (``git`` in ``root``)."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as file:
            names = [line.split(":", 1)[1].strip() for line in file if line.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    memory = ""
    try:
        pages, page_size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
        memory = f", {pages * page_size / 2**30:.0f} GiB"
    except (ValueError, OSError, AttributeError):
        pass
    import keras  # the backend: the notebook computes with it next

    versions = [f"Python {platform.python_version()}"]
    if "tensorflow" in sys.modules:
        versions.append(f"TensorFlow {sys.modules['tensorflow'].__version__}")
    versions.append(f"Keras {keras.__version__} on {keras.backend.backend()}")
    # The device and precision the networks compute with (mockgo.nets.device).
    gpus = f"networks on {compute_device()} in {auto_precision()} (precision=auto)"
    commit = "unknown"
    try:
        commit = subprocess.run(["git", "-C", str(root or repo_root()), "rev-parse", "--short",
                                 "HEAD"], capture_output=True, text=True, timeout=10,
                                check=True).stdout.strip() or commit
    except (OSError, subprocess.SubprocessError):
        pass
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (f"{stamp} on {platform.system()} {platform.machine()}, {cpu} "
            f"({os.cpu_count()} cores{memory}), {gpus}; {', '.join(versions)}; mockgo {commit}")


def run_folder(root, notebook, quick):
    """Where ``notebook`` keeps its work in a mode: ``runs/<notebook>/{quick,full}``."""
    return Path(root) / "runs" / _FOLDERS.get(notebook, notebook) / _mode(quick)


def start(notebook, quick=None, root=None, device=None):
    """Set a notebook up: its mode (``quick``, default from MOCKGO_QUICK),
    the repository root (default: found from the working folder), the
    device the networks compute on (default:
    :func:`~mockgo.nets.device.compute_device`), its preset for that mode
    and device (:func:`~mockgo.presets.preset`), and its run folder, emptied first in quick
    mode (quick runs start from nothing every time) and created."""
    share_one_gpu()  # before JAX first looks at the GPU: the notebook's workers share it
    quick = quick_mode() if quick is None else bool(quick)
    root = repo_root() if root is None else Path(root)
    device = compute_device() if device is None else device
    nb = Notebook(notebook, quick, root, preset(notebook, quick, device), device)
    # A cell's `!bash` forks through pty.fork, and once JAX runs its hook warns
    # of a deadlock at every fork; the child execs at once: quiet that fork only.
    warnings.filterwarnings("ignore", r"os\.fork\(\) was called", RuntimeWarning, r"pty\Z")
    if quick:
        shutil.rmtree(nb.folder, ignore_errors=True)
    nb.folder.mkdir(parents=True, exist_ok=True)
    return nb


# The networks the notebooks hand on, one file per mode.

def sl_policy_path(root, quick):
    """Notebook 01's SL policy network: ``runs/01_supervised/{quick,full}/policy.keras``."""
    return run_folder(root, "01_supervised", quick) / "policy.keras"


def value_path(root, quick):
    """Notebook 02's value network (read by 03): ``runs/02_value_net/{quick,full}/value.keras``."""
    return run_folder(root, "02_value_net", quick) / "value.keras"


def rl_policy_path(root, quick):
    """Notebook 03's RL policy: ``runs/03_policy_gradient/{quick,full}/rl_policy.keras``."""
    return run_folder(root, "03_policy_gradient", quick) / "rl_policy.keras"


def zero_dir(root, quick, settings="katago"):
    """Notebook 04's run with ``settings`` ``"katago"`` (KataGo's changes on:
    the agent the arena plays) or ``"plain"`` (AlphaGo Zero's settings, the
    comparison): ``runs/04_zero/{quick,full}/{katago,plain}``."""
    if settings not in ("katago", "plain"):
        raise ValueError(f"settings is 'katago' or 'plain', not {settings!r}")
    return run_folder(root, "04_zero_selfplay", quick) / settings


def reinforce_dir(root, quick, baseline, partner=None):
    """Notebook 03's ``runs/03_policy_gradient/{quick,full}/run-{value,zero}``, or with the
    sparring ``partner`` (``"partner"``, baseline zero) ``run-partner-NAME`` (its name or file
    stem): a run resumes only with its own settings, so another partner gets its own run."""
    if baseline not in ("value", "zero", "partner") or (baseline == "partner") != bool(partner):
        raise ValueError(f"'value', 'zero', or 'partner' with a partner: {baseline!r}, {partner!r}")
    name = f"partner-{Path(partner).stem}" if partner else baseline
    return run_folder(root, "03_policy_gradient", quick) / f"run-{name}"


# =============================================================== KGS data


def kgs_archives(root, archives=None):
    """The oldest ``archives`` KGS archives in ``data/kgs`` (all of them for
    None), as paths. FileNotFoundError when fewer are there, naming the
    command that fetches them."""

    folder = Path(root) / "data" / "kgs"
    present = sorted(archives_in(folder), key=lambda a: a.sort_key)
    wanted = len(present) if archives is None else archives
    if not present or len(present) < wanted:
        fetch = "bash data/download.sh" + ("" if archives is None else f" --archives {archives}")
        raise FileNotFoundError(f"{folder} holds {len(present)} KGS archives, "
                                f"{wanted or 'some'} are needed: run {fetch}")
    return [folder / archive.name for archive in present[:wanted]]


def gnugo9_archive(root):
    """``data/gnugo9/gnugo-l1-9x9.tar.gz`` under ``root``: 3,000 9x9 games of GnuGo 3.8 at
    level 1 against itself, which ship with mockgo for notebook 01's first networks; in a
    folder without them (`mockgo notebooks`), an installed mockgo's own copy. FileNotFoundError
    naming ``bash data/gnugo9.sh`` (which makes it again) when it is missing."""
    shipped = Path(root) / "data" / "gnugo9" / "gnugo-l1-9x9.tar.gz"
    path = shipped if shipped.is_file() else Path(__file__).with_name("data") / "gnugo9" / shipped.name
    if not path.is_file():
        raise FileNotFoundError(f"{shipped} is missing: it comes with the repository "
                                f"(git checkout data/gnugo9), or make it with bash data/gnugo9.sh")
    return path


def kgs_archive(repo_root, download=True):
    """The oldest KGS archive in ``data/kgs/`` (the one ``bash data/download.sh
    --archives 1`` fetches, and notebook 01's quick mode trains on); with
    ``download``, fetched when there is none. None when there is none and it
    could not be fetched."""

    for attempt in range(2):
        try:
            return kgs_archives(repo_root, 1)[0]
        except FileNotFoundError:
            if attempt or not download:
                return None
            subprocess.run(["bash", str(Path(repo_root) / "data" / "download.sh"),
                            "--archives", "1"], check=False)


# ========================================== networks handed on, and stand-ins


@dataclasses.dataclass
class LoadedModel:
    """A model and where it came from: ``note`` says it in a sentence,
    ``stand_in`` is True when the saved model was missing and a small one
    was built instead."""

    model: object
    note: str
    stand_in: bool
    path: Path | None = None


def standin_policy(size, seed=0):
    """What the notebooks use when notebook 01's policy is missing (or is
    for another board size): notebook 01's quick-mode network
    (:func:`mockgo.learn.supervised.build_policy` with its quick preset's
    layers and filters: 3 convolutions of 16 filters on ``alphago48``),
    *untrained*, its weights drawn from ``seed`` (so every notebook builds
    the same one), as float32. Its moves are close to uniform over the
    sensible points. Re-seeds Python, NumPy and Keras
    (``keras.utils.set_random_seed``)."""

    quick = preset("01_supervised", quick=True)
    model = as_float32(build_policy(quick.layers, quick.filters, board_size=size, planes=48,
                                    precision=quick.precision, seed=seed))
    model.mockgo_info = NetworkInfo("policy", ALPHAGO48, size)
    return model


def load_sl_policy(repo_root, quick, size, seed=0, stand_in=True):
    """Notebook 01's SL policy for boards of ``size``: the learner's own,
    else the one that ships with mockgo, else a stand-in.

    The policy at ``sl_policy_path`` is used when it exists and plays
    ``size`` x ``size``; otherwise, in full mode (``quick`` False), the
    pretrained ``sl-19`` (:mod:`mockgo.pretrained`, notebook 01's full run)
    for 19x19; otherwise :func:`standin_policy`, or, with ``stand_in=False``
    (full mode: hours of work must not start from an untrained net),
    FileNotFoundError. The note says which it is, and why. Returns a
    :class:`LoadedModel`."""
    path = sl_policy_path(repo_root, quick)
    loaded, why = _load_if_it_fits(path, size, "01", "policy", "plays")
    if loaded is not None:
        return loaded
    shipped = None if quick else _shipped("sl-19", size, why, "SL policy", "01")
    if shipped is not None:
        return shipped
    if not stand_in:
        raise FileNotFoundError(why)
    model = standin_policy(size, seed)
    quick_preset = preset("01_supervised", quick=True)
    return LoadedModel(model, f"{why}: using a stand-in, notebook 01's quick-mode network "
                              f"({quick_preset.layers} x {quick_preset.filters} filters) for "
                              f"{size}x{size}, untrained, seed {seed}", True, None)


def _shipped(name, size, why, what, notebook):
    """The network ``name`` that ships with mockgo (:mod:`mockgo.pretrained`)
    as a :class:`LoadedModel`, when it ships and plays ``size`` x ``size``;
    else None. ``why``: why the learner's own network is not used. The note
    says what the shipped network is first (notebook ``notebook``'s full run,
    its card's headline), and why it stands in second."""
    if name not in pretrained.names():
        return None
    card = pretrained.card(name)
    if card["board_size"] != size:
        return None
    note = f"{pretrained.stand_in_note(name, what, notebook)}; used because {why}"
    return LoadedModel(pretrained.load(name), note, False, pretrained.path(name))


def _load_if_it_fits(path, size, notebook, model_name, verb):
    """(LoadedModel, None) when the model notebook ``notebook`` saved at
    ``path`` is for boards of ``size``; else (None, why not), for the
    caller's stand-in note."""
    what = f"notebook {notebook}'s {model_name}"
    if not path.exists():
        return None, f"{what} is missing ({path} does not exist; run notebook {notebook} first)"

    model = load_model(path)
    board = model.input_shape[1]
    if board == size:
        return LoadedModel(model, f"{what}, from {path}", False, path), None
    return None, f"{what} at {path} {verb} {board}x{board}"


def standin_value_network(policy, size, games=300, epochs=8, seed=0, progress=False):
    """What notebook 03 uses when notebook 02's value network is missing: a
    small value network (3 x 16, 64 hidden units, float32) trained as
    notebook 02 trains it (:func:`~mockgo.learn.trainers.train_value_on_positions`
    with the 8 symmetries and early stopping) on
    :func:`~mockgo.learn.value.value_dataset` of ``games`` games of ``policy``,
    nine tenths to learn from and a tenth to stop on."""
    data = value_dataset(policy, games, size, rng=seed, progress=progress)
    split = int(0.9 * len(data))
    model, _ = train_value_on_positions(
        data.planes[:split], data.outcomes[:split], (data.planes[split:], data.outcomes[split:]),
        size, layers=3, filters=16, hidden=64, encoder=ALPHAGO49, precision="float32", seed=seed,
        epochs=epochs, symmetries=True, patience=2, name="standin_value")
    return model


def load_value_network(repo_root, quick, policy, size, seed=0, progress=False, stand_in=True):
    """Notebook 02's value network (``value_path``) if it exists and
    fits ``size``; else, in full mode, the pretrained ``value-19``
    (notebook 02's full run) for 19x19 when it ships; else
    :func:`standin_value_network` of ``policy`` (or, with
    ``stand_in=False``, FileNotFoundError). Returns a :class:`LoadedModel`."""
    path = value_path(repo_root, quick)
    loaded, why = _load_if_it_fits(path, size, "02", "value network", "is for")
    if loaded is not None:
        return loaded
    shipped = None if quick else _shipped("value-19", size, why, "value network", "02")
    if shipped is not None:
        return shipped
    if not stand_in:
        raise FileNotFoundError(why)
    model = standin_value_network(policy, size, seed=seed, progress=progress)
    return LoadedModel(model, f"{why}: using a stand-in, a small value net trained here on 300 "
                              f"games of one position each (value_dataset)", True, None)
