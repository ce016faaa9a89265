"""The ``mockgo`` command: ``mockgo SUBCOMMAND [options]``.

::

    mockgo gtp --player random                      # a GTP engine on stdin/stdout
    mockgo match --black random --white gnugo:level=1 --games 20 --size 9
    mockgo ladder --player policy:path=models/sl.keras --games 10
    mockgo zero --base-dir runs/zero9 --board-size 9  # AlphaGo Zero's loop
    mockgo evaluate runs/01_supervised/full/policy.keras games/  # top-1, top-5
    mockgo recipe --preset gpu --archives data/kgs    # the 13x192 SL policy on a GPU
    mockgo dataset data/kgs --out runs/kgs-dataset    # SGF archives to training shards
    mockgo train policy --dataset runs/kgs-dataset --out runs/sl.keras
    mockgo play policy:pretrained=sl-19                # a game in the terminal
    mockgo show game.sgf --move 40                    # a record or Zero's examples, drawn
    mockgo notebooks ~/mockgo-series                  # the notebooks, to open in JupyterLab

Each subcommand lives in a module with two functions,
``configure_parser(parser)`` (add its options to an argparse parser) and
``run_cli(args)`` (do the work, return the exit status). Adding a
subcommand is one entry in :data:`SUBCOMMANDS`: its name, the module, and
a one-line help. Modules are imported only when their subcommand runs (or
for ``--help``), so ``mockgo gtp`` does not pay for TensorFlow or matplotlib.

Exit status: 0 done; 2 for bad input named on the command line (argparse's
own usage errors, and :class:`~mockgo.errors.InputError`: a missing archive, an unknown
name), with one line on stderr naming it; 1 for any other failure.
"""

import argparse
import importlib
import sys

import mockgo
from mockgo.cluster import share_one_gpu
from mockgo.errors import InputError

__all__ = ["SUBCOMMANDS", "build_parser", "main"]

#: ``name: (module, one-line help)`` for each subcommand of ``mockgo``.
SUBCOMMANDS = {
    "gtp": ("mockgo.gtp.cli", "play over GTP (for Sabaki, GoGui, gogui-twogtp...)"),
    "match": ("mockgo.arena.matches", "play N games between two players; win rate and Elo"),
    "ladder": ("mockgo.arena.ladder", "rate players in Elo against random and GnuGo"),
    "zero": ("mockgo.zero.cli", "AlphaGo Zero's self-play loop, resumable"),
    "evaluate": ("mockgo.arena.evaluation", "score a policy network on SGF games: top-1, top-5"),
    "models": ("mockgo.pretrained", "list the trained networks that ship with mockgo"),
    "recipe": ("mockgo.learn.recipe", "AlphaGo's recipe at scale: dataset, SL policy, value network"),
    "dataset": ("mockgo.data.dataset_cli", "build a training dataset from SGF archives or folders"),
    "train": ("mockgo.learn.train_cli", "train a policy or value network on a dataset"),
    "play": ("mockgo.board_widget.terminal", "play a game in the terminal against any player"),
    "show": ("mockgo.data.show", "print an SGF record or a Zero examples file, position by position"),
    "notebooks": ("mockgo.notebook_folder", "copy the notebooks into a folder, for JupyterLab"),
}


def build_parser(argv=None):
    """The parser; only the chosen subcommand's module is imported (all of
    them when no subcommand is given, for the help text)."""

    parser = argparse.ArgumentParser(
        prog="mockgo", description="mockgo: play, match and rate Go players.")
    parser.add_argument("--version", action="version", version=f"mockgo {mockgo.__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    argv = sys.argv[1:] if argv is None else argv
    chosen = next((word for word in argv if not word.startswith("-")), None)
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sub = commands.add_parser(name, help=help_text)
        if chosen in (None, name) or chosen not in SUBCOMMANDS:
            module = importlib.import_module(module_name)
            module.configure_parser(sub)
            sub.set_defaults(run=module.run_cli)
    return parser


def main(argv=None):
    """Run ``mockgo`` with ``argv`` (default: the command line's arguments);
    returns the exit status (module docstring)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(argv).parse_args(argv)
    share_one_gpu()  # before any network loads: a command's workers share the GPU with it
    try:
        return args.run(args) or 0
    except KeyboardInterrupt:
        return 130
    except InputError as error:
        print(f"mockgo {args.command}: error: {error}", file=sys.stderr)
        return 2
    except (ValueError, RuntimeError, OSError) as error:
        print(f"mockgo {args.command}: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
