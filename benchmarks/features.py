"""Speed of the feature planes and of dataset building: one JSON line.

- ``agz17_positions_per_s`` and ``alphago48_positions_per_s``: replaying real
  KGS games (19x19) and encoding every position, in one process.
- ``build_games_per_s``: building an alphago48 dataset end to end from a KGS
  archive (read, replay, encode, pack, write shards), on ``--workers`` cores.

    python benchmarks/features.py [--archive PATH] [--games 300] [--workers 2]

The archive defaults to the smallest one in the KGS mirror
(``$MOCKGO_KGS_MIRROR`` or ``../shared/data/kgs``) or in ``data/kgs``.
"""

import argparse
import json
import os
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from mockgo.data import archives, sgf_reader
from mockgo.data.dataset import DatasetSpec, build_dataset
from mockgo.go.features import get_encoder

ROOT = Path(__file__).resolve().parent.parent


def default_archive():
    folders = [os.environ.get("MOCKGO_KGS_MIRROR"), ROOT.parent / "shared" / "data" / "kgs",
               ROOT / "data" / "kgs"]
    for folder in filter(None, folders):
        archives = sorted(Path(folder).glob("KGS-*.tar.gz"), key=lambda p: p.stat().st_size)
        if archives:
            return archives[0]
    raise SystemExit("no KGS archive found: run `bash data/download.sh --archives 1` "
                     "or pass --archive")


def encode_rate(games, encoder_name):
    """Positions per second replaying ``games`` and encoding every position."""
    encoder = get_encoder(encoder_name, 19)
    out = np.empty(encoder.shape, np.uint8)
    positions = 0
    start = time.perf_counter()
    for record in games:
        for board, _, _ in sgf_reader.replay(record):
            encoder.encode_into(board, out)
            positions += 1
    return positions / (time.perf_counter() - start), positions


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--archive", type=Path, default=None)
    parser.add_argument("--games", type=int, default=300, help="games to encode (default 300)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    archive = args.archive or default_archive()
    warnings.simplefilter("ignore", sgf_reader.SGFWarning)
    games = []
    for record in archives.iter_sgf_files(archive):
        if record.size == 19:
            games.append(record)
        if len(games) >= args.games:
            break
    encode_rate(games[:2], "alphago48")  # compile, or load the numba cache
    encode_rate(games[:2], "agz17")
    agz17, positions = encode_rate(games, "agz17")
    alphago48, _ = encode_rate(games, "alphago48")
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        manifest = build_dataset([archive], folder, DatasetSpec(encoder="alphago48"),
                                 workers=args.workers, progress=False)
        build_seconds = time.perf_counter() - start
    looked_at = manifest["games_looked_at"]
    print(json.dumps({
        "archive": archive.name,
        "games_encoded": len(games),
        "positions_encoded": positions,
        "agz17_positions_per_s": round(agz17),
        "alphago48_positions_per_s": round(alphago48),
        "build_games_per_s": round(looked_at / build_seconds, 1),
        "build_positions_per_s": round(sum(manifest["positions"].values()) / build_seconds),
        "build_games": looked_at,
        "build_workers": args.workers,
        "build_seconds": round(build_seconds, 1),
    }))


if __name__ == "__main__":
    main()
