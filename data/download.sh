#!/usr/bin/env bash
# Download the KGS game archives (KGS-*.tar.gz) into data/kgs/: `make data` runs this.
#
# A thin wrapper around mockgo/data/download.py, which holds the logic and the
# options (--collection 6d|4d, --list, --years, --archives, --games, --mirror,
# --dest, --verify;
# see `bash data/download.sh --help`). All arguments are passed through.
#
# It runs on the repository's .venv/bin/python when there is one, else on
# python3, and needs no install of mockgo. The file is run as a script rather
# than with `-m mockgo.data.download`: importing the mockgo package loads numpy and
# numba, which the downloader does not need and a bare python3 may not have.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -x "$repo_root/.venv/bin/python" ]; then
    python="$repo_root/.venv/bin/python"
else
    python="python3"
fi
export PYTHONPATH="$repo_root${PYTHONPATH:+:$PYTHONPATH}"
exec "$python" "$repo_root/mockgo/data/download.py" "$@"
