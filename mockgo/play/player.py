"""The player protocol: anything that chooses moves, behind one interface
that plays one game or many in lockstep.

The lockstep runner (:mod:`mockgo.play.runner`), matches
(:mod:`mockgo.play.match`), the GTP engine (:mod:`mockgo.gtp.server`),
REINFORCE and AlphaGo Zero all drive players the same way::

    player.start_game(game, board, rng)   # game: a number; rng: this game's generator
    choices = player.choose(turns)         # one Turn per game in which it is to move
    player.observe(game, board, move)      # after every move of the game, both colours
    player.end_game(game)
    player.close()                         # engines and other resources

``choose`` answers *many positions in one call*, one :class:`Turn` per game
in which the player is to move: a network player encodes them all and calls
its network once; a tree search searches all its games' trees in lockstep,
one evaluator call per step for all of them; a GTP engine (GnuGo) answers one
position at a time (``one_at_a_time``: the runner then plays its games one
after another). Players whose :meth:`~Player.group_key` is equal answer
together: the same network at two temperatures shares one call.
``select_move(board)`` is the same for a single position (Sabaki through
GTP, a notebook cell).

A move is a flat index, ``board.pass_index`` to pass, or :data:`RESIGN`.
``choose`` must leave the boards unchanged. ``observe`` follows the game
(``board.history[-1]`` is the move just played; ``move`` is RESIGN when a
player resigned): players that keep state from move to move (a search tree,
an engine's board) follow it there; they must also cope with a board that
did not come from the moves they observed (``undo`` in GTP, ``loadsgf``): the
search starts a new tree, the GTP player sets its engine up again.

Random numbers: the runner gives each player in each game its own generator,
made by :meth:`Player.game_rng` from a seed that depends on the match's seed
and the game's number only, so a match replays exactly however its games are
spread over processes or batches.

This module holds the interface (:class:`Player`, :class:`Turn`,
:class:`Choices`, :data:`RESIGN`, :data:`THINKING`) and what the players
share (:func:`passes_now`). The kinds of player live one family a module:
:mod:`mockgo.play.random_player`, :mod:`mockgo.play.policy_player`,
:mod:`mockgo.play.gtp_player`, :mod:`mockgo.play.search_player`; specs
(``"random:seed=3"``) are parsed in :mod:`mockgo.play.specs`.
"""

import dataclasses

import numpy as np

from mockgo.go.ownership import should_pass

__all__ = ["RESIGN", "THINKING", "Choices", "Forfeit", "Player", "Turn", "passes_now"]

RESIGN = -1  #: The move that resigns the game.
#: Not decided yet: a step-wise search goes on (SearchPlayer(stepwise=True));
#: the runner offers the same turn again at its next step.
THINKING = -2


class Forfeit(RuntimeError):
    """Raised by a player that cannot move, such as an external engine that
    crashed and crashed again when started anew: the game is lost by
    forfeit, as in computer Go tournaments, the message becomes the game's
    note, and the match goes on. Only a player that answers one position at
    a time (``one_at_a_time``) may raise it."""


@dataclasses.dataclass
class Turn:
    """One position a player must answer: game ``game``'s ``board`` (not to
    be changed), its sensible moves (``mask``, N*N + 1 booleans, pass
    last), the moving player's generator in that game, and the player (the
    members of one group may differ, in temperature say)."""

    game: int
    board: object
    mask: np.ndarray
    rng: np.random.Generator
    player: "Player"


@dataclasses.dataclass
class Choices:
    """The answers to a list of turns: ``moves`` (flat index, pass, or
    RESIGN), ``log_probs`` (of each move under the distribution it was drawn
    from; 0 for a move that was not drawn), and, for a network player,
    ``evaluated`` (the rows its network saw) and ``planes`` (the encoded
    positions of the evaluated rows, uint8, in row order); ``records``: what
    the player tells about each answer, one object (or None) per turn, which
    the runner keeps with the move it played (``PlayedGame.records``; a
    search player's :class:`~mockgo.play.search_player.MoveSearch`, from
    which self-play makes its training examples); the work done: ``calls``
    (network calls), ``encode_s``, ``network_s``."""

    moves: np.ndarray
    log_probs: np.ndarray
    evaluated: np.ndarray | None = None
    planes: np.ndarray | None = None
    records: list | None = None
    calls: int = 0
    encode_s: float = 0.0
    network_s: float = 0.0


class Player:
    """The interface (module docstring). Subclasses set ``name`` and
    implement :meth:`choose`; the rest has defaults."""

    name = "player"
    size = None  # the one board size it plays (a network's), or None for any
    one_at_a_time = False  # True: follows one game at a time (GTP engines)
    keep_planes = False  # the runner keeps the planes its network saw (REINFORCE)
    seed = None  # a player's own seed, mixed into every game's (random:seed=3)

    def group_key(self):
        """Players with equal keys answer their turns in one :meth:`choose` call."""
        return ("player", id(self))

    def game_rng(self, seed):
        """The generator of one game, from the game's ``seed`` (and the player's own)."""
        if self.seed is None:
            return np.random.default_rng(seed)
        if seed is None:
            return np.random.default_rng(self.seed)
        return np.random.default_rng([self.seed, *np.atleast_1d(seed).tolist()])

    def check_size(self, size):
        """ValueError when the player cannot play on ``size`` x ``size``."""
        if self.size is not None and size != self.size:
            raise ValueError(f"{self.name} plays {self.size}x{self.size} only, not {size}x{size}")

    def start_game(self, game, board, rng):
        """Game ``game`` starts (or goes on) from ``board``; ``rng`` is its
        generator. (Whoever starts games checks :meth:`check_size` first: the
        runner once for all its games, the GTP engine at each new board.)"""

    def choose(self, turns):
        """A :class:`~mockgo.play.player.Choices` for ``turns`` (module docstring)."""
        raise NotImplementedError

    def observe(self, game, board, move):
        """``move`` has just been played in game ``game`` (on ``board``)."""

    def end_game(self, game):
        """Game ``game`` is over: free what the player kept for it."""

    def select_move(self, board, rng=None, game=0):
        """The move for one position (``rng``: the game's generator; default
        a fresh one)."""
        self.check_size(board.size)
        rng = self.game_rng(None) if rng is None else rng
        turn = Turn(game, board, board.sensible_moves(), rng, self)
        move = int(self.choose([turn]).moves[0])
        while move == THINKING:  # a step-wise search: step it to its end
            move = int(self.choose([turn]).moves[0])
        return move

    def analyst(self, board, rng, limit):
        """What the player thinks of ``board`` (the position with the side
        to analyse for to move), following game 0, as an analyst
        (:mod:`mockgo.play.analysts`: candidate moves, grown a slice at a
        time for a search); None for a player that cannot say (the
        default: an external engine, or a kind that does not report).
        ``rng``: the game's generator, for a tree started here; ``limit``:
        the visits at which a growing tree stops. The GTP engine's live
        analysis and the board widget ask this; a new kind of player gives
        analysis by answering it."""
        return None

    def close(self):
        """Free what the player holds (an engine process, say)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __repr__(self):
        return f"<{type(self).__name__} {self.name}>"


def passes_now(turns):
    """For each turn, whether its player answers the opponent's pass with a
    pass now (:func:`mockgo.go.ownership.should_pass`, for players with
    ``answer_passes``)."""
    return np.array([bool(getattr(t.player, "answer_passes", False)) and t.board.passes > 0
                     and should_pass(t.board) for t in turns], bool)
