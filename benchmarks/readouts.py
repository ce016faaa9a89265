"""Where a timed search's readouts go, on the positions of a recorded match.
Prints one JSON line.

A search with a time budget (``seconds=``) does as many readouts as its
time holds. How many that is, and what limits it, decides how much the search
adds to its policy: the networks' raw rate, the tree's own work, the
rollouts (at ``mix`` above 0), the leaves a step selects twice (under virtual
loss, a step's ``parallel`` selections may meet at one leaf, evaluated once),
and the subtree kept from the move before. This replays the player's games of
a match folder as the match played them: at one of the player's moves the
search starts from a fresh tree; the recorded moves (its own and its
opponent's) are played into the tree; at its next move the search starts from
the subtree it kept. Of that second search it reports:

- ``kept_visits``: the visits of the kept subtree at its start, and
  ``kept_share``, their share of the root's visits at its end;
- ``readouts``: the readouts the search added, and ``seconds``;
- ``leaves_per_readout``: leaves the networks evaluated per readout (the rest
  met a leaf already selected in the same step, or the end of a game);
- ``network_share``, ``rollout_share`` and ``tree_share``: the search's time
  in the networks, in the rollouts, and in the rest (selecting, expanding,
  backing up, encoding);
- ``search_evals_per_s`` against ``raw_evals_per_s``, the networks alone on
  batches of ``parallel`` positions of the same board (policy and value, one
  after the other, as the search calls them).

    python benchmarks/readouts.py --games docs/matches/alphago13x192-9.5s-vs-gnugo10 \\
        --name alphago-13x192-9.5s --pairs 8 \\
        --player alphago:policy_pretrained=sl-19-13x192,value_pretrained=value-19-rl,seconds=9.5,mix=0.5,stop_early=1
"""

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # before TensorFlow is imported

sys.path.insert(0, str(Path(__file__).resolve().parent))
from search import rate  # noqa: E402

from mockgo.data.sgf_reader import load_sgf, replay  # noqa: E402
from mockgo.play.specs import make_player  # noqa: E402


def move_pairs(folder, name, pairs):
    """``pairs`` pairs ``(steps, first)``: ``steps``, three positions with
    their moves ``(board copy, move)`` from the player's move ``first``
    (0-based) to its next move. Pair ``j`` is in the ``j``-th game of
    ``folder`` where ``name`` plays (round the games again if there are
    fewer), at the share ``(j + 0.5) / pairs`` of the player's moves after
    its first ten, so that the pairs span the games' phases."""
    games = []
    for path in sorted(Path(folder).glob("*.sgf")):
        record = load_sgf(path)
        if name in (record.black, record.white):
            games.append(record)
        if len(games) == pairs:
            break
    if not games:
        raise SystemExit(f"readouts: no game of {name!r} in {folder}")
    chosen = []
    for j in range(pairs):
        record = games[j % len(games)]
        steps = [(board.copy(), move) for board, _, move in replay(record)]
        own = list(range(20 + (record.white == name), len(steps) - 2, 2))
        if own:
            first = own[int((j + 0.5) / pairs * len(own))]
            chosen.append((steps[first:first + 3], first))
    return chosen


def raw_rate(evaluate, board, parallel, seconds=3.0):
    """Positions a second through the networks alone, on batches of
    ``parallel`` copies of ``board``'s encoding (as the search calls them)."""
    networks = [(evaluate.policy, evaluate.policy_encoder)]
    if evaluate.value is not None and not evaluate.shared:
        networks.append((evaluate.value, evaluate.value_encoder))
    batches = []
    for network, encoder in networks:
        planes = np.zeros((parallel, *encoder.shape), np.uint8)
        for i in range(parallel):
            encoder.encode_into(board, planes[i])
        batches.append((network, planes))

    def step():
        for network, planes in batches:
            network.predict(planes)
    return parallel * rate(step, seconds)


def measure(player, steps, game):
    """Search at ``steps[0]``'s position from a fresh tree, play that move
    and the reply into the tree, and measure the search at ``steps[2]``."""
    (board, move), (after_move, reply), (board_next, _) = steps
    player.select_move(board.copy(), game=game)
    player.observe(game, after_move.copy(), move)
    player.observe(game, board_next.copy(), reply)
    tree = player.tree_at(game, board_next)
    kept = float(tree.root.n_total) if tree is not None else 0.0
    evaluate = player.evaluate
    before = (evaluate.evaluations, evaluate.network_seconds, evaluate.rollout_seconds)
    start = time.perf_counter()
    player.select_move(board_next.copy(), game=game)
    seconds = time.perf_counter() - start
    tree = player.trees[game]
    total = float(tree.root.n_total)
    player.end_game(game)
    leaves = evaluate.evaluations - before[0]
    return {"kept": kept, "readouts": total - kept, "total": total, "seconds": seconds,
            "leaves": leaves, "network": evaluate.network_seconds - before[1],
            "rollout": evaluate.rollout_seconds - before[2]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", required=True, help="the player's spec (mockgo match's)")
    parser.add_argument("--games", required=True, help="a match folder")
    parser.add_argument("--name", required=True, help="the player's name in the games (PB/PW)")
    parser.add_argument("--pairs", type=int, default=8, help="pairs of moves (default 8)")
    args = parser.parse_args(argv)

    player = make_player(args.player)
    chosen = move_pairs(args.games, args.name, args.pairs)
    player.select_move(chosen[0][0][0][0].copy(), game=0)  # warm-up: not counted
    player.end_game(0)
    rows = [measure(player, steps, game) for game, (steps, _) in enumerate(chosen, start=1)]
    parallel = player.search.parallel_readouts
    raw = raw_rate(player.evaluate, chosen[0][0][2][0], parallel)
    player.close()
    seconds = sum(r["seconds"] for r in rows)
    readouts = sum(r["readouts"] for r in rows)
    network = sum(r["network"] for r in rows)
    rollout = sum(r["rollout"] for r in rows)
    leaves = sum(r["leaves"] for r in rows)
    print(json.dumps({
        "player": args.player,
        "games": args.games,
        "pairs": len(rows),
        "move_numbers": [first + 3 for _, first in chosen],
        "parallel": parallel,
        "kept_visits": round(statistics.fmean(r["kept"] for r in rows), 1),
        "kept_share": round(sum(r["kept"] for r in rows) / sum(r["total"] for r in rows), 3),
        "readouts": round(statistics.fmean(r["readouts"] for r in rows), 1),
        "readouts_min": round(min(r["readouts"] for r in rows)),
        "readouts_max": round(max(r["readouts"] for r in rows)),
        "seconds": round(seconds / len(rows), 3),
        "leaves_per_readout": round(leaves / max(readouts, 1), 3),
        "network_share": round(network / seconds, 3),
        "rollout_share": round(rollout / seconds, 3),
        "tree_share": round(1 - (network + rollout) / seconds, 3),
        "search_evals_per_s": round(leaves / seconds, 1),
        "raw_evals_per_s": round(raw, 1),
        "cpus": os.cpu_count(),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
