"""Notebook 02's exercises (mockgo.exercises.value_net): each check fails on the
skeleton the notebook shows, passes on the solution, and names what is wrong
in a plausible wrong answer."""

from types import SimpleNamespace

import numpy as np
import pytest

from mockgo.exercises import value_net
from mockgo.go.board import BLACK, WHITE
from mockgo.learn.value import mse_by_phase

NOT_WRITTEN = (False, "the function is not written yet (it raises NotImplementedError)")


def value_data(n=120, size=5, seed=0):
    """What the notebook's ``data``, ``train``, ``test`` and ``edges`` are, made up:
    random alphago49 planes (plane 48: black to move), outcomes that favour
    white, move numbers U from 1 to 30."""
    rng = np.random.default_rng(seed)
    planes = rng.integers(0, 2, (n, size, size, 49)).astype(np.uint8)
    black = rng.random(n) < 0.5
    planes[..., 48] = black[:, None, None]
    outcomes = np.where(rng.random(n) < np.where(black, 0.4, 0.6), 1.0, -1.0).astype(np.float32)
    steps = rng.integers(1, 31, n).astype(np.int32)
    order = rng.permutation(n)
    train, test = order[:n * 3 // 4], order[n * 3 // 4:]
    return SimpleNamespace(planes=planes, outcomes=outcomes, steps=steps), train, test, \
        np.array([1, 11, 21, 31])


def test_constant_guess():
    exercise = value_net.constant_guess
    data, train, test, edges = value_data()
    context = dict(data=data, train=train, test=test, edges=edges)
    assert exercise.run_check(exercise.skeleton, **context) == NOT_WRITTEN
    passed, message = exercise.run_check(exercise.solution_function, **context)
    assert passed and "black to move" in message and "per colour" in message
    # One constant per colour, whatever the phase, is the coarser guess, not this one.
    passed, message = exercise.run_check(
        lambda z, movers, steps, edges: np.array(
            [[z[movers == c].mean()] * (len(edges) - 1) for c in (BLACK, WHITE)]), **context)
    assert not passed and "the best constant (the mean outcome" in message
    passed, message = exercise.run_check(
        lambda z, movers, steps, edges: exercise.solution_function(z, movers, steps, edges)[::-1],
        **context)
    assert not passed and "for black to move in phase 1" in message
    passed, message = exercise.run_check(lambda z, movers, steps, edges: z.mean(), **context)
    assert not passed and "not of shape ()" in message


def test_one_position_per_game():
    exercise = value_net.one_position_per_game
    lengths = [12, 40, 200, 75, 30, 150, 18, 90]
    game_ids = np.repeat(np.arange(len(lengths)), lengths)
    assert exercise.run_check(exercise.skeleton, game_ids=game_ids) == NOT_WRITTEN
    passed, message = exercise.run_check(exercise.solution_function, game_ids=game_ids)
    assert passed and message.startswith("one position from each of 8 games")
    firsts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    # The first position of every game: one a game, but not drawn over the game.
    passed, message = exercise.run_check(lambda ids, rng: firsts, game_ids=game_ids)
    assert not passed and "uniformly within each game" in message
    # One offset for all the games, drawn within the shortest: the long games' ends never come.
    passed, message = exercise.run_check(lambda ids, rng: firsts + rng.integers(min(lengths)),
                                         game_ids=game_ids)
    assert not passed and "uniformly within each game" in message
    # Eight positions drawn from all of them: not one of each game.
    passed, message = exercise.run_check(
        lambda ids, rng: np.sort(rng.choice(len(ids), len(lengths), replace=False)),
        game_ids=game_ids)
    assert not passed and "row k should be a position of game k" in message
    passed, message = exercise.run_check(lambda ids, rng: firsts[:3], game_ids=game_ids)
    assert not passed and "8 games should give 8 rows" in message
    # The off-by-one answers: a game's last row, or its first, never drawn.
    counts = np.asarray(lengths)
    passed, message = exercise.run_check(lambda ids, rng: firsts + rng.integers(counts - 1),
                                         game_ids=game_ids)
    assert not passed and "a game's last position was drawn 0 times" in message
    passed, message = exercise.run_check(lambda ids, rng: firsts + 1 + rng.integers(counts - 1),
                                         game_ids=game_ids)
    # (in games this short the mean place moves too, and says so first)
    assert not passed and ("a game's first position was drawn 0 times" in message
                           or "uniformly within each game" in message)
    # Uniform, but not from the generator given.
    passed, message = exercise.run_check(
        lambda ids, rng: firsts + np.random.default_rng().integers(counts), game_ids=game_ids)
    assert not passed and "draw them from rng" in message


@pytest.fixture(scope="module")
def tiny_fit():
    """A value network far smaller and faster than small_value_fit's."""
    import keras

    from mockgo.learn.value import fit_value_network
    from mockgo.nets.models import value_network

    def fit(planes, outcomes):
        keras.utils.set_random_seed(0)
        model = value_network(planes.shape[1], 49, layers=2, filters=4, hidden=8)
        fit_value_network(model, planes, outcomes, epochs=1, batch_size=32)
        return model

    return fit


def test_error_with_games(tiny_fit):
    exercise = value_net.error_with_games
    data, train, test, edges = value_data()
    context = dict(data=data, train=train, test=test, edges=edges, counts=(30, 90), fit=tiny_fit)
    assert exercise.run_check(exercise.skeleton, **context) == NOT_WRITTEN
    passed, message = exercise.run_check(exercise.solution_function, **context)
    assert passed and "30 games" in message and "90 games" in message, message
    solution = exercise.solution_function

    def last_games(games, fit, data, train, test, edges):
        return solution(games, fit, data, train[::-1], test, edges)

    passed, message = exercise.run_check(last_games, **context)
    assert not passed and "the first 30 training positions" in message

    def on_training_positions(games, fit, data, train, test, edges):
        return solution(games, fit, data, train, train[:len(test)], edges)

    passed, message = exercise.run_check(on_training_positions, **context)
    assert not passed and "the network's test MSE by phase is" in message

    def constant_of_all(games, fit, data, train, test, edges):
        network, _ = solution(games, fit, data, train, test, edges)
        movers = np.where(data.planes[:, 0, 0, 48] == 1, BLACK, WHITE)
        constant = {c: data.outcomes[train][movers[train] == c].mean() for c in (BLACK, WHITE)}
        return network, mse_by_phase(np.zeros(len(test)), data.outcomes[test], data.steps[test],
                                     edges, constant, movers[test])["constant"]

    passed, message = exercise.run_check(constant_of_all, **context)
    assert not passed and "with 30 games the constant's test MSE by phase is" in message

    def twice(games, fit, data, train, test, edges):
        fit(data.planes[train[:games]], data.outcomes[train[:games]])
        return solution(games, fit, data, train, test, edges)

    passed, message = exercise.run_check(twice, **context)
    assert not passed and "fit should be called once" in message


def test_small_value_fit_trains_a_value_network():
    data, train, _, _ = value_data(n=24)
    model = value_net.small_value_fit(data.planes[train], data.outcomes[train], epochs=1)
    values = model.predict(data.planes[:4], verbose=0)
    assert values.shape == (4, 1) and (np.abs(values) <= 1).all()
