"""AlphaGo Zero's training loop, run the way MiniGo runs it.

No human games: a dual network (:func:`mockgo.nets.models.dual_network`) guides a
tree search (:mod:`mockgo.search.mcts`) that plays against itself; the network then
learns to predict the search's visit counts (a better policy than its own)
and the games' results; the better network makes a better search, and so on.
One *generation* g = 1, 2, ... is five steps, each a method of
:class:`ZeroRun` (and the command ``mockgo zero``, :mod:`mockgo.zero.cli`):

``selfplay``
    The current model (the best so far; the latest when evaluation is off)
    plays ``games_per_generation`` games against itself,
    ``games_in_parallel`` at a time in lockstep (:func:`mockgo.search.mcts.search_step`):
    every step of the searches makes ONE network call for all the games'
    leaves, up to ``games_in_parallel * parallel_readouts`` positions, and a
    game whose search is done plays its move and searches the next one at
    the next step. Each move
    yields a training example: the position (``agz17`` planes), the root's
    visit distribution pi, and, once the game is over, its result z (+1 if the
    player to move won, -1 if lost). A share of the games resigns never
    (``resign_disabled_share``) to measure how often resigning would have
    been wrong (:class:`mockgo.search.mcts.ResignationCheck`); a share of the games
    (``holdout_share``) goes to the holdout set, not to training. Each game is
    saved as SGF twice: clean, and with the search's statistics as comments.
``gather``
    The examples of the last ``window`` generations, shuffled (at most
    ``max_examples``), into training chunks.
``train``
    The latest model, trained on the chunks for ``epochs`` epochs (Adam;
    loss = policy cross-entropy with pi + value MSE with z + L2),
    each position under a random one of the 8 symmetries of the board, is
    the new model g.
``validate``
    The new model's losses on the holdout games of the window.
``evaluate``
    The new model plays ``eval_games`` games against the best model; at a
    win rate of ``promote_win_rate`` (55 %) or more it becomes the best, the
    model that plays the next self-play (AlphaGo Zero). With
    ``evaluate=False`` every new model plays the next self-play at once
    (AlphaZero).

KataGo's changes (Wu 2019) are options of the config, off by default
(:meth:`~mockgo.zero.config.ZeroConfig.with_katago` switches them on):
auxiliary ownership and score heads trained on each game's end position,
global pooling in the tower, playout cap randomization, forced playouts
with policy target pruning (:mod:`mockgo.zero.selfplay`,
:mod:`mockgo.search.mcts`). With ``strength_every=K``, every K-th
generation ends with a short match against GnuGo, a point of the run's
strength curve against its CPU-hours (:meth:`ZeroRun.gnugo_strength`).

The moves
---------
The search plays the *sensible* moves (:class:`mockgo.search.games.SensibleGoGame`): legal moves
that do not fill the player's own single-point eye, and the pass only when
nothing else is left, so that games go on until the board is settled and
Tromp-Taylor scoring gives the right result. ``sensible_moves=False`` gives
AlphaGo Zero's plain legal moves.

The run lives in one folder (``base_dir``), laid out by
:class:`mockgo.zero.layout.RunLayout` (its docstring has the tree).

Resuming
--------
Every step can be interrupted (Ctrl-C, a crash) and the same call or command
started again. ``state.json`` is rewritten atomically when a step completes,
and a step's outputs are written completely before that (files through
:func:`mockgo.data.files.atomic_open`; the chunks folder is renamed into place).
Self-play games are numbered, so batch b of a job is always games
``b * games_in_parallel`` onwards, with seeds from the game numbers: a batch
either completed (its examples and SGFs are on disk and the job's progress
file says so) or it is played again from its start, overwriting whatever it
had written; so a job ends with exactly the games asked for, none lost and
none twice. Training saves a checkpoint (with the optimiser's state) after
each epoch and continues from the last one.

A folder whose ``state.json`` (or ``config.json``) is missing or damaged
while it still holds the run's models, examples or games is refused with an
error naming them, since starting at generation 0 would overwrite them one
by one; ``restart=True`` (``mockgo zero --restart``) deletes the run and
starts over.
"""

import contextlib
import json
import shutil
import time
from pathlib import Path

import numpy as np

from mockgo.cluster import make_executor
from mockgo.data.files import (atomic_write_text, check_same_settings, discard_work, folder_lock,
                               job_folder, refuse_unrecorded_work)
from mockgo.nets.io import load_model, mark_trained_here, save_model
from mockgo.play.match import match
from mockgo.play.gtp_engine import find_gnugo
from mockgo.play.gtp_player import gnugo_player
from mockgo.search.evaluators import NetworkEvaluator
from mockgo.zero.config import ENCODER, seed_of
from mockgo.zero.examples import find_example, load_targets
from mockgo.zero.layout import (RunLayout, job_name, model_name, read_config, read_state,
                                write_json)
from mockgo.zero.match import match_figures, play_match, search_player, win_rates
from mockgo.zero.report import elo_chain, generation_line, resume_lines
from mockgo.zero.selfplay import selfplay_job
from mockgo.zero.train import (check_init_model, compile_dual, epoch_bar, first_network,
                               fit_epoch, gather_examples, targets)

__all__ = ["ZeroRun", "bootstrap"]

STEPS = ("selfplay", "gather", "train", "validate", "evaluate")
STATE_FORMAT = 1
RESTART = "pass restart=True to bootstrap (mockgo zero --restart)"


# -------------------------------------------------------------------- the run


def bootstrap(base_dir, config, restart=False, cluster=None):
    """Open the run in ``base_dir``: a new one (``config.json``, a randomly
    initialised model 000000, an empty ``state.json``), or the one already
    there, which must have been started with the same ``config``.
    ``restart=True``: delete the run there first (:class:`ZeroRun`);
    ``cluster``: where self-play and matches are played (:class:`ZeroRun`)."""
    return ZeroRun(base_dir, config, restart, cluster)


class ZeroRun:
    """One AlphaGo Zero run in a folder; the steps of a generation are
    methods, each doing only what is not done yet (see the module docstring).

    ::

        run = bootstrap("runs/zero", ZeroConfig.for_test())
        run.run(generations=3)          # or, step by step:
        run.selfplay(); run.gather(); run.train(); run.validate(); run.evaluate()

    ``restart=True`` starts the run over: it deletes ``state.json`` (first),
    the models, examples, games, ``strength.json`` and ``config.json`` of the
    run in ``base_dir``, and begins anew with ``config`` (refused with
    :class:`~mockgo.data.files.FolderBusyError` while a loop runs there). Without it, a
    folder holding models or examples but no readable ``state.json`` or
    ``config.json`` is an error naming the files (module docstring).

    ``cluster``: ``"ray"`` (a Ray instance of its own, or the cluster of
    ``RAY_ADDRESS``) or a :class:`mockgo.cluster.Executor`: the self-play
    batches and the matches' games are played by its workers (``executor``),
    which keep each model's evaluator warm and get a new model's bytes when
    the model changes; training, and every file of the run, stay in this
    process (the driver). None: everything here, as without a cluster.
    :meth:`close` lets the workers go.
    """

    def __init__(self, base_dir, config, restart=False, cluster=None):
        self._cluster, self.executor = cluster, None
        self.base_dir = Path(base_dir)
        self.layout = RunLayout(base_dir)
        self.config = config
        self.state_path = self.layout.state
        # A restart deletes the run and writes a new one: never beside a loop
        # that runs there (which holds the folder's lock).
        with (folder_lock(self.base_dir, "starting the run over") if restart
              else contextlib.nullcontext()):
            self._open(config, restart)
        if cluster is not None:  # last: a run refused above starts no workers
            self.executor = make_executor(cluster)

    def _open(self, config, restart):
        """Read the run in the folder, or start it (over): ``__init__``'s work."""
        config_path = self.layout.config
        stored = state = None
        if restart:
            discard_work(self.base_dir, self.state_path,
                         self.layout.work() + [config_path.relative_to(self.base_dir)])
        else:
            remedy = f"To delete the run and start over, {RESTART}"
            stored = read_config(config_path, missing_ok=True, remedy=remedy)
            state = read_state(self.state_path, missing_ok=True, remedy=remedy)
        if config.strength_every and find_gnugo() is None:
            raise ValueError("strength_every needs GnuGo for its matches (apt-get install "
                             "gnugo), or set strength_every=0")
        if stored is None:
            # Without its config, even model 000000 and the state are work of
            # unknown settings.
            work = self.layout.work() + ([self.state_path.relative_to(self.base_dir)]
                                         if state is not None else [])
            refuse_unrecorded_work(self.base_dir, config_path, work, RESTART)
            if config.init_model is not None:  # before the config is written: a new run
                check_init_model(load_model(config.init_model), config, config.init_model)
            self.base_dir.mkdir(parents=True, exist_ok=True)
            write_json(config_path, config.to_dict())
        else:
            check_same_settings(self.base_dir, "a run", stored.to_dict(), config.to_dict())
        if state is None:
            # Model 000000 may be there without a state: it is made first,
            # from the config's seed, so it is no work of the run's.
            refuse_unrecorded_work(self.base_dir, self.state_path,
                                   self.layout.work(initial_model=False), RESTART)
        self.layout.models.mkdir(exist_ok=True)
        # Models and their compiled evaluators, kept between steps and
        # generations (tracing a graph costs seconds): generation -> object.
        self._models = {}
        self._evaluators = {}
        if state is not None:
            self.state = state
        else:
            self.state = {"format": STATE_FORMAT, "latest": 0, "best": 0, "generations": {}}
        if not self.model_path(0).exists():
            self._bootstrap_model()
        if not self.state_path.exists():
            self._save_state()

    def _bootstrap_model(self):
        save_model(first_network(self.config, "generation_000000"), self.model_path(0),
                   encoder=ENCODER)

    # ------------------------------------------------------ state

    def _save_state(self):
        write_json(self.state_path, self.state)

    def model_path(self, generation):
        return self.layout.model(generation)

    @property
    def latest(self):
        """The newest model that finished all its steps."""
        return self.state["latest"]

    @property
    def best(self):
        """The model that plays self-play (the best one, under evaluation)."""
        return self.state["best"]

    @property
    def pending(self):
        """The generation being made: the latest + 1."""
        return self.latest + 1

    def record(self, generation=None):
        """The state's record of a generation (default: the pending one)."""
        generation = self.pending if generation is None else generation
        return self.state["generations"].setdefault(str(generation), {"generation": generation})

    def model(self, generation):
        """The Keras model of a generation (loaded once, then kept)."""
        if generation not in self._models:
            self._models[generation] = load_model(self.model_path(generation))
        return self._models[generation]

    def evaluator(self, generation):
        """A :class:`NetworkEvaluator` of a generation's model (made once)."""
        if generation not in self._evaluators:
            config = self.config
            self._evaluators[generation] = NetworkEvaluator(
                self.model(generation),
                batch_size=config.games_in_parallel * config.parallel_readouts,
                random_symmetry=config.random_symmetry, seed=seed_of(config.seed, "net", generation),
                precision=config.precision)
        return self._evaluators[generation]

    def close(self):
        """Let go of the cluster's workers (a ``cluster="ray"`` made here;
        an executor given is left to its owner)."""
        if self.executor is not None and self.executor is not self._cluster:
            self.executor.close()
            self.executor = None

    def _side(self, generation):
        """A generation's model as a side of a match: its evaluator, or,
        with an executor, its file (shipped to the workers)."""
        return self.model_path(generation) if self.executor else self.evaluator(generation)

    def _trainable(self, generation):
        """The model of ``generation``, compiled, to be trained in place into
        the next one; and its evaluator, if one was made (its compiled graph
        follows the weights, so it will serve the next generation)."""
        model = self._models.get(generation)
        if model is None or not model.compiled:
            # Models after the first are saved with their optimiser's state.
            model = load_model(self.model_path(generation), compile=True)
            if not model.compiled:
                compile_dual(model, self.config)
            return model, None
        del self._models[generation]  # its weights are about to change
        return model, self._evaluators.pop(generation, None)

    def _window(self, generation):
        first = max(1, generation - self.config.window + 1)
        return [(model_name(self.record(g)["player"]), job_name(g)) for g in range(first, generation + 1)]

    def _files(self, kind, generation):
        """The window's example files: the loop's own jobs, then the finished
        batches of the extra (``--selfplay-only``) jobs of the models that
        played them, each file once."""
        holdout = kind == "holdout"
        window = self._window(generation)
        files = []
        for model, job in window:
            files += self.layout.examples(model, job, holdout=holdout)
        for model, job in self._extra_jobs(window):
            files += self.layout.finished_examples(model, job, holdout=holdout)
        return files

    def _extra_jobs(self, window):
        models = dict.fromkeys(model for model, _ in window)  # in order, once each
        return [(model, job) for model in models for job in self.layout.extra_jobs(model)]

    # ------------------------------------------------------ steps

    def selfplay(self, progress=True, callback=None):
        """Step 1: the pending generation's self-play games."""
        rec = self.record()
        if "selfplay" in rec:
            return rec["selfplay"]
        if "player" not in rec:
            rec["player"] = self.best if self.config.evaluate else self.latest
            self._save_state()
        summary = selfplay_job(self.base_dir, self.model_path(rec["player"]),
                               self.config.games_per_generation, self.config,
                               job=job_name(self.pending), progress=progress, callback=callback,
                               evaluator=None if self.executor else self.evaluator(rec["player"]),
                               executor=self.executor)
        rec["selfplay"] = summary
        self._save_state()
        return summary

    def gather(self):
        """Step 2: the window's examples, shuffled into training chunks."""
        rec = self.record()
        self._require(rec, "gather")
        if "gather" not in rec:
            g = self.pending
            start = _clock()
            summary = gather_examples(self._files("selfplay", g), self.layout.chunks(g),
                                      self.config.max_examples, self.config.chunk_size,
                                      seed_of(self.config.seed, "gather", g))
            window = self._window(g)
            summary["window"] = [job for _, job in window]
            summary["extra_jobs"] = [f"{model}/{job}" for model, job in self._extra_jobs(window)]
            _charge(rec, "gather", start)
            rec["gather"] = summary
            self._save_state()
        return rec["gather"]

    def _require(self, rec, step):
        earlier = STEPS[:STEPS.index(step)]
        missing = [s for s in earlier if s not in rec]
        if missing:
            raise RuntimeError(f"generation {self.pending}: {step} needs {', '.join(missing)} first")

    def train(self, progress=True, callback=None):
        """Step 3: train the latest model on the chunks into the new model;
        a checkpoint after each epoch, from which an interrupted run goes on."""
        rec = self.record()
        self._require(rec, "train")
        if "train" in rec:
            return rec["train"]
        g = self.pending
        config = self.config
        chunks = sorted(self.layout.chunks(g).glob("chunk-*.npz"))
        examples = load_targets(chunks)
        self.layout.training.mkdir(exist_ok=True)
        done = rec.get("train_progress", {"epochs": 0, "history": {}, "seconds": 0.0})
        done.setdefault("cpu_seconds", 0.0)
        evaluator = None
        if done["epochs"]:
            model = load_model(self.layout.checkpoint(g, done["epochs"]), compile=True)
        else:
            model, evaluator = self._trainable(self.latest)
        mark_trained_here(model)  # its file then says where this generation trained
        bar = epoch_bar(progress, f"train {model_name(g)}")
        try:
            for epoch in range(done["epochs"], config.epochs):
                start, cpu_start = time.perf_counter(), time.process_time()
                rng = np.random.default_rng(seed_of(config.seed, "train", g, epoch))
                history = fit_epoch(model, examples, config, epoch, rng, verbose=0,
                                    callbacks=[bar])
                path = self.layout.checkpoint(g, epoch + 1)
                save_model(model, path, encoder=ENCODER)
                for key, values in history.items():
                    done["history"].setdefault(key, []).extend(float(v) for v in values)
                done["epochs"] = epoch + 1
                done["seconds"] += time.perf_counter() - start
                done["cpu_seconds"] += time.process_time() - cpu_start
                rec["train_progress"] = done
                self._save_state()
                for old in self.layout.checkpoints(g):
                    if old != path:
                        old.unlink()
                if callback is not None:
                    callback("train_epoch", {"generation": g, "epoch": epoch + 1})
        finally:
            bar.close()
        save_model(model, self.model_path(g), encoder=ENCODER)
        self._models[g] = model
        if evaluator is not None:
            evaluator.predictor.sync_weights()  # a bfloat16 graph reads a copy of the weights
            self._evaluators[g] = evaluator
        rec["train"] = {"history": done["history"], "examples": int(len(examples["z"])),
                        "seconds": done["seconds"], "cpu_seconds": done["cpu_seconds"],
                        "from": model_name(self.latest)}
        rec.pop("train_progress", None)
        self._save_state()
        for old in self.layout.checkpoints(g):
            old.unlink()
        for old in self.layout.chunks_root.iterdir():
            if old.name != model_name(g) and not old.name.startswith("."):
                shutil.rmtree(old)  # only the newest window is kept
        return rec["train"]

    def validate(self):
        """Step 4: the new model's losses on the window's holdout games."""
        rec = self.record()
        self._require(rec, "validate")
        if "validate" not in rec:
            start = _clock()
            rec["validate"] = self.validation(self.pending)
            _charge(rec, "validate", start)
            self._save_state()
        return rec["validate"]

    def validation(self, generation):
        """The losses of generation ``generation``'s model on the held-out
        games of the window it was trained on (step 4's figures, for any
        trained generation; ``mockgo zero --validate-only``, MiniGo's
        ``--validation``). Reads only: the run's state is not changed."""
        files = self._files("holdout", generation)
        result = {"examples": 0}
        if files:
            examples = load_targets(files)
            model = self.model(generation)
            if not model.compiled:
                compile_dual(model, self.config)
            y, weights = targets(model, examples)
            losses = model.evaluate(examples["planes"], y, sample_weight=weights,
                                    batch_size=256, verbose=0, return_dict=True)
            result = {key: float(value) for key, value in losses.items()}
            result["examples"] = int(len(examples["z"]))
        return result

    def evaluation(self, generation, opponent, games=None, progress=True):
        """A match of ``games`` (default ``eval_games``) between two trained
        generations' models, as step 5 plays it, its games saved beside step
        5's (``mockgo zero --evaluate-only``, MiniGo's
        ``--evaluation``). Promotes nothing: the run's state is not changed.
        Returns the :class:`~mockgo.play.results.MatchResult`."""
        for g in (generation, opponent):
            if not 0 <= g <= self.latest:
                raise ValueError(f"{self.base_dir} has models of generations 0 to "
                                 f"{self.latest}, not {g}")
        if generation == opponent:
            raise ValueError(f"generation {generation} against itself: choose another opponent")
        new, old = model_name(generation), model_name(opponent)
        return play_match(self._side(generation), self._side(opponent),
                          games or self.config.eval_games, self.config, executor=self.executor,
                          seed=seed_of("evaluate-only", generation, opponent)[0], names=(new, old),
                          sgf_dir=self.layout.extra_evaluation_sgf_dir(new, old),
                          progress=progress)

    def evaluate(self, progress=True):
        """Step 5: the new model against the best; promoted at a win rate of
        ``promote_win_rate`` or more. Without evaluation it is promoted at
        once. Completes the generation."""
        rec = self.record()
        self._require(rec, "evaluate")
        if "evaluate" in rec:
            return rec["evaluate"]
        g, config = self.pending, self.config
        start = _clock()
        if config.evaluate:
            best = model_name(self.best)
            result = play_match(self._side(g), self._side(self.best), config.eval_games,
                                config, executor=self.executor, seed=seed_of("evaluate", g)[0],
                                names=(model_name(g), best),
                                sgf_dir=self.layout.evaluation_sgf_dir(model_name(g), best),
                                progress=progress)
            summary = {"opponent": best, "games": result.n, "wins": result.wins_a,
                       "win_rate": result.win_rate,
                       "promoted": result.win_rate >= config.promote_win_rate}
        else:
            summary = {"opponent": None, "games": 0, "wins": 0, "win_rate": None, "promoted": True}
        _charge(rec, "evaluate", start)
        rec["evaluate"] = summary
        rec["done"] = True
        self.state["latest"] = g
        if summary["promoted"]:
            self.state["best"] = g
        self._save_state()
        return summary

    def next_generation(self, progress=True, callback=None):
        """Run the pending generation's remaining steps; returns its record."""
        g = self.pending
        self.selfplay(progress, callback)
        self.gather()
        self.train(progress, callback)
        self.validate()
        self.evaluate(progress)
        self.gnugo_strength(g, progress)
        rec = self.record(g)
        if callback is not None:
            callback("generation", {"generation": g})
        return rec

    def run(self, generations, progress=True, callback=None):
        """Make generations until the latest is ``generations`` (with
        ``progress``: bars, and a line on each generation). A strength
        match that an interruption cut short is finished first. The loop
        holds the run folder (:func:`mockgo.data.files.job_folder`): a second
        loop stops at once, and the temporaries a killed loop left are deleted,
        not those of ``--selfplay-only`` jobs (:meth:`RunLayout.loop_owns`)."""
        with job_folder(self.base_dir, "the AlphaGo Zero loop", owned=self.layout.loop_owns):
            self.gnugo_strength(self.latest, progress)
            if progress:
                for line in resume_lines(self.generations(), generations, self.state_path.name):
                    print(line, flush=True)
            while self.latest < generations:
                rec = self.next_generation(progress, callback)
                if progress:
                    print(generation_line(rec), flush=True)
        return self

    # ------------------------------------------------------ the strength curve

    def cost(self, generation):
        """The run's cost up to and including ``generation``: ``{"cpu_hours",
        "hours", "selfplay_games"}``, the CPU time of this process (all its threads)
        and the wall-clock time of the loop's steps (self-play, gather,
        train, validate, evaluate; not the strength matches), and the
        self-play games played. Steps of runs from before the CPU time was
        recorded count their wall-clock time only; work lost to an
        interruption is not counted."""
        cpu = wall = games = 0.0
        for g in range(1, generation + 1):
            rec = self.record(g) if str(g) in self.state["generations"] else {}
            for step in ("selfplay", "train"):
                cpu += rec.get(step, {}).get("cpu_seconds", 0.0)
                wall += rec.get(step, {}).get("seconds", 0.0)
            for spent in rec.get("cost", {}).values():
                wall, cpu = wall + spent[0], cpu + spent[1]
            games += rec.get("selfplay", {}).get("games", 0)
        return {"cpu_hours": cpu / 3600, "hours": wall / 3600, "selfplay_games": int(games)}

    def generation_within(self, cpu_hours):
        """The last generation whose cost (:meth:`cost`) is at most
        ``cpu_hours`` CPU-hours; 0 (the untrained model) if none is."""
        within = 0
        for g in range(1, self.latest + 1):
            if self.cost(g)["cpu_hours"] > cpu_hours:
                break
            within = g
        return within

    def gnugo_strength(self, generation, progress=True):
        """The strength curve's point at ``generation``, if it is due (every
        ``strength_every`` generations; none for generation 0 or with
        ``strength_every=0``): the generation's model, searching with
        ``match_readouts`` a move and no noise, plays ``strength_games``
        games against GnuGo at ``strength_level``, colours alternating,
        through the one match engine (:func:`mockgo.play.match.match`,
        dead stones by GnuGo), in a resumable match folder
        (``sgf/strength/``); once it has won half or more of a match at that
        level, at this or an earlier point, GnuGo level 10 too. Each result
        goes into the generation's record, and the curve is written
        again, atomically, to ``strength_curve.jsonl`` with the cost so far
        (:meth:`cost`). Returns the generation's points (a list; empty when
        none is due)."""
        every = self.config.strength_every
        if not every or generation < 1 or generation % every or generation > self.latest:
            return []
        points = self.record(generation).setdefault("strength", [])
        base = self.config.strength_level
        for level in [base, 10] if base < 10 else [base]:
            if any(point["level"] == level for point in points):
                continue
            won = any(point["level"] == base and point["win_rate"] >= 0.5
                      for point in self.strength_curve() if point["generation"] <= generation)
            if level != base and not won:
                continue
            points.append(self._strength_match(generation, level, progress))
            self._save_state()
            self._write_strength_curve()
        return points

    def _strength_match(self, generation, level, progress):
        config = self.config
        name = model_name(generation)
        # against GnuGo, a pass is answered when it cannot lose
        player = search_player(self.evaluator(generation), config, name=name,
                               batch_size=config.strength_games * config.parallel_readouts,
                               seed=seed_of(config.seed, "strength", generation),
                               answer_passes=True)
        result = match(player, gnugo_player(level=level, seed=0), games=config.strength_games,
                       size=config.board_size, komi=config.komi, max_moves=config.moves_cap,
                       out_dir=self.layout.strength_sgf_dir(name, level), scorer="gnugo",
                       seed=seed_of(config.seed, "strength", generation, level)[0],
                       progress=f"{name} vs gnugo-l{level}" if progress else False)
        ours, _ = result.seconds_per_move()
        return {"generation": generation, "model": name, "level": level,
                "opponent": f"gnugo-l{level}", **match_figures(result),
                "seconds_per_move": ours, "readouts": config.match_readouts,
                **self.cost(generation)}

    def _write_strength_curve(self):
        lines = [json.dumps(point, sort_keys=True) for point in self.strength_curve()]
        atomic_write_text(self.layout.strength_curve, "".join(line + "\n" for line in lines))

    def strength_curve(self):
        """Every point of the strength curve so far (:meth:`gnugo_strength`),
        oldest first: dicts with the generation, the GnuGo level, games,
        wins, win rate and its Wilson interval, Elo against that level (None
        where infinite: all won or all lost) and its interval, seconds a
        move, and the cost so far (``cpu_hours``, ``hours``, ``selfplay_games``)."""
        return [point for g in sorted(int(k) for k in self.state["generations"])
                for point in self.state["generations"][str(g)].get("strength", [])]

    # ------------------------------------------------------ reading the run

    def generations(self):
        """The records of the completed generations, oldest first."""
        return [self.record(g) for g in range(1, self.latest + 1)]

    def curves(self):
        """Per-generation losses for :func:`mockgo.plotting.plot_curves`:
        the last epoch's training losses and the holdout losses (``val_``)."""
        curves = {}
        for rec in self.generations():
            for key in ("policy_loss", "value_loss"):
                curves.setdefault(key, []).append(rec["train"]["history"][key][-1])
                curves.setdefault(f"val_{key}", []).append(rec["validate"].get(key, float("nan")))
        return curves

    def selfplay_sgfs(self, generation, kind="clean"):
        """The SGF files of a generation's self-play (``kind``: clean or full)."""
        player = model_name(self.record(generation)["player"])
        return self.layout.sgfs(player, job_name(generation), kind)

    def example(self, generation, game=0, move=8):
        """One training example of a generation's self-play, with its
        position: ``{"board", "pi", "z", "comment"}`` (the Board replayed
        from the game's full SGF, the search's comment on the move). With
        playout cap randomization only the full searches are examples: the
        first at or after ``move`` (else the game's last) is shown."""
        player = model_name(self.record(generation)["player"])
        return find_example(self.layout, player, job_name(generation), game, move)

    def strength(self, opponent, games, readouts=None, models=None, progress=True):
        """Win rate of each model (default: 0 to the latest) against
        ``opponent`` (``"random"`` or a generation number) over ``games``
        games at ``readouts`` (default ``match_readouts``); the matches are
        kept in ``strength.json`` (:func:`mockgo.zero.match.win_rates`)."""
        models = range(self.latest + 1) if models is None else models
        return win_rates(self.layout.strength, self._side, self.config, opponent, games, models,
                         readouts=readouts, executor=self.executor, progress=progress)

    def elo_chain(self, generations, games, progress=True):
        """The run's Elo ladder over ``generations`` (ascending; see
        :func:`mockgo.zero.report.elo_chain`): plays the matches it lacks,
        ``games`` games each at ``match_readouts`` (the first generation
        against the random player, each other against the one before; kept
        in ``strength.json`` like :meth:`strength`'s), and reads the chain
        back from the folder."""
        previous = "random"
        for generation in generations:
            self.strength(previous, games, models=[generation], progress=progress)
            previous = generation
        return elo_chain(self.base_dir, generations, games, self.config.match_readouts)


def _clock():
    return time.perf_counter(), time.process_time()


def _charge(rec, step, start):
    """Record a step's wall-clock and CPU seconds since ``start`` (_clock())."""
    wall, cpu = _clock()
    rec.setdefault("cost", {})[step] = [wall - start[0], cpu - start[1]]
