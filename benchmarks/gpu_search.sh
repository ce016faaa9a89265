#!/usr/bin/env bash
# AlphaGo's search on one lent GPU machine, in one call: the policy
# sl-19-13x192 as its prior and value-19-rl judging its leaves, against GnuGo
# level 10 on 19x19, colours alternating, WORKERS games at a time (a
# process each; GnuGo answers one position at a time). The match folder
# goes to $OUT as match.tar.gz; a match stopped by DEADLINE keeps its
# finished games, and a second call that carries FOLDER goes on from them.
# Run it here first at tiny size, through every path:
#   POLICY=sl-19 READOUTS=16 GAMES=4 WORKERS=2 LEVEL=1 DEADLINE=300 \
#       OUT=/tmp/out PY=.venv/bin/python WHEELS=0 bash benchmarks/gpu_search.sh
#
#   POLICY, VALUE  shipped networks (sl-19-13x192, value-19-rl)   READOUTS  a move (1600)
#   GAMES (40)  WORKERS (16)  LEVEL  GnuGo's (10)   FOLDER  the match (runs/gpu-search)
#   DEADLINE  seconds for it all (560)
#   OUT, PY, WHEELS  as benchmarks/gpu_env.sh; GnuGo comes in .gnugo there
set -uo pipefail
POLICY=${POLICY:-sl-19-13x192}
VALUE=${VALUE:-value-19-rl}
READOUTS=${READOUTS:-1600}
GAMES=${GAMES:-40}
WORKERS=${WORKERS:-16}
LEVEL=${LEVEL:-10}
FOLDER=${FOLDER:-runs/gpu-search}
DEADLINE=${DEADLINE:-560}
source benchmarks/gpu_env.sh  # OUT, PY, the wheels, PYTHONPATH, KERAS_BACKEND, GnuGo, log, left, stop
command -v gnugo >/dev/null || [ -x /usr/games/gnugo ] \
    || { log "no GnuGo: carry .gnugo (benchmarks/gpu_env.sh says how)"; exit 1; }
# A process per worker, each with JAX on the one GPU: by default each would
# claim three quarters of its memory when it starts, and the second would fail.
export XLA_PYTHON_CLIENT_PREALLOCATE=false
spec="alphago:policy_pretrained=$POLICY,value_pretrained=$VALUE,readouts=$READOUTS"
log "$spec against gnugo:level=$LEVEL, $GAMES games on 19x19, $WORKERS at a time"
if [ "$(left)" -lt 60 ]; then log "no time left for the match"; exit 1; fi
# Stopped before the deadline, the match keeps every finished game.
stop "$(( $(left) - 45 ))" "$PY" -m mockgo.cli match --black "$spec" \
    --white "gnugo:level=$LEVEL" --games "$GAMES" --size 19 --workers "$WORKERS" --seed 0 \
    --out "$FOLDER" 2>&1 | grep --line-buffered -v "^I0000\|^W0000\|^E0000" | tee -a "$OUT/run.log"
if [ -d "$FOLDER" ]; then
    tar czf "$OUT/match.tar.gz" --exclude=.lock -C "$(dirname "$FOLDER")" "$(basename "$FOLDER")"
fi
log "done: $(ls "$FOLDER"/*.sgf 2>/dev/null | wc -l) of $GAMES games in $FOLDER"
