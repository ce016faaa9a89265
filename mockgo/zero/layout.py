"""Where a Zero run keeps everything: one folder, laid out as MiniGo's
``fsdb`` lays out its bucket. Only this module knows the paths::

    config.json                          the ZeroConfig, fixed for the run
    state.json                           latest and best model, one record per generation
    models/000000.keras                  generation 0: random weights; 000001.keras, ...
    models/.training/                    per-epoch checkpoints of the model being trained
    data/selfplay/<model>/<job>-b0000.npz   examples of one batch of games (planes, pi, z)
    data/selfplay/<model>/<job>.json     the self-play job's progress and statistics
    data/holdout/<model>/<job>-b0000.npz    the same for the held-out games
    data/training_chunks/<generation>/chunk-000.npz   the shuffled window
    sgf/<model>/clean/<job>-00000.sgf    self-play games
    sgf/<model>/full/<job>-00000.sgf     the same, with root value and visits per move
    sgf/evaluate/<new>-vs-<best>/00000.sgf   evaluation games
    sgf/evaluate/<new>-vs-<old>-extra/       games of mockgo zero --evaluate-only
    strength.json                        the notebook's matches (win rates by model and opponent;
                                         its Elo ladder: report.elo_chain)
    strength_curve.jsonl                 the strength curve: every strength_every generations,
                                         the match against GnuGo and the CPU-hours so far
    sgf/strength/<model>-vs-gnugo-l<level>/  its games (a resumable match folder)
    sgf/equal-cost/<model>-vs-<other run>-<model>-r<readouts>/  a match against another run's
                                         model of the same CPU time (equal_cost_matches)

``<model>`` is the model that played (``000003``), ``<job>`` names the
self-play job (``gen000004``: the games generation 4 trains on; any other
name is an extra job of ``mockgo zero --selfplay-only``, whose finished
batches join every training window that ``<model>``'s games are in).

Everything but ``config.json`` and ``state.json`` is the run's *work*
(:meth:`RunLayout.work`): a run refuses to go on over work that its state
does not describe (:func:`mockgo.data.files.refuse_unrecorded_work`).
"""

import json
import math
import re
from pathlib import Path

from mockgo.data.files import (CorruptFileError, atomic_write_text, list_work, read_json,
                               temporary_target)
from mockgo.zero.config import ZeroConfig

__all__ = ["RunLayout", "is_holdout", "is_loop_job", "job_name", "model_name", "read_config",
           "read_job_progress", "read_state", "read_strength", "write_json"]

# The shapes of the run's JSON files (mockgo.data.files.check_schema), checked
# when they are read: a file edited by hand or damaged is an error naming it
# and the field, not a KeyError or TypeError deep in the loop.
STATE_SCHEMA = {"format": int, "latest": int, "best": int, "generations": dict}
JOB_SCHEMA = {"games": int, "games_in_parallel": int, "batches": dict}


def model_name(generation):
    """A generation's model's name: ``000012`` for generation 12."""
    return f"{generation:06d}"


def job_name(generation):
    """The self-play job that produces generation ``generation``'s games."""
    return f"gen{generation:06d}"


def is_loop_job(job):
    """Whether ``job`` names one of the loop's own self-play jobs (``gen<g>``)."""
    return re.fullmatch(r"gen\d{6}", job) is not None


def is_holdout(game, share):
    """Whether game number ``game`` is held out: every 1/share-th game, so a
    job holds out round(games * share) of its games whatever its size."""
    return math.floor((game + 1) * share) > math.floor(game * share)


def write_json(path, data):
    """Write ``data`` to ``path`` as sorted, indented JSON, atomically."""
    atomic_write_text(path, json.dumps(data, indent=1, sort_keys=True) + "\n")


def read_strength(path):
    """The run's ``strength.json``: the matches played so far for win rates
    and the Elo ladder, by key (an empty dict before the first)."""
    return read_json(path, "the win rates of the matches played so far", missing_ok=True,
                     schema=dict) or {}


def read_state(path, missing_ok=False, remedy=None):
    """The run's ``state.json`` (None if missing and ``missing_ok``);
    CorruptFileError naming it and the field when it is not of the shape
    the run writes, or names a best model past the latest."""
    state = read_json(path, "the run's progress", missing_ok=missing_ok, remedy=remedy,
                      schema=STATE_SCHEMA)
    if state is not None and not 0 <= state["best"] <= state["latest"]:
        raise CorruptFileError(f"{path} is damaged: its best model ({state['best']}) is not "
                               f"one of generations 0 to its latest ({state['latest']})"
                               + (f". {remedy}" if remedy else ""))
    return state


def read_config(path, missing_ok=False, remedy=None):
    """The run's ``config.json`` as a ZeroConfig (None if missing and
    ``missing_ok``); CorruptFileError naming it when it is not a config."""
    values = read_json(path, "the run's ZeroConfig", missing_ok=missing_ok, remedy=remedy,
                       schema=dict)
    if values is None:
        return None
    try:
        return ZeroConfig.from_dict(values)
    except (TypeError, ValueError) as error:
        raise CorruptFileError(f"{path} is damaged: not a ZeroConfig ({error})"
                               + (f". {remedy}" if remedy else "")) from None


def read_job_progress(path):
    """A self-play job's progress file (``data/selfplay/<model>/<job>.json``);
    CorruptFileError naming it and the field when damaged."""
    return read_json(path, "the self-play job's progress", schema=JOB_SCHEMA)


class RunLayout:
    """The paths of the run in ``base_dir`` (module docstring)."""

    # What a run makes besides config.json and state.json (globs in base_dir).
    # Every file under data/ and sgf/: games, examples, and the records
    # that matches and jobs keep beside them.
    WORK = ("models/*.keras", "models/.training/*.keras", "data/**/*", "sgf/**/*",
            "strength.json", "strength_curve.jsonl")

    def __init__(self, base_dir):
        self.base_dir = Path(base_dir)
        self.config = self.base_dir / "config.json"
        self.state = self.base_dir / "state.json"
        self.strength = self.base_dir / "strength.json"
        self.strength_curve = self.base_dir / "strength_curve.jsonl"
        self.models = self.base_dir / "models"
        self.training = self.models / ".training"
        self.chunks_root = self.base_dir / "data" / "training_chunks"

    def model(self, generation):
        """``models/<generation>.keras``."""
        return self.models / f"{model_name(generation)}.keras"

    def work(self, initial_model=True):
        """The run's files but ``config.json`` and ``state.json``, as paths
        relative to ``base_dir``, sorted; without ``initial_model``, less
        ``models/000000.keras`` (random weights from the config's seed, made
        before the first state is written, so no work of its own)."""
        keep = () if initial_model else {str(self.model(0).relative_to(self.base_dir))}
        return list_work(self.base_dir, self.WORK, keep=keep)

    def loop_owns(self, path):
        """Whether the file ``path`` (relative to ``base_dir``; a temporary
        stands for the file it was to replace) is the loop's to write, not an
        extra ``--selfplay-only`` job's: every file but the examples, progress
        files and games of jobs not named ``gen<g>``. The loop deletes a
        killed loop's temporaries with it, never those of an extra job that
        may be writing beside it."""
        parts = Path(path).parts
        name = temporary_target(path) or parts[-1]
        in_job_folder = (parts[:1] == ("data",) and parts[1:2] in (("selfplay",), ("holdout",))
                         or parts[:1] == ("sgf",) and parts[2:3] in (("clean",), ("full",)))
        # The loop's names exactly: an extra job may be called "gen000001-x".
        return not in_job_folder or re.fullmatch(r"gen\d{6}(-b\d{4,}\.npz|\.json|-\d{5,}\.sgf)",
                                                 name) is not None

    def checkpoint(self, generation, epoch):
        """The model being trained into ``generation``, after ``epoch`` epochs."""
        return self.training / f"{model_name(generation)}-epoch{epoch:02d}.keras"

    def checkpoints(self, generation):
        return sorted(self.training.glob(f"{model_name(generation)}-epoch*.keras"))

    def examples_dir(self, model, holdout=False):
        """``data/selfplay/<model>`` (``data/holdout/<model>`` for held-out games)."""
        return self.base_dir / "data" / ("holdout" if holdout else "selfplay") / model

    def examples(self, model, job, holdout=False, batch=None):
        """A batch's example file; with ``batch=None`` all of the job's, sorted."""
        folder = self.examples_dir(model, holdout)
        if batch is None:
            return sorted(folder.glob(f"{job}-b*.npz"))
        return folder / f"{job}-b{batch:04d}.npz"

    def job_progress(self, model, job):
        """The self-play job's progress and statistics."""
        return self.examples_dir(model) / f"{job}.json"

    def extra_jobs(self, model):
        """The ``--selfplay-only`` jobs ``model`` has played (every job but
        the loop's own ``gen<g>`` ones), sorted by name."""
        return sorted(path.stem for path in self.examples_dir(model).glob("*.json")
                      if not is_loop_job(path.stem))

    def finished_examples(self, model, job, holdout=False):
        """The example files of the batches ``job``'s progress file records
        as done, sorted: a job that is still running, or was stopped, gives
        its finished batches only (a batch's files are written before the
        progress file names it)."""
        progress = self.job_progress(model, job)
        if not progress.exists():
            return []
        batches = sorted(int(b) for b in read_job_progress(progress)["batches"])
        files = (self.examples(model, job, holdout, batch=b) for b in batches)
        return [file for file in files if file.exists()]  # a batch may hold out no game

    def chunks(self, generation):
        """``data/training_chunks/<generation>``: the shuffled window."""
        return self.chunks_root / model_name(generation)

    def sgf_dir(self, model, kind):
        """``sgf/<model>/<kind>``: ``clean`` games, or ``full`` with the search's comments."""
        return self.base_dir / "sgf" / model / kind

    def sgf(self, model, job, game, kind="clean"):
        return self.sgf_dir(model, kind) / f"{job}-{game:05d}.sgf"

    def sgfs(self, model, job, kind="clean"):
        return sorted(self.sgf_dir(model, kind).glob(f"{job}-*.sgf"))

    def evaluation_sgf_dir(self, new, best):
        return self.base_dir / "sgf" / "evaluate" / f"{new}-vs-{best}"

    def strength_sgf_dir(self, model, level):
        """``sgf/strength/<model>-vs-gnugo-l<level>``: a strength-curve match."""
        return self.base_dir / "sgf" / "strength" / f"{model}-vs-gnugo-l{level}"

    def equal_cost_sgf_dir(self, model, other_run, other_model, readouts):
        """``sgf/equal-cost/<model>-vs-<other_run>-<other_model>-r<readouts>``:
        a match against another run's model (a resumable match folder)."""
        return (self.base_dir / "sgf" / "equal-cost"
                / f"{model}-vs-{other_run}-{other_model}-r{readouts}")

    def extra_evaluation_sgf_dir(self, new, old):
        """``sgf/evaluate/<new>-vs-<old>-extra``: an ``--evaluate-only`` match
        (apart from the loop's own, which has other seeds)."""
        return self.base_dir / "sgf" / "evaluate" / f"{new}-vs-{old}-extra"
