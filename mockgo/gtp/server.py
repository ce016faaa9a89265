"""mockgo as a GTP engine, for Sabaki, GoGui, gogui-twogtp and other controllers.

::

    python -m mockgo.gtp --player random
    mockgo gtp --player policy --model models/sl.keras --temperature 0.2

speaks GTP version 2 on standard input and output; logs go to standard
error. The player is any :mod:`mockgo.play.specs` spec (``random:seed=3``,
``policy:path=...``, even ``gnugo:level=1``, which makes mockgo a relay).

Commands: protocol_version, name, version, known_command, list_commands,
quit, boardsize, clear_board, komi, play, genmove, undo, showboard,
final_score, final_status_list, fixed_handicap, place_free_handicap,
set_free_handicap, loadsgf, time_settings, time_left, kgs-genmove_cleanup;
and live analysis for Sabaki and Lizzie (:mod:`mockgo.gtp.analysis`):
lz-analyze, kata-analyze, genmove_analyze, lz-genmove_analyze,
kata-genmove_analyze.

Start-up: a controller asks ``name``, ``version``, ``list_commands``... the
moment it starts the engine, and the engine answers at once. A player with
a network (``policy``, ``alphago``, ``mcts`` with a network) is checked at
start (its options, its network files: a mistyped spec ends the engine with
one line on stderr), and built at the first command that needs it,
``genmove``, ``kgs-genmove_cleanup`` or an analysis command: only then is
TensorFlow imported (:class:`~mockgo.play.lazy_player.LazyPlayer`). Everything else needs only the
board. A network that fails to load then is the answer
``? cannot load NAME: the cause``, to that genmove and every later one; the
engine goes on. Standard error carries mockgo's own lines only: the command
line sets ``TF_CPP_MIN_LOG_LEVEL=2`` (unless set) and drops TensorFlow's
native start-up lines (:mod:`mockgo.native_log`) printed while the network
loads and makes its first move. The first move's time, load included, is
charged to the clock of ``time_settings``, as the controller's is.

Protocol details, as the GTP 2 specification has them:

- Input lines end at LF only. They are cleaned first: control characters
  other than HT and LF are removed (so CR LF line ends work, and a lone CR
  ends nothing: ``na\\rme`` is ``name``), HT becomes a space, everything
  from ``#`` to the end of the line is a comment, and empty lines are
  ignored. Words are separated by spaces (other Unicode spaces are not
  separators).
- A command may start with a numeric id, which the answer repeats:
  ``=id text`` or ``?id message``, then an empty line.
- Numbers, ids and vertices are ASCII: ``[0-9]+`` for ids and integers
  (0 to 2**31 - 1), an optional sign, digits and one decimal point for a
  float, a letter and digits for a vertex. Python's int() and float() would
  also take "1_9", other scripts' digits ("١٩", and "²" to str.isdigit())
  or "nan"; those are syntax errors here.
- Errors are answers, never the end of the engine: ``? unknown command``,
  ``? syntax error`` (a bad colour, vertex or number), ``? illegal move``
  (an occupied point, suicide, ko, superko, or a vertex off the board),
  ``? unacceptable size`` (sizes 2 to 25, and only the size a policy
  network was trained for), ``? board not empty``, ``? cannot undo``,
  ``? cannot load file`` (also for a FIFO, a device or a file over 4 MiB:
  see :func:`~mockgo.data.sgf_reader.load_sgf`)... An unexpected exception
  is logged with its traceback and answered ``? internal error: ...``.

The rules are mockgo's :class:`~mockgo.go.board.Board` with positional superko:
captures, no suicide, area scoring with komi.

Scoring (``final_score``, ``final_status_list``)
------------------------------------------------
Dead stones are estimated by Monte Carlo ownership
(:func:`mockgo.go.ownership.estimate_dead`, the method of simple playout
engines): from the current position, ``playouts`` (default 64) random games
are played to the end, and a group is dead when its points end up its own
colour's in fewer than half of them. The score is then the Tromp-Taylor area
score with those stones removed, minus komi. It is honest about what it is:
stones that would die if both sides played at random. Groups with two eyes,
and stones in an opponent's area that cannot live, are judged right; a seki
usually breaks in random play and one side is called dead;
``final_status_list seki`` is always empty. The playouts use a fixed seed,
so the same position always gets the same answer.

``kgs-genmove_cleanup`` is ``genmove``, except that it never passes or
resigns while the player has a sensible move: if the player wants to pass,
a sensible move is chosen at random instead (for KGS's cleanup phase, where
dead stones must be captured before the game is scored).
``time_settings`` starts a clock for each colour (GTP's Canadian
byo-yomi: main time, then periods of so many seconds for so many stones,
:class:`GameClock`), which the engine runs itself from the time its moves
take; ``time_left`` sets it. A player with a time budget a move
(``seconds=`` in its spec: ``uct``, ``mcts``, ``alphago``) keeps to the
clock: each move gets at most :meth:`GameClock.budget`'s share of the time
left. Other players play as they would without a clock (with a warning when
the clock is set).
"""

import functools
import logging
import time
import traceback

import numpy as np

import mockgo
from mockgo.data.sgf_reader import SGFError, load_sgf
from mockgo.go import coords
from mockgo.go.board import (BLACK, COLOR_NAMES, EMPTY, ILLEGAL_REASONS, MAX_SIZE, WHITE, Board,
                             IllegalMove, check_komi, color_from_name)
from mockgo.go.handicap import fixed_handicap_points
from mockgo.go.ownership import estimate_dead
from mockgo.gtp import analysis
from mockgo.gtp.clock import GameClock
from mockgo.gtp.protocol import (DIGITS, FLOAT, MAX_INT, MIN_SIZE, PROTOCOL_VERSION, STREAMED,
                                 GTPFailure, preprocess, words_of)
from mockgo.play.lazy_player import PlayerLoadError
from mockgo.play.player import RESIGN

log = logging.getLogger("mockgo.gtp")


# -------------------------------------------------------------- dead stones


def groups_of(board, points):
    """The points grouped by the board's groups (each group's points sorted)."""
    by_head = {}
    for p in points:
        by_head.setdefault(int(board.group[p]), []).append(int(p))
    return [sorted(group) for _, group in sorted(by_head.items(), key=lambda kv: min(kv[1]))]


def free_handicap_points(size, stones):
    """Where ``place_free_handicap`` puts ``stones`` black stones: the fixed
    handicap points as far as they go, then, one at a time, the point off the
    first line farthest from every stone placed (ties to the lowest index)."""
    fixed_max = (9 if size % 2 == 1 and size >= 9 else 4) if size >= 7 else 0
    take = min(stones, fixed_max)
    chosen = list(fixed_handicap_points(size, take)) if take >= 2 else []
    inner = [r * size + c for r in range(size) for c in range(size)
             if size < 5 or (0 < r < size - 1 and 0 < c < size - 1)]
    while len(chosen) < stones:
        free = [p for p in inner if p not in chosen] or \
               [p for p in range(size * size) if p not in chosen]
        chosen.append(max(free, key=lambda p: (_spread(p, chosen, size), -p)))
    return chosen


def _spread(p, chosen, size):
    """How far ``p`` is from the nearest chosen point (king's moves, then
    steps); with none chosen, closeness to the centre."""
    row, col = divmod(p, size)
    if not chosen:
        return -abs(row - size // 2) - abs(col - size // 2)
    distances = []
    for q in chosen:
        dr, dc = abs(row - q // size), abs(col - q % size)
        distances.append(max(dr, dc) + 0.001 * (dr + dc))
    return min(distances)


# ---------------------------------------------------------------- the engine


class GTPServer:
    """The engine: a board, a player, and the GTP commands.

    :meth:`handle` takes one raw input line and returns the full answer
    (``"=1 D4\\n\\n"``), or None for a line to ignore; :meth:`run` serves a
    stream until ``quit`` or the end of input.

    The commands are :data:`STANDARD_COMMANDS`, a table of name ->
    ``function(server, args)`` returning the answer's text (or raising
    :class:`~mockgo.gtp.protocol.GTPFailure`). More commands come in the
    same form through ``commands``: a module of their own defines the
    functions and a table of them, and passes it here; ``list_commands``
    and ``known_command`` then include them.
    """

    def __init__(self, player, size=None, komi=7.5, playouts=64, seed=0, name="mockgo",
                 timer=time.perf_counter, commands=None, ponder_visits=analysis.PONDER_VISITS,
                 version=None):
        self.player = player
        self.engine_name = name
        # What ``version`` answers; None: mockgo's own version and the player.
        # A controller that reads the answer as Leela Zero's (Lizzie, which
        # stops at a dialog below 0.15) is given one it accepts instead.
        self.version = version
        self.playouts = playouts
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.games = 0  # games started, for their seeds
        self.time_settings = None  # (main time, byo-yomi time, byo-yomi stones)
        self.clocks = {}  # colour: GameClock, once time_settings or time_left came
        self.timer = timer  # runs the clocks and the analysis intervals (a test's own)
        self.quitting = False
        self._dead_cache = None
        # Live analysis (mockgo.gtp.analysis): where its lines go as they
        # come (set by run(); None: into the answer), the input it watches
        # for the next command, the visits at which pondering stops; the
        # command's id and what of its answer went out.
        self.out, self.input, self.ponder_visits = None, None, ponder_visits
        self.ident, self._streamed = "", []
        # name -> the command bound to this engine (the standard table, then
        # the extensions' commands, which may replace a standard one).
        self.commands = {name: functools.partial(command, self)
                         for name, command in {**STANDARD_COMMANDS, **(commands or {})}.items()}
        if size is None:
            size = getattr(player, "size", None) or 19
        self.komi = check_komi(komi)
        self._new_game(size)

    # ---------------------------------------------------------- the game

    def _new_game(self, size, start=None):
        """An empty board of ``size`` (or the position ``start``), and the
        player told. Raises GTPFailure('unacceptable size') if it cannot."""
        try:
            self.player.check_size(size)
        except ValueError as error:
            log.warning("%s", error)
            raise GTPFailure("unacceptable size") from None
        self.size = size
        self.start = start if start is not None else Board(size, komi=self.komi, superko=True)
        self.moves = []  # (colour, move) played since the start position
        self.board = self.start.copy()
        self._start_clocks()  # a new game starts with the whole main time
        # Each game its own generator, from the engine's seed and the game's number.
        self.games += 1
        self.game_rng = self.player.game_rng([self.seed, self.games])
        self.player.start_game(0, self.board, self.game_rng)

    def _play(self, color, move):
        self.board.play(move, color)
        self.moves.append((color, move))
        self.player.observe(0, self.board, move)

    def _is_empty(self):
        return not self.moves and not (self.start.stones != EMPTY).any()

    def _set_komi(self, komi):
        self.komi = komi
        self.start.komi = komi
        self.board.komi = komi

    # ------------------------------------------------------------ parsing

    def _int(self, text, low=None):
        """A GTP int: ASCII digits, 0 to MAX_INT (at least ``low``)."""
        if not DIGITS.fullmatch(text):
            raise GTPFailure("syntax error")
        digits = text.lstrip("0") or "0"
        # No int() of 5,000 digits: it raises a ValueError of its own.
        value = int(digits) if len(digits) <= 10 else MAX_INT + 1
        if value > MAX_INT or (low is not None and value < low):
            raise GTPFailure("syntax error")
        return value

    def _float(self, text):
        """A GTP float: an optional sign, ASCII digits, one decimal point."""
        if not FLOAT.fullmatch(text):
            raise GTPFailure("syntax error")
        value = float(text)
        if not np.isfinite(value):  # 400 digits are inf
            raise GTPFailure("syntax error")
        return value

    def _color(self, text):
        # ASCII first: "blac\u212a" (a Kelvin sign) lowercases to "black".
        if not text.isascii():
            raise GTPFailure("syntax error")
        try:
            return color_from_name(text)
        except ValueError:
            raise GTPFailure("syntax error") from None

    def _vertex(self, text):
        """A flat move; a well-formed vertex off the board is an illegal move."""
        if not text.isascii():  # "ſ1".upper() is "S1"
            raise GTPFailure("syntax error")
        word = text.upper()
        if word == "PASS":
            return self.board.pass_index
        if len(word) < 2 or word[0] not in coords.GTP_COLUMNS or not DIGITS.fullmatch(word[1:]):
            raise GTPFailure("syntax error")
        digits = word[1:].lstrip("0") or "0"
        col, row = coords.GTP_COLUMNS.index(word[0]), int(digits) if len(digits) <= 3 else 0
        if col >= self.size or not 1 <= row <= self.size:
            raise GTPFailure("illegal move")
        return (self.size - row) * self.size + col

    def _args(self, args, count, at_least=False):
        if len(args) < count or (not at_least and len(args) != count):
            raise GTPFailure("syntax error")

    # -------------------------------------------------------- the commands

    def cmd_protocol_version(self, args):
        return PROTOCOL_VERSION

    def cmd_name(self, args):
        return self.engine_name

    def cmd_version(self, args):
        if self.version is not None:
            return self.version
        return f"{mockgo.__version__} ({self.player.name})"

    def cmd_known_command(self, args):
        self._args(args, 1)
        return "true" if args[0] in self.commands else "false"

    def cmd_list_commands(self, args):
        return "\n".join(self.commands)

    def cmd_quit(self, args):
        self.quitting = True
        return ""

    def cmd_boardsize(self, args):
        self._args(args, 1)
        size = self._int(args[0])
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise GTPFailure("unacceptable size")
        self._new_game(size)
        return ""

    def cmd_clear_board(self, args):
        self._new_game(self.size)
        return ""

    def cmd_komi(self, args):
        self._args(args, 1)
        try:
            komi = check_komi(self._float(args[0]))
        except ValueError as error:  # finite, but no komi: 1e20 would print as W+1e+20
            log.warning("%s", error)
            raise GTPFailure("syntax error") from None
        self._set_komi(komi)
        return ""

    def cmd_play(self, args):
        self._args(args, 2)
        color, move = self._color(args[0]), self._vertex(args[1])
        try:
            self._play(color, move)
        except IllegalMove as error:
            log.info("%s", error)
            raise GTPFailure("illegal move") from None
        return ""

    def view(self, color):
        """The board with ``color`` to move (a copy if that is not the board's)."""
        view = self.board
        if color != view.to_play:
            view = view.copy()
            view.to_play, view.ko = color, -1
        return view

    def _genmove(self, args, cleanup=False):
        self._args(args, 1)
        return self.generate(self._color(args[0]), cleanup)

    def generate(self, color, cleanup=False, request=None, dialect="lz"):
        """genmove's move for ``color``, played; with an analysis
        ``request`` (:mod:`mockgo.gtp.analysis`), its lines streamed while
        the player thinks."""
        view = self.view(color)
        if request is None:
            move = self._select_move(view, color)
        else:
            analyst = analysis.engine_analyst(self, view)
            self.stream(f"={self.ident}\n")
            with analysis.printing(analyst, request, self.size, self.stream, dialect,
                                   clock=self.timer) as printer:
                move = self._select_move(view, color)
            line = printer.last_line()  # before the move: the tree is still at the position
            if line:
                self.stream(line + "\n")
        if move != RESIGN and not self.board.is_legal(move, color):
            log.error("%s chose an illegal move, %s; passing instead", self.player.name,
                      coords.to_gtp(move, self.size))
            move = self.board.pass_index
        if cleanup and move in (RESIGN, self.board.pass_index):
            points = np.flatnonzero(view.sensible_moves()[:-1])
            if len(points):
                move = int(self.rng.choice(points))
        if move == RESIGN:
            return "resign"
        self._play(color, move)
        return coords.to_gtp(move, self.size)

    def _start_clocks(self):
        """Each colour's clock at the whole main time of ``time_settings``;
        none without them (a clock that only a ``time_left`` set has no main
        time to go back to: it waits for the next)."""
        self.clocks = ({c: GameClock(self.time_settings) for c in (BLACK, WHITE)}
                       if self.time_settings is not None else {})

    def _select_move(self, view, color):
        """The player's move, within the clock's budget if it thinks for a
        set time (:meth:`GameClock.budget`); the clock is charged the time
        it took."""
        clock = self.clocks.get(color)
        seconds = getattr(self.player, "seconds", None)
        budget = None if clock is None else clock.budget(len(self.moves), self.size * self.size)
        lend = seconds is not None and budget is not None and budget < seconds
        started = None if clock is None else self.timer()
        if lend:
            self.player.seconds = budget
        try:
            return self.player.select_move(view, rng=self.game_rng)
        except PlayerLoadError as error:  # a network that would not load: an answer, not a crash
            log.error("%s", error)
            raise GTPFailure(str(error)) from None
        finally:
            if lend:
                self.player.seconds = seconds
            if clock is not None:
                clock.spend(self.timer() - started)

    def cmd_genmove(self, args):
        return self._genmove(args)

    def cmd_kgs_genmove_cleanup(self, args):
        return self._genmove(args, cleanup=True)

    def cmd_undo(self, args):
        if not self.moves:
            raise GTPFailure("cannot undo")
        # Board has no undo: replay the game from its start, less the last move.
        moves = self.moves[:-1]
        self.board = self.start.copy()
        self.moves = []
        for color, move in moves:
            self.board.play(move, color)
            self.moves.append((color, move))
        return ""

    def cmd_showboard(self, args):
        return "\n" + str(self.board)

    def _dead(self):
        key = (self.board.hash, self.board.to_play, len(self.moves), self.komi)
        if self._dead_cache is None or self._dead_cache[0] != key:
            self._dead_cache = (key, estimate_dead(self.board, self.playouts, self.seed))
        return self._dead_cache[1]

    def cmd_final_score(self, args):
        return self.board.result(dead=self._dead())

    def cmd_final_status_list(self, args):
        self._args(args, 1)
        status = args[0].lower() if args[0].isascii() else ""
        if status not in ("alive", "dead", "seki"):
            raise GTPFailure("syntax error")
        if status == "seki":
            return ""
        dead = set(self._dead())
        if status == "dead":
            points = sorted(dead)
        else:
            points = [p for p in np.flatnonzero(self.board.stones != EMPTY) if p not in dead]
        return "\n".join(" ".join(coords.to_gtp(p, self.size) for p in group)
                         for group in groups_of(self.board, points))

    def _handicap(self, points):
        start = Board(self.size, komi=self.komi, superko=True)
        start.setup(black=points)
        start.to_play = WHITE
        self._new_game(self.size, start)
        return " ".join(coords.to_gtp(p, self.size) for p in points)

    def cmd_fixed_handicap(self, args):
        self._args(args, 1)
        stones = self._int(args[0])
        if not self._is_empty():
            raise GTPFailure("board not empty")
        try:
            points = fixed_handicap_points(self.size, stones)
        except ValueError:
            raise GTPFailure("invalid number of stones") from None
        return self._handicap(points)

    def cmd_place_free_handicap(self, args):
        self._args(args, 1)
        stones = self._int(args[0])
        if not self._is_empty():
            raise GTPFailure("board not empty")
        if not 2 <= stones < self.size * self.size:
            raise GTPFailure("invalid number of stones")
        return self._handicap(free_handicap_points(self.size, stones))

    def cmd_set_free_handicap(self, args):
        self._args(args, 2, at_least=True)
        try:
            points = [self._vertex(word) for word in args]
        except GTPFailure as failure:
            if str(failure) == "illegal move":  # a vertex off the board
                raise GTPFailure("bad vertex list") from None
            raise
        if not self._is_empty():
            raise GTPFailure("board not empty")
        if self.board.pass_index in points or len(set(points)) != len(points) \
                or len(points) >= self.size * self.size:
            raise GTPFailure("bad vertex list")
        self._handicap(points)
        return ""

    def cmd_loadsgf(self, args):
        if not 1 <= len(args) <= 2:
            raise GTPFailure("syntax error")
        limit = self._int(args[1], low=1) if len(args) == 2 else None
        try:
            record = load_sgf(args[0])
        except (OSError, SGFError) as error:
            log.warning("loadsgf: %s", error)
            raise GTPFailure("cannot load file") from None
        if record.size > coords.MAX_GTP_SIZE:
            raise GTPFailure("cannot load file")
        # The position before move number `limit` (moves count from 1).
        moves = record.moves if limit is None else record.moves[:limit - 1]
        old_komi = self.komi
        self.komi = record.komi
        try:
            self._new_game(record.size, record.board(superko=True))
        except GTPFailure:
            self.komi = old_komi
            raise
        for number, (color, move) in enumerate(moves, start=1):
            try:
                self._play(color, move)
            except IllegalMove as error:
                log.warning("loadsgf: stopped before move %d: %s", number, error)
                # Say so: a bare "= black" would pass the part before the
                # illegal move for the whole game. The colour to play stays
                # the first word, as GnuGo answers and controllers read it.
                vertex = coords.to_gtp(move, self.size)
                return (f"{COLOR_NAMES[self.board.to_play]}; loaded {number - 1} of {len(moves)} "
                        f"moves: move {number} ({'B' if color == BLACK else 'W'} {vertex}) is "
                        f"illegal: {ILLEGAL_REASONS[error.reason]}")
        return COLOR_NAMES[self.board.to_play]

    def cmd_time_settings(self, args):
        self._args(args, 3)
        self.time_settings = tuple(self._int(a, low=0) for a in args)
        self._start_clocks()
        if getattr(self.player, "seconds", None) is None and not self.clocks[BLACK].unlimited:
            log.warning("%s thinks for a set number of readouts or playouts, not a time: it "
                        "takes no notice of the clock (give its spec seconds=)", self.player.name)
        return ""

    def cmd_time_left(self, args):
        self._args(args, 3)
        color = self._color(args[0])
        seconds, stones = self._int(args[1], low=0), self._int(args[2], low=0)
        if color not in self.clocks:  # no time_settings: main time, or a period, as it says
            self.clocks[color] = GameClock((seconds, 0, 0) if stones == 0 else (0, seconds, stones))
        self.clocks[color].set(seconds, stones)
        return ""

    # ---------------------------------------------------------- the protocol

    def stream(self, text):
        """Part of an answer given out now (an analysis's lines)."""
        self._streamed.append(text)
        if self.out is None:
            return
        self.out.write(text)
        self.out.flush()

    def _rest_of_stream(self):
        """What a streamed answer has not given out yet: all of it without run()."""
        return "".join(self._streamed) if self.out is None else ""

    def input_waiting(self, timeout):
        """Whether the next command is there (waiting up to ``timeout`` s).
        Without run()'s input (:meth:`handle` alone) none ever comes: an
        analysis grows its tree to ``ponder_visits`` and stops there."""
        return timeout is None if self.input is None else self.input.waiting(timeout)

    def handle(self, raw_line):
        """The answer to one raw input line (None: the line is ignored)."""
        line = preprocess(raw_line)
        if not line:
            return None
        words = words_of(line)
        ident = ""
        if DIGITS.fullmatch(words[0]):
            ident = words.pop(0)
        if not words:
            return f"?{ident} syntax error\n\n"
        name, args = words[0], words[1:]
        handler = self.commands.get(name)
        if handler is None:
            log.info("unknown command %r", name)
            return f"?{ident} unknown command\n\n"
        self.ident, self._streamed = ident, []
        try:
            text = handler(args)
            if text is STREAMED:  # the lines went out: the empty line ends the answer
                return self._rest_of_stream() + "\n"
        except GTPFailure as failure:
            if self._streamed:  # too late for "?": the "=" is out; the log says why
                log.error("%s: %s", line, failure)
                return self._rest_of_stream() + "\n"
            return f"?{ident} {failure}\n\n"
        except Exception as error:  # a bug must not end the engine
            log.error("%s failed:\n%s", line, traceback.format_exc())
            if self._streamed:
                return self._rest_of_stream() + "\n"
            message = str(error).replace("\n", " ") or type(error).__name__
            return f"?{ident} internal error: {message}\n\n"
        return f"={ident} {text}\n\n" if text else f"={ident}\n\n"

    def run(self, stdin, stdout):
        """Serve commands from ``stdin`` until ``quit`` or end of input.
        A thread reads ``stdin`` (:class:`~mockgo.gtp.analysis.InputLines`):
        an analysis goes on until the next command is there."""
        self.out, self.input = stdout, analysis.InputLines(stdin)
        while not self.quitting:
            line = self.input.get()
            if not line:
                break
            log.debug("<< %s", line.rstrip("\n"))
            answer = self.handle(line)
            if answer is None:
                continue
            log.debug(">> %s", answer.rstrip("\n"))
            try:
                stdout.write(answer)
                stdout.flush()
            except BrokenPipeError:  # the controller has gone
                log.info("standard output closed; stopping")
                break


#: The standard commands: name -> function(server, args) -> the answer's text.
STANDARD_COMMANDS = {
    "protocol_version": GTPServer.cmd_protocol_version,
    "name": GTPServer.cmd_name,
    "version": GTPServer.cmd_version,
    "known_command": GTPServer.cmd_known_command,
    "list_commands": GTPServer.cmd_list_commands,
    "quit": GTPServer.cmd_quit,
    "boardsize": GTPServer.cmd_boardsize,
    "clear_board": GTPServer.cmd_clear_board,
    "komi": GTPServer.cmd_komi,
    "play": GTPServer.cmd_play,
    "genmove": GTPServer.cmd_genmove,
    "undo": GTPServer.cmd_undo,
    "showboard": GTPServer.cmd_showboard,
    "final_score": GTPServer.cmd_final_score,
    "final_status_list": GTPServer.cmd_final_status_list,
    "fixed_handicap": GTPServer.cmd_fixed_handicap,
    "place_free_handicap": GTPServer.cmd_place_free_handicap,
    "set_free_handicap": GTPServer.cmd_set_free_handicap,
    "loadsgf": GTPServer.cmd_loadsgf,
    "time_settings": GTPServer.cmd_time_settings,
    "time_left": GTPServer.cmd_time_left,
    "kgs-genmove_cleanup": GTPServer.cmd_kgs_genmove_cleanup,
    **analysis.COMMANDS,
}
