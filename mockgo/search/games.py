"""Games as the tree search sees them: a small interface and two games.

:mod:`mockgo.search.mcts` does not know Go. It talks to a *state* that follows the
:class:`Game` protocol below: how many actions there are, whose turn it is,
which actions are legal, the state after an action (a new object: states are
never changed in place, so a search tree can keep one per node), and, once
the game is over, its result. Two games follow it:

``TicTacToe``
    3x3, nine actions. Perfect play is a draw, so it is the search's first
    test: a good search never loses at it.

``GoGame`` (and ``SensibleGoGame``, its sensible moves only)
    Wraps a :class:`mockgo.go.board.Board` (kept as ``.board``, so an encoder can
    read the position). Actions are flat point indices ``row * size + col``,
    and ``size * size`` is pass, as in ``Board.legal_moves()``. The game ends
    after two passes in a row, a resignation, or a move cap (default
    ``2 * size * size`` moves, counting passes), and is scored by area with komi.

Players are numbered as on the Go board: 1 (black, or X) moves first, then 2
(white, or O).
"""

from typing import Hashable, Protocol, runtime_checkable

import numpy as np

from mockgo.go.board import BLACK, EMPTY, Board


@runtime_checkable
class Game(Protocol):
    """A game state, from the search's point of view.

    ``terminal_value()`` is the result from the point of view of the player
    to move in the terminal state (``to_play``): +1 if that player has won,
    -1 if lost, 0 for a draw. Evaluators report values the same way.
    """

    num_actions: int

    @property
    def to_play(self) -> int: ...

    def legal_actions(self) -> np.ndarray:
        """Boolean mask of length ``num_actions``."""

    def play(self, action: int) -> "Game":
        """The state after ``action``; ``self`` is left unchanged."""

    def is_terminal(self) -> bool: ...

    def terminal_value(self) -> float: ...

    def key(self) -> Hashable:
        """A hashable summary of the state (equal states, equal keys)."""


# ------------------------------------------------------------- tic-tac-toe

_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8),
          (0, 4, 8), (2, 4, 6))
_LINES_THROUGH = tuple(tuple(line for line in _LINES if p in line) for p in range(9))


class TicTacToe:
    """Noughts and crosses. Cells are numbered 0-8 row by row; X (1) moves
    first. ``winner`` is the player with three in a row, or 0."""

    num_actions = 9

    def __init__(self, cells=(0,) * 9, to_play=1, winner=0):
        self.cells = tuple(cells)
        self.to_play = to_play
        self.winner = winner

    @classmethod
    def from_diagram(cls, diagram):
        """Rows of ``X``, ``O`` and ``.``, top row first; X moves first, so the
        player to move follows from the counts. Spaces are ignored."""
        text = "".join(diagram.split())
        if len(text) != 9 or set(text) - set("XO."):
            raise ValueError(f"a tic-tac-toe diagram has nine cells of X, O or .: {diagram!r}")
        cells = tuple({"X": 1, "O": 2, ".": 0}[c] for c in text)
        x, o = cells.count(1), cells.count(2)
        if x - o not in (0, 1):
            raise ValueError("X moves first, so X has as many stones as O or one more")
        winner = 0
        for line in _LINES:
            if cells[line[0]] and cells[line[0]] == cells[line[1]] == cells[line[2]]:
                winner = cells[line[0]]
        return cls(cells, 1 if x == o else 2, winner)

    def legal_actions(self):
        mask = np.array([c == 0 for c in self.cells])
        if self.winner:
            mask[:] = False
        return mask

    def play(self, action):
        if self.winner or self.cells[action]:
            raise ValueError(f"illegal tic-tac-toe move {action} in\n{self}")
        cells = list(self.cells)
        cells[action] = self.to_play
        winner = 0
        for a, b, c in _LINES_THROUGH[action]:
            if cells[a] == cells[b] == cells[c]:
                winner = self.to_play
        return TicTacToe(cells, 3 - self.to_play, winner)

    def is_terminal(self):
        return bool(self.winner) or 0 not in self.cells

    def terminal_value(self):
        # The last mover made the line, so the player to move has lost.
        return -1.0 if self.winner else 0.0

    def key(self):
        return self.cells, self.to_play

    def __str__(self):
        chars = [".XO"[c] for c in self.cells]
        return "\n".join(" ".join(chars[r * 3:r * 3 + 3]) for r in range(3))

    def __repr__(self):
        return f"TicTacToe({''.join('.XO'[c] for c in self.cells)!r}, to_play={self.to_play})"


# --------------------------------------------------------------------- Go


class GoGame:
    """A Go position as a search state; ``.board`` is the Board inside.

    ``play`` copies the board (``Board.copy()``) and plays on the copy. The
    legal-move mask is computed once per state and cached. ``terminal_value``
    is +1 / -1 / 0 from the view of the player to move, by Tromp-Taylor area
    with the board's komi (or the resignation, if a player resigned).
    """

    def __init__(self, size=9, komi=7.5, max_moves=None, board=None, superko=True):
        self.board = board if board is not None else Board(size, komi=komi, superko=superko)
        n = self.board.size
        self.num_actions = n * n + 1
        self.max_moves = 2 * n * n if max_moves is None else max_moves
        self._legal = None

    @classmethod
    def from_board(cls, board, max_moves=None):
        """Wrap an existing board (not copied: the state owns it from now on)."""
        return cls(board=board, max_moves=max_moves)

    @property
    def to_play(self):
        return self.board.to_play

    @property
    def size(self):
        return self.board.size

    def legal_actions(self):
        if self._legal is None:
            self._legal = self.board.legal_moves()
        return self._legal

    def play(self, action):
        board = self.board.copy()
        board.play(int(action))
        # The new state is built without __init__ (a search makes one per
        # node); its class is this one's, so subclasses stay themselves.
        other = object.__new__(type(self))
        other.board, other.num_actions, other.max_moves = board, self.num_actions, self.max_moves
        other._legal = None
        return other

    def is_terminal(self):
        return self.board.is_over or self.board.move_number >= self.max_moves

    def terminal_value(self):
        winner = self.board.winner()
        if winner == EMPTY:
            return 0.0
        return 1.0 if winner == self.board.to_play else -1.0

    def score(self):
        """Area score (with komi) from the view of the player to move."""
        score = self.board.area_score()
        return score if self.board.to_play == BLACK else -score

    def key(self):
        b = self.board
        return b.hash, b.to_play, b.ko, b.passes

    def __str__(self):
        return str(self.board)

    def __repr__(self):
        return f"GoGame({self.board!r})"


class SensibleGoGame(GoGame):
    """A Go game whose actions are the *sensible* moves: the legal ones that
    do not fill the player's own single-point eye (``Board.sensible_moves``),
    and the pass only when no such move is left.

    AlphaGo Zero searched all the legal moves. On a CPU budget (tens of
    readouts where it had 1600) and with a network that knows nothing yet,
    that makes games that end early, by two passes on a half-empty board
    (the side ahead on komi passes and wins), or that fill their own eyes: the
    value head then learns little beyond "white wins". With this rule every
    game goes on until the board is settled, so its Tromp-Taylor score is the
    right result; it is the rule random playouts have always used. Zero's
    self-play uses it (``ZeroConfig(sensible_moves=False)`` gives AlphaGo
    Zero's legal moves), and so does AlphaGo's search, whose player decides
    separately when to answer a pass (:func:`mockgo.go.ownership.should_pass`).
    """

    eye_space = 1  # Board.sensible_moves's: the own eye spaces not filled

    def legal_actions(self):
        if self._legal is None:
            mask = self.board.sensible_moves(eye_space=self.eye_space)
            mask[-1] = not mask[:-1].any()
            self._legal = mask
        return self._legal


class CarefulGoGame(SensibleGoGame):
    """The sensible moves less those that fill the player's own two-point eye
    spaces (``Board.sensible_moves(eye_space=2)``): what the search players
    of real games (matches, GTP) choose from. Filling a two-point eye never
    gains and can cost the group its life; Zero's self-play keeps the
    single-point rule its runs were measured with."""

    eye_space = 2
