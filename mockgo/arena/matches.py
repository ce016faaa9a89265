"""``mockgo match``: N games between two players from the command line,
saved in a resumable folder (``matches/<time>-<A>-vs-<B>`` unless told
otherwise), with the table of :class:`~mockgo.play.results.MatchResult`::

    mockgo match --black random --white gnugo:level=1 --games 20 --size 9

The match engine itself is :func:`mockgo.play.match.match`, beside the game
runner, so that the learners below the arena can play matches too.
"""

import argparse
import datetime
import re
from pathlib import Path

from mockgo.cluster import add_cluster_options, executor_from_args
from mockgo.data.files import LOCK_FILE
from mockgo.play.match import match
from mockgo.play.match_folder import MATCH_SETTINGS
from mockgo.play.specs import spec_help

__all__ = ["configure_parser", "default_out_dir", "run_cli"]


def default_out_dir(spec_a, spec_b):
    """The match folder ``mockgo match`` uses without ``--out``, named after the two specs."""
    def clean(spec):
        return re.sub(r"[^A-Za-z0-9._=-]+", "_", spec).strip("_")[:40]
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return str(Path("matches") / f"{stamp}-{clean(spec_a)}-vs-{clean(spec_b)}")


def _remove_unplayed(folder):
    """Remove ``folder`` if it holds nothing but what a match writes before
    its first game (``match.json``, and the lock it held): a match that
    never played. A folder with a finished game is kept, to resume."""
    before_first_game = (MATCH_SETTINGS, LOCK_FILE)
    if not folder.is_dir() or any(p.name not in before_first_game for p in folder.iterdir()):
        return
    for name in before_first_game:
        (folder / name).unlink(missing_ok=True)
    folder.rmdir()


# ------------------------------------------------------------ command line


def configure_parser(parser):
    """The options of ``mockgo match``."""

    parser.description = ("Play games between two players, alternating colours, and report "
                          "the win rate and Elo difference with 95% intervals.")
    parser.epilog = "player specs (KIND or KIND:key=value,...):\n" + spec_help()
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--black", required=True, help="player A's spec (black in game 1)")
    parser.add_argument("--white", required=True, help="player B's spec (white in game 1)")
    parser.add_argument("--games", type=int, default=10, help="number of games (default 10)")
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument("--komi", type=float, default=7.5, help="komi (default 7.5)")
    parser.add_argument("--max-moves", type=int, help="move cap (default 2 * size * size)")
    parser.add_argument("--workers", type=int,
                        help="processes (default: one per core); with --cluster ray, Ray "
                             "workers (default: as many as the cluster's CPUs allow)")
    parser.add_argument("--games-per-task", type=int, default=1,
                        help="with workers: games a worker plays in lockstep per task "
                             "(default 1; more for network players, one call per step)")
    parser.add_argument("--out", help="folder for the SGF files "
                        "(default matches/<time>-<A>-vs-<B>)")
    parser.add_argument("--scorer", default="auto", choices=["auto", "gnugo", "tromp-taylor"],
                        help="dead stones by GnuGo, or every stone alive (default: GnuGo "
                             "if installed)")
    parser.add_argument("--seed", type=int, default=0, help="the match's seed (default 0)")
    parser.add_argument("--quiet", action="store_true", help="print only the table")
    add_cluster_options(parser)
    return parser


def run_cli(args):
    """``mockgo match``: play (or resume) the match, then print its result."""
    out_dir = args.out or default_out_dir(args.black, args.white)
    new_folder = not Path(out_dir).exists()
    executor = None
    try:
        executor = executor_from_args(args, workers=args.workers)
        result = match(args.black, args.white, games=args.games, size=args.size, komi=args.komi,
                       max_moves=args.max_moves, workers=args.workers, out_dir=out_dir,
                       scorer=args.scorer, seed=args.seed, verbose=not args.quiet,
                       cluster=executor, games_per_task=args.games_per_task)
    except BaseException:
        # A match that failed before its first game (a player that cannot
        # start, a bad size or komi) must not leave a timestamped folder
        # behind each time it is tried.
        if new_folder:
            _remove_unplayed(Path(out_dir))
        raise
    finally:
        if executor is not None:
            executor.close()
    if args.quiet:
        print(result.table())
    return 0
