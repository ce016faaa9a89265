"""Coordinate conversions: round trips on every board size, and bad input."""

import pytest

from mockgo.go import coords


@pytest.mark.parametrize("size", range(1, 26))
def test_round_trips_on_every_size(size):
    for move in range(size * size + 1):
        row_col = coords.from_flat(move, size)
        assert coords.to_flat(row_col, size) == move
        assert coords.from_gtp(coords.to_gtp(move, size), size) == move
        assert coords.from_sgf(coords.to_sgf(move, size), size) == move


def test_conventions():
    # A1 is the bottom-left corner, row 0 the top row; GTP skips I.
    assert coords.from_gtp("A1", 19) == 18 * 19
    assert coords.from_gtp("T19", 19) == 18
    assert coords.to_gtp(0, 9) == "A9"
    assert coords.to_gtp(8, 9) == "J9"
    assert coords.from_gtp("j9", 9) == 8
    assert coords.to_gtp(81, 9) == "pass"
    assert coords.from_gtp("PASS", 9) == 81
    # SGF: column letter first, "aa" is the top-left corner.
    assert coords.from_sgf("aa", 19) == 0
    assert coords.from_sgf("sa", 19) == 18
    assert coords.from_sgf("as", 19) == 18 * 19
    assert coords.to_sgf(coords.from_gtp("D4", 19), 19) == "dp"
    assert coords.to_sgf(361, 19) == ""


def test_tt_is_pass_only_up_to_19():
    assert coords.from_sgf("tt", 19) == 361
    assert coords.from_sgf("tt", 9) == 81
    assert coords.from_sgf("tt", 21) == 19 * 21 + 19


@pytest.mark.parametrize("vertex", ["I5", "Z1", "A0", "A10", "", "5A", "K", "pas"])
def test_bad_gtp_vertices(vertex):
    with pytest.raises(ValueError, match="vertex"):
        coords.from_gtp(vertex, 9)


@pytest.mark.parametrize("point", ["a", "abc", "ja", "aj", "a1", "!!"])
def test_bad_sgf_points(point):
    with pytest.raises(ValueError, match="SGF point"):
        coords.from_sgf(point, 9)


def test_off_board_indices():
    with pytest.raises(ValueError):
        coords.from_flat(82, 9)
    with pytest.raises(ValueError):
        coords.to_flat((9, 0), 9)
    with pytest.raises(ValueError):
        coords.to_gtp(0, 26)
