"""Seconds a move of a player on the positions of recorded games: what a time
limit such as "10 s a move on 2 cores" asks, measured on this machine. Prints
one JSON line.

A match measures its players' moves too (``mockgo match`` prints seconds a
move), but only where it is played; a match played elsewhere (on a GPU
machine, or beside other jobs) is timed here on its own positions instead.
Every ``--every``-th position of the first ``--files`` games in ``--games`` (a
match folder, or any folder of SGF files) is searched once from scratch, as a
new game, after one search that is not counted (loading the networks,
compiling). A fresh tree is the slow case: in a game the search keeps the
subtree of the move played.

    python benchmarks/move_time.py --player alphago:policy_pretrained=sl-19,value_pretrained=value-19,readouts=1600,mix=0.5 \\
        --games docs/matches/alphago1600-vs-gnugo10
"""

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # before TensorFlow is imported

from mockgo.data.sgf_reader import load_sgf, replay  # noqa: E402
from mockgo.play.specs import make_player  # noqa: E402


def positions(folder, files, every):
    """``(file name, move number, board copy)`` for every ``every``-th
    position (move numbers every, 2 * every, ...) of the first ``files``
    SGF files of ``folder``, in name order."""
    paths = sorted(Path(folder).glob("*.sgf"))[:files]
    if not paths:
        raise SystemExit(f"move_time: no SGF files in {folder}")
    for path in paths:
        for number, (board, _, _) in enumerate(replay(load_sgf(path))):
            if number and number % every == 0:
                yield path.name, number, board.copy()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", required=True, help="the player's spec (mockgo match's)")
    parser.add_argument("--games", required=True, help="a folder of SGF files")
    parser.add_argument("--files", type=int, default=4, help="games to take (default 4)")
    parser.add_argument("--every", type=int, default=40, help="every Nth position (default 40)")
    args = parser.parse_args(argv)

    player = make_player(args.player)
    chosen = list(positions(args.games, args.files, args.every))
    if not chosen:
        raise SystemExit(f"move_time: no position of {args.games} is a multiple of "
                         f"{args.every} moves in")
    game = 0
    player.select_move(chosen[0][2].copy(), game=game)  # warm-up: not counted
    player.end_game(game)
    seconds = []
    for _, _, board in chosen:
        game += 1
        start = time.perf_counter()
        player.select_move(board, game=game)
        seconds.append(time.perf_counter() - start)
        player.end_game(game)
    player.close()
    print(json.dumps({
        "player": args.player,
        "games": args.games,
        "positions": len(seconds),
        "mean_s": round(statistics.fmean(seconds), 3),
        "median_s": round(statistics.median(seconds), 3),
        "max_s": round(max(seconds), 3),
        "cpus": os.cpu_count(),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
