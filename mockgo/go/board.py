"""The rules of Go: a board, how a move is played, and how a game is scored.

This file is the rules as a learner meets them: the :class:`Board`, its
moves and its score. The position is a handful of flat numpy arrays indexed by point (``row * size +
col``, row 0 at the top; see :mod:`mockgo.go.coords`):

- ``stones``: EMPTY, BLACK or WHITE at each point.
- ``group``: for each stone, the *head* of its group (one stone of the group
  stands for all of it); ``next_stone`` links the stones of a group in a ring,
  so a group can be walked without a flood fill.
- per head: ``group_size``, ``liberties`` (the exact number of liberties),
  ``liberty_bits`` (the set of liberties as a bitset, so merging two groups is
  a bitwise OR) and ``group_hash`` (the XOR of the group's Zobrist keys, so the
  position after a capture is known before the capture is made).

Playing a move touches only the point, its neighbours and the groups they
belong to; a capture walks the captured stones. That bookkeeping, and the
other inner loops (legality of every point, area scoring), are the kernels of
:mod:`mockgo.go.kernels`: plain Python compiled by numba, read them as
Python, they run as machine code. Handicap stones and star points are
placed by :mod:`mockgo.go.handicap`.

Rules: captures, suicide is illegal, simple ko, positional superko (on by
default: no move may recreate an earlier position), passes, two passes in a
row end the game, resignation, komi, Tromp-Taylor area scoring.
"""

import functools
from typing import NamedTuple

import numpy as np

from mockgo.go import coords, kernels, playout
from mockgo.go.handicap import fixed_handicap_points, hoshi_points
from mockgo.go.kernels import (BLACK, EMPTY, GAME_OVER, KO, LEGAL, OCCUPIED, SUICIDE, SUPERKO,
                               WHITE)

COLOR_NAMES = {BLACK: "black", WHITE: "white"}
_STONE_CHARS = {EMPTY: ".", BLACK: "X", WHITE: "O"}

# What the codes of kernels.check_move (why a move is illegal) mean.
ILLEGAL_REASONS = {
    OCCUPIED: "the point is occupied",
    SUICIDE: "suicide",
    KO: "it retakes a ko",
    SUPERKO: "it repeats an earlier position (positional superko)",
    GAME_OVER: "the game is over: a player resigned",
}

MAX_SIZE = 25  # GTP vertices have letters for 25 columns
#: The largest komi, either way. Real komi is a few points (KGS allows reverse
#: komi of -100 and more in teaching games); a komi of 1e20 decides every game
#: before it starts and prints as "W+1e+20".
MAX_KOMI = 1000
HISTORY_PLANES = 7  # earlier positions a Board keeps (AlphaGo Zero's input sees 8 in all)


def opponent(color):
    """The other colour."""
    return 3 - color


def check_komi(komi):
    """``komi`` as a float; ValueError, naming it, unless it is a finite
    number within :data:`MAX_KOMI` either way (what GTP, SGF ``KM`` and
    every Board accept)."""
    value = float(komi)
    if not -MAX_KOMI <= value <= MAX_KOMI:  # NaN fails it too
        raise ValueError(f"komi {komi!r} is not a number from -{MAX_KOMI} to {MAX_KOMI}")
    return value



def color_from_name(name):
    """``"b"``, ``"black"``, ``"w"`` or ``"white"`` (any case) to BLACK or WHITE."""
    key = name.strip().lower()
    if key in ("b", "black"):
        return BLACK
    if key in ("w", "white"):
        return WHITE
    raise ValueError(f"{name!r} is not a colour (black, white, b or w)")


class IllegalMove(ValueError):
    """A move that the rules forbid; ``reason`` is one of the codes above."""

    def __init__(self, message, reason):
        super().__init__(message)
        self.reason = reason


# ---------------------------------------------------------------- geometry


@functools.lru_cache(maxsize=None)
def geometry(size):
    """Neighbour and diagonal tables and Zobrist keys for a board size.

    ``neighbors[p]`` lists the on-board orthogonal neighbours of ``p`` first and
    pads with -1, so loops can stop at the first -1; ``diagonals`` likewise.
    The Zobrist keys are fixed per size so hashes can be compared across runs.
    """
    if not isinstance(size, int) or not 2 <= size <= MAX_SIZE:
        raise ValueError(f"board size must be an int from 2 to {MAX_SIZE}, got {size!r}")
    n = size * size
    neighbors = np.full((n, 4), -1, np.int32)
    diagonals = np.full((n, 4), -1, np.int32)
    for row in range(size):
        for col in range(size):
            p = row * size + col
            near = [(row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)]
            diag = [(row - 1, col - 1), (row - 1, col + 1), (row + 1, col - 1), (row + 1, col + 1)]
            for table, points in ((neighbors, near), (diagonals, diag)):
                on_board = [r * size + c for r, c in points if 0 <= r < size and 0 <= c < size]
                table[p, : len(on_board)] = on_board
    rng = np.random.default_rng(20_161_989 + size)
    zobrist = rng.integers(1, 2**63, size=(3, n), dtype=np.int64).astype(np.uint64)
    zobrist[EMPTY] = 0
    # The empty board gets a non-zero hash because 0 marks a free slot in the
    # table of seen positions.
    empty_hash = np.uint64(rng.integers(1, 2**63))
    for array in (neighbors, diagonals, zobrist):
        array.setflags(write=False)
    return neighbors, diagonals, zobrist, empty_hash




# -------------------------------------------------------------- the board


class Playout(NamedTuple):
    """What :meth:`Board.random_playout` returns."""

    score: float  # Tromp-Taylor area score with komi at the end: above 0, black wins
    moves: np.ndarray  # the moves played, pass_index for a pass, players alternating
    stones: np.ndarray  # the final position, as Board.stones


class Board:
    """A game of Go in progress: the position, whose turn it is, and the
    history that ko and superko need.

    >>> board = Board(9)
    >>> board.play(coords.from_gtp("E5", 9))
    >>> board.to_play == WHITE
    True
    """

    def __init__(self, size=19, komi=7.5, superko=True):
        self.neighbors, self.diagonals, self.zobrist, empty_hash = geometry(size)
        self.size = size
        self.komi = check_komi(komi)
        self.superko = bool(superko)
        n = size * size
        self.pass_index = n
        self.stones = np.zeros(n, np.int8)
        self.group = np.full(n, -1, np.int32)
        self.next_stone = np.zeros(n, np.int32)
        self.group_size = np.zeros(n, np.int32)
        self.liberties = np.zeros(n, np.int32)
        self.liberty_bits = np.zeros((n, (n + 63) // 64), np.uint64)
        self.group_hash = np.zeros(n, np.uint64)
        self._hash_box = np.array([empty_hash], np.uint64)
        self._seen = np.zeros(SEEN_TABLE_START, np.uint64)
        self._seen_count = 0
        self._remember_position()
        self.to_play = BLACK
        self.ko = -1  # the point the player to move may not take back, or -1
        self.last_move = None  # flat index of the last move, pass_index for a pass
        self.passes = 0  # consecutive passes just played
        self.resigned = None  # the colour that resigned
        self.captures = {BLACK: 0, WHITE: 0}  # stones captured *by* each colour
        self.history = []  # (colour, move) for every move and pass, in order
        # What feature planes need beyond the stones: the move number each
        # stone was played at (set-up stones count as long ago), and the
        # stones of the last HISTORY_PLANES positions, most recent first.
        self.played_at = np.full(n, -(2**30), np.int32)
        self.previous_stones = ()

    # ----------------------------------------------------------- state

    @property
    def hash(self):
        """Zobrist hash of the stones on the board (not of whose turn it is)."""
        return int(self._hash_box[0])

    @property
    def move_number(self):
        return len(self.history)

    @property
    def is_over(self):
        """Two passes in a row, or a resignation."""
        return self.passes >= 2 or self.resigned is not None

    def grid(self):
        """The stones as a (size, size) array of EMPTY, BLACK, WHITE (a view)."""
        return self.stones.reshape(self.size, self.size)

    def copy(self):
        """An independent copy, cheap enough to use inside a search."""
        # Spelled out rather than looped over names: a search copies a board
        # for every node it creates, and a loop of getattr/setattr cost a
        # third of this method's time.
        state = self.__dict__.copy()
        state["stones"] = self.stones.copy()
        state["group"] = self.group.copy()
        state["next_stone"] = self.next_stone.copy()
        state["group_size"] = self.group_size.copy()
        state["liberties"] = self.liberties.copy()
        state["liberty_bits"] = self.liberty_bits.copy()
        state["group_hash"] = self.group_hash.copy()
        state["played_at"] = self.played_at.copy()
        state["_hash_box"] = self._hash_box.copy()
        state["_seen"] = self._seen.copy()
        state["captures"] = self.captures.copy()
        state["history"] = self.history.copy()
        other = Board.__new__(Board)
        other.__dict__ = state
        return other

    # ----------------------------------------------------------- moves

    def play(self, move, color=None):
        """Play ``move`` (a flat index, or ``pass_index``) for ``color``
        (default: the player to move), and give the turn to the opponent.

        Raises IllegalMove, leaving the board unchanged, if the rules forbid it.
        """
        if color is None:
            color = self.to_play
        if self.resigned is not None:
            raise IllegalMove(ILLEGAL_REASONS[GAME_OVER], GAME_OVER)
        before = self.stones.copy()
        if move == self.pass_index:
            self.ko = -1
            self.passes += 1
        else:
            if not 0 <= move < self.pass_index:
                raise ValueError(f"move {move!r} is off a {self.size}x{self.size} board")
            ko = self.ko if color == self.to_play else -1
            reason, captured, self.ko = kernels.play_move(
                self.stones, self.group, self.next_stone, self.group_size,
                self.liberties, self.liberty_bits, self.group_hash, self._seen,
                self.neighbors, self.zobrist, self._hash_box, move, color, ko, self.superko)
            if reason != LEGAL:
                raise IllegalMove(
                    f"illegal move {COLOR_NAMES[color]} {coords.to_gtp(move, self.size)}: "
                    f"{ILLEGAL_REASONS[reason]}", reason)
            self.captures[color] += captured
            self.played_at[move] = len(self.history)
            self.passes = 0
            self._seen_count += 1
            if 2 * self._seen_count > len(self._seen):
                self._grow_seen()
        self.previous_stones = (before,) + self.previous_stones[:HISTORY_PLANES - 1]
        self.last_move = move
        self.history.append((color, move))
        self.to_play = 3 - color

    def resign(self, color=None):
        """``color`` (default: the player to move) gives up the game."""
        self.resigned = self.to_play if color is None else color

    def is_legal(self, move, color=None):
        """Whether ``color`` (default: the player to move) may play ``move``."""
        return self.illegal_reason(move, color) == LEGAL

    def illegal_reason(self, move, color=None):
        """LEGAL, or the code of the rule that forbids the move."""
        if move == self.pass_index:
            return LEGAL
        color = self.to_play if color is None else color
        ko = self.ko if color == self.to_play else -1
        return int(kernels.check_move(self.stones, self.group, self.liberties, self.group_hash,
                              self._seen, self.neighbors, self.zobrist, self._hash_box[0],
                              move, color, ko, self.superko))

    def legal_moves(self, color=None):
        """Boolean mask of length size*size + 1: which points the player may
        play, and (last entry, always True) pass."""
        color = self.to_play if color is None else color
        ko = self.ko if color == self.to_play else -1
        return kernels.legal_mask(self.stones, self.group, self.liberties, self.group_hash,
                          self._seen, self.neighbors, self.diagonals, self.zobrist,
                          self._hash_box[0], color, ko, self.superko, False)

    def sensible_moves(self, color=None, eye_space=1):
        """Like legal_moves, without the moves that fill the player's own eye
        spaces of up to ``eye_space`` points. 1 (the default): single-point
        eyes (:meth:`is_eye`), what a random playout chooses from and what
        the alphago48 "sensibleness" plane shows. 2: two-point eye spaces too
        (``_two_point_eye_fills``), what the players of real games (matches,
        GTP) and the tree searches choose from: filling one never gains and
        can cost the group an eye."""
        if eye_space not in (1, 2):
            raise ValueError(f"eye_space is 1 or 2 points, not {eye_space!r}")
        color = self.to_play if color is None else color
        ko = self.ko if color == self.to_play else -1
        mask = kernels.legal_mask(self.stones, self.group, self.liberties, self.group_hash,
                          self._seen, self.neighbors, self.diagonals, self.zobrist,
                          self._hash_box[0], color, ko, self.superko, True)
        if eye_space == 2:
            mask[:-1] &= ~kernels.two_point_eye_fills(self.stones, self.group, self.liberties,
                                               self.neighbors, color)
        return mask

    def is_eye(self, point, color=None):
        """Whether ``point`` is a single-point eye of ``color`` (default: the
        player to move)."""
        color = self.to_play if color is None else color
        return bool(kernels.is_own_eye(self.stones, self.neighbors, self.diagonals, point, color))

    def random_playout(self, random_state, max_moves=None, first=None, heavy=False):
        """Play a random game on to its end *on a copy* (this board is left
        as it is) and score it: returns a :class:`Playout`, the Tromp-Taylor
        area score with komi (above 0: black wins) of the final position,
        the moves played (flat indices, ``pass_index`` for a pass; the
        player to move plays first, then they alternate) and the final stones.

        The moves are the *sensible* ones (legal under simple ko, not filling
        the mover's own single-point eye) in uniform random order; a player
        with none passes; two passes in a row or ``max_moves`` moves
        (default 3 * N * N) end the game. ``random_state``: a one-element
        uint64 array, the compiled generator's state (never 0), advanced in
        place. ``first``: a move the player to move plays before the random
        ones (it must be legal; the search plays its chosen move this way
        without copying the board first). ``heavy``: MoGo's playout rules
        first (capture or escape after an atari; no self-atari of two or
        more stones; :func:`mockgo.go.playout.random_playout`). Compiled: a whole 9x9 playout
        takes about 100 microseconds, the classic Monte Carlo evaluation
        (:mod:`mockgo.search.uct`).
        """
        if self.resigned is not None:
            raise ValueError("the game is over: a player resigned")
        if max_moves is None:
            max_moves = 3 * self.pass_index
        stones, group, next_stone = self.stones.copy(), self.group.copy(), self.next_stone.copy()
        group_size, liberties = self.group_size.copy(), self.liberties.copy()
        liberty_bits, group_hash = self.liberty_bits.copy(), self.group_hash.copy()
        moves = np.empty(max_moves, np.int32)
        played = playout.random_playout(
            stones, group, next_stone, group_size, liberties, liberty_bits, group_hash,
            self.neighbors, self.diagonals, self.zobrist, self._hash_box.copy(), self.to_play,
            self.ko, self.passes, max_moves, random_state, moves, -1 if first is None else first,
            -1 if self.last_move in (None, self.pass_index) else self.last_move, heavy)
        black, white = kernels.area(stones, self.neighbors)
        return Playout(black - white - self.komi, moves[:played], stones)

    # ------------------------------------------------------ set-up stones

    def setup(self, black=(), white=()):
        """Put set-up stones on empty points (SGF ``AB``/``AW``, free handicap).

        They are not moves: the history of moves is unchanged, and the
        position with them becomes the first that superko remembers. On a bad
        point the board is left as it was.
        """
        trial = self.copy()
        for color, points in ((BLACK, black), (WHITE, white)):
            for p in points:
                if not 0 <= p < self.pass_index:
                    raise ValueError(f"set-up point {p!r} is off a {self.size}x{self.size} board")
                if trial.stones[p] != EMPTY:
                    raise ValueError(f"set-up point {coords.to_gtp(p, self.size)} is occupied")
                captured = kernels.place_stone(trial.stones, trial.group, trial.next_stone,
                                       trial.group_size, trial.liberties, trial.liberty_bits,
                                       trial.group_hash, trial.neighbors, trial.zobrist,
                                       trial._hash_box, p, color)
                if captured:
                    raise ValueError(f"set-up stone at {coords.to_gtp(p, self.size)} "
                                     f"leaves a group without liberties")
                trial.played_at[p] = -(2**30)  # a set-up stone counts as placed long ago
        if np.any((trial.stones != EMPTY) & (trial.liberty_map() == 0)):
            raise ValueError("set-up stones leave a group without liberties")
        trial.ko = -1
        trial._seen[:] = 0
        trial._seen_count = 0
        trial._remember_position()
        self.__dict__.update(trial.__dict__)

    @classmethod
    def from_diagram(cls, diagram, to_play=BLACK, komi=7.5, superko=True):
        """A position drawn as rows of ``X`` (black), ``O`` (white) and ``.``
        or ``+`` (empty), top row first; spaces are ignored. The stones are
        set-up stones, so no moves are in the history."""
        rows = [line.replace(" ", "") for line in diagram.strip().splitlines()]
        size = len(rows)
        if any(len(row) != size for row in rows):
            raise ValueError(f"a diagram must be square; got rows of lengths "
                             f"{[len(row) for row in rows]}")
        points = {"X": [], "O": []}
        for row, line in enumerate(rows):
            for col, char in enumerate(line):
                if char in points:
                    points[char].append(row * size + col)
                elif char not in ".+":
                    raise ValueError(f"unexpected {char!r} in diagram row {row + 1}")
        board = cls(size, komi=komi, superko=superko)
        board.setup(black=points["X"], white=points["O"])
        board.to_play = to_play
        return board

    def place_handicap(self, stones):
        """Fixed handicap stones for black as GTP's ``fixed_handicap`` places
        them; white moves next. Returns the points."""
        if np.any(self.stones != EMPTY) or self.history:
            raise ValueError("handicap stones go on an empty board")
        points = fixed_handicap_points(self.size, stones)
        self.setup(black=points)
        self.to_play = WHITE
        return points

    # --------------------------------------------------------- scoring

    def owner_map(self, stones=None):
        """Each point's owner by Tromp-Taylor, BLACK, WHITE or EMPTY (no
        one), in this position or in ``stones`` (another position of this
        board's size, e.g. the end of a :meth:`random_playout`)."""
        return kernels.owners(self.stones if stones is None else stones, self.neighbors)

    def area(self, dead=()):
        """(black area, white area) by Tromp-Taylor rules, after taking the
        ``dead`` stones off the board."""
        stones = self.stones
        if len(dead):
            stones = stones.copy()
            stones[np.asarray(list(dead), np.int64)] = EMPTY
        return kernels.area(stones, self.neighbors)

    def area_score(self, dead=()):
        """Black's area minus white's area minus komi: above 0, black wins."""
        black, white = self.area(dead)
        return black - white - self.komi

    def winner(self, dead=()):
        """BLACK, WHITE, or EMPTY for a draw."""
        if self.resigned is not None:
            return 3 - self.resigned
        score = self.area_score(dead)
        return BLACK if score > 0 else WHITE if score < 0 else EMPTY

    def result(self, dead=()):
        """The result as SGF writes it: ``"B+3.5"``, ``"W+R"``, ``"0"`` for a draw."""
        if self.resigned is not None:
            return f"{'B' if self.resigned == WHITE else 'W'}+R"
        score = self.area_score(dead)
        if score == 0:
            return "0"
        return f"{'B' if score > 0 else 'W'}+{abs(score):g}"

    # ------------------------------------------- what features are made of

    def liberty_map(self):
        """For each point, the liberties of the group on it (0 where empty)."""
        return kernels.liberty_map(self.stones, self.group, self.liberties)

    def group_size_map(self):
        """For each point, the number of stones in its group (0 where empty)."""
        return kernels.group_size_map(self.stones, self.group, self.group_size)

    # -------------------------------------------------------- drawing

    def __str__(self):
        """The board as GnuGo's ``showboard`` draws it, the last move in
        parentheses."""
        size = self.size
        hoshi = set(hoshi_points(size))
        notes = {
            min(size - 2, 8): f"     WHITE (O) has captured {self.captures[WHITE]} stones",
            min(size - 2, 8) + 1: f"     BLACK (X) has captured {self.captures[BLACK]} stones",
        }
        lines = board_lines(size, lambda p: "+" if self.stones[p] == EMPTY and p in hoshi
                            else _STONE_CHARS[self.stones[p]])
        if self.last_move is not None and self.last_move != self.pass_index:
            last_row, last_col = divmod(self.last_move, size)
            text, at = lines[1 + last_row], 3 + 2 * last_col
            lines[1 + last_row] = text[: at - 1] + "(" + text[at] + ")" + text[at + 2:]
        for row, note in notes.items():
            if 0 <= row < size:
                lines[1 + row] += note
        return "\n".join(lines)

    def __repr__(self):
        return (f"<Board {self.size}x{self.size}, move {self.move_number}, "
                f"{COLOR_NAMES[self.to_play]} to play>")

    # --------------------------------------------------------- internals

    def _remember_position(self):
        kernels.seen_add(self._seen, self._hash_box[0])
        self._seen_count += 1

    def _grow_seen(self):
        bigger = np.zeros(2 * len(self._seen), np.uint64)
        kernels.seen_rehash(self._seen, bigger)
        self._seen = bigger


# The superko table's first size, a power of two: it doubles whenever it is
# half full, so it holds twice to four times the positions of the game so far.
# Small to start with, because a search copies a board, and with it this
# table, for every node it makes: mid-game it was half the bytes of a copy.
SEEN_TABLE_START = 64


def board_lines(size, char_at):
    """A ``size`` x ``size`` board drawn as lines of text, as GnuGo's
    ``showboard`` draws it: the GTP column letters above and below, the row
    numbers on both sides, and ``char_at(p)`` at each point ``p``."""
    letters = "   " + " ".join(coords.GTP_COLUMNS[:size])
    rows = [f"{size - row:2d} " + " ".join(char_at(row * size + col) for col in range(size))
            + f" {size - row}" for row in range(size)]
    return [letters, *rows, letters]
