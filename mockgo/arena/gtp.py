"""The GTP engine's old address: the engine is :mod:`mockgo.gtp.server`
(its command line :mod:`mockgo.gtp.cli`). ``python -m mockgo.arena.gtp``
still starts it, for controllers set up with that command.
"""

import sys

from mockgo.gtp.cli import configure_parser, main, run_cli
from mockgo.gtp.clock import CLOCK_MARGIN, GameClock
from mockgo.gtp.protocol import GTPFailure, preprocess
from mockgo.gtp.server import GTPServer, free_handicap_points

__all__ = ["CLOCK_MARGIN", "GTPFailure", "GTPServer", "GameClock", "configure_parser",
           "free_handicap_points", "main", "preprocess", "run_cli"]

if __name__ == "__main__":
    sys.exit(main())
