"""Feature planes: what a network sees of a position.

An *encoder* turns a :class:`~mockgo.go.board.Board` into a stack of planes, an
array of shape ``(size, size, num_planes)`` (channels last, as Keras expects)
of 0s and 1s, always from the point of view of the player to move
(``board.to_play``): "player" means the side to move, "opponent" the other.
Encoders are found by name, as in dlgo::

    >>> from mockgo import Board
    >>> encoder = get_encoder("agz17", 19)
    >>> encoder.encode(Board(19)).shape
    (19, 19, 17)

``encode_into(board, out)`` writes into an array you already have (a row of a
data set being built) instead of allocating one. ``encoder.plane_names`` says
what each plane is, one string per plane. The planes are computed by numba
kernels straight from the board's arrays; an encoder may be shared between
threads.

The encoders:

``simple2``
    Own stones, opponent stones: the small dense and convolutional 9x9
    networks start from this.

``agz17`` (AlphaGo Zero, Silver et al. 2017)
    ``X_t, Y_t, X_t-1, Y_t-1, ..., X_t-7, Y_t-7, C``: the player's stones (X)
    and the opponent's (Y) in the current position and the 7 before it
    (``board.previous_stones``; all zeros before the start of the game), and
    C, all ones when black is to play. The player is the one to move now, in
    all eight positions, as in the paper.

``alphago48`` (AlphaGo's policy network, Silver et al. 2016, Extended Data Table 2)
    ======================  ===  ==========================================
    planes                   n   what
    ======================  ===  ==========================================
    stone colour             3   player, opponent, empty
    ones                     1   all ones (shows the network the board edge)
    turns since              8   for each stone: played 1, 2, ..., 7, or 8 or
                                 more moves ago (passes count as moves;
                                 set-up and handicap stones count as 8+)
    liberties                8   for each stone: its group has 1, ..., 7, 8+
                                 liberties
    capture size             8   for each legal move: it would capture 0, 1,
                                 ..., 6, 7+ opponent stones
    self-atari size          8   for each legal move after which the mover's
                                 group has one liberty: that group has 1, ...,
                                 7, 8+ stones
    liberties after move     8   for each legal move: the mover's group has
                                 1, ..., 7, 8+ liberties after it (captures
                                 included)
    ladder capture           1   a legal move that captures an opponent group
                                 in a ladder (see below)
    ladder escape            1   a legal move that saves one of the player's
                                 groups in atari from capture by ladder
    sensibleness             1   legal and does not fill the player's own
                                 single-point eye (``board.sensible_moves()``)
    zeros                    1   all zeros
    ======================  ===  ==========================================

    "Legal" is ``board.legal_moves()``: occupied points, the ko point,
    suicides and (when the board enforces it) superko repetitions are 0 in
    every move plane. The move planes use *legal* moves, as RocAlphaGo and
    dlgo do (a move filling one's own eye still has a capture size and
    liberties); the sensibleness plane is where eye filling is marked.

``alphago49``
    ``alphago48`` plus "player colour", all ones when black is to play: the
    input of AlphaGo's value network.

Ladders
-------
The two ladder planes come from the ladder reader of :mod:`mockgo.go.ladders`.
"""

import threading

import numpy as np
from numba import njit

from mockgo.go.board import geometry
from mockgo.go.kernels import BLACK, EMPTY, is_own_eye, legal_mask, popcount
from mockgo.go.ladders import (LADDER_NODES, extension_liberties, first_liberty, ladder_captures,
                               ladder_escapes, ladder_scratch, liberty_after, load_position)

# The encoders' names: what saved networks record (mockgo.nets.io) and what
# get_encoder takes. Code outside this module uses these, not the strings.
ALPHAGO48 = "alphago48"  # AlphaGo's policy network input (Extended Data Table 2)
ALPHAGO49 = "alphago49"  # the same and the colour to play: AlphaGo's value network input
AGZ17 = "agz17"  # AlphaGo Zero's input: 8 positions of each colour's stones, and the colour
SIMPLE2 = "simple2"  # the player's and the opponent's stones (Imago's 9x9 nets)

_ONE = np.uint64(1)

# Where each group of planes starts in the alphago encoders.
_PLAYER, _OPPONENT, _EMPTY, _ONES = 0, 1, 2, 3
_TURNS_SINCE, _LIBERTIES, _CAPTURE_SIZE, _SELF_ATARI, _LIBERTIES_AFTER = 4, 12, 20, 28, 36
_LADDER_CAPTURE, _LADDER_ESCAPE, _SENSIBLE, _ZEROS, _PLAYER_COLOR = 44, 45, 46, 47, 48


# ------------------------------------------------------------- the plane kernels


@njit(cache=True)
def _alphago_planes(stones, group, next_stone, group_size, liberties, liberty_bits,
                    group_hash, seen, neighbors, diagonals, zobrist, position_hash,
                    color, ko, superko, played_at, move_number, player_color_plane,
                    st, gr, nx, sz, li, lb, moves, counts, out):
    """Fill ``out`` (size, size, 48 or 49) with the alphago planes. Which
    moves are legal is the board's rule (:func:`~mockgo.go.kernels.legal_mask`);
    the move planes are worked out point by point from the groups around each
    legal point, inline (a helper call per point would cost more than the
    work)."""
    size = out.shape[0]
    n = size * size
    words = liberty_bits.shape[1]
    planes = out.shape[2]
    for row in range(size):
        for col in range(size):
            for k in range(planes):
                out[row, col, k] = 0
    bits = np.empty(words, np.uint64)
    bits2 = np.empty(words, np.uint64)
    friends = np.empty(4, np.int32)  # distinct friendly groups around the point
    taken = np.empty(4, np.int32)  # distinct opponent groups the move captures
    prey_groups = np.empty(4, np.int32)  # distinct opponent groups on 2 liberties
    preys = np.empty(n, np.int32)  # stones of the player's groups in atari it relieves
    scratch_hash = np.zeros(n, np.uint64)
    hash_box = np.zeros(1, np.uint64)
    budget = np.zeros(1, np.int64)
    loaded = False  # whether the ladder scratch holds this position yet
    legal = legal_mask(stones, group, liberties, group_hash, seen, neighbors, diagonals, zobrist,
                       position_hash, color, ko, superko, False)
    for row in range(size):
        for col in range(size):
            p = row * size + col
            out[row, col, _ONES] = 1
            if player_color_plane >= 0 and color == BLACK:
                out[row, col, player_color_plane] = 1
            s = stones[p]
            if s != EMPTY:
                out[row, col, _PLAYER if s == color else _OPPONENT] = 1
                age = move_number - played_at[p]
                if age > 8 or age < 1:
                    age = 8
                out[row, col, _TURNS_SINCE + age - 1] = 1
                libs = liberties[group[p]]
                out[row, col, _LIBERTIES + min(libs, 8) - 1] = 1
                continue
            out[row, col, _EMPTY] = 1
            if not legal[p]:
                continue
            # The groups around p: what the move would do.
            n_friends = 0
            n_taken = 0
            n_prey_groups = 0  # opponent groups on 2 liberties around p
            n_preys = 0
            for k in range(4):
                q = neighbors[p, k]
                if q < 0:
                    break
                sq = stones[q]
                if sq == EMPTY:
                    continue
                g = group[q]
                if sq == color:
                    known = False
                    for i in range(n_friends):
                        if friends[i] == g:
                            known = True
                    if not known:
                        friends[n_friends] = g
                        n_friends += 1
                        if liberties[g] == 1:
                            preys[n_preys] = g
                            n_preys += 1
                elif liberties[g] == 1:
                    known = False
                    for i in range(n_taken):
                        if taken[i] == g:
                            known = True
                    if not known:
                        taken[n_taken] = g
                        n_taken += 1
                elif liberties[g] == 2:
                    known = False
                    for i in range(n_prey_groups):
                        if prey_groups[i] == g:
                            known = True
                    if not known:
                        prey_groups[n_prey_groups] = g
                        n_prey_groups += 1
            # Liberties after the move: the friendly groups' liberties, the
            # empty neighbours, less p itself...
            n_friend_preys = n_preys
            for w in range(words):
                bits[w] = 0
            for i in range(n_friends):
                for w in range(words):
                    bits[w] |= liberty_bits[friends[i], w]
            for k in range(4):
                q = neighbors[p, k]
                if q < 0:
                    break
                if stones[q] == EMPTY:
                    bits[q >> 6] |= _ONE << np.uint64(q & 63)
            bits[p >> 6] &= ~(_ONE << np.uint64(p & 63))
            # ...plus the captured stones that touch the new group.
            captured = 0
            for i in range(n_taken):
                head = taken[i]
                captured += group_size[head]
                t = head
                while True:
                    touches = False
                    for k in range(4):
                        q = neighbors[t, k]
                        if q < 0:
                            break
                        if q == p:
                            touches = True
                        elif stones[q] == color:
                            for j in range(n_friends):
                                if group[q] == friends[j]:
                                    touches = True
                            # a group of the player's in atari that this
                            # capture relieves: a ladder escape candidate
                            if liberties[group[q]] == 1:
                                known = False
                                for j in range(n_preys):
                                    if preys[j] == group[q]:
                                        known = True
                                if not known:
                                    preys[n_preys] = group[q]
                                    n_preys += 1
                    if touches:
                        bits[t >> 6] |= _ONE << np.uint64(t & 63)
                    t = next_stone[t]
                    if t == head:
                        break
            libs_after = 0
            for w in range(words):
                libs_after += popcount(bits[w])
            out[row, col, _CAPTURE_SIZE + min(captured, 7)] = 1
            out[row, col, _LIBERTIES_AFTER + min(libs_after, 8) - 1] = 1
            if libs_after == 1:
                new_size = 1
                for i in range(n_friends):
                    new_size += group_size[friends[i]]
                out[row, col, _SELF_ATARI + min(new_size, 8) - 1] = 1
            # Sensible: legal, and not the player's own single-point eye.
            if not is_own_eye(stones, neighbors, diagonals, p, color):
                out[row, col, _SENSIBLE] = 1
            # Ladders, read only where they can be and the answer is not plain.
            for i in range(n_prey_groups):
                if n_taken == 0:
                    # does the prey plainly escape by extending at its other
                    # liberty? (p captures nothing, so no ko to worry about)
                    g = prey_groups[i]
                    other = first_liberty(liberty_bits, g)
                    if other == p:
                        other = liberty_after(liberty_bits, g, p)
                    if extension_liberties(stones, group, liberty_bits, neighbors, g,
                                           other, p, bits2) >= 3:
                        continue
                if not loaded:
                    load_position(st, gr, nx, sz, li, lb, stones, group, next_stone,
                                  group_size, liberties, liberty_bits)
                    loaded = True
                budget[0] = LADDER_NODES
                if ladder_captures(st, gr, nx, sz, li, lb, moves, counts, scratch_hash,
                                   hash_box, seen, neighbors, zobrist, np.int64(0),
                                   np.int64(ko), np.int64(prey_groups[i]), color,
                                   np.int64(p), budget):
                    out[row, col, _LADDER_CAPTURE] = 1
                    break
            if n_friend_preys > 0 and libs_after >= 3:
                out[row, col, _LADDER_ESCAPE] = 1  # the groups p joins are out
            elif n_preys > n_friend_preys or (n_preys > 0 and libs_after == 2):
                if not loaded:
                    load_position(st, gr, nx, sz, li, lb, stones, group, next_stone,
                                  group_size, liberties, liberty_bits)
                    loaded = True
                budget[0] = LADDER_NODES
                if ladder_escapes(st, gr, nx, sz, li, lb, moves, counts, scratch_hash,
                                  hash_box, seen, neighbors, zobrist, np.int64(p), color,
                                  preys, np.int64(n_preys), budget):
                    out[row, col, _LADDER_ESCAPE] = 1


@njit(cache=True)
def _stone_planes(stones, color, out, plane):
    """out[..., plane] = the stones of ``color``, out[..., plane + 1] = the
    opponent's."""
    size = out.shape[0]
    opp = 3 - color
    for row in range(size):
        for col in range(size):
            s = stones[row * size + col]
            out[row, col, plane] = s == color
            out[row, col, plane + 1] = s == opp


@njit(cache=True)
def _history_planes(stones, h1, h2, h3, h4, h5, h6, h7, depth, color, out):
    """The 17 AlphaGo Zero planes: ``h1..h7`` are the earlier positions, the
    first ``depth`` of them real (the rest are placeholders, drawn as 0s)."""
    size = out.shape[0]
    opp = 3 - color
    black = 1 if color == BLACK else 0
    for row in range(size):
        for col in range(size):
            p = row * size + col
            for step in range(8):
                if step == 0:
                    s = stones[p]
                elif step > depth:
                    s = EMPTY
                elif step == 1:
                    s = h1[p]
                elif step == 2:
                    s = h2[p]
                elif step == 3:
                    s = h3[p]
                elif step == 4:
                    s = h4[p]
                elif step == 5:
                    s = h5[p]
                elif step == 6:
                    s = h6[p]
                else:
                    s = h7[p]
                out[row, col, 2 * step] = s == color
                out[row, col, 2 * step + 1] = s == opp
            out[row, col, 16] = black


# ------------------------------------------------------------------- encoders


class Encoder:
    """Turns a Board into planes of shape ``(size, size, num_planes)``, from
    the point of view of the player to move. Subclasses set ``name`` and
    ``plane_names`` and write ``encode_into``'s work in ``_fill``."""

    name = None
    plane_names = ()
    dtype = np.uint8

    def __init__(self, size=19):
        geometry(size)  # checks the size
        self.size = size
        self.num_planes = len(self.plane_names)
        self.plane_names = list(self.plane_names)

    @property
    def shape(self):
        return (self.size, self.size, self.num_planes)

    def encode(self, board):
        """The planes of ``board``, a new array of ``shape`` and ``dtype``."""
        out = np.empty(self.shape, self.dtype)
        self.encode_into(board, out)
        return out

    def encode_into(self, board, out):
        """Write the planes of ``board`` into ``out``, an existing array of
        ``shape`` (any layout; uint8 or another numeric dtype). Returns out."""
        if board.size != self.size:
            raise ValueError(f"{self.name} encodes {self.size}x{self.size} boards, "
                             f"got a {board.size}x{board.size} one")
        if out.shape != self.shape:
            raise ValueError(f"{self.name} writes planes of shape {self.shape}, "
                             f"got an array of shape {out.shape}")
        if out.dtype == self.dtype and out.flags.c_contiguous:
            self._fill(board, out)
        else:  # the kernels are compiled for one layout: go through a copy
            planes = np.empty(self.shape, self.dtype)
            self._fill(board, planes)
            out[...] = planes
        return out

    def _fill(self, board, out):
        raise NotImplementedError

    def __repr__(self):
        return (f"<{type(self).__name__} {self.name!r} {self.size}x{self.size}, "
                f"{self.num_planes} planes>")


def _one_hot_names(title, labels):
    return [f"{title}: {label}" for label in labels]


_ALPHAGO48_PLANES = (
    ["player stones", "opponent stones", "empty points", "ones"]
    + _one_hot_names("turns since", ["1", "2", "3", "4", "5", "6", "7", "8+"])
    + _one_hot_names("liberties", ["1", "2", "3", "4", "5", "6", "7", "8+"])
    + _one_hot_names("capture size", ["0", "1", "2", "3", "4", "5", "6", "7+"])
    + _one_hot_names("self-atari size", ["1", "2", "3", "4", "5", "6", "7", "8+"])
    + _one_hot_names("liberties after move", ["1", "2", "3", "4", "5", "6", "7", "8+"])
    + ["ladder capture", "ladder escape", "sensibleness", "zeros"]
)


class AlphaGo48(Encoder):
    """The 48 planes of AlphaGo's policy network (module docstring)."""

    name = ALPHAGO48
    plane_names = tuple(_ALPHAGO48_PLANES)
    _player_color_plane = -1

    def __init__(self, size=19):
        super().__init__(size)
        self._local = threading.local()  # the ladder reader's scratch, per thread

    def __getstate__(self):  # picklable, for worker processes
        state = dict(self.__dict__)
        del state["_local"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._local = threading.local()

    def _fill(self, board, out):
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = ladder_scratch(self.size)
        _alphago_planes(board.stones, board.group, board.next_stone, board.group_size,
                        board.liberties, board.liberty_bits, board.group_hash, board._seen,
                        board.neighbors, board.diagonals, board.zobrist, board._hash_box[0],
                        board.to_play, board.ko, board.superko, board.played_at,
                        board.move_number, self._player_color_plane, *scratch, out)


class AlphaGo49(AlphaGo48):
    """alphago48 and a plane of ones when black is to play: AlphaGo's value
    network input."""

    name = ALPHAGO49
    plane_names = tuple(_ALPHAGO48_PLANES) + ("player colour (black to play)",)
    _player_color_plane = _PLAYER_COLOR


class AlphaGoZero17(Encoder):
    """AlphaGo Zero's 17 planes: the player's and the opponent's stones in
    the last 8 positions, then a plane of ones when black is to play."""

    name = AGZ17
    plane_names = tuple(
        [f"{whose} stones" + ("" if step == 0 else f", {step} move{'s' if step > 1 else ''} ago")
         for step in range(8) for whose in ("player", "opponent")]
        + ["black to play"])

    def _fill(self, board, out):
        history = board.previous_stones
        depth = len(history)
        if depth < 7:
            history = history + (board.stones,) * (7 - depth)
        _history_planes(board.stones, *history[:7], depth, board.to_play, out)


class Simple2(Encoder):
    """The player's stones and the opponent's: the input of the small 9x9
    networks."""

    name = SIMPLE2
    plane_names = ("player stones", "opponent stones")

    def _fill(self, board, out):
        _stone_planes(board.stones, board.to_play, out, 0)


#: The encoders by name (``simple2``, ``agz17``, ``alphago48``, ``alphago49``).
ENCODERS = {cls.name: cls for cls in (Simple2, AlphaGoZero17, AlphaGo48, AlphaGo49)}


def encoder_names():
    """The names get_encoder knows."""
    return list(ENCODERS)


def get_encoder(name, size=19):
    """The encoder called ``name`` for boards of ``size``."""
    try:
        cls = ENCODERS[name]
    except KeyError:
        raise ValueError(f"no encoder named {name!r}; there are {encoder_names()}") from None
    return cls(size)
