"""Random-playout speed of the rules engine: one JSON line of figures.

Each move is uniform over the legal moves that do not fill the mover's own
single-point eye, a pass when there is none; two passes end the game, and a
game stops at 3*N*N moves. Everything goes through the public Board API, as
self-play and the GTP engine use it.

    python benchmarks/board.py --size 9 --seconds 5
"""

import argparse
import json
import random
import time

import numpy as np

from mockgo import Board


def random_playout(size, rng):
    """Play one random game; returns the number of moves (passes included)."""
    board = Board(size)
    pass_index = board.pass_index
    limit = 3 * size * size
    moves = 0
    while moves < limit and board.passes < 2:
        candidates = np.flatnonzero(board.sensible_moves()[:-1])
        move = candidates[rng.randrange(len(candidates))] if len(candidates) else pass_index
        board.play(move)
        moves += 1
    return moves


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    random_playout(args.size, rng)  # compile (or load the numba cache) first
    games = moves = 0
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        moves += random_playout(args.size, rng)
        games += 1
    elapsed = time.perf_counter() - start
    print(json.dumps({
        "size": args.size,
        "moves_per_s": round(moves / elapsed),
        "games_per_s": round(games / elapsed, 2),
        "games": games,
        "moves_per_game": round(moves / games, 1),
        "seconds": round(elapsed, 2),
    }))


if __name__ == "__main__":
    main()
