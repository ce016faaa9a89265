"""The rules engine on hand-made positions, and its incremental bookkeeping
checked against a plain flood-fill reference over many random games."""

import random

import numpy as np
import pytest

from mockgo import BLACK, EMPTY, WHITE, Board, IllegalMove
from mockgo.go import coords
from mockgo.go.board import (KO, LEGAL, OCCUPIED, SUICIDE, SUPERKO, check_komi, geometry,
                             opponent)
from mockgo.go.handicap import fixed_handicap_points, max_handicap


def at(board, vertex):
    return coords.from_gtp(vertex, board.size)


def play_all(board, vertices):
    for vertex in vertices:
        board.play(at(board, vertex))


def vertices_of(board, color):
    return sorted(coords.to_gtp(int(p), board.size) for p in np.flatnonzero(board.stones == color))


# ------------------------------------------------------------- captures


def test_single_stone_capture():
    board = Board(9)
    play_all(board, ["E5", "E6", "pass", "D5", "pass", "F5", "pass", "E4"])
    assert board.stones[at(board, "E5")] == EMPTY
    assert board.captures == {BLACK: 0, WHITE: 1}


def test_one_move_captures_four_groups():
    board = Board.from_diagram("""
        . . . . . . .
        . . . X . . .
        . . X O X . .
        . X O . O X .
        . . X O X . .
        . . . X . . .
        . . . . . . .
    """)
    board.play(at(board, "D4"))
    assert board.captures[BLACK] == 4
    assert vertices_of(board, WHITE) == []
    assert board.liberty_map()[at(board, "D4")] == 4


def test_capture_gives_liberties_back_to_every_surrounding_group():
    board = Board.from_diagram("""
        O O X . .
        O . X . .
        X . . . .
        . . . . .
        . . . . .
    """)
    board.play(at(board, "B4"))
    assert board.captures[BLACK] == 3
    libs = board.liberty_map()
    # B4 joined C5-C4: B5, A4, B3, D5, D4, C3. A3 alone gained A4: A4, A2, B3.
    assert libs[at(board, "B4")] == libs[at(board, "C5")] == 6
    assert libs[at(board, "A3")] == 3
    assert board.group_size_map()[at(board, "C4")] == 3


def test_snapback():
    board = Board.from_diagram("""
        . . . . .
        . . . . .
        X X X X .
        O O O X .
        . . O X .
    """)
    play_all(board, ["B1", "A1"])  # the throw-in, and white takes it
    assert board.captures == {BLACK: 0, WHITE: 1}
    assert board.ko == -1  # white took with a group, not a lone stone: no ko
    board.play(at(board, "B1"))  # and black takes back five
    assert board.captures == {BLACK: 5, WHITE: 1}
    assert vertices_of(board, WHITE) == []


# ------------------------------------------------------------ illegal moves


def test_occupied_point():
    board = Board(9)
    board.play(at(board, "E5"))
    assert board.illegal_reason(at(board, "E5")) == OCCUPIED
    with pytest.raises(IllegalMove, match="occupied"):
        board.play(at(board, "E5"))


def test_suicide_of_a_stone_and_of_a_group():
    board = Board.from_diagram("""
        . O . . .
        O . . . .
        . . . . .
        . . . . .
        . . . . .
    """)
    corner = at(board, "A5")
    assert board.illegal_reason(corner) == SUICIDE
    with pytest.raises(IllegalMove, match="suicide"):
        board.play(corner)
    assert board.stones[corner] == EMPTY and board.to_play == BLACK and not board.history

    group = Board.from_diagram("""
        X X O . .
        . O . . .
        O . . . .
        . . . . .
        . . . . .
    """)
    # A4 would join A5-B5 and leave the three stones without a liberty...
    assert group.illegal_reason(at(group, "A4")) == SUICIDE
    assert not group.legal_moves()[at(group, "A4")]
    # ...while for white the same point captures.
    assert group.illegal_reason(at(group, "A4"), WHITE) == LEGAL
    group.play(at(group, "A4"), WHITE)
    assert group.captures[WHITE] == 2


KO_SHAPE = """
    . . . . .
    . X O . .
    X O . O .
    . X O . .
    . . . . .
"""


@pytest.mark.parametrize("superko", [True, False])
def test_simple_ko(superko):
    board = Board.from_diagram(KO_SHAPE, superko=superko)
    board.play(at(board, "C3"))  # black takes the ko
    retake = at(board, "B3")
    assert board.ko == retake
    assert board.illegal_reason(retake) == KO
    assert not board.legal_moves()[retake]
    with pytest.raises(IllegalMove, match="ko"):
        board.play(retake)
    play_all(board, ["E1", "E2"])  # a ko threat and its answer
    assert board.illegal_reason(retake) == LEGAL
    board.play(retake)
    assert board.captures == {BLACK: 1, WHITE: 1}


def test_ko_is_lifted_by_a_pass():
    board = Board.from_diagram(KO_SHAPE)
    play_all(board, ["C3", "pass", "pass"])
    assert board.ko == -1
    # The plain ko rule lets white take back after the passes; superko does
    # not, because taking back recreates the start position.
    plain = Board.from_diagram(KO_SHAPE, superko=False)
    play_all(plain, ["C3", "pass", "pass"])
    assert plain.illegal_reason(at(plain, "B3")) == LEGAL
    assert board.illegal_reason(at(board, "B3")) == SUPERKO


# Three kos at once: each side takes one in turn and the board cycles with a
# period of six moves. Simple ko never forbids a move here; superko forbids
# the sixth, which recreates the start position.
TRIPLE_KO = """
    . X O . . . . . .
    X O . O . . . . .
    . X O . . . . . .
    . . . . . . X O .
    . . . . . X . X O
    . . . . . . X O .
    . X O . . . . . .
    X O . O . . . . .
    . X O . . . . . .
"""
TRIPLE_KO_CYCLE = ["C8", "G5", "C2", "B8", "H5", "B2"]


def test_triple_ko_is_a_superko_cycle():
    board = Board.from_diagram(TRIPLE_KO)
    start = board.stones.copy()
    play_all(board, TRIPLE_KO_CYCLE[:-1])
    last = at(board, TRIPLE_KO_CYCLE[-1])
    assert board.ko != last  # simple ko alone would allow it
    assert board.illegal_reason(last) == SUPERKO
    assert not board.legal_moves()[last]
    with pytest.raises(IllegalMove, match="superko"):
        board.play(last)

    plain = Board.from_diagram(TRIPLE_KO, superko=False)
    play_all(plain, TRIPLE_KO_CYCLE)
    assert np.array_equal(plain.stones, start)
    assert plain.hash == Board.from_diagram(TRIPLE_KO).hash


def test_pass_and_game_end():
    board = Board(9)
    board.play(board.pass_index)
    assert not board.is_over and board.passes == 1 and board.to_play == WHITE
    board.play(at(board, "E5"))
    assert board.passes == 0
    play_all(board, ["pass", "pass"])
    assert board.is_over
    assert board.last_move == board.pass_index


def test_resignation():
    board = Board(9, komi=6.5)
    board.play(at(board, "E5"))
    board.resign()  # white resigns
    assert board.is_over
    assert board.winner() == BLACK and board.result() == "B+R"
    with pytest.raises(IllegalMove, match="resigned"):
        board.play(at(board, "D4"))


# ------------------------------------------------------------------ eyes


def test_eyes_in_the_corner_on_the_edge_and_in_the_middle():
    board = Board.from_diagram("""
        . X . X . . . . .
        X X X X . . . . .
        . X . . . . . . .
        X O . . . X . . .
        . . . . X . X . .
        . . . . O X . O .
        . . . . . . . . .
        X X . . . . . . .
        . X . . . . . . .
    """)
    # Corner A1: both neighbours black, the one diagonal black: an eye.
    assert board.is_eye(at(board, "A1"))
    assert not board.is_eye(at(board, "A1"), WHITE)
    # Corner A9 with B8 black: an eye; C9 on the edge, diagonals B8 and D8 black.
    assert board.is_eye(at(board, "A9"))
    assert board.is_eye(at(board, "C9"))
    # Edge A7: neighbours A8, A6 and B7 black, but diagonal B6 is white.
    assert not board.is_eye(at(board, "A7"))
    # Middle F5: four black neighbours, one white diagonal (E4) is allowed...
    assert board.is_eye(at(board, "F5"))
    # ...two are not.
    board.setup(white=[at(board, "G4")])
    assert not board.is_eye(at(board, "F5"))
    # Not an eye: an empty neighbour.
    assert not board.is_eye(at(board, "C7"))
    sensible = board.sensible_moves()
    legal = board.legal_moves()
    assert legal[at(board, "A1")] and not sensible[at(board, "A1")]
    assert sensible[at(board, "A7")]


def test_two_point_eye_spaces_are_left_out_at_eye_space_2():
    board = Board.from_diagram("""
        . . X . . . . . .
        X X X . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . O O . . . . X X
        O . . O . . X . .
        O O O . . . X . .
    """)
    one, two = board.sensible_moves(BLACK), board.sensible_moves(BLACK, eye_space=2)
    # Black's two-point eye A9-B9: sensible at eye_space=1 only.
    for vertex in ("A9", "B9"):
        assert one[at(board, vertex)] and not two[at(board, vertex)], vertex
    # Black's four-point space H2-J2-H1-J1 is no two-point space.
    for vertex in ("H2", "J2", "H1", "J1"):
        assert two[at(board, vertex)], vertex
    # White's two-point eye B2-C2 is white's to keep, black's to play into.
    white = board.sensible_moves(WHITE, eye_space=2)
    assert not white[at(board, "B2")] and not white[at(board, "C2")]
    assert board.sensible_moves(WHITE)[at(board, "B2")]
    assert two[at(board, "B2")] and board.sensible_moves(WHITE, eye_space=2)[at(board, "A9")]
    with pytest.raises(ValueError, match="eye_space"):
        board.sensible_moves(eye_space=3)


def test_a_two_point_eye_point_that_saves_a_chain_in_atari_stays_sensible():
    # C9 is in atari, its last liberty B9: playing B9 connects it to B8.
    board = Board.from_diagram("""
        . . X O . . . . .
        X X O . . . . . .
        . . O . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """)
    assert board.liberties[board.group[at(board, "C9")]] == 1
    two = board.sensible_moves(BLACK, eye_space=2)
    assert two[at(board, "B9")] and not two[at(board, "A9")]


# --------------------------------------------------------------- scoring


def test_area_score_and_results():
    board = Board.from_diagram("""
        . X O . .
        . X O . .
        X X O . .
        . X O O O
        . X O . .
    """, komi=0.5)
    # Black: 6 stones + A5, A4, A2, A1; white: 7 stones + 8 empty points.
    assert board.area() == (10, 15)
    assert board.area_score() == 10 - 15 - 0.5
    assert board.result() == "W+5.5"
    assert board.winner() == WHITE
    board.komi = -5.0
    assert board.result() == "0" and board.winner() == EMPTY
    board.komi = -6.0
    assert board.result() == "B+1"


def test_area_score_with_dead_stones():
    board = Board.from_diagram("""
        . . . . .
        . X . . .
        . . . . .
        . . . O .
        . . . . .
    """, komi=0)
    assert board.area() == (1, 1)  # the empty region touches both colours
    assert board.area(dead=[at(board, "D2")]) == (25, 0)
    assert board.result(dead=[at(board, "B4")]) == "W+25"


# --------------------------------------------------- handicap and set-up


def test_fixed_handicap():
    board = Board(19, komi=0.5)
    points = board.place_handicap(4)
    assert sorted(coords.to_gtp(p, 19) for p in points) == ["D16", "D4", "Q16", "Q4"]
    assert board.to_play == WHITE and not board.history
    nine = Board(9).place_handicap(9)
    assert {coords.to_gtp(p, 9) for p in nine} == {
        "C3", "E3", "G3", "C5", "E5", "G5", "C7", "E7", "G7"}
    for size, stones in [(9, 10), (9, 1), (10, 5), (6, 2)]:
        with pytest.raises(ValueError, match="fixed handicap"):
            Board(size).place_handicap(stones)
    with pytest.raises(ValueError, match="empty board"):
        board.place_handicap(2)


def test_setup_errors():
    board = Board(5)
    board.setup(black=[0])
    with pytest.raises(ValueError, match="occupied"):
        board.setup(white=[0])
    with pytest.raises(ValueError, match="without liberties"):
        Board(5).setup(black=[0], white=[1, 5])
    with pytest.raises(ValueError, match="square"):
        Board.from_diagram("..\n...")
    with pytest.raises(ValueError, match="row 2"):
        Board.from_diagram("..\n.Z")


@pytest.mark.parametrize("size", [1, 26, 9.0])
def test_bad_sizes(size):
    with pytest.raises(ValueError, match="board size"):
        Board(size)


# ------------------------------------------------------------- drawing


def test_str_draws_like_showboard_with_the_last_move_marked():
    board = Board(9)
    play_all(board, ["E5", "C3"])
    text = str(board).splitlines()
    assert text[0] == text[-1] == "   A B C D E F G H J"
    assert text[5] == " 5 . . . . X . . . . 5"
    assert text[7] == " 3 . .(O). . . + . . 3"
    assert text[8].endswith("WHITE (O) has captured 0 stones")
    assert "9x9" in repr(board)


# -------------------------------------- bookkeeping against a reference


def reference_groups(stones, size):
    """Groups and their liberty sets by flood fill: slow and obviously right."""
    neighbors = geometry(size)[0]
    seen, groups = set(), []
    for start in range(size * size):
        if stones[start] == EMPTY or start in seen:
            continue
        group, liberties, frontier = {start}, set(), [start]
        while frontier:
            p = frontier.pop()
            for q in neighbors[p]:
                if q < 0:
                    break
                if stones[q] == EMPTY:
                    liberties.add(int(q))
                elif stones[q] == stones[start] and q not in group:
                    group.add(int(q))
                    frontier.append(q)
        seen |= group
        groups.append((group, liberties))
    return groups


def reference_play(stones, size, p, color):
    """The position after ``color`` plays ``p``, or None if it is suicide."""
    after = stones.copy()
    after[p] = color
    for group, liberties in reference_groups(after, size):
        if after[next(iter(group))] == opponent(color) and not liberties:
            after[list(group)] = EMPTY
    for group, liberties in reference_groups(after, size):
        if p in group and not liberties:
            return None
    return after


def check_against_reference(board, positions):
    size, stones = board.size, board.stones
    liberties, group_sizes = board.liberty_map(), board.group_size_map()
    for group, libs in reference_groups(stones, size):
        for p in group:
            assert liberties[p] == len(libs) and group_sizes[p] == len(group)
    _, _, zobrist, empty_hash = geometry(size)
    expected = int(empty_hash)
    for p in np.flatnonzero(stones):
        expected ^= int(zobrist[stones[p], p])
    assert board.hash == expected
    legal = board.legal_moves()
    assert legal[-1]
    for p in range(size * size):
        if stones[p] != EMPTY:
            assert not legal[p]
            continue
        after = reference_play(stones, size, p, board.to_play)
        expected_legal = (after is not None and p != board.ko
                          and (not board.superko or after.tobytes() not in positions))
        assert legal[p] == expected_legal, (str(board), coords.to_gtp(p, size))
        assert board.is_legal(p) == expected_legal
        sensible = board.sensible_moves()[p]
        assert sensible == (expected_legal and not board.is_eye(p))


@pytest.mark.parametrize("size,games,superko", [(5, 30, True), (7, 20, True),
                                                (7, 10, False), (9, 6, True)])
def test_random_games_match_the_reference(size, games, superko):
    rng = random.Random(size * 1000 + games)
    for _ in range(games):
        board = Board(size, superko=superko)
        positions = {board.stones.tobytes()}
        while not board.is_over and board.move_number < 3 * size * size:
            check_against_reference(board, positions)
            # Mostly sensible moves, sometimes an eye-filling legal move, so
            # that groups die and the board cycles through captures and kos.
            mask = board.legal_moves() if rng.random() < 0.2 else board.sensible_moves()
            choices = np.flatnonzero(mask[:-1])
            move = int(rng.choice(choices)) if len(choices) else board.pass_index
            copy = board.copy()
            board.play(move)
            assert copy.move_number == board.move_number - 1  # the copy is independent
            positions.add(board.stones.tobytes())
        check_against_reference(board, positions)


def test_copy_is_independent():
    board = Board(9)
    play_all(board, ["E5", "D5"])
    copy = board.copy()
    copy.play(at(copy, "C3"))
    assert board.stones[at(board, "C3")] == EMPTY
    assert board.move_number == 2 and copy.move_number == 3
    assert board.hash != copy.hash
    # Board.copy names each array it copies: a new array or list added to
    # Board must be added there too, or a search's boards would share it.
    fresh = board.copy()
    assert fresh.__dict__.keys() == board.__dict__.keys()
    geometry = ("neighbors", "diagonals", "zobrist")  # read-only, shared on purpose
    for name, value in board.__dict__.items():
        if isinstance(value, (np.ndarray, list, dict)) and name not in geometry:
            assert fresh.__dict__[name] is not value, name


def test_long_games_grow_the_table_of_seen_positions():
    board = Board(5, superko=True)
    rng = random.Random(5)
    for _ in range(2000):  # far more positions than the table starts with
        choices = np.flatnonzero(board.legal_moves()[:-1])
        board.play(int(rng.choice(choices)) if len(choices) else board.pass_index)
    assert board.move_number == 2000


def test_what_feature_planes_read_history_and_move_ages():
    board = Board(9)
    play_all(board, ["E5", "C3", "pass", "G7"])
    assert len(board.previous_stones) == 4
    # Most recent first: before G7 the board had E5 and C3.
    assert board.previous_stones[0][at(board, "E5")] == BLACK
    assert board.previous_stones[0][at(board, "G7")] == EMPTY
    assert not board.previous_stones[-1].any()
    assert board.played_at[at(board, "E5")] == 0
    assert board.played_at[at(board, "G7")] == 3
    for _ in range(10):
        board.play(board.pass_index)
    assert len(board.previous_stones) == 7


def test_komi_is_a_finite_number_of_at_most_a_thousand_points():
    assert Board(9, komi=-1000).komi == -1000 and check_komi("7.5") == 7.5
    for komi in (1e20, 1000.5, -1001, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="is not a number from -1000 to 1000"):
            Board(9, komi=komi)


def test_the_most_handicap_stones_follow_the_fixed_handicap():
    assert [max_handicap(size) for size in (19, 13, 9, 8, 7, 6, 2)] == [9, 9, 9, 4, 4, 0, 0]
    for size in (19, 9, 8, 7):
        assert len(fixed_handicap_points(size, max_handicap(size))) == max_handicap(size)
        with pytest.raises(ValueError, match="no fixed handicap"):
            fixed_handicap_points(size, max_handicap(size) + 1)
