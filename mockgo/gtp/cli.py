"""The engine's command line: ``mockgo gtp`` and ``python -m mockgo.gtp``
(see :mod:`mockgo.gtp.server` for what the engine does).

::

    python -m mockgo.gtp --player random
    mockgo gtp --player policy --model models/sl.keras --temperature 0.2
"""

import argparse
import io
import logging
import os
import sys

from mockgo.errors import positive_int
from mockgo.go.board import MAX_KOMI, check_komi
from mockgo.gtp.analysis import PONDER_VISITS
from mockgo.gtp.server import GTPServer
from mockgo.native_log import native_lines_dropped
from mockgo.play.specs import lazy_player, spec_help

log = logging.getLogger("mockgo.gtp")


def _komi_option(text):
    """``--komi``: a number within MAX_KOMI either way (argparse's message)."""
    try:
        return check_komi(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _one_line(text):
    """``--version-answer``: printable text on one line (a GTP answer's line)."""
    if not text.strip() or not text.isprintable():
        raise argparse.ArgumentTypeError(f"printable text on one line, not {text!r}")
    return text.strip()


def configure_parser(parser):
    """The options of ``mockgo gtp`` (and ``python -m mockgo.gtp``)."""
    parser.description = "Play over GTP version 2 on standard input and output."
    parser.epilog = "player kinds (--player KIND or a full spec KIND:key=value,...):\n" + spec_help()
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--player", default="random",
                        help="a player spec: random, random:seed=3, policy, "
                             "policy:path=m.keras,temperature=0.5, gnugo:level=1, gtp:cmd=...")
    parser.add_argument("--model", help="the .keras model of a policy player (its path=)")
    parser.add_argument("--encoder", help="a policy player's feature planes (default alphago48)")
    parser.add_argument("--temperature", type=float, help="a policy player's temperature")
    parser.add_argument("--seed", type=int, help="the player's random seed")
    parser.add_argument("--size", type=int, help="the board size at start (default: the "
                        "player's, else 19); controllers send boardsize anyway")
    parser.add_argument("--komi", type=_komi_option, default=7.5,
                        help=f"komi at start (default 7.5; at most {MAX_KOMI} either way)")
    parser.add_argument("--playouts", type=int, default=64,
                        help="random playouts to judge dead stones for final_score (default 64)")
    parser.add_argument("--ponder-visits", type=positive_int, default=PONDER_VISITS,
                        help="lz-analyze stops searching at this many visits and waits for the "
                             f"next command (default {PONDER_VISITS}; a 19x19 tree "
                             "takes about 44 KB a visit)")
    parser.add_argument("--name", default="mockgo", help="the engine's GTP name")
    parser.add_argument("--version-answer", metavar="TEXT", type=_one_line,
                        help="what the GTP command version answers (default: mockgo's version "
                             "and the player); Lizzie reads it as Leela Zero's version and "
                             "wants 0.15 or later: --version-answer 0.17")
    parser.add_argument("--verbose", "-v", action="count", default=0,
                        help="log to stderr: -v the engine's notes, -vv every command")
    return parser


def run_cli(args):
    """Run the engine as ``args`` say; returns the exit status."""
    # Before TensorFlow is imported (at the first genmove): its runtime's
    # info and warning lines would mix with the engine's on stderr.
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    logging.basicConfig(stream=sys.stderr, format="%(name)s: %(message)s",
                        level=[logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)])
    # GTP owns standard output: anything else that prints (a library's
    # progress bar) goes to standard error.
    gtp_out = sys.stdout
    sys.stdout = sys.stderr
    # newline="\n": lines end at LF only (a lone CR must not end a command;
    # preprocess() removes it), and nothing is translated.
    gtp_in = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace",
                              newline="\n")
    overrides = {"path": args.model, "encoder": args.encoder,
                 "temperature": args.temperature, "seed": args.seed}
    try:
        # Checked now, built at the first genmove: the controller's first
        # commands are answered at once, not after TensorFlow's import.
        player = lazy_player(args.player, loading=native_lines_dropped, **overrides)
        try:
            server = GTPServer(player, size=args.size, komi=args.komi, playouts=args.playouts,
                               ponder_visits=args.ponder_visits,
                               name=args.name, version=args.version_answer)
            log.info("mockgo GTP engine ready: %s", player.name)
            server.run(gtp_in, gtp_out)
        finally:
            player.close()
    finally:
        sys.stdout = gtp_out
    return 0


def main(argv=None):
    """``python -m mockgo.gtp``: the engine on stdin and stdout; returns the exit status."""
    parser = configure_parser(argparse.ArgumentParser(prog="python -m mockgo.gtp"))
    return run_cli(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
