"""Speed of reading and writing SGF: one JSON line.

- ``read_sgf_games_per_s`` (and MB/s): :func:`mockgo.data.sgf_reader.read_sgf`
  on real KGS games held in memory (decode, parse, the main line's record),
  what every dataset build and evaluation does per game;
- ``read_tree_games_per_s``: :func:`mockgo.data.gametree.read_tree`, the
  whole tree with every node checked (what the board widget's review opens);
- ``write_tree_games_per_s``: :meth:`~mockgo.data.gametree.GameTree.to_sgf`.

    python benchmarks/sgf_speed.py [--archive PATH] [--games 2000]

The archive defaults to the smallest one in the KGS mirror, as for
``benchmarks/features.py``. Rates are per second of this process's
processor time. (Not named ``sgf.py``: a script's folder comes
first on ``sys.path``, and that name would hide the ``sgf`` package.)
"""

import argparse
import json
import tarfile
import time
from pathlib import Path

from features import default_archive

from mockgo.data import sgf_reader
from mockgo.data.gametree import read_tree


def rate(function, items):
    """Items per second of processor time: on a machine shared with other
    jobs the wall clock counts their time too."""
    start = time.process_time()
    for item in items:
        function(item)
    return len(items) / (time.process_time() - start)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--archive", type=Path, default=None)
    parser.add_argument("--games", type=int, default=2000)
    args = parser.parse_args(argv)
    archive = args.archive or default_archive()
    files = []
    with tarfile.open(archive, "r|*") as members:
        for member in members:
            if member.isfile() and member.name.endswith(".sgf"):
                files.append(members.extractfile(member).read())
            if len(files) >= args.games:
                break
    megabytes = sum(map(len, files)) / 1e6
    rate(sgf_reader.read_sgf, files[:50])  # warm up: caches, imports
    read = rate(sgf_reader.read_sgf, files)
    trees = [read_tree(data) for data in files]
    print(json.dumps({
        "archive": archive.name,
        "games": len(files),
        "megabytes": round(megabytes, 2),
        "read_sgf_games_per_s": round(read),
        "read_sgf_mb_per_s": round(read * megabytes / len(files), 2),
        "read_tree_games_per_s": round(rate(read_tree, files)),
        "write_tree_games_per_s": round(rate(lambda tree: tree.to_sgf(), trees)),
    }))


if __name__ == "__main__":
    main()
