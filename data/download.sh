#!/usr/bin/env bash
# Put the KGS game archives (KGS-*.tar.gz) into data/kgs/.
#
# For now this only copies them from a local mirror folder: --mirror DIR, else
# $MOCKGO_KGS_MIRROR, else ../shared/data/kgs beside the repository. Downloading
# from https://u-go.net/gamerecords/ is a later issue. The notebooks do not
# read the data yet, so having none is not an error.
#
# usage: bash data/download.sh [--mirror DIR] [--dest DIR]
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mirror="${MOCKGO_KGS_MIRROR:-}"
dest="$repo_root/data/kgs"

usage() { echo "usage: bash data/download.sh [--mirror DIR] [--dest DIR]" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --mirror) [ $# -ge 2 ] || usage; mirror="$2"; shift 2 ;;
        --dest)   [ $# -ge 2 ] || usage; dest="$2"; shift 2 ;;
        *) usage ;;
    esac
done

if [ -z "$mirror" ] && [ -d "$repo_root/../shared/data/kgs" ]; then
    mirror="$(cd "$repo_root/../shared/data/kgs" && pwd)"
fi
if [ -z "$mirror" ]; then
    echo "No local KGS mirror (--mirror DIR, MOCKGO_KGS_MIRROR or ../shared/data/kgs)."
    echo "Downloading from https://u-go.net/gamerecords/ is not implemented yet;"
    echo "the notebooks do not need the data yet, so nothing to do."
    exit 0
fi
[ -d "$mirror" ] || { echo "KGS mirror $mirror is not a folder" >&2; exit 1; }

mkdir -p "$dest"
copied=0
present=0
shopt -s nullglob
for src in "$mirror"/KGS-*.tar.gz; do
    target="$dest/$(basename "$src")"
    # Same size is taken as already copied: archives are never edited in place.
    if [ -f "$target" ] && [ "$(wc -c <"$src")" -eq "$(wc -c <"$target")" ]; then
        present=$((present + 1))
        continue
    fi
    # Copy under a temporary name so an interrupted run never leaves a
    # truncated archive that the size check above could mistake for done.
    rm -f "$target.part"
    cp "$src" "$target.part"
    chmod u+w "$target.part"  # mirrors are often read-only; the copy need not be
    mv -f "$target.part" "$target"
    copied=$((copied + 1))
done
echo "KGS archives in $dest: $copied copied, $present already present (mirror: $mirror)"
