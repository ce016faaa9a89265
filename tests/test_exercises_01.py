"""Notebook 01's exercises (mockgo.exercises.supervised): each check fails on
the skeleton the notebook shows, passes on the solution, and names what is
wrong in a plausible wrong answer. The positions are GnuGo's 9x9 games that
ship with mockgo, and one 9x9 game with handicap stones."""

import itertools

import numpy as np
import pytest

from mockgo import notebook
from mockgo.arena.evaluation import position_at
from mockgo.data.archives import iter_sgf_files
from mockgo.data.dataset import DatasetSpec, build_dataset
from mockgo.exercises import supervised
from mockgo.go.board import Board
from mockgo.go.features import get_encoder

ROOT = notebook.repo_root(__file__)
NOT_WRITTEN = (False, "the function is not written yet (it raises NotImplementedError)")


@pytest.fixture(scope="module")
def boards():
    """Positions of 9x9 GnuGo games at several moments, and one with
    handicap stones (set-up stones: 8 or more moves ago)."""
    games = list(itertools.islice(iter_sgf_files(notebook.gnugo9_archive(ROOT)), 6))
    found = [position_at(game, n)[0] for game in games for n in (5, 25, 45, 65)
             if len(game.moves) > n]
    handicap = Board(9)
    handicap.place_handicap(3)
    rng = np.random.default_rng(0)
    for _ in range(12):
        handicap.play(int(rng.choice(np.flatnonzero(handicap.sensible_moves()[:-1]))))
    return found + [handicap]


def test_turns_since(boards):
    exercise = supervised.turns_since
    assert exercise.run_check(exercise.skeleton, boards=boards) == NOT_WRITTEN
    passed, message = exercise.run_check(exercise.solution_function, boards=boards)
    assert passed and f"on all {len(boards)} positions" in message

    def one_off(board):  # the last move's stone in plane 1, not 0
        planes = np.zeros((board.size, board.size, 8), np.uint8)
        for point in np.flatnonzero(board.stones):
            age = board.move_number - board.played_at[point] + 1
            planes[point // board.size, point % board.size, min(age, 8) - 1] = 1
        return planes

    passed, message = exercise.run_check(one_off, boards=boards)
    assert not passed and "plane 'turns since: " in message
    assert "yours 0, the encoder's 1" in message

    def set_up_stones_new(board):  # handicap stones counted as just played
        planes = supervised._turns_since_solution(board)
        setup = board.played_at < 0
        stones = setup.reshape(board.size, board.size) & (board.grid() != 0)
        planes[stones] = [1, 0, 0, 0, 0, 0, 0, 0]
        return planes

    passed, message = exercise.run_check(set_up_stones_new, boards=boards)
    assert not passed and f"position {len(boards)} of {len(boards)}" in message
    passed, message = exercise.run_check(lambda board: np.zeros((3, 3)), boards=boards)
    assert not passed and "shape (9, 9, 8)" in message


def test_self_atari(boards):
    exercise = supervised.self_atari
    assert exercise.run_check(exercise.skeleton, boards=boards) == NOT_WRITTEN
    passed, message = exercise.run_check(exercise.solution_function, boards=boards)
    assert passed
    moves = int(message.split("positions: ")[1].split(" legal moves")[0].replace(",", ""))
    assert moves > 0  # the positions have self-ataris to find

    def size_before_the_move(board):  # the group's size without the new stone
        planes = np.zeros((board.size, board.size, 8), np.uint8)
        for move in np.flatnonzero(board.legal_moves()[:-1]):
            after = board.copy()
            after.play(int(move))
            head = after.group[move]
            if after.liberties[head] == 1:
                size = max(1, after.group_size[head] - 1)
                planes[move // board.size, move % board.size, min(size, 8) - 1] = 1
        return planes

    passed, message = exercise.run_check(size_before_the_move, boards=boards)
    assert not passed and "plane 'self-atari size:" in message


@pytest.fixture(scope="module")
def small_dataset(tmp_path_factory):
    """alphago48 positions of 20 of GnuGo's 9x9 games, about a third of them
    in the test split."""
    folder = tmp_path_factory.mktemp("alphago48-9x9")
    build_dataset([notebook.gnugo9_archive(ROOT)], folder / "ds",
                  DatasetSpec(encoder="alphago48", board_size=9, validation_share=0.0,
                              test_share=0.3), workers=1, max_games=20,
                  progress=False)
    return folder / "ds"


def test_board_and_history(small_dataset):
    exercise = supervised.board_and_history
    names = get_encoder("alphago48", 9).plane_names
    context = dict(plane_names=names, dataset=small_dataset, steps=3, test_positions=128)
    assert exercise.run_check(exercise.skeleton, **context) == NOT_WRITTEN
    passed, message = exercise.run_check(exercise.solution_function, **context)
    assert passed and message.startswith("the 12 planes of the board and its history; trained "
                                         "side by side for 3 batches")
    # The zeros plane shows nothing: taken too, the answer stands.
    passed, _ = exercise.run_check(
        lambda n: exercise.solution_function(n) + [n.index("zeros")], **context)
    assert passed
    passed, message = exercise.run_check(lambda n: list(range(20)), **context)
    assert not passed and message.startswith("liberties: 1, liberties: 2")
    assert message.endswith("worked out from the rules, not the board and its history")
    passed, message = exercise.run_check(lambda n: [0, 1, 2, 3], **context)
    assert not passed and message.startswith("missing: turns since: 1,")
    passed, message = exercise.run_check(lambda n: [0, 1, 48], **context)
    assert not passed and "indices from 0 to 47" in message
