"""``mockgo train``: a policy or value network trained on a dataset, saved
with its card.

::

    mockgo dataset data/kgs --out runs/kgs                      # the dataset first
    mockgo train policy --dataset runs/kgs --out runs/sl.keras --layers 6 --filters 64
    mockgo train value --dataset runs/kgs --out runs/value.keras --epochs 10

writes the network, saved for play (:func:`mockgo.nets.io.save_for_play`),
and its *card* beside it (``runs/sl.json``, the shape of the cards of the
networks that ship with mockgo, :mod:`mockgo.pretrained`): the architecture,
the dataset it learned from, the device, precision and Keras backend that
trained it, how long it took, and its score on the dataset's test split
(top-1 and top-5 for a policy; mean squared error beside always guessing 0
for a value network).

The training itself is :mod:`mockgo.learn.trainers`', as ``mockgo recipe``'s is:
a policy network is trained by :func:`mockgo.learn.supervised.train_policy`
on the dataset's shards, a value network by
:func:`mockgo.learn.value.fit_value_network` on positions of the dataset held
in memory, each predicting the result of the game for the side
to move. ``--seconds`` sizes the policy's epochs by the speed of its
compiled step, as ``mockgo recipe`` does (:func:`mockgo.learn.trainers.timed_plan`).
Both keep their checkpoints in a folder beside the network
(``runs/sl.keras.run/``), so the same command run again after an
interruption goes on where it stopped.

A value network learned from expert games sees many positions of each game,
all with the same result, and tends to remember the games rather than
judge positions (AlphaGo's paper measured this; it learned from one position
per game of self-play instead, :mod:`mockgo.learn.recipe`'s value stage).
The test split's score shows how far that went.
"""

import datetime
import json
import math
from pathlib import Path

from mockgo.data.files import atomic_write_text
from mockgo.errors import InputError
from mockgo.nets.architectures import ARCHITECTURES

__all__ = ["card_path", "configure_parser", "run_cli", "train_policy_network",
           "train_value_network"]

KINDS = ("policy", "value")


def card_path(network_path):
    """The card of a network file: ``sl.keras`` -> ``sl.json`` beside it."""
    return Path(network_path).with_suffix(".json")


def run_folder(network_path):
    """Where the training of ``network_path`` keeps its checkpoints."""
    return Path(f"{network_path}.run")


def _percent(fraction):
    return None if math.isnan(fraction) else round(100 * float(fraction), 2)


def train_policy_network(dataset, out, layers=6, filters=64, epochs=4, seconds=None,
                         batch_size=128, learning_rate=1e-3, seed=0, precision="auto",
                         validation_steps=None, progress="epoch"):
    """Train a policy network of ``layers`` x ``filters`` on the dataset in
    ``dataset`` for ``epochs`` epochs (each one pass over the train split),
    or, given ``seconds``, for about that long; save it for play to ``out``
    and return its card (written beside it, :func:`card_path`). The training
    is :func:`mockgo.learn.trainers.train_policy_on_dataset`'s."""
    # Only when a network is trained: `mockgo train --help` and the other
    # commands import this module and must not load Keras.
    from mockgo.learn.supervised import played_positions
    from mockgo.learn.trainers import train_policy_on_dataset
    from mockgo.nets.io import trained_by

    folder = run_folder(out)
    folder.mkdir(parents=True, exist_ok=True)
    done = train_policy_on_dataset(dataset, out, folder / "training", layers, filters, epochs,
                                   seconds=seconds, plan_path=folder / "plan.json",
                                   batch_size=batch_size, learning_rate=learning_rate, seed=seed,
                                   precision=precision, validation_steps=validation_steps,
                                   progress=progress)
    history, scores = done.history, done.scores
    results = {"test_positions": played_positions(dataset, "test"),
               "test_top1": _percent(scores["top1"]), "test_top5": _percent(scores["top5"]),
               "validation_top1_by_epoch": [round(100 * v, 2)
                                            for v in history.get("val_top1", [])]}
    training = {"epochs": epochs, "batch_size": batch_size, "learning_rate": learning_rate,
                "steps_per_epoch": done.steps_per_epoch, "seed": seed,
                "seconds": round(sum(v for v in history.get("seconds", [])
                                     if not math.isnan(v)), 1)}
    headline = (f"{results['test_top1']}% top-1, {results['test_top5']}% top-5 on "
                f"{results['test_positions']:,} test positions")
    return _write_card(out, done.network, {"layers": layers, "filters": filters}, dataset,
                       done.manifest, training, trained_by(done.network), results, headline)


def train_value_network(dataset, out, layers=6, filters=64, epochs=4, batch_size=64,
                        learning_rate=1e-3, seed=0, precision="auto", max_positions=200_000,
                        patience=3, progress=True):
    """Train a value network of ``layers`` x ``filters`` on positions of the
    dataset in ``dataset`` (the first ``max_positions`` of its train split,
    held in memory), with early stopping on its validation split; save it
    for play to ``out`` and return its card (module docstring). The training
    is :func:`mockgo.learn.trainers.train_value_on_positions`'s."""
    import numpy as np

    # Only when a network is trained (as in train_policy_network).
    from mockgo.data.dataset import load_split, read_manifest
    from mockgo.learn.trainers import train_value_on_positions
    from mockgo.learn.value import predict_values
    from mockgo.nets.io import save_for_play, trained_by

    manifest = read_manifest(dataset)
    size, encoder = manifest["spec"]["board_size"], manifest["spec"]["encoder"]
    splits = {}
    for split in ("train", "validation", "test"):
        if manifest["positions"][split]:
            planes, _, outcomes = load_split(dataset, split, max_positions)
            splits[split] = (planes, outcomes)
    if "train" not in splits:
        raise ValueError(f"the train split of {dataset} is empty: nothing to learn from")
    net, history = train_value_on_positions(
        *splits["train"], splits.get("validation"), size, layers, filters, encoder=encoder,
        precision=precision, seed=seed, epochs=epochs, batch_size=batch_size,
        learning_rate=learning_rate, patience=patience if "validation" in splits else None,
        checkpoint_dir=run_folder(out), progress=progress)
    results = {"validation_mse_by_epoch": [round(v, 4) for v in history.get("val_loss", [])]}
    headline = "no test positions"
    if "test" in splits:
        planes, outcomes = splits["test"]
        mse = float(np.mean((predict_values(net, planes) - outcomes) ** 2))
        constant = float(np.mean(outcomes.astype(np.float64) ** 2))
        results.update(test_positions=int(len(outcomes)), test_mse=round(mse, 4),
                       constant_mse=round(constant, 4))
        headline = (f"test MSE {mse:.4f} against {constant:.4f} for always 0, on "
                    f"{len(outcomes):,} test positions")
    trained = trained_by(net)
    save_for_play(net, out)
    training = {"epochs": len(history["loss"]), "max_epochs": epochs, "batch_size": batch_size,
                "learning_rate": learning_rate, "positions": int(len(splits["train"][1])),
                "seed": history["seed"]}
    return _write_card(out, net, {"layers": layers, "filters": filters}, dataset, manifest,
                       training, trained, results, headline)


def _write_card(out, net, architecture, dataset, manifest, training, trained, results, headline):
    """The card of a network trained here, written beside it (atomically),
    its builder named by the network's architecture
    (:data:`~mockgo.nets.architectures.ARCHITECTURES`)."""
    from mockgo.nets.io import model_info  # only when a network is trained

    info = model_info(net)
    card = {"name": Path(out).stem, "file": Path(out).name, "kind": info.kind,
            "encoder": info.encoder, "board_size": info.board_size,
            "architecture": {"builder": ARCHITECTURES[net.mockgo_architecture].builder,
                             **architecture,
                             "parameters": int(net.count_params())},
            "training": {"dataset": str(dataset),
                         "sources": [Path(source).name for source in manifest["sources"]],
                         "games": manifest["games_kept"],
                         "positions_by_split": manifest["positions"], **training},
            "trained_by": trained, "results": results, "headline": headline,
            "date": datetime.date.today().isoformat()}
    atomic_write_text(card_path(out), json.dumps(card, indent=1) + "\n")
    return card


# ------------------------------------------------------------ command line


def configure_parser(parser):
    """The options of ``mockgo train``."""
    parser.description = (
        "Train a policy or value network on a dataset (mockgo dataset builds one) and write it "
        "with its card (NAME.json beside it): the data, the device, precision and backend that "
        "trained it, and its score on the test split. Resumable: run the same command again.")
    parser.add_argument("kind", choices=KINDS, help="policy: the expert's move; value: the "
                                                    "game's result for the side to move")
    parser.add_argument("--dataset", required=True, help="a dataset folder (mockgo dataset)")
    parser.add_argument("--out", required=True, help="the network's file, NAME.keras")
    parser.add_argument("--layers", type=int, default=6, help="convolutions (default 6)")
    parser.add_argument("--filters", type=int, default=64, help="filters each (default 64)")
    parser.add_argument("--epochs", type=int, default=4,
                        help="epochs (policy: passes over the train split, or the epochs of "
                             "--seconds; value: the most, with early stopping); default 4")
    parser.add_argument("--seconds", type=float,
                        help="policy: train for about this long instead of whole passes")
    parser.add_argument("--batch", type=int, default=None,
                        help="positions a step (default 128 for a policy, 64 for a value)")
    parser.add_argument("--learning-rate", type=float, default=1e-3, help="Adam's (default 1e-3)")
    parser.add_argument("--seed", type=int, default=0, help="weights and data order")
    parser.add_argument("--precision", default="auto",
                        help="auto (bfloat16 where the device computes it), float32 or "
                             "mixed_bfloat16")
    parser.add_argument("--max-positions", type=int, default=200_000,
                        help="value: positions of each split held in memory (default 200,000)")
    return parser


def run_cli(args):
    """``mockgo train policy|value``: train the network the options describe."""
    from mockgo.nets.device import PRECISIONS  # only when the command runs, not for --help

    if not (Path(args.dataset) / "dataset.json").is_file():
        raise InputError(f"no dataset in {args.dataset} (its dataset.json is missing; build "
                         f"one with mockgo dataset)")
    if Path(args.out).suffix != ".keras":
        raise InputError(f"--out {args.out}: a network file ends in .keras")
    if args.precision not in ("auto", *PRECISIONS):
        raise InputError(f"--precision {args.precision!r}: auto, {', '.join(PRECISIONS)}")
    for name in ("layers", "filters", "epochs", "batch", "max_positions"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise InputError(f"--{name.replace('_', '-')} must be at least 1, not {value}")
    if args.seconds is not None and not (math.isfinite(args.seconds) and args.seconds > 0):
        raise InputError(f"--seconds must be a positive number, not {args.seconds}")
    if args.kind == "value" and args.seconds is not None:
        raise InputError("--seconds times a policy's training; a value network stops early "
                         "on its validation split (--epochs is the most)")
    if args.kind == "policy":
        card = train_policy_network(args.dataset, args.out, args.layers, args.filters,
                                    args.epochs, args.seconds, args.batch or 128,
                                    args.learning_rate, args.seed, args.precision)
    else:
        card = train_value_network(args.dataset, args.out, args.layers, args.filters,
                                   args.epochs, args.batch or 64, args.learning_rate, args.seed,
                                   args.precision, args.max_positions)
    trained = card["trained_by"]
    print(f"{args.out}: {card['headline']}; trained on {trained['device']} in "
          f"{trained['precision']} ({trained['backend']}); card {card_path(args.out)}")
    return 0
