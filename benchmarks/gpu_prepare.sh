#!/usr/bin/env bash
# What a lent GPU machine lacks, made ready here in the checkout's ignored
# folders, for benchmarks/gpu_*.sh to carry there (benchmarks/gpu_env.sh
# installs and uses them):
#   .whl    the wheels of Keras and the pure-Python packages the machine lacks
#           (Python 3.12 there; the versions of this checkout's .venv)
#   .gnugo  Debian's gnugo and libreadline8 packages, unpacked (no apt there)
#   .kgs    KGS archives, copied from ARCHIVES (only with KGS=1: gpu_recipe.sh
#           and gpu_notebook.sh read them; 64 MiB travel in all)
# Run from the repository root: [KGS=1 ARCHIVES=data/kgs] bash benchmarks/gpu_prepare.sh
set -euo pipefail
PY=${PY:-.venv/bin/python}
KGS=${KGS:-0}
ARCHIVES=${ARCHIVES:-data/kgs}
version() { "$PY" -c "import importlib.metadata as m; print(m.version('$1'))"; }
rm -rf .whl && mkdir .whl
for package in keras namex optree sgf; do
    "$PY" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
        --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux2014_x86_64 --platform any -d .whl "$package==$(version "$package")"
done
rm -rf .gnugo && mkdir .gnugo
(cd /tmp && rm -f gnugo_*.deb libreadline8_*.deb && apt-get download gnugo libreadline8 >/dev/null)
for deb in /tmp/gnugo_*.deb /tmp/libreadline8_*.deb; do dpkg -x "$deb" .gnugo; done
LD_LIBRARY_PATH=$PWD/.gnugo/lib/x86_64-linux-gnu:$PWD/.gnugo/usr/lib/x86_64-linux-gnu \
    .gnugo/usr/games/gnugo --version | head -1
if [ "$KGS" = 1 ]; then
    rm -rf .kgs && mkdir .kgs && cp "$ARCHIVES"/*.tar.gz .kgs/
fi
du -sh .whl .gnugo $( [ "$KGS" = 1 ] && echo .kgs )
ls .whl
