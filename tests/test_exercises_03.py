"""Notebook 03's exercises (mockgo.exercises.policy_gradient): each check
fails on the skeleton the notebook shows, passes on the solution, and names
what is wrong in a plausible wrong answer. A 5x5 board and tiny networks:
seconds."""

import keras
import numpy as np
import pytest

from mockgo.exercises import policy_gradient
from mockgo.go.board import BLACK, WHITE
from mockgo.nets.models import logits_model, policy_network, value_network
from mockgo.play.match import match
from mockgo.play.policy_player import PolicyPlayer

N = 5
NOT_WRITTEN = (False, "the function is not written yet (it raises NotImplementedError)")


@pytest.fixture(scope="module")
def batch():
    """The learner's side of six games of a tiny untrained policy against
    itself, as the notebook's learner_moves gathers it, with a tiny value
    network's v(s)."""
    from mockgo.learn.value import add_colour_plane

    keras.utils.set_random_seed(0)
    policy = policy_network(N, 48, layers=2, filters=4)
    critic = value_network(N, 49, layers=2, filters=2, hidden=4)
    learner = PolicyPlayer(policy, "alphago48", 1.0, keep_planes=True)
    played = match(learner, PolicyPlayer(policy, "alphago48", 1.0), 6, N, seed=1, max_moves=30)
    columns = []
    for i, game in enumerate(played.games):
        colour = BLACK if i % 2 == 0 else WHITE
        rows = np.flatnonzero(game.evaluated & (game.colors == colour))
        columns.append((game.kept_planes(rows), game.masks[rows], game.moves[rows],
                        np.full(len(rows), game.outcome(colour), np.float32),
                        np.full(len(rows), colour), np.full(len(rows), i)))
    planes, masks, moves, z, colours, game_of = [np.concatenate(c) for c in zip(*columns)]
    v = critic.predict(add_colour_plane(planes, colours), verbose=0)[:, 0]
    return dict(policy=policy, planes=planes, masks=masks, moves=moves, z=z, v=v,
                game_of=game_of)


def test_policy_at_temperature(batch):
    exercise = policy_gradient.policy_at_temperature
    context = {key: batch[key] for key in ("policy", "planes", "masks")}
    assert exercise.run_check(exercise.skeleton, **context) == NOT_WRITTEN
    passed, message = exercise.run_check(exercise.solution_function, **context)
    assert passed and "at 0.5 the most likely move has" in message, message

    def unmasked(logits, sensible, temperature):  # the softmax over every move
        weights = np.exp(logits / temperature - (logits / temperature).max(axis=1, keepdims=True))
        return weights / weights.sum(axis=1, keepdims=True)

    passed, message = exercise.run_check(unmasked, **context)
    assert not passed and "moves that are not sensible get a probability" in message

    def times_temperature(logits, sensible, temperature):  # logits * T, not / T
        return exercise.solution_function(logits, sensible, 1 / temperature)

    passed, message = exercise.run_check(times_temperature, **context)
    assert not passed and "at temperature 0.5 the answer differs" in message


def test_the_pool_share_worked_out_agrees_with_the_package_pool():
    from mockgo.learn.reinforce import OpponentPool

    rng, met, draws = np.random.default_rng(0), 0, 4000
    for _ in range(draws):
        pool = OpponentPool(3)
        pool.add(0, [])
        for iteration in range(1, 13):
            met += pool.sample(rng).iteration == 0
            if pool.due(iteration):
                pool.add(iteration, [])
    share = policy_gradient.sl_share.solution_function(12, 3)
    assert share == pytest.approx((3 + 3 / 2 + 3 / 3 + 3 / 4) / 12)
    assert met / (12 * draws) == pytest.approx(share, abs=0.01)


def test_sl_share():
    exercise = policy_gradient.sl_share
    assert exercise.run_check(exercise.skeleton, iterations=6, every=2) == NOT_WRITTEN
    passed, message = exercise.run_check(exercise.solution_function, iterations=10, every=5)
    assert passed and message.startswith("the SL policy is the opponent in 75% of this mode's 10")
    # The pool as it is at the end, or one member too many in every iteration.
    passed, message = exercise.run_check(lambda iterations, every: 1 / (1 + iterations // every),
                                         iterations=10, every=5)
    assert not passed and "not 0.333" in message
    passed, message = exercise.run_check(
        lambda iterations, every: float(np.mean([1 / (1 + i // every)
                                                 for i in range(1, iterations + 1)])),
        iterations=10, every=5)
    assert not passed and "a share 0.7500 of them" in message


def reinforce_trainer(policy, learning_rate, temperature):
    """The trainer as the notebook writes it (REINFORCE as a weighted
    cross-entropy, Keras' train_on_batch)."""
    logits = logits_model(policy)
    planes_in = keras.Input(logits.input_shape[1:], dtype=policy.inputs[0].dtype)
    sensible = keras.Input(logits.output_shape[1:], dtype="bool")
    scaled = keras.ops.cast(logits(planes_in), "float32") / temperature
    trainer = keras.Model([planes_in, sensible], keras.ops.where(sensible, scaled, -1e9))
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="sum")
    trainer.compile(optimizer=keras.optimizers.SGD(learning_rate), loss=loss)
    return trainer


def copy_of(model):
    twin = keras.models.clone_model(model)
    twin.set_weights(model.get_weights())
    return twin


def test_game_gradient(batch):
    exercise = policy_gradient.game_gradient
    context = dict(batch, temperature=1.0)
    trainer = reinforce_trainer(copy_of(batch["policy"]), 1.0, 1.0)
    assert exercise.run_check(exercise.skeleton, trainer=trainer, **context) == NOT_WRITTEN
    passed, message = exercise.run_check(exercise.solution_function, trainer=trainer, **context)
    assert passed and "on these 6 games, with the baseline zero " in message, message
    assert "the mean result (a constant) " in message and "the value network " in message
    solution = exercise.solution_function

    passed, message = exercise.run_check(lambda *args: -solution(*args), trainer=trainer,
                                         **context)
    assert not passed and "differs from the package's step by 2" in message

    def kept(trainer, planes, masks, moves, advantages):  # the step is not undone
        trainer.train_on_batch([planes, masks[:, :N * N]], moves, sample_weight=advantages)
        return np.zeros(1)

    passed, message = exercise.run_check(kept, trainer=trainer, **context)
    assert not passed and "the trainer's weights changed" in message
    # A trainer with other weights than the policy the check compares it with.
    other = reinforce_trainer(copy_of(batch["policy"]), 1.0, 1.0)
    other.set_weights([w + 1 for w in other.get_weights()])
    passed, message = exercise.run_check(solution, trainer=other, **context)
    assert not passed and "should start from the policy's weights" in message
