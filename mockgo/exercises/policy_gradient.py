"""Notebook 03's exercises: the distribution the learner samples its moves
from at a temperature, how often the opponent pool still serves the SL
policy, and what the baseline does to the noise of one game's gradient."""

import numpy as np

from mockgo.exercises import Exercise, NotYet
from mockgo.learn.policy_gradient import PolicyGradient
from mockgo.nets.inference import masked_policy
from mockgo.play.sampling import temper

__all__ = ["game_gradient", "policy_at_temperature", "sl_share"]


# --------------------------------------------------- policy_at_temperature


def _policy_at_temperature_skeleton(logits, sensible, temperature):
    """The distribution the learner samples its moves from, one row per
    position: the softmax of ``logits / temperature`` over the moves where
    ``sensible`` is True, 0 for the others (temperature > 0)."""
    raise NotImplementedError  # your code here


def _policy_at_temperature_solution(logits, sensible, temperature):
    scaled = np.where(sensible, np.asarray(logits, np.float64) / temperature, -np.inf)
    scaled -= scaled.max(axis=1, keepdims=True)  # exp of at most 0: no overflow
    weights = np.exp(scaled)
    return weights / weights.sum(axis=1, keepdims=True)


def _check_policy_at_temperature(answer, policy, planes, masks):
    # Keras, and the network code with it, only once a check runs.
    from mockgo.nets.models import logits_model

    logits = np.asarray(logits_model(policy).predict(planes, verbose=0), np.float64)
    sensible = np.asarray(masks, bool)[:, :logits.shape[1]]
    logits, sensible = logits[sensible.any(axis=1)], sensible[sensible.any(axis=1)]
    softmax = np.exp(logits - logits.max(axis=1, keepdims=True))
    softmax /= softmax.sum(axis=1, keepdims=True)
    found = []
    for temperature in (1.0, 0.5, 2.0):
        got = np.asarray(answer(logits, sensible, temperature), np.float64)
        if got.shape != logits.shape:
            raise NotYet(f"the answer should have one row per position and one column per "
                         f"move, {logits.shape}, not {got.shape}")
        if np.any(got[~sensible] != 0):
            raise NotYet(f"at temperature {temperature:g} moves that are not sensible get a "
                         f"probability: the player never plays them")
        # The player's way (mockgo.play.policy_player): the network's softmax, masked to the
        # sensible moves, then p ** (1 / T) renormalised.
        expected = temper(masked_policy(softmax, sensible), temperature)
        apart = float(np.abs(got - expected).max())
        if not apart <= 1e-6:
            raise NotYet(f"at temperature {temperature:g} the answer differs from the "
                         f"distribution the player samples from by up to {apart:.3g} (a "
                         f"probability)")
        entropy = -np.sum(np.where(got > 0, got * np.log(np.where(got > 0, got, 1.0)), 0.0),
                          axis=1)
        found.append(f"at {temperature:g} the most likely move has {got.max(axis=1).mean():.0%} "
                     f"on average, the entropy is {entropy.mean():.2f} nats")
    return (f"the player's distribution at each temperature, on {len(logits)} positions; "
            + "; ".join(found))


policy_at_temperature = Exercise(
    "policy_at_temperature", "the policy at a temperature", _check_policy_at_temperature,
    _policy_at_temperature_solution, _policy_at_temperature_skeleton,
    "np.where(sensible, logits / temperature, -np.inf), minus each row's maximum, then np.exp "
    "and divide each row by its sum (exp(-inf) is 0: the moves that are not sensible drop out).")


# ---------------------------------------------------------------- sl_share


def _sl_share_skeleton(iterations, every):
    """The expected share of a run's first ``iterations`` iterations in which
    the learner meets the SL policy: the opponent drawn uniformly from a pool
    that starts with the SL policy and takes the learner in after every
    ``every``-th iteration (no sparring partners)."""
    raise NotImplementedError  # your code here


def _sl_share_solution(iterations, every):
    # Iteration i draws from the SL policy and the learners of iterations every, 2 every, ... < i.
    return float(np.mean([1 / (1 + (i - 1) // every) for i in range(1, iterations + 1)]))


def _check_sl_share(answer, iterations, every):
    cases = [(iterations, every), (10, 5), (6, 2), (7, 10), (100, 1), (10_000, 500)]
    for count, interval in cases:
        got = answer(count, interval)
        expected = _sl_share_solution(count, interval)
        if not isinstance(got, (float, int, np.floating)) or not abs(got - expected) < 1e-9:
            raise NotYet(f"over {count} iterations with a new member every {interval}, the SL "
                         f"policy is met in a share {expected:.4f} of them, not {got!r}")
    return (f"the SL policy is the opponent in {answer(iterations, every):.0%} of this mode's "
            f"{iterations} iterations (a new member every {every}), in "
            f"{answer(10_000, 500):.0%} of AlphaGo's 10,000 (every 500), and in "
            f"{answer(10_000, 1):.2%} of 10,000 with a new member after every iteration")


sl_share = Exercise(
    "sl_share", "how often the pool serves the SL policy", _check_sl_share, _sl_share_solution,
    _sl_share_skeleton,
    "In iteration i (counting from 1) the pool holds 1 + (i - 1) // every members, the SL policy "
    "among them, each drawn with probability 1 / (pool size); average that over the iterations.")


# ------------------------------------------------------------ game_gradient


def _game_gradient_skeleton(trainer, planes, masks, moves, advantages):
    """The gradient of sum(advantages * log p(move)) over one game's
    positions, with respect to the policy's weights, as one flat NumPy
    vector: the change one step of ``trainer`` (a reinforce_trainer with
    learning rate 1) makes with games=1, its weights put back afterwards."""
    raise NotImplementedError  # your code here


def _game_gradient_solution(trainer, planes, masks, moves, advantages):
    before = trainer.get_weights()
    masks = masks[:, :trainer.output_shape[-1]]
    trainer.train_on_batch([planes, masks], moves, sample_weight=advantages)  # one step, games=1
    after = trainer.get_weights()
    trainer.set_weights(before)
    return np.concatenate([(a - b).ravel() for a, b in zip(after, before)])


def _package_gradient(policy, temperature, planes, masks, moves, advantages):
    """The same gradient from the package: one step of PolicyGradient at
    learning rate 1 moves a copy of ``policy`` by exactly that much."""
    # Keras only once a check runs.
    import keras

    twin = keras.models.clone_model(policy)
    twin.set_weights(policy.get_weights())
    PolicyGradient(twin, 1.0, temperature).update(planes, masks, moves, advantages, games=1)
    return np.concatenate([(a - b).ravel()
                           for a, b in zip(twin.get_weights(), policy.get_weights())])


def _check_game_gradient(answer, trainer, policy, temperature, planes, masks, moves, z, v,
                         game_of):
    start = trainer.get_weights()
    if len(start) != len(policy.get_weights()) or not all(
            np.array_equal(a, b) for a, b in zip(start, policy.get_weights())):
        raise NotYet("the trainer should start from the policy's weights: "
                     "reinforce_trainer(copy_of(policy), 1.0, temperature)")
    numbers = np.unique(game_of)
    longest = max(np.sum(game_of == g) for g in numbers)

    def gradient_of(number, advantages):
        # Every game's rows padded to the longest game's with copies of its first row that
        # weigh 0 (they add nothing): one shape, so one compiled step (JAX compiles per shape).
        rows = np.flatnonzero(game_of == number)
        rows = np.concatenate([rows, np.full(longest - len(rows), rows[0])])
        weights = np.where(np.arange(longest) < np.sum(game_of == number), advantages[rows], 0.0)
        return np.asarray(answer(trainer, planes[rows], masks[rows], moves[rows],
                                 weights.astype(np.float32)), np.float64)

    first = game_of == numbers[0]
    got = gradient_of(numbers[0], z - v)
    if any(not np.array_equal(a, b) for a, b in zip(trainer.get_weights(), start)):
        raise NotYet("the trainer's weights changed: put them back after the step "
                     "(trainer.set_weights)")
    expected = _package_gradient(policy, temperature, planes[first], masks[first], moves[first],
                                 (z - v)[first])
    if got.shape != expected.shape:
        raise NotYet(f"the gradient should be one flat vector of the policy's "
                     f"{expected.size:,} weights, not of shape {got.shape}")
    apart = np.linalg.norm(got - expected) / np.linalg.norm(expected)
    if not apart < 1e-3:
        raise NotYet(f"game {numbers[0]}'s gradient differs from the package's step by "
                     f"{apart:.2g} of its length (a step of learning rate 1 with sample weights "
                     f"equal to the advantages moves the weights by the gradient itself)")
    baselines = {"zero": np.zeros_like(z),
                 "the mean result (a constant)": np.full_like(z, z.mean()),
                 "the value network": v}
    variances = {}
    for name, b in baselines.items():
        gradients = np.stack([gradient_of(g, z - b) for g in numbers])
        # Deviations from the mean of the games of the same colour (the learner is black in
        # the even-numbered games), as the runs' halves are alike in colours.
        colours = numbers % 2
        means = np.stack([gradients[colours == c].mean(axis=0) for c in colours])
        variances[name] = float(np.sum((gradients - means) ** 2) / (len(numbers) - 2))
    return (f"the package's gradient (apart by {apart:.1g} of its length); the variance of one "
            f"game's gradient on these {len(numbers)} games, with the baseline "
            + ", ".join(f"{name} {value:.4g}" for name, value in variances.items()))


game_gradient = Exercise(
    "game_gradient", "the baseline and the noise of one game's gradient", _check_game_gradient,
    _game_gradient_solution, _game_gradient_skeleton,
    "before = trainer.get_weights(); reinforce_step(trainer, planes, masks, moves, advantages, "
    "games=1); the gradient is the new weights minus before, each array flattened "
    "(np.concatenate of (a - b).ravel()); then trainer.set_weights(before).")
