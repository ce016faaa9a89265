"""External GTP engines as players: :class:`GTPPlayer` runs any GTP program
(through :class:`mockgo.play.gtp_engine.GTPEngine`) one position at a time,
keeping the engine's board in step with the game's; :func:`gnugo_player`
is GnuGo with mockgo's rules (specs ``gnugo:level=1``, ``gtp:cmd=...``)."""

import shlex
import subprocess
import warnings

import numpy as np

from mockgo.go import coords
from mockgo.go.board import BLACK, COLOR_NAMES, EMPTY, WHITE
from mockgo.play.gtp_engine import GTPEngine, GTPEngineDied, GTPError, find_gnugo, gnugo_command
from mockgo.play.player import RESIGN, Choices, Forfeit, Player

__all__ = ["GTPPlayer", "gnugo_player"]


class GTPPlayer(Player):
    """An external GTP engine as a player, one position at a time.

    The engine's board is kept in step with the game's: before each
    ``genmove``, the moves it has not seen yet are sent with ``play``. If
    the board is not a continuation of what the engine saw (a new game, an
    undo, another size or komi, a loaded position), the engine is set up
    again: ``boardsize``, ``clear_board``, ``komi``, the set-up stones
    (``set_free_handicap``; white set-up stones, which GTP cannot express,
    are sent as ``play`` moves), then every move. The engine's ``resign``
    becomes :data:`RESIGN` and ``pass`` ``board.pass_index``. Engines that
    know ``set_random_seed`` (GnuGo) get one from each game's generator.

    An engine that crashes (GnuGo 3.8 does, rarely, with a segmentation
    fault) is started again, set up with the game and a new seed, and asked
    again: once a move, with a warning; ``restarts`` counts them. If it
    crashes again on the same move, the game is lost by forfeit
    (:class:`~mockgo.play.player.Forfeit`) and the next game starts it anew.

    ``command``: the engine's command line, a list or a string (split as a
    shell would). ``name``: default ``"<engine name> <version>"`` as the
    engine reports them.
    """

    one_at_a_time = True

    def __init__(self, command, name=None, stderr=None):
        if isinstance(command, str):
            command = shlex.split(command)
        self._stderr = subprocess.DEVNULL if stderr is None else stderr
        self.engine = GTPEngine(command, stderr=self._stderr)
        if name is None:
            engine_name = self.engine.send("name")
            try:
                version = self.engine.send("version")
            except Exception:  # version is optional in practice
                version = ""
            name = f"{engine_name} {version}".strip()
        self.name = name
        self._size = self._komi = None
        self._setup = None  # (black points, white points) the engine was given
        self._sent = []  # (color, move) the engine has played, in order
        self._knows_seed = None
        self._rng = None  # the game's generator: a restarted engine's seed
        self._died = None  # the GTPEngineDied it died with, not started again since
        self.restarts = 0

    def start_game(self, game, board, rng):
        self._rng = rng
        # It crashed in the last game (and forfeited), or after its last move.
        if self._died is not None or self.engine.process.poll() is not None:
            self._restart()
        try:
            if self._knows_seed is None:
                try:
                    self._knows_seed = self.engine.send("known_command set_random_seed") == "true"
                except GTPError:
                    self._knows_seed = False
            self._send_seed()
            self._new_game(board.size, board.komi, *_setup_stones(board))
        except GTPEngineDied as died:
            self._died = died  # its first genmove starts it again (or forfeits)

    def _send_seed(self):
        if self._knows_seed:
            self.engine.send(f"set_random_seed {int(self._rng.integers(2**31))}")

    def _new_game(self, size, komi, black, white):
        commands = [f"boardsize {size}", "clear_board", f"komi {komi:g}"]
        if black:
            commands.append("set_free_handicap " +
                            " ".join(coords.to_gtp(p, size) for p in black))
        commands += [f"play white {coords.to_gtp(p, size)}" for p in white]
        self._send_all(commands)
        self._size, self._komi = size, komi
        self._setup = (tuple(black), tuple(white))
        self._sent = []

    def _send_all(self, commands):
        for answer in self.engine.send_many(commands):
            if isinstance(answer, GTPError):
                raise answer

    def _sync(self, board):
        """Bring the engine to the board's position."""
        history = [(int(c), int(m)) for c, m in board.history]
        setup = _setup_stones(board)
        same_setup = setup == self._setup or (
            # set-up stones captured in the moves the engine has seen
            self._setup is not None and self._sent
            and set(setup[0]) <= set(self._setup[0]) and set(setup[1]) <= set(self._setup[1]))
        same_game = (board.size == self._size and board.komi == self._komi and same_setup
                     and history[:len(self._sent)] == self._sent)
        if not same_game:
            self._new_game(board.size, board.komi, *setup)
        new = history[len(self._sent):]
        if new:
            self._send_all([f"play {COLOR_NAMES[c]} {coords.to_gtp(m, board.size)}"
                            for c, m in new])
            self._sent += new

    def _genmove(self, board):
        color = board.to_play
        command = f"genmove {COLOR_NAMES[color]}"
        try:
            if self._died is not None:
                raise self._died
            self._sync(board)
            answer = self.engine.send(command)
        except GTPEngineDied as died:
            answer = self._again_after_crash(board, command, died)
        answer = answer.strip().lower()
        if answer == "resign":
            return RESIGN
        move = coords.from_gtp(answer, board.size)
        self._sent.append((color, move))  # the engine has played it on its board
        return move

    def _restart(self):
        self.engine.close()
        self.engine = GTPEngine(self.engine.command, name=self.engine.name, stderr=self._stderr)
        self._died, self._size = None, None  # the next _sync sets the game up from the start

    def _again_after_crash(self, board, command, died):
        # A crash is a bug of the engine's, in one position, not the end of
        # a match of hours: a fresh process, given the game and another seed
        # (GnuGo reseeds each move from its seed, so the same one could crash
        # the same way), usually answers.
        move = board.move_number + 1
        warnings.warn(f"{died}: starting it again at move {move}", RuntimeWarning)
        self.restarts += 1
        self._restart()
        try:
            self._send_seed()
            self._sync(board)
            return self.engine.send(command)
        except GTPEngineDied as again:
            self._died = again  # the next game starts it again
            # The game's record keeps this: the engine's name, not its path.
            raise Forfeit(f"{self.name} {died.status} at move {move}, and {again.status} "
                          f"again when started anew") from again

    def choose(self, turns):
        moves = np.array([self._genmove(turn.board) for turn in turns], np.int64)
        return Choices(moves, np.zeros(len(turns)))

    def close(self):
        self.engine.close()


def _setup_stones(board):
    """The set-up stones of the game on ``board``: stones no move put
    there. (Set-up stones captured since are not found: the engine is then
    set up anew from what is left, which is what matters for its next move
    in all but superko corner cases.)"""
    setup = (board.stones != EMPTY) & (board.played_at < 0)
    black = tuple(int(p) for p in np.flatnonzero(setup & (board.stones == BLACK)))
    white = tuple(int(p) for p in np.flatnonzero(setup & (board.stones == WHITE)))
    return black, white


def gnugo_player(level=10, seed=None, binary=None, name=None):
    """GnuGo as a player: Chinese rules and positional superko, like mockgo.
    ``seed``: its start-up seed (each game then gets one from its generator)."""

    binary = binary or find_gnugo()
    if binary is None:
        raise RuntimeError("GnuGo is not installed (apt-get install gnugo), or pass binary=PATH")
    level = int(level)
    seed = 0 if seed is None else int(seed)
    return GTPPlayer(gnugo_command(level=level, seed=seed, binary=binary),
                     name=name or f"gnugo-l{level}")
