"""The 8 symmetries of the board: planes and move indices agree, and every
symmetry is undone by its inverse."""

import random

import numpy as np
import pytest

from mockgo.go import symmetries
from mockgo.go.symmetries import (SYMMETRIES, SYMMETRY_NAMES, apply_to_moves, apply_to_planes,
                                  apply_to_policy, compose, inverse, random_symmetry)


def one_hot(move, size):
    plane = np.zeros((size, size, 1), np.uint8)
    plane.reshape(-1)[move] = 1
    return plane


def test_there_are_eight_named_symmetries():
    assert SYMMETRIES == tuple(range(8))
    assert len(SYMMETRY_NAMES) == 8 and SYMMETRY_NAMES[0] == "identity"


@pytest.mark.parametrize("size", [9, 19])
@pytest.mark.parametrize("sym", SYMMETRIES)
def test_moves_land_where_the_one_hot_plane_lands(sym, size):
    moves = np.arange(size * size)
    mapped = apply_to_moves(sym, moves, size)
    for move in range(size * size):
        landed = np.flatnonzero(apply_to_planes(sym, one_hot(move, size)))
        assert landed.tolist() == [mapped[move]]
    # a permutation of the points, pass fixed
    assert sorted(mapped.tolist()) == list(range(size * size))
    assert apply_to_moves(sym, size * size, size) == size * size


@pytest.mark.parametrize("sym", SYMMETRIES)
def test_inverse_undoes_planes_and_moves(sym):
    rng = np.random.default_rng(sym)
    planes = rng.integers(0, 256, size=(3, 9, 9, 5))
    back = apply_to_planes(inverse(sym), apply_to_planes(sym, planes))
    np.testing.assert_array_equal(back, planes)
    moves = np.arange(82)
    np.testing.assert_array_equal(apply_to_moves(inverse(sym), apply_to_moves(sym, moves, 9), 9),
                                  moves)
    assert compose(sym, inverse(sym)) == 0
    assert inverse(inverse(sym)) == sym


def test_the_eight_symmetries_are_different():
    asymmetric = np.arange(16).reshape(4, 4, 1)
    images = {apply_to_planes(sym, asymmetric).tobytes() for sym in SYMMETRIES}
    assert len(images) == 8


def test_what_each_symmetry_does():
    grid = np.array([[1, 2], [3, 4]]).reshape(2, 2, 1)
    def show(sym):
        return apply_to_planes(sym, grid)[..., 0].tolist()
    assert show(0) == [[1, 2], [3, 4]]
    assert show(1) == [[2, 4], [1, 3]]  # a quarter turn counter-clockwise
    assert show(2) == [[4, 3], [2, 1]]
    assert show(4) == [[2, 1], [4, 3]]  # mirror left to right


def test_compose_agrees_with_doing_one_after_the_other():
    planes = np.arange(25).reshape(5, 5, 1)
    for a in SYMMETRIES:
        for b in SYMMETRIES:
            np.testing.assert_array_equal(apply_to_planes(b, apply_to_planes(a, planes)),
                                          apply_to_planes(compose(a, b), planes))


def test_ints_stay_ints_and_arrays_stay_arrays():
    assert isinstance(apply_to_moves(1, 0, 19), int)
    assert apply_to_moves(1, 0, 19) == 18 * 19  # top-left corner goes to bottom-left
    assert apply_to_moves(3, np.int64(0), 19) == 18
    batch = apply_to_moves(2, np.array([[0, 361], [18, 360]]), 19)
    assert batch.tolist() == [[360, 361], [342, 0]]


def test_policies_follow_their_moves():
    rng = np.random.default_rng(0)
    policy = rng.random((4, 82))
    for sym in SYMMETRIES:
        turned = apply_to_policy(sym, policy, 9)
        np.testing.assert_array_equal(turned[:, apply_to_moves(sym, np.arange(82), 9)], policy)


@pytest.mark.parametrize("size", [5, 9, 19])
def test_a_batch_turns_each_row_by_its_own_symmetry(size):
    # What the search's evaluator does to a batch of positions: one gather
    # instead of one call per symmetry, with the same result row by row.
    rng = np.random.default_rng(size)
    syms = rng.integers(0, 8, 40)
    policies = rng.random((40, size * size + 1))
    planes = rng.integers(0, 9, (40, size, size, 3))
    turned = symmetries.apply_to_batch(syms, policies, size)
    for row, sym in enumerate(syms):
        np.testing.assert_array_equal(turned[row], apply_to_policy(sym, policies[row], size))
    turned_planes = symmetries.apply_to_batch(
        syms, planes.reshape(40, size * size, 3), size).reshape(planes.shape)
    for row, sym in enumerate(syms):
        np.testing.assert_array_equal(turned_planes[row], apply_to_planes(sym, planes[row]))
    back = symmetries.apply_to_batch(symmetries.INVERSES[syms], turned, size)
    np.testing.assert_array_equal(back, policies)
    assert [int(symmetries.INVERSES[sym]) for sym in SYMMETRIES] == \
        [inverse(sym) for sym in SYMMETRIES]
    assert symmetries.apply_to_batch(syms[:0], policies[:0], size).shape == (0, size * size + 1)


def test_random_symmetry_draws_all_eight():
    generator = np.random.default_rng(1)
    stdlib = random.Random(1)
    assert {random_symmetry(generator) for _ in range(200)} == set(SYMMETRIES)
    assert {random_symmetry(stdlib) for _ in range(200)} == set(SYMMETRIES)
    legacy = np.random.RandomState(1)
    assert {random_symmetry(legacy) for _ in range(200)} == set(SYMMETRIES)
    assert random_symmetry() in SYMMETRIES


def test_bad_symmetry_is_refused():
    with pytest.raises(ValueError):
        apply_to_moves(8, 0, 9)
    with pytest.raises(ValueError):
        inverse(-1)
    assert symmetries.apply_to_planes(0, np.zeros((9, 9, 1))).shape == (9, 9, 1)
