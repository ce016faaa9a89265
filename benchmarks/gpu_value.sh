#!/usr/bin/env bash
# AlphaGo's value stage on one lent GPU machine, in one call: the speeds of
# the data's loop and of its parts (benchmarks/value_data.py), then value
# data (one position a game: POLICY to a random move U, a random move,
# FINISH to the end), WORKERS processes sharing the GPU, for PLAY_SECONDS,
# then the value network on all of them (value_curve's network, trained and
# scored on 3,000 test positions by phase beside the constant), then
# smaller points of the same curve while time is left.
# The data stay there: 17 kB a position, 200,000 are 3.4 GB, where 64 MiB
# come back. What comes back: the curve (curve.json), the largest point's
# network, or, stopped in its training, that training's state and best
# weights; the speeds and the log.
# Run it here first at tiny size, through every path:
#   GAMES=40 BATCH=8 WORKERS=2 PLAY_SECONDS=60 TEST=16 VALIDATION=8 POINTS="2 4" \
#       SPEED_SECONDS=1 DEADLINE=330 OUT=/tmp/out PY=.venv/bin/python WHEELS=0 bash benchmarks/gpu_value.sh
#
#   POLICY, FINISH  shipped policies (sl-19, rl-19)   GAMES  positions to have (200000)
#   BATCH  games a batch (256)   WORKERS  processes (15)   FOLDER  (runs/gpu-value)
#   PLAY_SECONDS  of play (300)   TEST, VALIDATION  held-out positions (3000, 1000)
#   POINTS  the curve's smaller points (8000 16000 32000 64000 128000)
#   SPEED_SECONDS  each part's measurement (5)   DEADLINE  seconds for it all (560)
#   OUT, PY, WHEELS  as benchmarks/gpu_env.sh
set -uo pipefail
POLICY=${POLICY:-sl-19}
FINISH=${FINISH:-rl-19}
GAMES=${GAMES:-200000}
BATCH=${BATCH:-256}
WORKERS=${WORKERS:-15}
FOLDER=${FOLDER:-runs/gpu-value}
PLAY_SECONDS=${PLAY_SECONDS:-300}
TEST=${TEST:-3000}
VALIDATION=${VALIDATION:-1000}
POINTS=${POINTS:-8000 16000 32000 64000 128000}
SPEED_SECONDS=${SPEED_SECONDS:-5}
DEADLINE=${DEADLINE:-560}
source benchmarks/gpu_env.sh  # OUT, PY, the wheels, PYTHONPATH, KERAS_BACKEND, log, left, stop
# A process per worker, each with JAX on the one GPU: by default each would
# claim three quarters of its memory when it starts, and the second would fail.
export XLA_PYTHON_CLIENT_PREALLOCATE=false
quiet() { grep --line-buffered -v "^I0000\|^W0000\|^E0000\|it/s\]$"; }
positions() {  # positions kept in the data folder (reads the outcomes alone)
    "$PY" -c 'import sys; from mockgo.learn.value_curve import positions_saved
print(positions_saved(sys.argv[1]))' "$FOLDER/value_data"
}
curve() {  # the curve's points SIZES, stopped 35 s before the deadline
    if [ "$(left)" -lt 60 ]; then log "no time left for the curve's points $1"; return; fi
    stop "$(( $(left) - 35 ))" "$PY" -m mockgo.learn.value_curve \
        --data "$FOLDER/value_data" --out "$FOLDER/fits" --test "$TEST" --validation "$VALIDATION" \
        --sizes "$1" 2>&1 | quiet | tee -a "$OUT/run.log"
}

log "speeds: the network and the encoder alone (this also compiles numba's cache for the workers)"
speeds=$(stop 120 "$PY" benchmarks/value_data.py --policy "$POLICY" --finish "$FINISH" \
    --batch "$BATCH" --games 0 --seconds "$SPEED_SECONDS" 2>&1 | tail -1)
case "$speeds" in
    "{"*) echo "$speeds" | tee "$OUT/value_speed.jsonl" ;;
    *) log "the speeds were not measured: $speeds" ;;
esac
before=$(positions 2>/dev/null || echo 0)
# Play for PLAY_SECONDS, but leave the network 4 minutes.
play=$(( PLAY_SECONDS < $(left) - 240 ? PLAY_SECONDS : $(left) - 240 ))
if [ "$play" -gt 0 ]; then
    log "value data: $POLICY to move U, $FINISH on; $WORKERS processes for $play s ($before kept before)"
    started=$SECONDS
    stop "$play" "$PY" -m mockgo.learn.value_curve --data "$FOLDER/value_data" \
        --play "$POLICY" --finish "$FINISH" --games "$GAMES" --batch "$BATCH" --workers "$WORKERS" \
        2>&1 | quiet | tee -a "$OUT/run.log"
    played=$(( SECONDS - started ))
else
    log "no time to play value data: the network learns from the $before positions there"
    played=0
fi
kept=$(positions) || { log "the value data could not be counted"; exit 1; }
log "value data: $kept positions ($(( kept - before )) in ${played} s, workers' start included)"
echo "{\"loop_positions\": $(( kept - before )), \"loop_seconds\": $played, \"workers\": $WORKERS}" \
    >> "$OUT/value_speed.jsonl"
cp "$FOLDER/value_data/value_data.json" "$FOLDER/value_data/players.json" "$OUT/" 2>/dev/null
largest=$(( kept - TEST - VALIDATION ))
if [ "$largest" -lt 1 ]; then log "too few positions for a network: $kept"; exit 1; fi
log "the value network on all $largest training positions"
curve "$largest"
sizes=""
for n in $POINTS; do [ "$n" -lt "$largest" ] && sizes="$sizes,$n"; done
if [ -n "$sizes" ]; then
    log "smaller points of the curve:${sizes//,/ }"
    curve "${sizes#,}"
fi
cp "$FOLDER/fits/curve.json" "$OUT/" 2>/dev/null
network=$(printf "%s/fits/value_%06d.keras" "$FOLDER" "$largest")
if [ -f "$network" ]; then
    cp "$network" "$OUT/" && log "value network saved: $(basename "$network")"
else  # stopped in its training: its state and best weights, to finish or rebuild at home
    fit=$(printf "%s/fits/fit_%06d" "$FOLDER" "$largest")
    best=$("$PY" -c "import json, sys; print(json.load(open(sys.argv[1]))['files']['best_weights'] or '')" \
        "$fit/state.json" 2>/dev/null)  # the best weights its state names
    cp "$fit/state.json" "$OUT/fit_state.json" 2>/dev/null
    [ -n "$best" ] && cp "$fit/$best" "$OUT/" && log "the training stopped: its state and best weights saved"
fi
log "done"
