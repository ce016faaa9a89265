"""Feature planes on hand-made positions whose answers are known, the move
planes checked against playing each move on a copy, and every encoder
checked against the symmetries of the board."""

import pickle
import random

import numpy as np
import pytest

from mockgo import BLACK, EMPTY, WHITE, Board
from mockgo.go import coords
from mockgo.go.features import ENCODERS, encoder_names, get_encoder
from mockgo.go.symmetries import SYMMETRIES, apply_to_moves, apply_to_planes

ALPHAGO48 = get_encoder("alphago48", 9).plane_names


def at(board, vertex):
    return coords.from_gtp(vertex, board.size)


def play_all(board, vertices):
    for vertex in vertices:
        board.play(at(board, vertex))


def encode(board, name="alphago48"):
    return get_encoder(name, board.size).encode(board)


def plane(planes, name, encoder="alphago48"):
    """One plane, by name, as a (size, size) array."""
    return planes[..., get_encoder(encoder, 9).plane_names.index(name)]


def value(board, planes, vertex, name):
    row, col = coords.from_flat(at(board, vertex), board.size)
    return int(plane(planes, name)[row, col])


def where(board, planes, name, encoder="alphago48"):
    """The vertices where a plane is 1, sorted."""
    points = np.flatnonzero(plane(planes, name, encoder))
    return sorted(coords.to_gtp(int(p), board.size) for p in points)


def one_hot_value(board, planes, vertex, title):
    """The label of the one-hot plane of group ``title`` set at ``vertex``,
    or None when none is."""
    row, col = coords.from_flat(at(board, vertex), board.size)
    found = [name.split(": ")[1] for i, name in enumerate(ALPHAGO48)
             if name.startswith(title + ": ") and planes[row, col, i]]
    assert len(found) <= 1
    return found[0] if found else None


def random_game(size, moves, seed):
    rng = random.Random(seed)
    board = Board(size)
    played = []
    for _ in range(moves):
        candidates = np.flatnonzero(board.sensible_moves()[:-1])
        move = board.pass_index
        if len(candidates):
            move = int(candidates[rng.randrange(len(candidates))])
        board.play(move)
        played.append(move)
    return board, played


# ------------------------------------------------------------ the registry


def test_registry_names_every_encoder():
    assert encoder_names() == ["simple2", "agz17", "alphago48", "alphago49"]
    assert set(ENCODERS) == set(encoder_names())
    with pytest.raises(ValueError, match="no encoder named"):
        get_encoder("alphago47", 19)
    with pytest.raises(ValueError):
        get_encoder("agz17", 1)


@pytest.mark.parametrize("size", [9, 19])
@pytest.mark.parametrize("name", ["simple2", "agz17", "alphago48", "alphago49"])
def test_shapes_and_dtypes(name, size):
    encoder = get_encoder(name, size)
    expected = {"simple2": 2, "agz17": 17, "alphago48": 48, "alphago49": 49}[name]
    assert encoder.name == name and encoder.size == size
    assert encoder.num_planes == expected == len(encoder.plane_names)
    assert len(set(encoder.plane_names)) == expected
    assert encoder.dtype == np.uint8
    board, _ = random_game(size, 30, seed=size)
    planes = encoder.encode(board)
    assert planes.shape == (size, size, expected) and planes.dtype == np.uint8
    assert set(np.unique(planes)) <= {0, 1}
    # encode_into: into a row of a data set, and into a strided view
    batch = np.full((2, size, size, expected), 7, np.uint8)
    row = batch[1]
    assert encoder.encode_into(board, row) is row
    np.testing.assert_array_equal(batch[1], planes)
    assert (batch[0] == 7).all()
    wide = np.full((size, size, 2 * expected), 7, np.uint8)
    encoder.encode_into(board, wide[..., ::2])
    np.testing.assert_array_equal(wide[..., ::2], planes)
    assert (wide[..., 1::2] == 7).all()
    floats = encoder.encode_into(board, np.empty(encoder.shape, np.float32))
    np.testing.assert_array_equal(floats, planes)
    clone = pickle.loads(pickle.dumps(encoder))  # for worker processes
    np.testing.assert_array_equal(clone.encode(board), planes)
    with pytest.raises(ValueError, match="shape"):
        encoder.encode_into(board, np.zeros((size, size, expected + 1), np.uint8))
    with pytest.raises(ValueError, match="boards"):
        encoder.encode(Board(size + 2))


# ------------------------------------------------------ the stones planes


def test_stone_colour_ones_and_zeros_from_the_movers_side():
    diagram = """
        X . .
        . O .
        . . .
    """
    for to_play, mine, theirs in ((BLACK, "A3", "B2"), (WHITE, "B2", "A3")):
        board = Board.from_diagram(diagram, to_play=to_play)
        planes = encode(board)
        assert where(board, planes, "player stones") == [mine]
        assert where(board, planes, "opponent stones") == [theirs]
        assert len(where(board, planes, "empty points")) == 7
        assert plane(planes, "ones").all() and not plane(planes, "zeros").any()
        simple = encode(board, "simple2")
        np.testing.assert_array_equal(simple, planes[..., :2])


def test_turns_since_counts_moves_and_passes_and_setup_stones_are_old():
    board = Board.from_diagram("""
        X . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """)
    # nine moves, the fifth a pass: C1 is the oldest, J5 the newest
    play_all(board, ["C1", "D1", "E1", "F1", "pass", "G1", "H1", "J1", "J5"])
    planes = encode(board)
    expected = {"J5": "1", "J1": "2", "H1": "3", "G1": "4", "F1": "6", "E1": "7",
                "D1": "8+", "C1": "8+", "A9": "8+"}
    for vertex, age in expected.items():
        assert one_hot_value(board, planes, vertex, "turns since") == age, vertex
    assert one_hot_value(board, planes, "E5", "turns since") is None
    # every stone has exactly one age, empty points none
    ages = planes[..., 4:12].sum(axis=-1)
    np.testing.assert_array_equal(ages, board.grid() != EMPTY)


def test_liberties_of_the_group_on_each_stone():
    board = Board.from_diagram("""
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . X X X . .
        . . . . . . .
        . . . . . O O
        . . . . . . X
    """)
    planes = encode(board)
    assert one_hot_value(board, planes, "C4", "liberties") == "8+"  # three in a row: 8
    assert one_hot_value(board, planes, "G1", "liberties") == "1"
    assert one_hot_value(board, planes, "F2", "liberties") == "4"
    assert one_hot_value(board, planes, "A1", "liberties") is None
    np.testing.assert_array_equal(planes[..., 12:20].sum(axis=-1), board.grid() != EMPTY)


# ------------------------------------------------------- the move planes


def test_capture_size_and_liberties_after_a_capture():
    board = Board.from_diagram("""
        O O X . .
        O . X . .
        X . . . .
        . . . . .
        . . . . .
    """)
    planes = encode(board)
    # B4 takes three stones and joins C5-C4: B5, A4, B3, D5, D4, C3
    assert one_hot_value(board, planes, "B4", "capture size") == "3"
    assert one_hot_value(board, planes, "B4", "liberties after move") == "6"
    assert one_hot_value(board, planes, "D5", "capture size") == "0"
    assert one_hot_value(board, planes, "D5", "liberties after move") == "4"
    assert one_hot_value(board, planes, "E1", "liberties after move") == "2"
    # occupied points have no move planes
    assert one_hot_value(board, planes, "A5", "capture size") is None
    legal = board.legal_moves()[:-1].reshape(5, 5)
    np.testing.assert_array_equal(planes[..., 20:28].sum(axis=-1), legal)
    np.testing.assert_array_equal(planes[..., 36:44].sum(axis=-1), legal)


def test_self_atari_and_liberties_from_captured_stones_next_to_friends():
    diagram = """
        . . . . .
        . . . . .
        . O O . .
        O X X O .
        . O . . .
    """
    black = Board.from_diagram(diagram, to_play=BLACK)
    planes = encode(black)
    # C1 saves nothing: B2-C2-C1, three stones on one liberty (D1)
    assert one_hot_value(black, planes, "C1", "self-atari size") == "3"
    assert one_hot_value(black, planes, "C1", "liberties after move") == "1"
    assert one_hot_value(black, planes, "C1", "capture size") == "0"
    assert where(black, planes, "self-atari size: 1") == ["A3"]  # A1 is suicide
    white = Board.from_diagram(diagram, to_play=WHITE)
    planes = encode(white)
    # C1 takes two; C1-B1 then has A1, D1, C2 (next to C1) and B2 (next to B1)
    assert one_hot_value(white, planes, "C1", "capture size") == "2"
    assert one_hot_value(white, planes, "C1", "liberties after move") == "4"
    assert one_hot_value(white, planes, "C1", "self-atari size") is None


def test_ko_and_suicide_points_have_no_move_planes():
    board = Board.from_diagram("""
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        . . . . .
    """)
    play_all(board, ["C4"])  # black takes B4 and white may not take back
    assert board.ko == at(board, "B4")
    planes = encode(board)
    assert value(board, planes, "B4", "empty points") == 1
    assert not planes[1, 1, 20:47].any()  # B4
    assert not planes[0, 0, 20:47].any()  # A5: suicide for white
    assert one_hot_value(board, planes, "C4", "liberties") == "1"


def test_sensibleness_leaves_out_own_eyes_but_the_move_planes_keep_them():
    diagram = """
        . . . . .
        . . . . .
        . . . . .
        X X . . .
        . X . . .
    """
    black = Board.from_diagram(diagram, to_play=BLACK)
    planes = encode(black)
    assert value(black, planes, "A1", "sensibleness") == 0
    assert value(black, planes, "A3", "sensibleness") == 1
    assert one_hot_value(black, planes, "A1", "liberties after move") == "4"
    assert one_hot_value(black, planes, "A1", "capture size") == "0"
    sensible = black.sensible_moves()[:-1].reshape(5, 5)
    np.testing.assert_array_equal(plane(planes, "sensibleness"), sensible)
    white = Board.from_diagram(diagram, to_play=WHITE)
    planes = encode(white)
    assert not planes[4, 0, 20:47].any()  # A1 is suicide for white


@pytest.mark.parametrize("seed", range(6))
def test_move_planes_agree_with_playing_every_move(seed):
    board, _ = random_game(9, 40 + 10 * seed, seed)
    planes = encode(board).reshape(81, 48)
    color = board.to_play
    legal = board.legal_moves()[:-1]
    np.testing.assert_array_equal(planes[:, 46], board.sensible_moves()[:-1])
    for p in range(81):
        if not legal[p]:
            assert not planes[p, 20:47].any()
            continue
        after = board.copy()
        after.play(p)
        captured = after.captures[color] - board.captures[color]
        liberties = int(after.liberty_map()[p])
        stones = int(after.group_size_map()[p])
        assert planes[p, 20 + min(captured, 7)] == 1 and planes[p, 20:28].sum() == 1
        assert planes[p, 36 + min(liberties, 8) - 1] == 1 and planes[p, 36:44].sum() == 1
        if liberties == 1:
            assert planes[p, 28 + min(stones, 8) - 1] == 1 and planes[p, 28:36].sum() == 1
        else:
            assert not planes[p, 28:36].any()


# --------------------------------------------------------------- ladders

LADDER = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . {breaker} . .
    . . . . . . . . .
    . . . . . . . . .
    . . {atari} . . . . . .
    . X O . . . . . .
    . . X X . . . . .
    . . . . . . . . .
"""


def ladder(to_play, breaker=".", atari="."):
    return Board.from_diagram(LADDER.format(breaker=breaker, atari=atari), to_play=to_play)


def test_ladder_capture_works_on_an_open_board():
    board = ladder(BLACK)
    planes = encode(board)
    # C4 drives white up the diagonal to the edge; D3 lets it out at C4
    assert where(board, planes, "ladder capture") == ["C4"]
    assert where(board, planes, "ladder escape") == []


def test_ladder_broken_by_a_stone_on_its_path():
    board = ladder(BLACK, breaker="O")  # white G7 on the diagonal
    assert where(board, encode(board), "ladder capture") == []


def test_ladder_with_an_attacker_stone_on_its_path_still_works():
    board = ladder(BLACK, breaker="X")
    assert where(board, encode(board), "ladder capture") == ["C4"]


def test_ladder_escape_only_when_the_ladder_does_not_work():
    caught = ladder(WHITE, atari="X")  # white C3 in atari, the ladder works
    planes = encode(caught)
    assert where(caught, planes, "ladder escape") == []
    assert one_hot_value(caught, planes, "D3", "liberties after move") == "2"
    free = ladder(WHITE, breaker="O", atari="X")  # G7 breaks it
    assert where(free, encode(free), "ladder escape") == ["D3"]


def test_ladder_escape_by_capturing_an_attacking_stone_in_atari():
    board = Board.from_diagram("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . O . . . . . .
        . O X . . . . . .
        . X O . . . . . .
        . . X X . . . . .
        . . . . . . . . .
    """, to_play=WHITE)
    planes = encode(board)
    # D4 takes C4, the stone that holds C3 in atari. D3 works too: after it
    # black has no atari that white cannot answer by taking C4.
    assert one_hot_value(board, planes, "D4", "capture size") == "1"
    assert where(board, planes, "ladder escape") == ["D3", "D4"]


def test_no_ladder_when_the_atari_stone_can_be_taken():
    board = Board.from_diagram("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . O . . . . . .
        . O . . . . . . .
        . X O . . . . . .
        . . X X . . . . .
        . . . . . . . . .
    """, to_play=BLACK)
    planes = encode(board)
    # C4 would have one liberty, D4, where white takes it
    assert one_hot_value(board, planes, "C4", "self-atari size") == "1"
    assert where(board, planes, "ladder capture") == []


# --------------------------------------------------- agz17 and alphago49


def test_agz17_history_planes_and_colour():
    board = Board(5)
    play_all(board, ["C3", "C4", "B3"])  # white to play
    planes = encode(board, "agz17")
    assert planes.shape == (5, 5, 17)
    names = get_encoder("agz17", 5).plane_names

    def stones(index):
        return sorted(coords.to_gtp(int(p), 5) for p in np.flatnonzero(planes[..., index]))

    # the mover is white in all eight steps
    assert stones(0) == ["C4"] and stones(1) == ["B3", "C3"]
    assert stones(2) == ["C4"] and stones(3) == ["C3"]
    assert stones(4) == [] and stones(5) == ["C3"]
    assert stones(6) == [] and stones(7) == []
    assert not planes[..., 8:16].any()  # before the game started
    assert not planes[..., 16].any()  # white to play
    assert names[:4] == ["player stones", "opponent stones", "player stones, 1 move ago",
                         "opponent stones, 1 move ago"]
    assert names[14:] == ["player stones, 7 moves ago", "opponent stones, 7 moves ago",
                          "black to play"]
    board.play(at(board, "D4"))
    assert encode(board, "agz17")[..., 16].all()


def test_agz17_keeps_eight_positions():
    board, played = random_game(9, 20, seed=3)
    planes = encode(board, "agz17")
    replay = Board(9)
    positions = [replay.stones.copy()]
    for move in played:
        replay.play(move)
        positions.append(replay.stones.copy())
    me = board.to_play
    for step in range(8):
        stones = positions[-1 - step].reshape(9, 9)
        np.testing.assert_array_equal(planes[..., 2 * step], stones == me)
        np.testing.assert_array_equal(planes[..., 2 * step + 1], stones == 3 - me)


def test_alphago49_adds_the_player_colour():
    board = ladder(BLACK)
    planes48 = encode(board, "alphago48")
    planes49 = encode(board, "alphago49")
    np.testing.assert_array_equal(planes49[..., :48], planes48)
    assert planes49[..., 48].all()
    board.to_play = WHITE
    assert not encode(board, "alphago49")[..., 48].any()


# ------------------------------------------------------------- symmetries


def transformed_game(sym, setup_black, setup_white, moves, to_play):
    board = Board(9)
    board.setup(black=[apply_to_moves(sym, p, 9) for p in setup_black],
                white=[apply_to_moves(sym, p, 9) for p in setup_white])
    board.to_play = to_play
    for move in moves:
        board.play(apply_to_moves(sym, move, 9))
    return board


@pytest.mark.parametrize("name", ["simple2", "agz17", "alphago48", "alphago49"])
@pytest.mark.parametrize("breaker, played", [(".", 0), ("O", 0), (".", 12)])
def test_encoders_agree_with_the_symmetries(name, breaker, played):
    # a group in atari, and a ladder that works or not; then a few moves
    start = ladder(WHITE, breaker=breaker, atari="X")
    black = np.flatnonzero(start.stones == BLACK).tolist()
    white = np.flatnonzero(start.stones == WHITE).tolist()
    rng = random.Random(5)
    board = transformed_game(0, black, white, [], WHITE)
    moves = []
    for _ in range(played):
        candidates = np.flatnonzero(board.sensible_moves()[:-1])
        move = int(candidates[rng.randrange(len(candidates))])
        board.play(move)
        moves.append(move)
    encoder = get_encoder(name, 9)
    planes = encoder.encode(board)
    if name.startswith("alphago") and not played:
        assert planes[..., 45].any() == (breaker == "O")  # the ladder escape plane
    for sym in SYMMETRIES:
        other = transformed_game(sym, black, white, moves, WHITE)
        np.testing.assert_array_equal(encoder.encode(other), apply_to_planes(sym, planes))


@pytest.mark.parametrize("breaker", [".", "O"])
def test_ladder_capture_agrees_with_the_symmetries(breaker):
    start = ladder(BLACK, breaker=breaker)
    black = np.flatnonzero(start.stones == BLACK).tolist()
    white = np.flatnonzero(start.stones == WHITE).tolist()
    planes = encode(start)
    assert planes[..., 44].any() == (breaker == ".")
    for sym in SYMMETRIES:
        other = transformed_game(sym, black, white, [], BLACK)
        np.testing.assert_array_equal(encode(other), apply_to_planes(sym, planes))
