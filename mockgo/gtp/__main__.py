"""``python -m mockgo.gtp``: the GTP engine (:mod:`mockgo.gtp.cli`)."""

import sys

from mockgo.gtp.cli import main

if __name__ == "__main__":
    sys.exit(main())
