"""The GTP engine's old command: ``python -m mockgo.arena.gtp`` starts the
engine of :mod:`mockgo.gtp.server` (its command line :mod:`mockgo.gtp.cli`),
for controllers set up with that command. Nothing is imported from here:
the engine's names live in :mod:`mockgo.gtp`.
"""

import sys

from mockgo.gtp.cli import main

if __name__ == "__main__":
    sys.exit(main())
