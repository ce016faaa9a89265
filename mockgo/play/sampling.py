"""Choosing a move from a distribution: temperature, and sampling many rows
at once, each with its own game's generator."""

import numpy as np

__all__ = ["check_temperature", "sample_moves", "temper"]


def check_temperature(temperature):
    """A sampling temperature as a float; ValueError below 0."""
    temperature = float(temperature)
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0, got {temperature}")
    return temperature


def temper(distributions, temperatures):
    """Rows of move probabilities at per-row temperatures: ``p ** (1/T)``
    renormalised; T = 0 puts everything on the most probable move; T = 1
    leaves the row as it is."""
    p = np.asarray(distributions, np.float64)
    temperatures = np.broadcast_to(np.asarray(temperatures, np.float64), (len(p),))
    if np.all(temperatures == 1.0):
        return p
    p = p.copy()
    greedy = temperatures == 0
    if greedy.any():
        best = np.argmax(p[greedy], axis=1)
        p[greedy] = 0.0
        p[np.flatnonzero(greedy), best] = 1.0
    other = ~greedy & (temperatures != 1.0)
    if other.any():
        with np.errstate(divide="ignore"):
            logits = np.log(p[other]) / temperatures[other, None]
        logits -= logits.max(axis=1, keepdims=True)
        weights = np.exp(logits)
        p[other] = weights / weights.sum(axis=1, keepdims=True)
    return p


def sample_moves(distributions, rngs):
    """One move per row of probabilities (inverse CDF, vectorised) and its
    log-probability. ``rngs``: one Generator for all rows, or one per row
    (each game draws from its own, so that a game does not depend on which
    others it was played beside). A move of probability 0 is never drawn."""
    p = np.asarray(distributions, np.float64)
    if isinstance(rngs, np.random.Generator):
        u = rngs.random(len(p))
    else:
        u = np.array([rng.random() for rng in rngs])
    cumulative = np.cumsum(p, axis=1)
    total = cumulative[:, -1]
    # u < total, also after rounding, so some entry (a positive one) exceeds it.
    u = np.minimum(u * total, total * (1 - 1e-12))
    moves = np.argmax(cumulative > u[:, None], axis=1)
    return moves, np.log(p[np.arange(len(p)), moves])
