"""Exact play for small games: negamax over a :class:`mockgo.search.games.Game`.

Tic-tac-toe has 5,478 legal positions, few enough to solve completely, so
what a search or a network has learnt can be checked against perfect play
position by position (notebook 04's warm-up, the search's tests)::

    game_value(TicTacToe())                      # 0: perfect play draws
    best_actions(TicTacToe.from_diagram("X X .  O O .  . . ."))   # [2]
    report = check_player(choose, TicTacToe())   # every position reachable
    report.losing                                # positions where choose() throws the game

Values are from the view of the player to move: +1 a win with perfect play
from both sides, 0 a draw, -1 a loss. States are told apart by ``key()``.
"""

import dataclasses

import numpy as np

from mockgo.search.games import TicTacToe

__all__ = ["PlayerCheck", "best_actions", "check_player", "game_value", "reachable_positions"]


def game_value(state, cache=None):
    """The value of ``state`` for its player to move under perfect play
    (negamax; ``cache``: a dict kept between calls, keyed by ``key()``)."""
    cache = {} if cache is None else cache
    key = state.key()
    if key not in cache:
        if state.is_terminal():
            cache[key] = float(state.terminal_value()) + 0.0  # no -0.0
        else:
            cache[key] = max(_value_after(state, a, cache)
                             for a in np.flatnonzero(state.legal_actions()))
    return cache[key]


def _value_after(state, action, cache):
    """The perfect-play value of playing ``action`` in ``state``, for the
    player who plays it."""
    child = state.play(int(action))
    value = game_value(child, cache)
    return -value if child.to_play != state.to_play else value


def best_actions(state, cache=None):
    """The actions that keep the perfect-play value of ``state``, sorted."""
    cache = {} if cache is None else cache
    best = game_value(state, cache)
    return [int(a) for a in np.flatnonzero(state.legal_actions())
            if _value_after(state, a, cache) == best]


def reachable_positions(start=None):
    """Every non-terminal state reachable from ``start`` (default: an empty
    tic-tac-toe board) by legal moves, each once, in breadth-first order."""
    start = TicTacToe() if start is None else start
    seen, order, frontier = {start.key()}, [], [start]
    while frontier:
        order += [s for s in frontier if not s.is_terminal()]
        following = []
        for state in frontier:
            if state.is_terminal():
                continue
            for a in np.flatnonzero(state.legal_actions()):
                child = state.play(int(a))
                if child.key() not in seen:
                    seen.add(child.key())
                    following.append(child)
        frontier = following
    return order


@dataclasses.dataclass
class PlayerCheck:
    """What :func:`check_player` found: ``positions`` checked, ``optimal``
    (the move kept the perfect-play value), and the positions where the
    move was a mistake: ``losing`` (a position not lost became a lost one:
    the player can now be beaten) and ``drawing`` (a won position became a
    draw), as ``(state, action)`` pairs."""

    positions: int
    optimal: int
    losing: list
    drawing: list

    @property
    def never_loses(self):
        """Whether no move turned a position that was not lost into a lost one."""
        return not self.losing

    def __str__(self):
        return (f"{self.positions} positions: the best move in {self.optimal} "
                f"({self.optimal / self.positions:.1%}); {len(self.losing)} moves that can lose, "
                f"{len(self.drawing)} that give a win away for a draw")


def check_player(choose, start=None, batch=512):
    """Check a player against perfect play in every position reachable from
    ``start`` (:func:`reachable_positions`), with either side to move.
    ``choose(states)`` returns one action per state (many states in one
    call, so a network answers in batches). Returns a :class:`PlayerCheck`."""
    cache = {}
    positions = reachable_positions(start)
    optimal, losing, drawing = 0, [], []
    for begin in range(0, len(positions), batch):
        states = positions[begin:begin + batch]
        for state, action in zip(states, choose(states)):
            before = game_value(state, cache)
            after = _value_after(state, int(action), cache)
            optimal += after == before
            if after < 0 <= before:
                losing.append((state, int(action)))
            elif after == 0 < before:
                drawing.append((state, int(action)))
    return PlayerCheck(len(positions), optimal, losing, drawing)
