"""Notebook 05's exercises: a player of one's own on the ladder, UCB1 and its
exploration constant on a bandit, and RAVE's all-moves-as-first update."""

import math

import numpy as np

from mockgo.arena.ladder import ladder
from mockgo.exercises import Exercise, NotYet
from mockgo.go.board import BLACK, WHITE
from mockgo.play.player import Choices, Player
from mockgo.search.uct import _update_amaf

__all__ = ["amaf_update", "own_player", "ucb1", "MovePlayer"]


# -------------------------------------------------------------- own_player


class MovePlayer(Player):
    """A player from a rule for one position, ``move(board, mask, rng)``:
    the board (a copy: the rule may play on it), the sensible moves as a
    mask (N*N + 1 booleans, the pass last) and the game's generator; it
    returns a flat index, or ``board.pass_index`` to pass."""

    def __init__(self, move, name="my-player"):
        self.move = move
        self.name = name

    def choose(self, turns):
        moves = [int(self.move(turn.board.copy(), turn.mask.copy(), turn.rng)) for turn in turns]
        return Choices(np.array(moves, np.int64), np.zeros(len(moves)))


def _my_move_skeleton(board, mask, rng):
    """Your player's move on ``board`` (a copy of the game's): a flat index
    where ``mask`` (the sensible moves, the pass last) is True, or
    ``board.pass_index`` to pass. ``rng``: the game's random generator."""
    raise NotImplementedError  # your code here


def _my_move_solution(board, mask, rng):
    # Answer an atari: play the last liberty of a group of one's own that has
    # only one left (extending there may still leave it in atari: the rule
    # does not look further); else a random sensible move.
    liberties = board.liberty_map()
    points = np.flatnonzero(mask[:-1])
    saving = [p for p in points
              if any(q >= 0 and board.stones[q] == board.to_play and liberties[q] == 1
                     for q in board.neighbors[p])]
    if saving:
        return int(rng.choice(saving))
    return int(rng.choice(points)) if len(points) else board.pass_index


def _check_own_player(answer, games=6, size=9, matches=()):
    player = MovePlayer(answer)
    result = ladder([player], anchors=["random"], games=games, size=size, workers=1,
                    out_dir=None, plot=None, verbose=False,
                    recorded=[m for m in matches if m.size == size])
    played = result.matches[-1]  # the player is A, black in the even-numbered games

    def colour(game):
        return BLACK if played.a_is_black(game) else WHITE

    for game in played.games:
        if game.forfeited_by == colour(game):
            raise NotYet(f"game {game.index + 1} was lost by forfeit: {game.note}")
    stones = sum(1 for game in played.games for color, move in game.board.history
                 if color == colour(game) and move != game.board.pass_index)
    if stones == 0:
        raise NotYet("your player only passed: it never put a stone on the board")
    rating = result.ratings[player.name]
    scale = ", ".join(f"{r.name} {r.elo:+.0f}" for key, r in result.ratings.items()
                      if key.startswith("gnugo") or key == "capturer")
    return (f"{played.n} legal games against random, {played.score_a:g} won; rated "
            f"{rating.elo:+.0f} Elo ({rating.low:+.0f} to {rating.high:+.0f})"
            + (f" on the ladder's scale, where {scale}" if scale else ", random at 0"))


own_player = Exercise(
    "own_player", "your own player on the ladder", _check_own_player, _my_move_solution,
    _my_move_skeleton,
    "np.flatnonzero(mask[:-1]) are the sensible points; rng.choice(points) plays one at random. "
    "A rule to try first: board.liberty_map() gives each stone's group its liberties, "
    "board.neighbors[p] the points next to p (-1: off the board); save a group of yours in "
    "atari, or capture like the notebook's Capturer.")


# ------------------------------------------------------------------- ucb1

# Four moves whose playouts win 45% to 60% of the time: close, as the good
# moves of a Go position are.
ARMS = (0.45, 0.50, 0.55, 0.60)


def _ucb1_skeleton(wins, visits, c):
    """The arm to pull next: one never pulled if any is left, else the one
    with the highest wins / visits + c * sqrt(ln(total) / visits), total
    being the pulls of all the arms."""
    raise NotImplementedError  # your code here


def _ucb1_solution(wins, visits, c):
    untried = np.flatnonzero(visits == 0)
    if len(untried):
        return int(untried[0])
    scores = wins / visits + c * np.sqrt(np.log(visits.sum()) / visits)
    return int(np.argmax(scores))


def _bandit(answer, c, pulls, runs, rng):
    """``runs`` games of ``pulls`` pulls on :data:`ARMS` with ``answer``:
    the mean share of the pulls on the best arm, and in how many runs the
    best arm was pulled most."""
    p = np.array(ARMS)
    shares, found = [], 0
    for _ in range(runs):
        wins, visits = np.zeros(len(p)), np.zeros(len(p))
        for _ in range(pulls):
            arm = int(answer(wins.copy(), visits.copy(), c))
            visits[arm] += 1
            wins[arm] += rng.random() < p[arm]
        shares.append(visits[-1] / pulls)
        found += int(np.argmax(visits) == len(p) - 1)
    return float(np.mean(shares)), found


def _check_ucb1(answer, pulls=1000, runs=30):
    rng = np.random.default_rng(0)
    for _ in range(200):
        visits = rng.integers(0, 30, 5).astype(float)
        wins = np.floor(rng.random(5) * (visits + 1))
        c = float(rng.choice([0.0, 0.5, 1.0, 2.0]))
        arm = int(answer(wins.copy(), visits.copy(), c))
        if (visits == 0).any():
            if visits[arm] != 0:
                raise NotYet(f"with visits {visits.astype(int).tolist()} an arm never pulled "
                             f"comes first, not arm {arm}")
            continue
        scores = wins / visits + c * np.sqrt(math.log(visits.sum()) / visits)
        if scores[arm] < scores.max() - 1e-12:
            raise NotYet(f"with wins {wins.astype(int).tolist()}, visits "
                         f"{visits.astype(int).tolist()} and c = {c:g} the best score is arm "
                         f"{int(np.argmax(scores))}'s ({scores.max():.3f}), not arm {arm}'s "
                         f"({scores[arm]:.3f})")
    lines = []
    for c in (0.1, 1.0, 4.0):
        share, found = _bandit(answer, c, pulls, runs, rng)
        lines.append(f"c = {c:g}: {share:.0%} of the pulls on the best arm, the most pulled in "
                     f"{found} of {runs} runs")
    return (f"UCB1's choices; on arms that win {', '.join(f'{p:.0%}' for p in ARMS)} of the "
            f"time, {pulls} pulls a run: " + "; ".join(lines))


ucb1 = Exercise(
    "ucb1", "UCB1 and its exploration constant", _check_ucb1, _ucb1_solution, _ucb1_skeleton,
    "np.flatnonzero(visits == 0) are the arms never pulled; otherwise the scores are "
    "wins / visits + c * np.sqrt(np.log(visits.sum()) / visits), and np.argmax picks the best.")


# ------------------------------------------------------------ amaf_update


def _amaf_update_skeleton(amaf_N, amaf_W, moves, movers, player, win, pass_move):
    """All moves as first, after one simulation whose moves, in order, were
    ``moves`` (``movers[i]`` made ``moves[i]``): every move that ``player``
    made in it counts at this node as if it had been played first,
    ``amaf_N[move] += 1`` and ``amaf_W[move] += win`` (``win``: 1 if
    ``player`` won the simulation, 0 if it lost), each move once however
    often it was played, and never the pass. Changes the arrays in place."""
    raise NotImplementedError  # your code here


def _amaf_update_solution(amaf_N, amaf_W, moves, movers, player, win, pass_move):
    seen = set()
    for move, mover in zip(moves, movers):
        if mover == player and move != pass_move and move not in seen:
            seen.add(move)
            amaf_N[move] += 1
            amaf_W[move] += win


def _check_amaf_update(answer, position, simulations=20):
    random_state = np.array([12345], np.uint64)
    total = position.pass_index + 1
    player = position.to_play
    counted = []
    for k in range(simulations):
        moves = position.random_playout(random_state).moves.astype(np.int64)
        movers = np.where(np.arange(len(moves)) % 2 == 0, player, 3 - player).astype(np.int64)
        for who in (player, 3 - player):
            win = float(k % 2)
            expected_N, expected_W = np.zeros(total), np.zeros(total)
            _update_amaf(expected_N, expected_W, moves, movers, 0, who, position.pass_index, win)
            got_N, got_W = np.zeros(total), np.zeros(total)
            answer(got_N, got_W, moves.tolist(), movers.tolist(), who, win, position.pass_index)
            if not (np.array_equal(got_N, expected_N) and np.array_equal(got_W, expected_W)):
                wrong = np.flatnonzero((got_N != expected_N) | (got_W != expected_W))
                raise NotYet(f"after a playout of {len(moves)} moves, the update for player "
                             f"{who} differs from mockgo.search.uct's at {len(wrong)} points: "
                             f"amaf_N {got_N[wrong[:3]].tolist()} where it has "
                             f"{expected_N[wrong[:3]].tolist()} (the first {min(3, len(wrong))})")
            if who == player:
                counted.append((len(moves), int(got_N.sum())))
    moves, samples = np.mean(counted, axis=0)
    return (f"the same updates as mockgo.search.uct in {2 * simulations} cases; a playout of "
            f"{moves:.0f} moves gave the root {samples:.0f} AMAF samples on average, one for each "
            f"distinct move of its player, where UCT's own statistics get one sample, for the "
            f"first move")


amaf_update = Exercise(
    "amaf_update", "RAVE's all-moves-as-first update", _check_amaf_update, _amaf_update_solution,
    _amaf_update_skeleton,
    "Walk through zip(moves, movers); keep a set of the moves already counted; count a move "
    "when its mover is player, it is not pass_move and it is not in the set yet.")
