#!/usr/bin/env bash
# Make data/gnugo9/gnugo-l1-9x9.tar.gz again: the 9x9 games that notebook 01's
# first networks learn from (Imago's small networks; the KGS archives are 19x19).
#
# GnuGo 3.8 at level 1 plays itself, colours alternating, through the one
# match engine (`mockgo match`); each game's GnuGo gets its own random seed
# from the match's, so the games differ. Dead stones are marked by GnuGo
# (level 10) and every game is scored by area, komi 7.5. The match is a
# resumable job in matches/gnugo9/ (run this again after an interruption);
# then its SGF files are packed, sorted and without time stamps, so the same
# games make the same archive byte for byte. (GnuGo does not always repeat
# itself for the same seed: in a check, 11 of 12 games came out the same.)
#
#   bash data/gnugo9.sh            # 3,000 games (measured: 75 minutes on a busy 2-core machine)
#   bash data/gnugo9.sh 200        # a few minutes
#
# Needs GnuGo (apt-get install gnugo) and the .venv (make venv).
set -euo pipefail

games="${1:-3000}"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
matches="$repo_root/matches/gnugo9"
archive="$repo_root/data/gnugo9/gnugo-l1-9x9.tar.gz"

"$repo_root/.venv/bin/mockgo" match --black gnugo:level=1 --white gnugo:level=1 \
    --games "$games" --size 9 --komi 7.5 --workers 2 --seed 9 --out "$matches"
mkdir -p "$(dirname "$archive")"
(cd "$matches" && find . -maxdepth 1 -name '*.sgf' -printf '%P\n' | sort -V) |
    tar -C "$matches" --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - -T - |
    gzip -9n > "$archive.part"
mv "$archive.part" "$archive"
echo "wrote $archive"
