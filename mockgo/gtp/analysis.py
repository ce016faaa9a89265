"""Live analysis over GTP: what a player thinks of a position, as Sabaki,
Lizzie and other controllers draw it (a heatmap of the candidate moves, their
win rates, and the sequence the search expects after each).

Leela Zero's ``lz-analyze`` made the format; KataGo's ``kata-analyze`` is the
same with other units. The engine answers ``=`` (with the command's id) on a
line of its own, then, at every interval, ONE line listing the candidates::

    info move D4 visits 120 winrate 5123 prior 2301 lcb 4870 order 0 pv D4 Q16 C3 info move ...

and ends its answer with an empty line when the next command arrives. Per
candidate move: ``visits`` (the search's readouts through it), ``winrate``
(the mean result of those readouts for the side the analysis is for, the
side to move), ``prior`` (what the player's policy gave the move before any
search), ``lcb`` (a lower bound of the win rate,
:func:`mockgo.play.analysts.lower_bound`),
``order`` (0 for the best: most visits, then the higher win rate, as Leela
Zero sorts) and ``pv``, the principal variation: the move, then at each
level below it the most visited answer. In ``lz-`` lines win rate, prior and
bound are integers in 1/10000 (Leela Zero's, which Sabaki and Lizzie divide
by 100 to get a percentage); in ``kata-`` lines they are fractions of 1.
Moves without visits are left out, unless ``minmoves N`` asks for at least N
candidates (Leela Zero's rule).

Where the numbers come from: each player reports them itself
(:meth:`mockgo.play.player.Player.analyst`, an analyst of
:mod:`mockgo.play.analysts` made beside its kind; :func:`analyst_for` asks
it, and a player that reports none is a GTP failure naming it):

- the search players (``mcts`` with the uniform evaluator or a network,
  ``alphago``: :class:`mockgo.play.search_player.SearchPlayer`; ``uct``:
  :class:`~mockgo.play.search_player.UCTPlayer`): their own tree for the
  game, read live. ``lz-analyze`` grows it a slice at a time (one search
  step, ``parallel_readouts`` readouts; 16 playouts for UCT) and looks for
  the next command between slices, so the analysis stops within a slice of
  the command's arrival; the tree stays the player's, and its next
  ``genmove`` starts from what the analysis searched (Leela Zero's
  pondering). UCT has no policy: its prior is the uniform share of its
  candidate moves, which is how it treats moves it has not tried.
- the policy players (and the random player, whose policy is uniform over
  its sensible moves): the priors alone. There is no search, so there are no
  visits; but Sabaki scales its heatmap by ``visits * winrate`` and a line of
  zero visits would draw nothing (0 / 0). So a policy's ``visits`` are its
  prior scaled to :data:`~mockgo.play.analysts.POLICY_VISITS` (rounded; the
  moves that round to 0 are left out), about what a search that followed the
  prior alone would give them, and its ``winrate`` is 5000 (0.5): a policy
  has no opinion of who wins. One line is printed, since nothing changes
  while it waits.

``genmove_analyze`` (Sabaki's name; ``lz-genmove_analyze`` and
``kata-genmove_analyze`` too) is ``genmove`` with the same lines printed
while the player searches, the last one when the search is done, then
``play D4`` and the empty line. The move is the player's own, as ``genmove``
would play it (its readouts or its time, the clock). An MCTS search prints
between its steps (``SearchPlayer.after_step``), where no readout is in
flight; in the middle of a step the tree counts the step's virtual losses,
each a loss. UCT has no virtual loss: a thread reads its tree.

The tags (:func:`parse_analyze_args`): the colour, the interval (0: no
lines at all, as Leela Zero), ``minmoves``, ``maxmoves``; Leela Zero's
``avoid`` and ``allow`` are not supported (``? cannot parse analyze tags``).
A pondering tree stops growing at :data:`PONDER_VISITS` visits (the
engine's ``--ponder-visits``) and waits for the next command.

The engine reads standard input on a thread of its own (:class:`InputLines`),
so an analysis sees the next command arrive without blocking on it.
"""

import codecs
import collections
import dataclasses
import logging
import os
import threading
import time

from mockgo.go import coords
from mockgo.gtp.protocol import STREAMED, GTPFailure
from mockgo.play.lazy_player import PlayerLoadError

log = logging.getLogger("mockgo.gtp")

__all__ = ["AnalyzeRequest", "InputLines", "PONDER_VISITS", "COMMANDS", "analyst_for",
           "engine_analyst", "format_line", "parse_analyze_args", "ponder", "printing",
           "sorted_infos"]

#: lz-analyze stops growing a tree at this many visits at its root and waits
#: for the next command: a 19x19 tree takes about 44 KB a visit (measured:
#: mcts with the uniform evaluator, 4,000 visits from the empty board, the
#: process's peak memory grew 176 MB), so 10,000 visits are about 440 MB.
PONDER_VISITS = 10_000


def sorted_infos(infos, minmoves=0, maxmoves=None):
    """The candidates in Leela Zero's order (most visits first, then the
    higher win rate), those without visits only as far as ``minmoves`` asks
    (by prior), at most ``maxmoves`` of them."""
    visited = sorted((i for i in infos if i.visits > 0),
                     key=lambda i: (-i.visits, -i.winrate))
    rest = sorted((i for i in infos if i.visits <= 0), key=lambda i: -i.prior)
    chosen = visited + rest[:max(0, minmoves - len(visited))]
    return chosen if maxmoves is None else chosen[:maxmoves]


def format_line(infos, size, dialect="lz"):
    """The ``info move ...`` line of sorted candidates (module docstring);
    ``dialect``: ``"lz"`` (integers in 1/10000) or ``"kata"`` (fractions).
    An empty string for no candidates."""
    def number(x):
        return str(int(x * 10000)) if dialect == "lz" else f"{x:.6f}"

    parts = []
    for order, info in enumerate(infos):
        pv = " ".join(coords.to_gtp(m, size) for m in info.pv)
        parts.append(f"info move {coords.to_gtp(info.move, size)} visits {info.visits} "
                     f"winrate {number(info.winrate)} prior {number(info.prior)} "
                     f"lcb {number(info.lcb)} order {order} pv {pv}")
    return " ".join(parts)


# ------------------------------------------------------------ the requests


@dataclasses.dataclass
class AnalyzeRequest:
    """An analysis command's arguments: the ``color`` analysed for, the
    ``interval`` in centiseconds between lines (0: no lines), and at least
    ``minmoves`` / at most ``maxmoves`` candidates a line."""

    color: int
    interval: int = 0
    minmoves: int = 0
    maxmoves: int = None


def parse_analyze_args(words, to_play, color_of, int_of):
    """Leela Zero's analysis tags: ``[b|w|black|white] [interval]
    [interval N] [minmoves N] [maxmoves N]`` in any order (a bare number is
    the interval), as Sabaki (``lz-analyze B 50``) and Lizzie
    (``lz-analyze 10``) send them. ``color_of``/``int_of``: the engine's
    parsers of a colour and an int (raising on bad words). ValueError names
    the word it cannot take (``avoid`` and ``allow`` are not supported)."""
    request = AnalyzeRequest(to_play)
    words = list(words)
    while words:
        word = words.pop(0)
        key = word.lower()
        if word.isascii() and word.isdigit():
            request.interval = int_of(word)
        elif key in ("b", "w", "black", "white"):
            request.color = color_of(word)
        elif key in ("interval", "minmoves", "maxmoves") and words:
            value = int_of(words.pop(0))
            setattr(request, key, value)
        else:
            raise ValueError(f"cannot take the analysis tag {word!r}")
    return request


# ------------------------------------------------------------ the analysts


def analyst_for(player, board, rng, limit=PONDER_VISITS):
    """What analyses ``player`` on ``board`` (the position with the side to
    analyse for to move), following game 0: the analyst the player reports
    (:meth:`mockgo.play.player.Player.analyst`; ``rng``: the game's
    generator, for a tree started here; ``limit``: the visits at which a
    growing tree stops). A player built on first use (a network) is built
    now, in its loading context (:class:`~mockgo.play.lazy_player.PlayerLoadError`
    if it cannot be). ValueError naming the player for one that reports no
    analysis (a GTP engine behind mockgo, a kind that does not say)."""
    report = getattr(player, "analyst", None)
    analyst = None if report is None else report(board, rng, limit)
    if analyst is None:
        raise ValueError(f"{getattr(player, 'name', type(player).__name__)} gives no analysis: "
                         f"it reports neither a search tree nor a policy (Player.analyst)")
    return analyst


def _line(analyst, request, size, dialect):
    return format_line(sorted_infos(analyst.infos(), request.minmoves, request.maxmoves),
                       size, dialect)


# ------------------------------------------------------ the printing loops


def ponder(analyst, request, size, write, input_waiting, dialect="lz", clock=time.monotonic):
    """``lz-analyze``'s body: grow the analyst's tree a slice at a time,
    ``write`` a line (with its LF) every ``request.interval`` centiseconds
    while it grows and one more when it stops growing or the next command
    arrives (none with interval 0, as Leela Zero), until
    ``input_waiting(timeout)`` says a command is waiting. At least one
    slice is searched, whatever is waiting."""
    every = request.interval / 100.0
    last, fresh = clock(), False  # fresh: the tree has changed since the last line

    def emit():
        nonlocal last, fresh
        line = _line(analyst, request, size, dialect)
        if line and every > 0:
            write(line + "\n")
        last, fresh = clock(), False

    while True:
        grew = analyst.grow()
        fresh = fresh or grew or not analyst.searches
        if every > 0 and fresh and clock() - last >= every:
            emit()
        if not grew:  # nothing more to search: say so now, then wait
            if fresh:
                emit()
            input_waiting(None)
            return
        if input_waiting(0):
            break
    if fresh:
        emit()


class printing:
    """A context in which the analyst's line is written every
    ``request.interval`` centiseconds while the player searches
    (``genmove_analyze``; nothing for a player that does not search, or
    with interval 0): after the search step that ends an interval for MCTS
    (module docstring), by a thread for UCT. A line is written only when the
    tree has one."""

    def __init__(self, analyst, request, size, write, dialect="lz", clock=time.monotonic):
        self.analyst, self.request, self.size = analyst, request, size
        self.write, self.dialect, self.clock = write, dialect, clock
        self.every = request.interval / 100.0
        self._stop = threading.Event()
        self._thread = None
        self._last = None

    def _emit(self):
        line = _line(self.analyst, self.request, self.size, self.dialect)
        if line:
            self.write(line + "\n")

    def _after_step(self):
        now = self.clock()
        if now - self._last >= self.every:
            self._emit()
            self._last = now

    def _run(self):
        while not self._stop.wait(self.every):
            self._emit()

    def __enter__(self):
        if not self.analyst.searches or self.every <= 0:
            return self
        if hasattr(self.analyst, "after_each_step"):  # read between its search's steps
            self._last = self.clock()
            self.analyst.after_each_step(self._after_step)
        else:
            self._thread = threading.Thread(target=self._run, name="analysis", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc_info):
        if hasattr(self.analyst, "after_each_step") and self._last is not None:
            self.analyst.after_each_step(None)
        if self._thread is not None:
            self._stop.set()
            self._thread.join()

    def last_line(self):
        """The line once the search is done (exact: no step in flight)."""
        return _line(self.analyst, self.request, self.size, self.dialect)


# ------------------------------------------------------------- the input


class InputLines:
    """A text stream's lines, read by a thread as they come, so that a long
    answer (an analysis) can see that a command waits without blocking on
    it. :meth:`get` takes the next line ('' at the end of the stream);
    :meth:`waiting` says whether one is there, waiting up to ``timeout``
    seconds for it (None: until one comes).

    A stream with a file descriptor (standard input, a pipe) is read from
    the descriptor with ``os.read``, as UTF-8 (undecodable bytes replaced),
    in lines ending at LF only, so the stream must not have been read from
    before. Why not ``readline``: the thread is still waiting for a line
    when ``quit`` ends the engine, and a thread blocked in a buffered
    stream's ``readline`` holds that stream's lock, which Python's shutdown
    then waits for and aborts the process ("could not acquire lock ... at
    interpreter shutdown"); ``os.read`` holds no lock. A stream without one
    (a StringIO) is read with ``readline``."""

    def __init__(self, stream):
        self._lines = collections.deque()
        self._ready = threading.Condition()
        try:
            fd = stream.fileno()
        except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
            fd = None
        lines = _stream_lines(stream) if fd is None else _descriptor_lines(fd)
        self._thread = threading.Thread(target=self._read, args=(lines,), name="gtp-input",
                                        daemon=True)
        self._thread.start()

    def _read(self, lines):
        for line in lines:
            with self._ready:
                self._lines.append(line)
                self._ready.notify_all()
            if not line:
                return

    def waiting(self, timeout=None):
        with self._ready:
            return self._ready.wait_for(lambda: bool(self._lines), timeout)

    def get(self):
        with self._ready:
            self._ready.wait_for(lambda: bool(self._lines))
            line = self._lines[0]
            if line:  # the end of the stream stays, for every later get
                self._lines.popleft()
            return line


def _stream_lines(stream):
    """A text stream's lines by ``readline``, then '' at its end."""
    while True:
        try:
            line = stream.readline()
        except (OSError, ValueError):  # closed under us
            line = ""
        yield line
        if not line:
            return


def _descriptor_lines(fd):
    """A file descriptor's lines (UTF-8, LF ends a line), then '' at its end."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pending = ""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b""
        pending += decoder.decode(chunk, final=not chunk)
        *lines, pending = pending.split("\n")
        for line in lines:
            yield line + "\n"
        if not chunk:
            if pending:
                yield pending  # a last line without its LF
            yield ""
            return


# ------------------------------------------------- the engine's commands
#
# Each is function(server, args), as mockgo.gtp.server's command table has
# them. An analysis answer goes out line by line while the search runs
# (server.stream); the handler then returns STREAMED.


def _request(server, args):
    try:
        return parse_analyze_args(args, server.board.to_play, server._color, server._int)
    except (ValueError, GTPFailure) as error:
        log.warning("%s", error)
        raise GTPFailure("cannot parse analyze tags") from None


def engine_analyst(server, view):
    """The analyst of ``server``'s player on ``view``; a player that cannot
    give one (or a network that will not load) is a GTP failure."""
    try:
        return analyst_for(server.player, view, server.game_rng, server.ponder_visits)
    except PlayerLoadError as error:
        log.error("%s", error)
        raise GTPFailure(str(error)) from None
    except ValueError as error:
        raise GTPFailure(str(error)) from None


def analyze_command(dialect):
    """``lz-analyze`` / ``kata-analyze``: lines until the next command."""

    def analyze(server, args):
        request = _request(server, args)
        analyst = engine_analyst(server, server.view(request.color))
        server.stream(f"={server.ident}\n")
        ponder(analyst, request, server.size, server.stream, server.input_waiting, dialect,
               clock=server.timer)
        return STREAMED

    return analyze


def genmove_analyze_command(dialect):
    """``genmove_analyze``: lines while the player thinks, then ``play MOVE``."""

    def genmove_analyze(server, args):
        request = _request(server, args)
        vertex = server.generate(request.color, request=request, dialect=dialect)
        server.stream(f"play {vertex}\n")
        return STREAMED

    return genmove_analyze


#: The analysis commands the engine adds to GTP: ``name: handler``.
COMMANDS = {
    "lz-analyze": analyze_command("lz"),
    "kata-analyze": analyze_command("kata"),
    "genmove_analyze": genmove_analyze_command("lz"),
    "lz-genmove_analyze": genmove_analyze_command("lz"),
    "kata-genmove_analyze": genmove_analyze_command("kata"),
}
