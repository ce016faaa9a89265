"""Notebook 04's exercises (mockgo.exercises.zero_selfplay): each check fails
on the skeleton the notebook shows, passes on the solution, and names what is
wrong in a plausible wrong answer."""

import dataclasses

import numpy as np
import pytest

from mockgo.exercises import zero_selfplay
from mockgo.presets import preset


def test_pick_move():
    exercise = zero_selfplay.pick_move
    assert exercise.run_check(exercise.skeleton) == (
        False, "the function is not written yet (it raises NotImplementedError)")
    passed, message = exercise.run_check(exercise.solution_function)
    assert passed and "60% of the time at temperature 1" in message
    # Drawn in proportion to the visits whatever the temperature: 0.5 is not sharper.
    passed, message = exercise.run_check(
        lambda visits, t, rng: int(np.argmax(visits)) if t == 0 else
        int(rng.choice(len(visits), p=np.asarray(visits) / np.sum(visits))))
    assert not passed and "at temperature 0.5" in message
    passed, message = exercise.run_check(lambda visits, t, rng: int(np.argmin(visits)))
    assert not passed and "at temperature 0 the most visited move" in message
    # Right in proportion, but not drawn from the generator given.
    passed, message = exercise.run_check(
        lambda visits, t, rng: exercise.solution_function(visits, t, np.random.default_rng()))
    assert not passed and "draw it from rng" in message


@pytest.fixture(scope="module")
def trained():
    from mockgo.zero.tictactoe import WarmUp, train_tictactoe

    model, _ = train_tictactoe(WarmUp(generations=1, games=16, readouts=8, epochs=1))
    return model


def test_losing_moves(trained):
    exercise = zero_selfplay.losing_moves
    assert not exercise.run_check(exercise.skeleton, model=trained, budgets=(0, 2))[0]
    passed, message = exercise.run_check(exercise.solution_function, model=trained, budgets=(0, 2))
    assert passed and "with no search" in message and "with 2 readouts" in message
    # Counting the moves that give a win away for a draw as well is another number.
    from mockgo.search.minimax import check_player
    from mockgo.zero.tictactoe import network_player, search_player

    def too_many(model, readouts):
        player = network_player(model) if readouts == 0 else search_player(model, readouts)
        found = check_player(player)
        return len(found.losing) + len(found.drawing)

    passed, message = exercise.run_check(too_many, model=trained, budgets=(0,))
    assert not passed and "check_player finds" in message


def test_without_one_change():
    exercise = zero_selfplay.without_one_change
    config = preset("04_zero_selfplay", True).config
    assert not exercise.run_check(exercise.skeleton, config=config)[0]
    passed, message = exercise.run_check(exercise.solution_function, config=config)
    assert passed and message.startswith("forced playouts switched off")
    for change, expected in ((dict(global_pooling=0), "global pooling"),
                             (dict(full_search_share=1.0, fast_readouts=None),
                              "playout cap randomization"),
                             (dict(ownership_head=False, score_head=False),
                              "the auxiliary heads")):
        passed, message = exercise.run_check(lambda c: dataclasses.replace(c, **change),
                                             config=config)
        assert passed and message.startswith(expected), message
    passed, message = exercise.run_check(
        lambda c: dataclasses.replace(c, forced_playouts=0.0, global_pooling=0), config=config)
    assert not passed and "exactly one change" in message
    passed, message = exercise.run_check(lambda c: dataclasses.replace(c, readouts=3),
                                         config=config)
    assert not passed and "these fields changed too: readouts" in message
    passed, message = exercise.run_check(lambda c: c.to_dict(), config=config)
    assert not passed and "should be a ZeroConfig" in message
    passed, message = exercise.run_check(lambda c: dataclasses.replace(c, score_head=False),
                                         config=config)
    assert not passed and "only half off: set ownership_head=False too" in message
