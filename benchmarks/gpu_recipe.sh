#!/usr/bin/env bash
# The recipe on one lent GPU machine, in one call: a tiny run of every stage
# first (it fails fast, and compiles numba's cache), the dataset build's
# speed at 1, 2 and all cores, `mockgo recipe --preset gpu`, then the input
# pipeline against the compiled step (benchmarks/train.py) while time is
# left. Results go to $OUT. Run it here first at tiny size, through every
# path (PRESET=tiny TRAIN_SECONDS=10 OUT=/tmp/out ARCHIVES=.kgs bash ...). It
# leaves at most seven files in $OUT (a lent machine returns eight at most).
#
#   ARCHIVES  folder of KGS archives (data/kgs)     PRESET  gpu or tiny
#   STAGES  the recipe's stages (dataset,sl; the value data take a sitting of their own: gpu_value.sh)
#   TRAIN_SECONDS  the SL stage's training budget   DEADLINE  seconds for it all
#   OUT, PY, WHEELS  as benchmarks/gpu_env.sh (.whl: keras, namex, optree, sgf)
set -uo pipefail
ARCHIVES=${ARCHIVES:-data/kgs}
PRESET=${PRESET:-gpu}
STAGES=${STAGES:-dataset,sl}
TRAIN_SECONDS=${TRAIN_SECONDS:-270}
DEADLINE=${DEADLINE:-560}
BIG=${BIG:-"--layers 13 --filters 192 --batch 1024"}
SMALL=${SMALL:-"--layers 6 --filters 64 --batch 1024"}
source benchmarks/gpu_env.sh  # OUT, PY, the wheels, PYTHONPATH, KERAS_BACKEND, log, left
"$PY" -c "import jax, keras; print('jax', jax.__version__, jax.devices(), 'keras', keras.__version__)"
log "smoke: the tiny recipe"
rm -rf /tmp/smoke
"$PY" -m mockgo.cli recipe --preset tiny --archives "$ARCHIVES/KGS-2017_02-19-525-.tar.gz" \
    --folder /tmp/smoke >/tmp/smoke.log 2>&1 || { tail -30 /tmp/smoke.log | tee -a "$OUT/run.log"; exit 1; }
log "dataset build speed"
"$PY" benchmarks/dataset_build.py --archive "$ARCHIVES/KGS-2003-19-7582-.tar.gz" \
    --workers 1 2 "$(nproc)" --games 100 | tee "$OUT/dataset_build.jsonl"
log "the recipe, preset $PRESET, $TRAIN_SECONDS s of training"
"$PY" -m mockgo.cli recipe --preset "$PRESET" --archives "$ARCHIVES" --folder runs/recipe \
    --stages "$STAGES" --train-seconds "$TRAIN_SECONDS" 2>&1 | grep --line-buffered -v "^I0000\|^W0000" | tee -a "$OUT/run.log"
cp runs/recipe/recipe.json runs/recipe/sl/log.csv "$OUT/" 2>/dev/null
cp runs/recipe/sl-policy.keras "$OUT/" && log "SL network saved"
checkpoint=$(ls runs/recipe/sl/checkpoint_*.keras 2>/dev/null | tail -1)
if [ ! -f runs/recipe/sl-policy.keras ] && [ -n "$checkpoint" ]; then
    # The stage stopped in its training (an error after some epochs): keep
    # the last epoch's network, saved for play, before the machine goes back.
    "$PY" - "$checkpoint" "$OUT/sl-checkpoint.keras" <<'PYTHON' && log "the SL stage stopped: $checkpoint saved for play"
import sys
import keras
import mockgo.nets.models  # registers the network's own layers
from mockgo.data.dataset import read_manifest
from mockgo.nets.io import save_for_play
net = keras.models.load_model(sys.argv[1], compile=False)
save_for_play(net, sys.argv[2], encoder=read_manifest("runs/recipe/dataset")["spec"]["encoder"])
PYTHON
fi
[ -f runs/recipe/value-network.keras ] && cp runs/recipe/value-network.keras "$OUT/" && log "value network saved"
for sizes in "$BIG" "$SMALL"; do
    if [ "$(left)" -lt 60 ]; then log "no time left for the pipeline benchmark ($sizes)"; break; fi
    log "pipeline against the compiled step: $sizes"
    timeout "$(( $(left) - 10 ))" "$PY" benchmarks/train.py --dataset runs/recipe/dataset \
        $sizes --steps 40 --epochs 2 --cycles 1 | tail -1 | tee -a "$OUT/train_benchmark.jsonl"
done
log "done"
