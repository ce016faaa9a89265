# The set-up every script for a lent GPU machine shares; sourced, not run:
#   source benchmarks/gpu_env.sh
# It makes $OUT, installs the carried wheels (.whl: Keras and the pure-Python
# packages the machine lacks, fetched here with pip download --no-deps
# --only-binary=:all: --python-version 3.12 and a manylinux --platform where
# a wheel has compiled code) into /tmp/site, sets PYTHONPATH, KERAS_BACKEND
# (jax: the machine has no TensorFlow) and, when the carried folder .gnugo
# holds the Debian packages' files (apt-get download gnugo libreadline8, then
# dpkg -x each .deb into .gnugo), puts its gnugo on PATH and its library
# beside it. log() writes a timed line to
# the terminal and $OUT/run.log; left() is the seconds left of $DEADLINE;
# stop() runs a command with a time limit.
#
#   OUT       where results go ($OUT on the machine; /tmp/out here)
#   PY        the Python (python3; here .venv/bin/python with WHEELS=0)
#   WHEELS    1: install .whl (the default); 0: use what PY has
#   DEADLINE  seconds for the whole script (the caller's default)
OUT=${OUT:-/tmp/out}
PY=${PY:-python3}
mkdir -p "$OUT"
if [ -d .whl ] && [ "${WHEELS:-1}" = 1 ]; then
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site:$PWD
else
    export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
fi
if [ -x .gnugo/usr/games/gnugo ]; then  # no apt there: the package's binary, carried
    export PATH=$PWD/.gnugo/usr/games:$PATH
    export LD_LIBRARY_PATH=$PWD/.gnugo/lib/x86_64-linux-gnu:$PWD/.gnugo/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
export KERAS_BACKEND=${KERAS_BACKEND:-jax} PYTHONUNBUFFERED=1
log() { echo "[$SECONDS s] $*" | tee -a "$OUT/run.log"; }
left() { echo $((DEADLINE - SECONDS)); }
# stop SECONDS COMMAND...: COMMAND, stopped with SIGINT after SECONDS (mockgo's
# long jobs keep the work saved so far), and killed 20 s later if it goes on:
# an interrupt that lands in one of JAX's callbacks is lost.
stop() { timeout --signal=INT --kill-after=20 "$@"; }
log "device: $( (nvidia-smi -L 2>/dev/null || echo none) | head -1); $(nproc) cores;" \
    "gnugo: $(command -v gnugo || echo none)"
