"""Speed of the tree search itself: one JSON line of figures.

9x9 Go with the uniform evaluator (priors 1/82, value 0), so the figures
measure the search's own overhead: selection, virtual loss, creating states
(``Board.copy()`` + ``play``), legal-move masks, expansion and backup.
Three set-ups, each searching from the empty board and then playing on with
tree reuse for a few moves:

- ``single``: one tree, parallel_readouts=1 (one evaluator call per leaf);
- ``batched``: one tree, parallel_readouts=8 (virtual loss);
- ``lockstep``: 16 games' trees, parallel_readouts=8 each, one evaluator call
  per step for all of them (``search_many``).

``leaves_per_evaluator_call`` is the mean batch the evaluator saw. Each
set-up runs ``--repeat`` times and the fastest run is reported;
``cpu_readouts_per_s`` divides by the process's CPU time instead of the wall
clock, which is steadier when the machine is busy with other work.

    python benchmarks/mcts.py --readouts 800 --moves 4
"""

import argparse
import json
import time

from mockgo.games import GoGame
from mockgo.mcts import MCTSPlayer, search_many, uniform_evaluator


class CountingEvaluator:
    def __init__(self, evaluate):
        self.evaluate, self.calls, self.leaves = evaluate, 0, 0

    def __call__(self, states):
        self.calls += 1
        self.leaves += len(states)
        return self.evaluate(states)


def run(games, parallel, readouts, moves, size, seed):
    evaluate = CountingEvaluator(uniform_evaluator)
    players = []
    for g in range(games):
        player = MCTSPlayer(evaluate, num_readouts=readouts, parallel_readouts=parallel,
                            seed=seed + g)
        player.initialize(GoGame(size))
        players.append(player)
    start, cpu_start = time.perf_counter(), time.process_time()
    for _ in range(moves):
        search_many(players)
        for player in players:
            player.play(player.pick_action())
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    total = games * readouts * moves
    return {
        "readouts_per_s": round(total / elapsed),
        "cpu_readouts_per_s": round(total / cpu),
        "leaves_per_evaluator_call": round(evaluate.leaves / evaluate.calls, 2),
        "games": games,
        "parallel_readouts": parallel,
        "seconds": round(elapsed, 2),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--readouts", type=int, default=800, help="per move and game")
    parser.add_argument("--moves", type=int, default=4, help="moves searched per game")
    parser.add_argument("--repeat", type=int, default=3, help="keep the fastest of this many runs")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    run(1, 1, 50, 1, args.size, args.seed)  # compile (or load the numba cache) first
    figures = {"size": args.size, "readouts_per_move": args.readouts, "moves": args.moves}
    for name, games, parallel in (("single", 1, 1), ("batched", 1, 8), ("lockstep", 16, 8)):
        moves = args.moves if games == 1 else max(1, args.moves // 2)
        runs = [run(games, parallel, args.readouts, moves, args.size, args.seed)
                for _ in range(args.repeat)]
        figures[name] = max(runs, key=lambda figures: figures["readouts_per_s"])
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
