#!/usr/bin/env bash
# A notebook on one lent GPU machine, in one call, timed cell by cell
# (benchmarks/notebook_times.py): by default notebook 01 in full mode, which
# on a GPU picks AlphaGo's 13 x 192 network (mockgo/presets.py). The
# executed notebook, the timings and the training log go to $OUT; the
# notebook is written after every cell, so a run stopped by DEADLINE keeps
# what it did. Run it here first, quick, through every path:
#   OUT=/tmp/out KGS=../shared/data/kgs MODE=quick PY=.venv/bin/python WHEELS=0 bash ...
#
#   NOTEBOOK  the notebook (notebooks/01_supervised.ipynb)   MODE  full or quick
#   KGS  a folder of KGS archives, the notebook's download mirror (.kgs)
#   DEADLINE  seconds for the notebook (540)
#   OUT, PY, WHEELS  as benchmarks/gpu_env.sh; the machine has JAX, numpy,
#   numba and matplotlib but neither Keras nor Jupyter, so .whl holds keras,
#   namex, optree, sgf, nbclient, ipykernel, ipywidgets, anywidget and their
#   needs (debugpy, which ipykernel only uses when there, left out)
set -uo pipefail
NOTEBOOK=${NOTEBOOK:-notebooks/01_supervised.ipynb}
MODE=${MODE:-full}
KGS=${KGS:-.kgs}
DEADLINE=${DEADLINE:-540}
source benchmarks/gpu_env.sh  # OUT, PY, the wheels, PYTHONPATH, KERAS_BACKEND, GnuGo, log
[ -d "$KGS" ] || { echo "no folder of KGS archives at KGS=$KGS" >&2; exit 1; }
export MOCKGO_KGS_MIRROR=$(cd "$KGS" && pwd)  # the notebook's download cell copies from here

# Every package the notebook imports, before the clock starts: a missing one
# fails here in seconds, not minutes into the run.
modules="jax, keras, nbclient, ipykernel, ipywidgets, anywidget, sgf, numba, matplotlib, mockgo"
"$PY" -c "import $modules
print('jax', jax.__version__, jax.devices(), 'keras', keras.__version__)" 2>&1 \
    | tee -a "$OUT/run.log" || exit 1
name=$(basename "$NOTEBOOK" .ipynb)
log "$name in $MODE mode, at most $DEADLINE s"
stamp=$(mktemp)  # a training log newer than this is this run's
"$PY" benchmarks/notebook_times.py "$NOTEBOOK" --mode "$MODE" --deadline "$DEADLINE" \
    --output "$OUT/$name-$MODE.ipynb" | tee "$OUT/times.json"
status=$?  # the notebook's: 1 when it failed or met the deadline
training_log=$(find runs/"$name" -name log.csv -path "*/run/*" -newer "$stamp" 2>/dev/null)
[ -n "$training_log" ] && cp "$training_log" "$OUT/training-log.csv"
log "done"
exit $status
