"""``python -m mockgo.zero``: see :mod:`mockgo.zero.cli`."""

import sys

from mockgo.zero.cli import main

sys.exit(main())
