"""Notebook 04's exercises: the move picked from the visit counts, what search
adds to the network on tic-tac-toe, and a run without one of KataGo's changes."""

import dataclasses

import numpy as np

from mockgo.exercises import Exercise, NotYet
from mockgo.search.minimax import check_player
from mockgo.zero.config import ZeroConfig
from mockgo.zero.tictactoe import network_player, search_player

__all__ = ["losing_moves", "pick_move", "without_one_change"]


# --------------------------------------------------------------- pick_move


def _pick_move_skeleton(visits, temperature, rng):
    """The move to play from the root's visit counts: at temperature 0 the
    most visited; else drawn with probability proportional to
    visits ** (1 / temperature)."""
    raise NotImplementedError  # your code here


def _pick_move_solution(visits, temperature, rng):
    visits = np.asarray(visits, np.float64)
    if temperature == 0:
        return int(np.argmax(visits))
    weights = visits ** (1.0 / temperature)
    return int(rng.choice(len(visits), p=weights / weights.sum()))


def _check_pick_move(answer):
    rng = np.random.default_rng(0)
    for visits in ([3, 40, 7, 0], [0, 0, 12, 1, 30], [90, 2, 5]):
        move = answer(np.array(visits), 0, rng)
        if move != int(np.argmax(visits)):
            raise NotYet(f"at temperature 0 the most visited move of {visits} is "
                         f"{int(np.argmax(visits))}, not {move}")
    visits = np.array([10, 30, 60, 0])
    shares = {}
    for temperature in (1.0, 0.5):
        draws = np.array([answer(visits, temperature, rng) for _ in range(4000)])
        if (draws == 3).any():
            raise NotYet("a move with no visits was drawn")
        expected = visits ** (1 / temperature) / (visits ** (1 / temperature)).sum()
        found = np.bincount(draws, minlength=4) / len(draws)
        if np.abs(found - expected).max() > 0.03:
            raise NotYet(f"at temperature {temperature:g}, visits {visits.tolist()} were drawn "
                         f"{np.round(found, 2).tolist()} of the time; expected "
                         f"{np.round(expected, 2).tolist()}")
        shares[temperature] = found[2]

    def twenty_moves():
        rng = np.random.default_rng(5)
        return [answer(visits, 1.0, rng) for _ in range(20)]

    if twenty_moves() != twenty_moves():
        raise NotYet("the same generator state should give the same move: draw it from rng "
                     "(rng.choice), not from another source of random numbers")
    return (f"the most visited move at temperature 0; the move with 60% of the visits drawn "
            f"{shares[1.0]:.0%} of the time at temperature 1 and {shares[0.5]:.0%} at 0.5: "
            f"a lower temperature sharpens the choice")


pick_move = Exercise(
    "pick_move", "the move from the visit counts", _check_pick_move, _pick_move_solution,
    _pick_move_skeleton,
    "np.argmax(visits) at temperature 0; otherwise weights = visits ** (1 / temperature), "
    "normalised to sum to 1, and rng.choice(len(visits), p=...).")


# ------------------------------------------------------------ losing_moves


def _losing_moves_skeleton(model, readouts):
    """How many of the positions of tic-tac-toe the trained network answers
    with a move that can lose, searching ``readouts`` readouts a move (0:
    its prior's best move alone, no search)."""
    raise NotImplementedError  # your code here


def _losing_moves_solution(model, readouts):
    player = network_player(model) if readouts == 0 else search_player(model, readouts)
    return len(check_player(player).losing)


def _check_losing_moves(answer, model, budgets=(0, 4, 16)):
    found = {readouts: answer(model, readouts) for readouts in budgets}
    for readouts, count in found.items():
        if not isinstance(count, (int, np.integer)) or count < 0:
            raise NotYet(f"losing_moves(model, {readouts}) should be a count of positions, "
                         f"not {count!r}")
        if readouts > 4:  # the largest budget is left unchecked: it is the slowest
            continue
        reference = _losing_moves_solution(model, readouts)
        if count != reference:
            raise NotYet(f"with {readouts} readouts mockgo.search.minimax.check_player finds "
                         f"{reference} losing moves, not {count}")
    return "moves that can lose: " + ", ".join(
        f"{count} with {'no search' if readouts == 0 else f'{readouts} readouts'}"
        for readouts, count in found.items())


losing_moves = Exercise(
    "losing_moves", "what search adds to the network", _check_losing_moves,
    _losing_moves_solution, _losing_moves_skeleton,
    "mockgo.zero.tictactoe has network_player(model) (the prior alone) and "
    "search_player(model, readouts); mockgo.search.minimax.check_player(player).losing lists "
    "the positions where the player's move can lose.")


# ------------------------------------------------------ without_one_change

# Each of KataGo's changes, and the fields that switch it off: a field set
# to the value given means the change is off.
KATAGO_CHANGES = {
    "the auxiliary heads": {"ownership_head": False, "score_head": False},
    "global pooling": {"global_pooling": 0},
    "playout cap randomization": {"full_search_share": 1.0},
    "forced playouts": {"forced_playouts": 0.0},
}


def _without_one_change_skeleton(config):
    """``config`` (a ZeroConfig with KataGo's changes on) with exactly one
    of them switched off: the auxiliary heads, global pooling, playout cap
    randomization, or forced playouts."""
    raise NotImplementedError  # your code here


def _without_one_change_solution(config):
    return dataclasses.replace(config, forced_playouts=0.0)


def _check_without_one_change(answer, config):
    changed = answer(config)
    if not isinstance(changed, ZeroConfig):
        raise NotYet(f"the answer should be a ZeroConfig (dataclasses.replace(config, ...)), "
                     f"not {type(changed).__name__}")
    before, after = dataclasses.asdict(config), dataclasses.asdict(changed)
    fields = {key for key in before if before[key] != after[key]}
    off = [name for name, switch in KATAGO_CHANGES.items()
           if any(after[key] == value and before[key] != value for key, value in switch.items())]
    allowed = {key for name in off for key in KATAGO_CHANGES[name]}
    # fast_readouts only matters with playout cap randomization: it may go with it.
    others = sorted(fields - allowed - {"fast_readouts"})
    if others:
        raise NotYet(f"only one of KataGo's changes should go; these fields changed too: "
                     f"{', '.join(others)}")
    if len(off) != 1:
        raise NotYet("exactly one change should be off, not " +
                     (", ".join(off) if off else "none"))
    still_on = [f"{key}={value!r}" for key, value in KATAGO_CHANGES[off[0]].items()
                if after[key] != value]
    if still_on:
        raise NotYet(f"{off[0]} are only half off: set {', '.join(still_on)} too")
    return (f"{off[0]} switched off, everything else as it was; run it beside the notebook's "
            f"run (bootstrap(folder, config).run(generations)) and compare their strength "
            f"curves and equal-cost matches")


without_one_change = Exercise(
    "without_one_change", "switch off one of KataGo's changes", _check_without_one_change,
    _without_one_change_solution, _without_one_change_skeleton,
    "dataclasses.replace(config, forced_playouts=0.0) switches off forced playouts; "
    "full_search_share=1.0 playout cap randomization; global_pooling=0 global pooling; "
    "ownership_head=False, score_head=False the auxiliary heads.")
