"""Notebook 02's exercises: the best constant guess by colour and phase, one
position per game drawn from every position of some games, and how the value
network's test error falls with the number of games it learns from."""

import numpy as np

from mockgo.exercises import Exercise, NotYet
from mockgo.go.board import BLACK, WHITE
from mockgo.learn.value import colours_to_move, fit_value_network, mse_by_phase

__all__ = ["constant_guess", "error_with_games", "one_position_per_game", "small_value_fit"]



def _phase_table(header, rows):
    """A few lines of text: a header row, then a label and numbers per row."""
    lines = ["  ".join(f"{h:>14}" for h in header)]
    lines += ["  ".join([f"{label:>14}", *(f"{x:14.3f}" for x in numbers)])
              for label, numbers in rows]
    return "\n".join(lines)


# ------------------------------------------------------------ constant_guess


def _constant_guess_skeleton(outcomes, movers, steps, edges):
    """The best constant guess of the outcome for each colour to move and each
    phase of the game: a (2, phases) array, row 0 for black to move, row 1 for
    white, column i for the positions with edges[i] <= step < edges[i + 1]."""
    raise NotImplementedError  # your code here


def _constant_guess_solution(outcomes, movers, steps, edges):
    guess = np.zeros((2, len(edges) - 1))
    for row, colour in enumerate((BLACK, WHITE)):
        for i, (low, high) in enumerate(zip(edges[:-1], edges[1:])):
            mine = (movers == colour) & (steps >= low) & (steps < high)
            guess[row, i] = outcomes[mine].mean() if mine.any() else 0.0
    return guess


def _check_constant_guess(answer, data, train, test, edges):
    movers = colours_to_move(data.planes)
    args = [data.outcomes[train], movers[train], data.steps[train], np.asarray(edges)]
    guess = np.asarray(answer(*args), np.float64)
    phases = len(edges) - 1
    if guess.shape != (2, phases):
        raise NotYet(f"the answer should be an array of 2 rows (black, white to move) and "
                     f"{phases} columns (phases), not of shape {guess.shape}")
    reference = _constant_guess_solution(*args)
    wrong = np.argwhere(np.abs(guess - reference) > 1e-6)
    if len(wrong):
        row, column = wrong[0]
        raise NotYet(f"for {('black', 'white')[row]} to move in phase {column + 1} the best "
                     f"constant (the mean outcome of those training positions) is "
                     f"{reference[row, column]:+.3f}, not {guess[row, column]:+.3f}")
    # Each test position guessed by its colour and phase, against one constant per colour.
    phase = np.clip(np.searchsorted(edges, data.steps[test], side="right") - 1, 0, phases - 1)
    row = (movers[test] == WHITE).astype(int)
    per_colour = {c: float(data.outcomes[train][movers[train] == c].mean()) for c in (BLACK, WHITE)}
    finer = mse_by_phase(guess[row, phase], data.outcomes[test], data.steps[test], edges,
                         per_colour, movers[test])
    names = [f"moves {a}-{b - 1}" for a, b in zip(edges[:-1], edges[1:])]
    return ("the mean outcome for the player to move, by colour and phase:\n" +
            _phase_table(["", *names], [("black to move", guess[0]),
                                        ("white to move", guess[1])]) +
            "\ntest MSE of this guess and of one constant per colour:\n" +
            _phase_table(["", *names], [("by phase", finer["network"]),
                                        ("per colour", finer["constant"])]))


constant_guess = Exercise(
    "constant_guess", "the best constant guess, by colour and phase", _check_constant_guess,
    _constant_guess_solution, _constant_guess_skeleton,
    "The constant c that minimises the mean of (c - z)^2 over some positions is their mean "
    "outcome. Select the positions of one colour and one phase with a boolean mask, "
    "(movers == colour) & (steps >= low) & (steps < high), and take outcomes[mask].mean().")


# ----------------------------------------------------- one_position_per_game


def _one_position_per_game_skeleton(game_ids, rng):
    """From every position of some games (game_ids[i]: the game of row i, the
    rows of a game together and in order), the index of one row per game, drawn
    uniformly among that game's rows with rng: an array, game by game."""
    raise NotImplementedError  # your code here


def _one_position_per_game_solution(game_ids, rng):
    games, starts, lengths = np.unique(game_ids, return_index=True, return_counts=True)
    return np.array([start + rng.integers(length) for start, length in zip(starts, lengths)])


def _check_one_position_per_game(answer, game_ids, draws=400):
    game_ids = np.asarray(game_ids)
    games, starts, lengths = np.unique(game_ids, return_index=True, return_counts=True)
    rng = np.random.default_rng(0)
    places = []  # each draw's row of each game, counted from the game's first
    for _ in range(draws):
        rows = np.asarray(answer(game_ids, rng))
        if rows.shape != (len(games),):
            raise NotYet(f"{len(games)} games should give {len(games)} rows, not an array of "
                         f"shape {rows.shape}")
        if not np.array_equal(game_ids[rows], games):
            raise NotYet("row k should be a position of game k, one for each game in order "
                         f"(the games of the rows given: {game_ids[rows][:5].tolist()}...)")
        places.append(rows - starts)
    places = np.stack(places)
    offsets = (places / lengths).ravel()  # where in its game: 0 first, near 1 last
    # Uniform within each game: the relative place has mean 1/2 - 1/(2 length) on average
    # and fills every tenth of the games.
    expected = float(np.mean(0.5 - 0.5 / lengths))
    tenths = np.bincount(np.minimum((offsets * 10).astype(int), 9), minlength=10) / len(offsets)
    if abs(offsets.mean() - expected) > 0.02 or tenths.min() < 0.06:
        raise NotYet(f"the rows should be drawn uniformly within each game: over {draws} draws "
                     f"they fall in the tenths of their games {np.round(tenths, 2).tolist()} "
                     f"of the time (each about 0.1)")
    # Each end of a game as often as any other row, 1/length of the draws: the
    # off-by-one answers (a game's first or last row never drawn) barely move the mean.
    due = draws * float(np.sum(1.0 / lengths))
    for name, hits in (("first", places == 0), ("last", places == lengths - 1)):
        if not 0.5 * due <= hits.sum() <= 1.5 * due:
            raise NotYet(f"a game's {name} position was drawn {hits.sum()} times in {draws} draws "
                         f"of every game, where a uniform draw gives about {due:.0f}: every row "
                         f"of a game, its {name} too, should be as likely as any other")
    again = [np.asarray(answer(game_ids, np.random.default_rng(1))) for _ in range(2)]
    if not np.array_equal(*again):
        raise NotYet("the same generator state should give the same rows: draw them from rng "
                     "(rng.integers), not from another source of random numbers")
    return (f"one position from each of {len(games)} games, drawn over the whole of each game: "
            f"{len(games)} labels from {len(games)} results, where every position gives "
            f"{len(game_ids):,} labels from the same {len(games)} results")


one_position_per_game = Exercise(
    "one_position_per_game", "one position per game", _check_one_position_per_game,
    _one_position_per_game_solution, _one_position_per_game_skeleton,
    "np.unique(game_ids, return_index=True, return_counts=True) gives each game's first row "
    "and its number of rows; one row of a game is its first row + rng.integers(its count).")


# ------------------------------------------------------------ error_with_games


def small_value_fit(planes, outcomes, epochs=2, seed=0):
    """A value network of notebook 02's quick size (3 convolutions of 16
    filters, a dense layer of 64 units), its weights drawn from ``seed``,
    trained ``epochs`` epochs with Adam at 1e-3 on ``planes`` and their 8
    symmetries (:func:`mockgo.learn.value.fit_value_network`). Returns it.
    (Measured on 2,938 positions of sl-19's 19x19 games: without the
    symmetries, 4 epochs learnt nothing and 8 overfitted; with them, 2
    epochs took the late game's test MSE from a constant's 0.99 to 0.60.)"""
    import keras  # the backend: imported only when a network is trained

    from mockgo.nets.models import value_network  # Keras, too: only when a network is trained

    keras.utils.set_random_seed(seed)
    model = value_network(planes.shape[1], 49, layers=3, filters=16, hidden=64)
    fit_value_network(model, planes, outcomes, epochs=epochs, learning_rate=1e-3,
                      symmetries=True)
    return model


def _error_with_games_skeleton(games, fit, data, train, test, edges):
    """Test MSE by phase of a value network that fit(planes, outcomes) trains on
    the positions of the first `games` games of the training split, and of the
    constant per colour guess from the same games: (network's, constant's)."""
    raise NotImplementedError  # your code here


def _error_with_games_solution(games, fit, data, train, test, edges):
    rows = train[:games]
    model = fit(data.planes[rows], data.outcomes[rows])
    movers = colours_to_move(data.planes)
    constant = {c: float(data.outcomes[rows][movers[rows] == c].mean()) for c in (BLACK, WHITE)}
    predictions = model.predict(data.planes[test], verbose=0)[:, 0]
    phases = mse_by_phase(predictions, data.outcomes[test], data.steps[test], edges, constant,
                          movers[test])
    return phases["network"], phases["constant"]


class _RecordedFit:
    """The ``fit`` an answer gets: trains with :func:`small_value_fit` and
    keeps what it was given and the network it made, for the check."""

    def __init__(self, fit):
        self.fit, self.calls = fit, []

    def __call__(self, planes, outcomes):
        model = self.fit(planes, outcomes)
        self.calls.append((np.asarray(planes), np.asarray(outcomes), model))
        return model


def _check_error_with_games(answer, data, train, test, edges, counts, fit=small_value_fit):
    movers = colours_to_move(data.planes)
    names = [f"moves {a}-{b - 1}" for a, b in zip(edges[:-1], edges[1:])]
    rows = []
    for games in counts:
        recorded = _RecordedFit(fit)
        found = answer(games, recorded, data, train, test, edges)
        if len(recorded.calls) != 1:
            raise NotYet(f"with {games} games fit should be called once, not "
                         f"{len(recorded.calls)} times")
        planes, outcomes, model = recorded.calls[0]
        mine = train[:games]
        same = planes.shape == data.planes[mine].shape and np.array_equal(planes, data.planes[mine])
        if not same or not np.array_equal(outcomes, data.outcomes[mine]):
            raise NotYet(f"with {games} games fit should get the planes and outcomes of the "
                         f"first {games} training positions, data.planes[train[:{games}]]")
        if not isinstance(found, (tuple, list)) or len(found) != 2:
            raise NotYet("the answer should be a pair: (the network's MSE by phase, the "
                         "constant's)")
        network, constant = (np.asarray(x, np.float64) for x in found)
        guess = {c: float(data.outcomes[mine][movers[mine] == c].mean()) for c in (BLACK, WHITE)}
        reference = mse_by_phase(model.predict(data.planes[test], verbose=0)[:, 0],
                                 data.outcomes[test], data.steps[test], edges, guess,
                                 movers[test])
        for what, got, expected in (("network", network, reference["network"]),
                                    ("constant", constant, reference["constant"])):
            if got.shape != expected.shape or not np.allclose(got, expected, atol=1e-4,
                                                              equal_nan=True):
                raise NotYet(f"with {games} games the {what}'s test MSE by phase is "
                             f"{np.round(expected, 3).tolist()}, not "
                             f"{np.round(got, 3).tolist()} (value.mse_by_phase on "
                             f"data.planes[test])")
        rows.append((f"{games} games", network))
        rows.append(("  constant", constant))
    last_network, last_constant = rows[-2][1], rows[-1][1]
    better = [name for name, n, c in zip(names, last_network, last_constant) if n < c]
    return ("test MSE by phase:\n" + _phase_table(["", *names], rows) +
            f"\nwith {counts[-1]} games the network beats the constant in " +
            (", ".join(better) if better else "no phase"))


error_with_games = Exercise(
    "error_with_games", "test error and the number of games", _check_error_with_games,
    _error_with_games_solution, _error_with_games_skeleton,
    "rows = train[:games]; model = fit(data.planes[rows], data.outcomes[rows]); the constant "
    "per colour is the mean outcome of those rows for each colour to move (plane 48 of "
    "data.planes is 1 where black is to move); value.mse_by_phase(model.predict(data.planes[test], "
    "verbose=0)[:, 0], data.outcomes[test], data.steps[test], edges, constant, movers[test]) "
    "gives both.")
