"""A player built the first time it must choose a move.

Loading a network means importing TensorFlow (or another Keras backend):
seconds, and a screenful of the runtime's start-up lines on stderr. A GTP
controller asks ``name`` and ``version`` the moment it starts the engine and
should not wait for that. So a player spec with a network is first made into
a :class:`PlayerPlan` (:func:`mockgo.play.specs.plan_player`: every option
checked, the network files found, nothing imported), and a
:class:`LazyPlayer` answers from the plan until its first move, when it
builds the player; a failure then is a :class:`PlayerLoadError` naming the
cause.
"""

import contextlib
import dataclasses

from mockgo.play.analysts import first_look
from mockgo.play.player import Player

__all__ = ["LazyPlayer", "PlayerLoadError", "PlayerPlan"]


@dataclasses.dataclass
class PlayerPlan:
    """A player checked but not built (module docstring): ``build()`` makes
    it (loading its networks); ``name``, ``size`` (None: any, or not
    recorded), ``seed`` and ``seconds`` (a search's time a move, or None)
    are what the player will have."""

    build: object  # () -> Player
    name: str
    size: int = None
    seed: int = None
    seconds: float = None


class PlayerLoadError(RuntimeError):
    """A :class:`LazyPlayer` could not build its player: the message names
    the player and the cause."""


class LazyPlayer(Player):
    """A player built the first time it must choose a move, from a
    :class:`PlayerPlan`: until then ``name``, ``size``, ``seed`` and
    ``seconds`` come from the plan, and the games it is told of are
    remembered, to be started in the player once it is built (a search
    player then starts its tree at the position it is asked about).

    ``loading``: a function returning the context manager the build and
    the first move run in (the GTP engine's keeps TensorFlow's native
    start-up lines, printed at the first network operation, off stderr);
    None for none. A failed build raises :class:`PlayerLoadError`, this time
    and every later time (the cause is not tried again: an import that
    failed would take as long to fail again).
    """

    def __init__(self, plan, loading=None):
        self.plan = plan
        self.name, self.size, self.seed = plan.name, plan.size, plan.seed
        self._seconds = plan.seconds
        self.loading = loading
        self.player = None  # the player, once built
        self.failure = None  # the PlayerLoadError of a failed build
        self._games = {}  # game -> (board, rng) of games started before the build

    @property
    def loaded(self):
        return self.player is not None

    @property
    def seconds(self):
        return self._seconds if self.player is None else getattr(self.player, "seconds", None)

    @seconds.setter
    def seconds(self, value):  # the GTP engine lends a search a clock's budget
        self._seconds = value
        if self.player is not None:
            self.player.seconds = value

    def _load(self):
        """Build the player (once); PlayerLoadError if it cannot be."""
        if self.failure is not None:
            raise self.failure
        try:
            player = self.plan.build()
        except Exception as error:  # a damaged file, TensorFlow missing, out of memory...
            cause = str(error).replace("\n", " ") or type(error).__name__
            self.failure = PlayerLoadError(f"cannot load {self.name}: {cause}")
            raise self.failure from error
        if self._seconds is not None:
            player.seconds = self._seconds
        for game, (board, rng) in self._games.items():
            player.start_game(game, board, rng)
        self._games.clear()
        self.player = player

    def _first(self, call):
        """``call()`` (the first move), with the player built first, both in
        the ``loading`` context."""
        with self.loading() if self.loading is not None else contextlib.nullcontext():
            self._load()
            return call()

    def built(self, first=None):
        """The player itself, built now if it was not yet (in the
        ``loading`` context, as at a first move; PlayerLoadError if it
        cannot be). ``first(player)``: what the built player does first
        (its first network call), in that context too; its result is
        returned instead of the player (not called when the player was
        built before)."""
        if self.player is None:
            if first is None:
                self._first(lambda: None)
            else:
                return self._first(lambda: first(self.player))
        return self.player

    def analyst(self, board, rng, limit):
        """The built player's analyst (:meth:`Player.analyst`); a player not
        built yet is built now, in its loading context, with its first
        network call (:func:`~mockgo.play.analysts.first_look`);
        PlayerLoadError if it cannot be."""
        if self.player is not None:
            return self.player.analyst(board, rng, limit)
        return self.built(lambda built: first_look(built.analyst(board, rng, limit)))

    def check_size(self, size):
        if self.player is not None:
            return self.player.check_size(size)
        return super().check_size(size)

    def game_rng(self, seed):
        return super().game_rng(seed) if self.player is None else self.player.game_rng(seed)

    def start_game(self, game, board, rng):
        if self.player is None:
            self._games[game] = (board, rng)
        else:
            self.player.start_game(game, board, rng)

    def choose(self, turns):
        if self.player is None:
            return self._first(lambda: self.player.choose(turns))
        return self.player.choose(turns)

    def select_move(self, board, rng=None, game=0):
        if self.player is None:
            return self._first(lambda: self.player.select_move(board, rng=rng, game=game))
        return self.player.select_move(board, rng=rng, game=game)

    def observe(self, game, board, move):
        if self.player is not None:
            self.player.observe(game, board, move)

    def end_game(self, game):
        self._games.pop(game, None)
        if self.player is not None:
            self.player.end_game(game)

    def close(self):
        if self.player is not None:
            self.player.close()
