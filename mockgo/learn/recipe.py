"""AlphaGo's recipe at its real scale, in one command, stage by stage.

``mockgo recipe --preset gpu --archives data/kgs --folder runs/recipe`` runs,
from the KGS archives, each stage that is not done yet:

``dataset``
    :func:`mockgo.data.dataset.build_dataset` in one worker process per
    core (the same shards, byte for byte, as one process builds).
``sl``
    AlphaGo's SL policy network, 13 convolutions of 192 filters
    (:func:`mockgo.nets.models.policy_network`), trained with
    :func:`mockgo.learn.supervised.train_policy` (Adam, a cosine schedule,
    a random symmetry per position, mixed bfloat16 where the device computes
    it) for a *time budget*: the stage first times the compiled training
    step on one batch held in memory
    (:func:`~mockgo.learn.trainers.step_rate`) and sizes its
    epochs so that the schedule ends when the budget does. Then it scores
    the network on the test split (top-1 and top-5, positions where the
    expert played a point) and saves it for play as ``sl-policy.keras``.

``value``
    AlphaGo's value network: one position per game of the SL policy's
    self-play (sampled moves, one uniformly random move, the position after
    it, the game played out; the games in one worker process per core),
    trained with early stopping and scored by phase of the game on held-out
    positions against always guessing 0; saved as ``value-network.keras``.

Every stage resumes where it stopped: the dataset build and the training
run keep their own checkpoints, and ``recipe.json`` (rewritten atomically
after each stage) records each finished stage's results, its wall time and
the device it ran on, so a stage done is not done again. The plan of the
``sl`` stage (its epochs and steps) is recorded before training starts, so
that a resumed run keeps it.

A recipe's sizes are a :class:`~mockgo.learn.recipe_config.RecipeConfig`;
its presets (:data:`mockgo.learn.recipe_config.PRESETS`): ``gpu``, AlphaGo's
sizes for one GPU (about 56,000 positions a second on an H200 for 13 x 192
in mixed bfloat16, measured); ``cpu``, the 6 x 64 network of ``sl-19`` for a
laptop's hours; ``tiny``, a few games and a network of 2 x 8 that runs every
stage in about a minute on a CPU (the tests run it).
"""

import dataclasses
import json
import math
import time
from pathlib import Path

import numpy as np

from mockgo.cluster import Processes, local_workers
from mockgo.data.dataset import DatasetSpec, build_dataset
from mockgo.data.files import atomic_write_text, read_json
from mockgo.learn.recipe_config import PRESETS
from mockgo.learn.value import mse_by_phase, predict_values, value_dataset
from mockgo.nets.device import compute_device, resolve_precision
from mockgo.nets.io import load_model, save_for_play

__all__ = ["STAGES", "run_recipe"]

STAGES = ("dataset", "sl", "value")  #: The recipe's stages, in order.
RECORD = "recipe.json"


def _record(folder):
    return read_json(Path(folder) / RECORD, "the recipe's finished stages", missing_ok=True) or {}


def _save_record(folder, record):
    atomic_write_text(Path(folder) / RECORD, json.dumps(record, indent=1) + "\n")


def run_recipe(sources, folder, config=PRESETS["gpu"], stages=STAGES, workers=None, log=print):
    """Run the recipe's ``stages`` that are not done yet in ``folder``, on
    the SGF archives (or folders) ``sources``, with ``config``; ``workers``
    dataset processes (default: one per core). Returns the record of
    ``recipe.json``: per stage, its results, ``seconds`` and ``device``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    unknown = [stage for stage in stages if stage not in STAGES]
    if unknown:
        raise ValueError(f"unknown stage(s) {', '.join(unknown)}; the stages are "
                         f"{', '.join(STAGES)}")
    record = _record(folder)
    record.setdefault("config", dataclasses.asdict(config))
    if record["config"] != dataclasses.asdict(config):
        raise ValueError(f"{folder / RECORD} was made with other settings ({record['config']}); "
                         f"use another folder")
    record.setdefault("stages", {})
    for stage in stages:
        if stage in record["stages"]:
            log(f"{stage}: done before ({record['stages'][stage]['seconds']:.0f} s)")
            continue
        started = time.perf_counter()
        results = {"dataset": _dataset_stage, "sl": _sl_stage, "value": _value_stage}[stage](
            sources, folder, config, workers, log)
        results.update(seconds=round(time.perf_counter() - started, 1), device=compute_device())
        record["stages"][stage] = results
        _save_record(folder, record)
        log(f"{stage}: done in {results['seconds']:.0f} s on {results['device']}")
    return record


def _dataset_stage(sources, folder, config, workers, log):
    spec = DatasetSpec(encoder=config.encoder, board_size=config.board_size)
    workers = local_workers(workers)
    started = time.perf_counter()
    manifest = build_dataset(sources, folder / "dataset", spec, workers=workers,
                             max_games=config.max_games, progress=False)
    seconds = time.perf_counter() - started
    log(f"dataset: {manifest['games_kept']:,} games, {manifest['positions']['train']:,} "
        f"training positions, {workers} processes")
    return {"games": manifest["games_kept"], "positions": manifest["positions"],
            "workers": workers, "games_per_second": round(manifest["games_looked_at"] / seconds, 1)}


def _sl_stage(sources, folder, config, workers, log):
    # Keras: imported only when a network is trained (the dataset stage and
    # `mockgo recipe --help` need none of it).
    from mockgo.learn.supervised import played_positions
    from mockgo.learn.trainers import train_policy_on_dataset

    dataset = folder / "dataset"
    done = train_policy_on_dataset(dataset, folder / "sl-policy.keras", folder / "sl",
                                   config.layers, config.filters, config.epochs,
                                   seconds=config.train_seconds, plan_path=folder / "sl_plan.json",
                                   batch_size=config.batch_size,
                                   learning_rate=config.learning_rate, seed=config.seed,
                                   precision=config.precision,
                                   validation_steps=config.validation_steps,
                                   log=lambda line: log(f"sl: {line}"))
    net, plan, history, scores = done.network, done.plan, done.history, done.scores
    trained_seconds = float(np.nansum(history.get("seconds", [])))
    positions = plan["epochs"] * plan["steps_per_epoch"] * config.batch_size
    results = {"parameters": int(net.count_params()), "precision": done.precision,
               "step_rate": plan["step_rate"], "positions_trained": positions,
               "epochs_of_data": round(positions / max(1, played_positions(dataset, "train")), 2),
               "training_seconds": round(trained_seconds, 1),
               "pipeline_rate": round(positions / trained_seconds) if trained_seconds else None,
               "validation_top1": [round(100 * v, 2) for v in history.get("val_top1", [])],
               "test_positions": played_positions(dataset, "test"),
               "test_top1": _figure(100 * scores["top1"], 2),
               "test_top5": _figure(100 * scores["top5"], 2)}
    log(f"sl: test top-1 {results['test_top1']}%, top-5 {results['test_top5']}% on "
        f"{results['test_positions']:,} positions; {results['training_seconds']:.0f} s of "
        f"training at {results['pipeline_rate']:,} positions/s")
    return results


def _figure(value, digits=3):
    """A measured number for recipe.json: rounded, or None where nothing was
    measured (NaN is not JSON, and is not equal to itself)."""
    value = float(value)
    return None if math.isnan(value) else round(value, digits)


def _value_stage(sources, folder, config, workers, log):
    """AlphaGo's value network on one position per game of the SL policy's
    self-play (:func:`mockgo.learn.value.value_dataset`: moves sampled from
    the policy, one uniformly random move, the position after it, the game
    played out), split 80/10/10 as notebook 02 splits it, trained with
    early stopping, and scored by phase of the game on its test tenth
    against always guessing 0 (notebook 02's table)."""
    from mockgo.learn.trainers import train_value_on_positions  # Keras: only when one is trained

    policy_file = folder / "sl-policy.keras"
    if not policy_file.is_file():
        raise FileNotFoundError(f"{policy_file} is missing: run the sl stage first")
    policy = load_model(policy_file)
    cluster = None
    workers = local_workers(workers)
    if workers > 1:
        cluster = Processes(workers)
    started = time.perf_counter()
    data = value_dataset(policy, config.value_games, config.board_size, batch=config.value_batch,
                         rng=config.seed, folder=folder / "value_data", cluster=cluster)
    play_seconds = time.perf_counter() - started
    log(f"value: {len(data):,} positions from {data.games_played:,} games "
        f"({play_seconds:.0f} s, {workers} processes)")
    order = np.random.default_rng(config.seed).permutation(len(data))
    train, validation, test = np.split(order, [int(0.8 * len(data)), int(0.9 * len(data))])
    precision = resolve_precision(config.precision)
    net, history = train_value_on_positions(
        data.planes[train], data.outcomes[train],
        (data.planes[validation], data.outcomes[validation]), config.board_size,
        config.value_layers, config.value_filters, precision=precision, seed=config.seed,
        epochs=config.value_epochs, batch_size=config.value_batch_size,
        symmetries=config.value_symmetries, patience=3, checkpoint_dir=folder / "value_fit")
    edges = np.linspace(1, data.steps.max() + 1, 4).round().astype(int)
    table = mse_by_phase(predict_values(net, data.planes[test]), data.outcomes[test],
                         data.steps[test], edges)
    save_for_play(net, folder / "value-network.keras")
    phases = [f"moves {low}-{high - 1}" for low, high in zip(edges[:-1], edges[1:])]
    results = {"positions": len(data), "games_played": int(data.games_played),
               "play_seconds": round(play_seconds, 1), "precision": precision,
               "epochs": len(history["loss"]), "seed": history["seed"],
               "validation_mse": [round(v, 4) for v in history.get("val_loss", [])],
               "test_positions": int(len(test)), "phases": phases,
               "test_mse": [_figure(v) for v in table["network"]],
               "constant_mse": [_figure(v) for v in table["constant"]],
               "counts": [int(c) for c in table["count"]]}
    log(f"value: test MSE by phase {results['test_mse']} against always 0 "
        f"{results['constant_mse']} ({', '.join(phases)})")
    return results


# ------------------------------------------------------------ command line


def configure_parser(parser):
    """The options of ``mockgo recipe``."""
    parser.description = ("AlphaGo's recipe at its real scale: build the dataset from the KGS "
                          "archives, train the 13x192 SL policy for a time budget and score it "
                          "on the test split, then the value network on one position per game "
                          "of its self-play. Resumable: run it again to go on.")
    parser.add_argument("--archives", default="data/kgs",
                        help="folder of KGS archives (data/download.sh), or one archive")
    parser.add_argument("--folder", default="runs/recipe", help="where the stages keep their work")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="gpu",
                        help="gpu: AlphaGo's sizes on one GPU; cpu: sl-19's 6x64 for hours on a "
                             "laptop; tiny: every stage in a minute (tests)")
    parser.add_argument("--stages", default=",".join(STAGES),
                        help=f"comma-separated, of {', '.join(STAGES)} (default: all)")
    parser.add_argument("--train-seconds", type=float, default=None,
                        help="the SL stage's training budget (default: the preset's)")
    parser.add_argument("--workers", type=int, default=None,
                        help="dataset processes (default: one per core)")
    return parser


def run_cli(args):
    archives = Path(args.archives)
    if not archives.exists():
        raise FileNotFoundError(f"no archives at {archives}: fetch them with data/download.sh "
                                f"or name them with --archives")
    sources = sorted(archives.glob("*.tar.gz")) if archives.is_dir() else [archives]
    if not sources:
        raise FileNotFoundError(f"no .tar.gz archives in {archives}")
    config = PRESETS[args.preset]
    if args.train_seconds is not None:
        if not (math.isfinite(args.train_seconds) and args.train_seconds > 0):
            raise ValueError(f"--train-seconds must be a positive number, "
                             f"not {args.train_seconds}")
        config = dataclasses.replace(config, train_seconds=args.train_seconds)
    stages = [stage.strip() for stage in args.stages.split(",") if stage.strip()]
    record = run_recipe(sources, args.folder, config, stages, workers=args.workers)
    print(json.dumps(record["stages"], indent=1))
    return 0
