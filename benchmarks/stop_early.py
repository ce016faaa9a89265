"""What ``stop_early=1`` saves a search player on the positions of recorded
games, and whether it plays the same moves: one JSON line.

The player's spec (``--player``, without ``stop_early``) is made twice, with
``stop_early=0`` and ``stop_early=1``, and both search every ``--every``-th
position of the first ``--files`` games in ``--games`` from a fresh tree (a
new game each time, as ``benchmarks/move_time.py`` does), in turns, after one
search each that is not counted (loading, compiling).

- ``seconds``: the mean seconds a move of each, and ``time_saved``, the
  share the second saves;
- ``readouts``: the mean readouts a move of each (the root's visits);
- ``stopped_early``: the share of moves the second ended before its budget;
- ``same_move``: the share of positions where the two played the same move.
  With ``readouts=`` and no rollouts (``mix=0``) it must be 1.0: the search
  is the same up to the step where it stops. Rollouts draw from the
  evaluator's generator, whose draws part after the first search that
  stops early, and with ``seconds=`` the whole search itself varies with
  the machine's pace: then a search run twice can differ too
  (``--repeat-check`` measures that: the first player's moves against a
  second run of its own).

A fresh tree is the conservative case: in a game the search keeps the
subtree of the move played, whose visits already lead.

    python benchmarks/stop_early.py --player alphago:policy_pretrained=sl-19,value_pretrained=value-19,seconds=9.5,mix=0.5 \\
        --games docs/matches/alphago1600-vs-gnugo10 --files 4 --every 60
"""

import argparse
import json
import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # before TensorFlow is imported

from move_time import positions  # noqa: E402  (benchmarks/move_time.py, beside this script)
from mockgo.play.specs import make_player  # noqa: E402


def timed_move(player, board, game):
    """(move, seconds, readouts, stopped early) of one search from a fresh tree."""
    start = time.perf_counter()
    move = player.select_move(board.copy(), game=game)
    seconds = time.perf_counter() - start
    tree = player.trees.get(game)  # none: a pass answered without a search
    readouts = 0 if tree is None else int(tree.root.n_total)
    player.end_game(game)
    return move, seconds, readouts, tree is not None and tree.stopped_early


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", required=True,
                        help="a search player's spec (alphago: or mcts:), without stop_early")
    parser.add_argument("--games", required=True, help="a folder of SGF files")
    parser.add_argument("--files", type=int, default=4)
    parser.add_argument("--every", type=int, default=60)
    parser.add_argument("--repeat-check", action="store_true",
                        help="also search each position again without stop_early")
    args = parser.parse_args(argv)
    if "stop_early" in args.player:
        raise SystemExit("stop_early: give the spec without stop_early= (both are made here)")
    chosen = [board for _, _, board in positions(args.games, args.files, args.every)]
    if not chosen:
        raise SystemExit(f"stop_early: no position of {args.games} is a multiple of "
                         f"{args.every} moves in")
    variants = {"whole": make_player(f"{args.player},stop_early=0"),
                "stop_early": make_player(f"{args.player},stop_early=1")}
    if args.repeat_check:
        variants["whole_again"] = make_player(f"{args.player},stop_early=0")
    for player in variants.values():
        timed_move(player, chosen[0], 0)  # warm-up: not counted
    found = {name: [] for name in variants}
    for game, board in enumerate(chosen, start=1):
        for name, player in variants.items():
            found[name].append(timed_move(player, board, game))
    mean = {name: {"seconds": round(statistics.fmean(r[1] for r in rows), 3),
                   "readouts": round(statistics.fmean(r[2] for r in rows))}
            for name, rows in found.items()}
    whole, early = found["whole"], found["stop_early"]
    out = {
        "player": args.player,
        "games": args.games,
        "positions": len(chosen),
        "seconds": {name: m["seconds"] for name, m in mean.items()},
        "readouts": {name: m["readouts"] for name, m in mean.items()},
        "time_saved": round(1 - mean["stop_early"]["seconds"] / mean["whole"]["seconds"], 3),
        "stopped_early": round(statistics.fmean(r[3] for r in early), 3),
        "same_move": round(statistics.fmean(a[0] == b[0] for a, b in zip(whole, early)), 3),
        "cpus": os.cpu_count(),
    }
    if args.repeat_check:
        out["same_move_whole_twice"] = round(statistics.fmean(
            a[0] == b[0] for a, b in zip(whole, found["whole_again"])), 3)
    print(json.dumps(out))
    for player in variants.values():
        player.close()


if __name__ == "__main__":
    main()
