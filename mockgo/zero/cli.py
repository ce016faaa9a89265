"""``mockgo zero`` and ``python -m mockgo.zero``: the loop from the command line."""

import argparse
import dataclasses
import json
import os
import sys
from pathlib import Path

from mockgo import pretrained
from mockgo.cluster import add_cluster_options, executor_from_args, make_executor
from mockgo.data.files import FolderBusyError
from mockgo.nets.io import load_model
from mockgo.zero.config import ZeroConfig
from mockgo.zero.layout import RunLayout, is_loop_job, model_name, read_config
from mockgo.zero.run import bootstrap, generation_line, tower_of
from mockgo.zero.selfplay import selfplay_job

__all__ = ["config_from_args", "configure_parser", "main", "run_cli"]


DESCRIPTION = ("AlphaGo Zero's loop (self-play, gather, train, validate, evaluate), "
               "resumable: run the same command again to go on.")


def _parser():
    parser = argparse.ArgumentParser(prog="python -m mockgo.zero", description=DESCRIPTION)
    configure_parser(parser)
    return parser


def configure_parser(parser):
    """The options of ``mockgo zero`` and ``python -m mockgo.zero``."""
    parser.description = DESCRIPTION
    parser.add_argument("--base-dir", required=True, type=Path, help="the run's folder")
    # default None, not 10: a --test run's default is 2, and "--generations 10"
    # given must stay 10 (generations_wanted).
    parser.add_argument("--generations", type=int, default=None,
                        help="go on until this many generations are trained (default 10; "
                             "2 with --test)")
    parser.add_argument("--test", action="store_true",
                        help="a tiny network, few games and readouts: the whole loop in a minute")
    parser.add_argument("--board-size", type=int)
    parser.add_argument("--games", type=int, help="self-play games per generation")
    parser.add_argument("--readouts", type=int, help="simulations per move")
    parser.add_argument("--blocks", type=int)
    parser.add_argument("--filters", type=int)
    parser.add_argument("--init", type=Path, metavar="MODEL",
                        help="start from this dual network (a .keras file, e.g. trained on KGS "
                             "games, or the name of a shipped one: zero-9) instead of random "
                             "weights; --blocks and --filters default to its own")
    parser.add_argument("--no-evaluate", action="store_true",
                        help="no evaluation matches: every new model plays at once (AlphaZero)")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--katago", action="store_true",
                        help="KataGo's changes (Wu 2019) on: ownership and score heads, global "
                             "pooling, playout cap randomization, forced playouts and policy "
                             "target pruning (ZeroConfig.with_katago; --set any of their "
                             "fields to change one)")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                        help="any other ZeroConfig field, e.g. --set eval_games=20")
    parser.add_argument("--selfplay-only", action="store_true",
                        help="only play self-play games (--games of them) with --model")
    parser.add_argument("--model", type=Path,
                        help="with --selfplay-only: the model (default: the run's best)")
    parser.add_argument("--job", default="selfplay",
                        help="with --selfplay-only: the job's name (default selfplay); its "
                             "finished batches join the training window of every generation "
                             "that the model's own games are in")
    parser.add_argument("--validate-only", action="store_true",
                        help="only print the losses of --generation's model (default: the "
                             "latest) on its window's held-out games (MiniGo's --validation)")
    parser.add_argument("--evaluate-only", action="store_true",
                        help="only play --games games (default eval_games) between --generation's "
                             "model (default: the latest) and --opponent's (default: the best, "
                             "or the one before when that is the same); promotes nothing "
                             "(MiniGo's --evaluation)")
    parser.add_argument("--generation", type=int,
                        help="with --validate-only or --evaluate-only: the model (default: the "
                             "latest)")
    parser.add_argument("--opponent", type=int,
                        help="with --evaluate-only: the other model (default: the best)")
    parser.add_argument("--restart", action="store_true",
                        help="delete the run in --base-dir (its models, games and state) and "
                             "start over; needed where its state.json is missing or damaged")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.add_argument("--workers", type=int,
                        help="self-play and match workers: without --cluster, worker "
                             "processes on this machine, the cores shared out among them "
                             "(default 1: all in this process; 2 on 2 cores made self-play "
                             "faster, README); with --cluster ray, Ray workers (default: as "
                             "many as the cluster's CPUs allow, --cpus-per-worker each)")
    add_cluster_options(parser, trainer=True).description = (
        "self-play batches and match games on Ray workers that keep each model's network "
        "warm; training and the run folder stay with this command (on this machine)")
    return parser


def _parse_value(field, text):
    kind = {f.name: f.type for f in dataclasses.fields(ZeroConfig)}[field]
    if text.lower() == "none":
        return None
    kind = str(kind)
    if "bool" in kind:
        if text.lower() not in ("1", "0", "true", "false", "yes", "no"):
            raise ValueError(f"{field}: {text!r} is not a boolean")
        return text.lower() in ("1", "true", "yes")
    if "int" in kind:
        return int(text)
    if "float" in kind:
        return float(text)
    return text


def config_from_args(args):
    """The ZeroConfig the command line asks for: the run's stored config if
    ``--base-dir`` has one and ``--restart`` is not given (options that
    disagree with it are an error), else the defaults (``--test``:
    :meth:`ZeroConfig.for_test`) with the options. ``--katago`` switches
    KataGo's set on (:meth:`ZeroConfig.with_katago`) after the named
    options (so the fast searches follow ``--readouts``) and before the
    ``--set`` fields (so ``--set`` changes any field of the set)."""
    changes = {}
    for option, field in (("board_size", "board_size"), ("games", "games_per_generation"),
                          ("readouts", "readouts"), ("blocks", "blocks"), ("filters", "filters"),
                          ("seed", "seed")):
        if getattr(args, option) is not None:
            changes[field] = getattr(args, option)
    if args.no_evaluate:
        changes["evaluate"] = False
    if getattr(args, "init", None) is not None:
        args.init = _init_model(args.init)
        changes["init_model"] = str(args.init.resolve())
        if args.blocks is None or args.filters is None:
            blocks, filters = tower_of(load_model(args.init))
            changes.setdefault("blocks", blocks)
            changes.setdefault("filters", filters)
    settings = {}
    for item in args.set:
        field, eq, text = item.partition("=")
        if not eq or field not in {f.name for f in dataclasses.fields(ZeroConfig)}:
            raise ValueError(f"--set {item!r}: expected FIELD=VALUE with a ZeroConfig field")
        settings[field] = _parse_value(field, text)
    stored = None
    if not getattr(args, "restart", False):
        stored = read_config(RunLayout(args.base_dir).config, missing_ok=True,
                             remedy="To delete the run and start over, add --restart")
    if stored is not None:
        config = stored
        if (args.selfplay_only or args.evaluate_only) and "games_per_generation" in changes:
            del changes["games_per_generation"]  # --games is the job's or the match's size there
    else:
        config = ZeroConfig.for_test() if args.test else ZeroConfig()
    config = dataclasses.replace(config, **changes)
    if getattr(args, "katago", False):
        config = config.with_katago()
    return dataclasses.replace(config, **settings)


def _init_model(path):
    """``--init``'s network: the file, or where the shipped network of that
    name lies (:mod:`mockgo.pretrained`, the file checked against its card),
    so a run goes on from a committed network on a fresh machine."""
    if path.exists() or str(path) not in pretrained.names():
        return path
    return pretrained.checked_path(str(path))


def generations_wanted(args):
    """``--generations`` as given, else its default: 10, or 2 with ``--test``
    (the whole loop in a minute)."""
    if args.generations is not None:
        return args.generations
    return 2 if args.test else 10


def main(argv=None):
    """``python -m mockgo.zero --base-dir DIR [--generations N] [--test] ...``"""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # before TensorFlow is imported
    return run_cli(_parser().parse_args(argv))


def _error(error):
    """A bad option or a busy folder: one line on stderr, exit status 2."""
    print(f"error: {error}", file=sys.stderr)
    return 2


def run_cli(args):
    """Run the loop (or ``--selfplay-only``) as the parsed options ask."""
    try:
        config = config_from_args(args)
    except (ValueError, FileNotFoundError) as error:  # FileNotFoundError: --init's model
        return _error(error)
    args.generations = generations_wanted(args)
    if args.workers is not None and args.workers < 1:
        return _error(f"--workers {args.workers}: give at least 1")
    if args.selfplay_only and is_loop_job(args.job):
        return _error(f"--job {args.job}: names like gen000004 are the loop's own self-play "
                      f"jobs; give the extra job another name")
    try:
        executor = executor_from_args(args, workers=args.workers)
    except ValueError as error:
        return _error(error)
    if executor is None and (args.workers or 1) > 1:
        # This machine's worker processes, a share of the cores each.
        executor = make_executor(None, workers=args.workers)
    try:
        if executor is not None and executor.trainer_gpu_ids:
            # Before TensorFlow starts: training uses the GPUs Ray gave it, no other.
            os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(executor.trainer_gpu_ids)
        try:
            run = bootstrap(args.base_dir, config, restart=args.restart, cluster=executor)
        except (ValueError, FolderBusyError) as error:  # busy: a loop runs there (--restart)
            return _error(error)
        try:
            return _work(run, args, config)
        except FolderBusyError as error:  # another loop runs there
            return _error(error)
    finally:
        if executor is not None:
            executor.close()


def _work(run, args, config):
    if args.validate_only or args.evaluate_only:
        return _inspect(run, args, config)
    if args.selfplay_only:
        model = args.model or run.model_path(run.best)
        games = args.games or config.games_per_generation
        summary = selfplay_job(args.base_dir, model, games, config, job=args.job,
                               progress=not args.quiet, executor=run.executor)
        print(json.dumps({k: round(v, 3) if isinstance(v, float) else v
                          for k, v in summary.items()}))
        return 0

    def report(event, info):
        if event == "generation" and args.quiet:  # else run() prints it
            print(generation_line(run.record(info["generation"])), flush=True)

    run.run(args.generations, progress=not args.quiet, callback=report)
    print(f"{args.base_dir}: latest model {model_name(run.latest)}, best {model_name(run.best)}")
    return 0


def _inspect(run, args, config):
    """--validate-only and --evaluate-only: figures about trained models,
    printed as one JSON line; the run's state is left as it was."""
    generation = run.latest if args.generation is None else args.generation
    try:
        if args.validate_only:
            if not 0 <= generation <= run.latest:
                raise ValueError(f"{args.base_dir} has models of generations 0 to {run.latest}, "
                                 f"not {generation}")
            result = {"generation": generation, **run.validation(generation)}
        else:
            opponent = args.opponent
            if opponent is None:
                opponent = run.best if run.best != generation else generation - 1
            match = run.evaluation(generation, opponent, args.games, progress=not args.quiet)
            low, high = match.interval()
            result = {"generation": generation, "opponent": opponent, "games": match.n,
                      "wins": match.wins_a, "win_rate": match.win_rate,
                      "wilson_95": [round(low, 4), round(high, 4)]}
    except ValueError as error:
        return _error(error)
    print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in result.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
