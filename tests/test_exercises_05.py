"""Notebook 05's exercises (mockgo.exercises.arena): each check fails on the
skeleton the notebook shows, passes on the solution, and names what is wrong
in a plausible wrong answer."""

import numpy as np

from mockgo.exercises import arena
from mockgo.go import coords
from mockgo.go.board import Board
from mockgo.play.match import match

NOT_WRITTEN = (False, "the function is not written yet (it raises NotImplementedError)")


def random_move(board, mask, rng):
    points = np.flatnonzero(mask[:-1])
    return int(rng.choice(points)) if len(points) else board.pass_index


def test_own_player():
    exercise = arena.own_player
    assert exercise.run_check(exercise.skeleton, games=2, size=5) == NOT_WRITTEN
    passed, message = exercise.run_check(exercise.solution_function, games=4, size=5)
    assert passed and message.startswith("4 legal games against random") and "rated" in message
    # A move where a stone already stands loses the game by forfeit, and says why.
    passed, message = exercise.run_check(lambda board, mask, rng: 0 if board.move_number > 2
                                         else random_move(board, mask, rng), games=2, size=5)
    assert not passed and "lost by forfeit" in message and "illegal move" in message
    # Passing every time is legal, and not a player.
    passed, message = exercise.run_check(lambda board, mask, rng: board.pass_index, games=2,
                                         size=5)
    assert not passed and "only passed" in message


def test_own_player_is_rated_with_the_notebooks_ladder_in_the_fit():
    # A recorded match stands in for the notebook's ladder: GnuGo's level is
    # not needed, any player that met random will do.
    ladder_match = match("random:seed=3,name=rival", "random", games=4, size=5, seed=1)
    passed, message = arena.own_player.run_check(random_move, games=2, size=5,
                                                 matches=[ladder_match])
    assert passed and "rated" in message
    # Matches of another board size are left out of the fit.
    passed, _ = arena.own_player.run_check(random_move, games=2, size=7, matches=[ladder_match])
    assert passed


def test_ucb1():
    exercise = arena.ucb1
    assert exercise.run_check(exercise.skeleton, pulls=50, runs=2) == NOT_WRITTEN
    passed, message = exercise.run_check(exercise.solution_function, pulls=200, runs=4)
    assert passed and "c = 0.1:" in message and "c = 4:" in message
    # Greedy: the exploration term forgotten.
    passed, message = exercise.run_check(
        lambda wins, visits, c: int(np.argmax(np.where(visits == 0, np.inf,
                                                       wins / np.maximum(visits, 1)))))
    assert not passed and "the best score is arm" in message
    # The untried arms forgotten: 0 / 0 is no score.
    passed, message = exercise.run_check(
        lambda wins, visits, c: int(np.argmax(wins / np.maximum(visits, 1)
                                              + c * np.sqrt(np.log(max(visits.sum(), 1))
                                                            / np.maximum(visits, 1)))))
    assert not passed and "an arm never pulled comes first" in message


def test_amaf_update():
    exercise = arena.amaf_update
    position = Board(9)
    for move in ("E5", "C3", "G7"):
        position.play(coords.from_gtp(move, 9))
    assert exercise.run_check(exercise.skeleton, position=position) == NOT_WRITTEN
    passed, message = exercise.run_check(exercise.solution_function, position=position)
    assert passed and message.startswith("the same updates as mockgo.search.uct in 40 cases")

    def every_time(amaf_N, amaf_W, moves, movers, player, win, pass_move):
        for move, mover in zip(moves, movers):  # a point played twice counts twice
            if mover == player and move != pass_move:
                amaf_N[move] += 1
                amaf_W[move] += win

    def both_players(amaf_N, amaf_W, moves, movers, player, win, pass_move):
        for move in set(moves) - {pass_move}:
            amaf_N[move] += 1
            amaf_W[move] += win

    for wrong in (every_time, both_players):
        passed, message = exercise.run_check(wrong, position=position)
        assert not passed and "differs from mockgo.search.uct's" in message, wrong.__name__
