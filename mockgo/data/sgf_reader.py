"""Game records: reading and replaying SGF files.

The supervised-learning notebooks learn from tens of thousands of KGS games,
and the self-play notebooks save the games they play; both go through this
module. A game is a :class:`GameRecord`: the game information (size, komi,
players, result...), the set-up stones and the moves of the main line as flat
indices (see :mod:`mockgo.go.coords`). The SGF syntax itself is parsed by
:mod:`mockgo.data.sgf_syntax` (the whole tree, variations included, is kept by
:mod:`mockgo.data.gametree`); what this module adds is making sense of real
files, which are messy:

- text in many encodings (see :func:`mockgo.data.charsets.decode_sgf_bytes`);
- komi written as ``KM[650]`` for 6.5 (see :func:`parse_komi`);
- missing ``RE``, ``KM`` or ``SZ``; variations; boards that are not 19x19;
- collections of many games in one file: only the first game is parsed;
- files that are broken: those raise :class:`SGFError` (a ValueError) naming
  the file and the reason (and the line, where it is one node's fault),
  and :func:`mockgo.data.archives.iter_sgf_files` skips them with a
  warning, so that one bad file cannot stop a long job. Whatever the input,
  :func:`read_sgf` gives a record or raises SGFError, nothing else (the
  tests fuzz it to hold it to that);
- "files" that are not: :func:`load_sgf` refuses FIFOs and devices (reading
  ``/dev/zero`` never ends) and files over :data:`MAX_SGF_BYTES`;
- files under that size that would still take gigabytes or minutes: a
  tree of more than :data:`~mockgo.data.sgf_syntax.MAX_NODES` nodes, a
  line of play of more than :data:`MAX_MOVES` moves, or set-up lists that
  expand to more than :data:`SETUP_BOARDS` boards' worth of points
  (``AB[aa:ss]``, 7 bytes, is all 361 points) are refused, so that any file
  under the size limit is read or refused in about a second
  (``benchmarks/sgf_worst_case.py`` measures the worst ones);
- moves that the rules forbid: :func:`replay` stops there and notes the
  problem in ``record.problem``, keeping the positions before it.

Many files at a time, folders and archives, are :mod:`mockgo.data.archives`'
work; writing records, :mod:`mockgo.data.sgf_writer`'s.

>>> record = read_sgf("(;GM[1]SZ[9]KM[7.5]RE[W+R];B[ee];W[cc])")
>>> record.size, record.komi, record.winner == WHITE, record.result_reason
(9, 7.5, True, 'resign')
>>> [coords.to_gtp(move, 9) for color, move in record.moves]
['E5', 'C7']
"""

import collections
import dataclasses
import functools
import math
import os
import re
import stat
import warnings

from mockgo.data import sgf_syntax
from mockgo.data.charsets import decode_sgf_bytes
from mockgo.go import coords
from mockgo.go.board import BLACK, EMPTY, ILLEGAL_REASONS, MAX_KOMI, MAX_SIZE, WHITE, Board
from mockgo.go.handicap import max_handicap

SGF_COLORS = {"B": BLACK, "W": WHITE}  #: An SGF colour letter's colour.
COLOR_LETTERS = {BLACK: "B", WHITE: "W"}  #: A colour's SGF letter.
#: The most load_sgf reads of a file. A long game with comments is some
#: 100 kB, a commented collection a few MB; a larger file is refused, without
#: reading it whole, rather than filling the memory (and the time a bad file
#: can take to parse stays bounded).
MAX_SGF_BYTES = 4 * 2**20
#: The most moves a line of play may have. The longest real games are some
#: 600 moves (passes and all); a line of a million passes would cost every
#: replay (datasets, GTP loadsgf, evaluation) minutes.
MAX_MOVES = 10_000
#: The most set-up points a line of play may list (duplicates counted), in
#: boards: a position never needs more than one board's worth of AB, AW and
#: AE together, and ``AB[aa:ss]`` repeated 500,000 times (3.5 MB) would
#: otherwise expand to 180 million points, 4.5 GB.
SETUP_BOARDS = 4


class SGFError(ValueError):
    """A game record that cannot be read. ``reason`` is a short category
    (``"does not parse"``, ``"move off the board"``...) that summaries count;
    the message also names the source and the details."""

    def __init__(self, source, reason, detail=None):
        self.source, self.reason, self.detail = source, reason, detail
        super().__init__(f"{source}: {reason}" + (f": {detail}" if detail else ""))

    def __reduce__(self):  # so it can cross a multiprocessing pool
        return SGFError, (self.source, self.reason, self.detail)


class SGFWarning(UserWarning):
    """A skipped file or a game that could not be replayed to the end.
    A category of its own, so long jobs can filter or count them."""


# ------------------------------------------------------------ the record


@dataclasses.dataclass
class GameRecord:
    """One game: the information of the SGF root node and the main line.

    ``moves`` holds ``(color, move)`` pairs with flat indices (``size * size``
    for a pass); ``comments`` is parallel to it (None where a move has no
    comment). ``source`` and ``problem`` are not part of the game, so two
    records of the same game compare equal wherever they were read from.
    """

    size: int = 19
    komi: float = 0.0
    handicap: int = 0
    setup_black: list = dataclasses.field(default_factory=list)
    setup_white: list = dataclasses.field(default_factory=list)
    black: str | None = None  # player names
    white: str | None = None
    black_rank: str | None = None
    white_rank: str | None = None
    date: str | None = None
    rules: str | None = None
    result: str | None = None  # the RE text as written
    winner: int | None = None  # BLACK, WHITE, EMPTY (a draw) or None (unknown)
    margin: float | None = None  # points, when the game was counted
    result_reason: str | None = None  # "score", "resign", "time", "forfeit" or None
    moves: list = dataclasses.field(default_factory=list)
    comments: list = dataclasses.field(default_factory=list)
    to_play: int | None = None  # PL: who moves first, when the file says
    game_comment: str | None = None  # C of the root node
    source: str = dataclasses.field(default="<string>", compare=False)
    # Set by replay(): why the game could not be replayed to the end.
    problem: str | None = dataclasses.field(default=None, compare=False)

    def __post_init__(self):
        # Hand-made records may leave comments out; keep the list parallel.
        if len(self.comments) > len(self.moves):
            raise ValueError(f"{len(self.comments)} comments for {len(self.moves)} moves")
        self.comments = list(self.comments) + [None] * (len(self.moves) - len(self.comments))

    def first_color(self):
        """Who moves first: ``PL`` if given; else white when black has
        handicap (set-up) stones and white has none; else black.

        ``HA`` alone places nothing: files with ``HA`` and no ``AB`` (old KGS
        free-handicap games) have black put the stones down as moves.
        """
        if self.to_play is not None:
            return self.to_play
        return WHITE if self.setup_black and not self.setup_white else BLACK

    def board(self, superko=None):
        """The starting position: set-up stones placed, komi set, the right
        player to move. ``superko`` defaults to :func:`rules_use_superko`."""
        if superko is None:
            superko = rules_use_superko(self.rules)
        board = Board(self.size, komi=self.komi, superko=superko)
        if self.setup_black or self.setup_white:
            board.setup(black=self.setup_black, white=self.setup_white)
        board.to_play = self.first_color()
        return board


def rules_use_superko(rules):
    """Whether a game under these rules forbids repeating a position.

    Japanese and Korean rules have only the simple ko rule (a long cycle
    ends the game as no result instead), and KGS lets such games go on; the
    other rule sets KGS offers (Chinese, AGA, New Zealand) have superko.
    """
    name = (rules or "").strip().lower()
    return not name.startswith(("jap", "kor"))


# --------------------------------------------------------------- reading


def parse_komi(text):
    """Komi from a ``KM`` value; None when the value is empty.

    Some servers write komi times 100 (``KM[650]`` for 6.5). The rule: an
    integer written without a decimal point, at least 50 in size and a
    multiple of 50 is divided by 100 -- real komi is a multiple of 0.5 and
    never that large, while ``KM[0]``, ``KM[6]`` or ``KM[-100.00]`` (a big
    reverse komi, which KGS allows and writes with decimals) are taken as
    written. :func:`~mockgo.data.sgf_writer.to_sgf` always writes komi with a decimal point
    (``KM[-100.0]``, ``KM[150.0]``), so the files it writes read back
    exactly, whatever the komi.

    The value must be a finite decimal number in ASCII: ``KM[nan]``,
    ``KM[inf]``, ``KM[1e999]``, ``KM[1_0]`` or ``KM[٦]`` (an Arabic-Indic
    6, which float() accepts) raise ValueError, as anything else that is
    not a number does; and a komi, as GTP and every Board take it
    (:func:`~mockgo.go.board.check_komi`: at most
    :data:`~mockgo.go.board.MAX_KOMI` either way): ``KM[1e20]`` raises
    :class:`OutOfRange`, a ValueError.
    """
    text = text.strip().replace(",", ".")  # "6,5" in some European files
    if not text:
        return None
    if not _DECIMAL.fullmatch(text):
        raise ValueError(f"{text!r} is not a decimal number")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text!r} is too large a number")
    if re.fullmatch(r"[+-]?[0-9]+", text) and abs(value) >= 50 and value % 50 == 0:
        value /= 100
    if abs(value) > MAX_KOMI:
        raise OutOfRange(f"is not a komi (at most {MAX_KOMI} either way)")
    return value


class OutOfRange(ValueError):
    """A number, but not one the property can hold (its message says why,
    after the property: ``KM[1e20] is not a komi...``)."""


# A decimal number as SGF (and repr() of a float) writes it, in ASCII only.
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


_RESULT_REASONS = {"R": "resign", "RESIGN": "resign", "T": "time", "TIME": "time",
                   "F": "forfeit", "FORFEIT": "forfeit"}


def parse_result(text):
    """``(winner, margin, reason)`` from an ``RE`` value; unknown parts are None.

    ``"B+3.5"`` is (BLACK, 3.5, "score"), ``"W+R"`` or ``"W+Resign"`` is
    (WHITE, None, "resign"), ``"0"``, ``"Draw"`` or ``"Jigo"`` is (EMPTY, 0.0,
    "score"); ``"Void"``, ``"?"`` or anything unexpected is (None, None, None).
    """
    text = (text or "").strip()
    if text.upper() in ("0", "DRAW", "JIGO", "D"):
        return EMPTY, 0.0, "score"
    match = re.fullmatch(r"([BW])\+(.*)", text, re.IGNORECASE)
    if not match:
        return None, None, None
    winner = SGF_COLORS[match.group(1).upper()]
    how = match.group(2).strip()
    if how.upper() in _RESULT_REASONS:
        return winner, None, _RESULT_REASONS[how.upper()]
    try:
        return winner, float(how), "score"
    except ValueError:  # "B+" (margin not given) or something unexpected
        return winner, None, None


def read_sgf(data, source="<string>"):
    """A :class:`GameRecord` from the text (``str``) or bytes of an SGF file.

    Only the first game of a collection and the main line of its tree (the
    first child at each branch) are read; the games after the first are not
    even parsed. Raises :class:`SGFError` when the file does not parse or
    makes no sense as a game of Go, and nothing else whatever the input.
    """
    text = data if isinstance(data, str) else decode_sgf_bytes(data)
    return record_from_nodes(sgf_syntax.main_line(parse_first_game(text, source)), source, text)


def parse_first_game(text, source):
    """The root :class:`~mockgo.data.sgf_syntax.SyntaxNode` of the first
    game tree of ``text``; SGFError (``"does not parse"``, with the line and
    column) for text that is not SGF."""
    if "(" not in text:
        raise SGFError(source, "does not parse", "no game tree")
    try:
        return sgf_syntax.parse_first_game(text)
    except sgf_syntax.SGFTooLargeError as error:
        raise SGFError(source, "too large", str(error)) from None
    except sgf_syntax.SGFSyntaxError as error:
        raise SGFError(source, "does not parse", str(error)) from None


def record_from_nodes(nodes, source, text=None):
    """The :class:`GameRecord` of a line of play: ``nodes``, SyntaxNodes
    from the root down (the main line for :func:`read_sgf`, any line of the
    tree for :mod:`mockgo.data.gametree`). ``text``: the text they were
    read from, so that an error caused by one node names its line."""
    root = nodes[0].properties
    size = _board_size(root, source)
    record = GameRecord(size=size, source=source, **_game_info(root, source))
    _check_handicap(record)
    _read_nodes(record, nodes, source, text)
    try:
        record.board()  # set-up stones on the same point, or without liberties
    except ValueError as error:
        raise SGFError(source, "bad set-up stones", str(error)) from None
    return record


def load_sgf(path):
    """:func:`read_sgf` of a file on disk.

    Raises OSError if the file cannot be opened, and SGFError (naming the
    file) for what is not a regular file -- a FIFO would wait for a writer
    forever, ``/dev/zero`` never ends -- and for a file larger than
    :data:`MAX_SGF_BYTES`, which is refused without being read whole.
    """
    return read_sgf(_read_sgf_file(path), source=str(path))


def _read_sgf_file(path):
    # O_NONBLOCK: opening a FIFO does not wait for a writer (the check below
    # then refuses it); it changes nothing for a regular file.
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
                         | getattr(os, "O_BINARY", 0))
    try:
        mode = os.fstat(descriptor).st_mode
    except BaseException:
        os.close(descriptor)
        raise
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        raise SGFError(str(path), "not a regular file", _file_kind(mode))
    with open(descriptor, "rb") as file:
        data = file.read(MAX_SGF_BYTES + 1)
    if len(data) > MAX_SGF_BYTES:
        raise SGFError(str(path), "file too large",
                       f"more than {MAX_SGF_BYTES:,} bytes ({MAX_SGF_BYTES / 2**20:g} MiB), "
                       "the limit for one SGF file")
    return data


def _file_kind(mode):
    kinds = [(stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISSOCK, "a socket")]
    return next((kind for test, kind in kinds if test(mode)), "a special file")


def _value(props, name):
    """The first value of a property, stripped; None if absent or empty."""
    values = props.get(name)
    if not values:
        return None
    return values[0].strip() or None


def _board_size(root, source):
    text = _value(root, "SZ")
    if text is None:
        return 19
    shown = _clip(text)
    width, colon, height = (part.strip() for part in text.partition(":"))  # FF[4] allows "19:13"
    size, rows = _natural(width), _natural(height) if colon else None
    if size is None or (colon and rows is None):
        raise SGFError(source, "bad board size", f"SZ[{shown}] is not a number")
    if colon and rows != size:
        raise SGFError(source, "bad board size", f"SZ[{shown}]: only square boards")
    if not 2 <= size <= MAX_SIZE:
        raise SGFError(source, "bad board size", f"SZ[{shown}] is not in 2..{MAX_SIZE}")
    return size


def _natural(text):
    """A whole number written in ASCII digits, or None if ``text`` is not one.

    Not int(): it also takes "1_9", " 19 " and other scripts' digits ("١٩"
    is 19, and so is "¹⁹" to str.isdigit()), and raises its own ValueError
    past 4,300 digits. Numbers of more than 18 digits come back as 10**18,
    larger than any size or handicap, as all the callers need to know.
    """
    if not re.fullmatch(r"[0-9]+", text):
        return None
    digits = text.lstrip("0") or "0"
    return int(digits) if len(digits) <= 18 else 10**18


def _clip(text, length=40):
    """A property value short enough for an error message."""
    return text if len(text) <= length else text[:length] + f"... ({len(text)} characters)"


def _game_info(root, source):
    """The GameRecord fields that come from root properties."""
    game = _value(root, "GM")
    if game not in (None, "1"):
        raise SGFError(source, "not a game of Go", f"GM[{game}]")
    info = {
        "black": _value(root, "PB"), "white": _value(root, "PW"),
        "black_rank": _value(root, "BR"), "white_rank": _value(root, "WR"),
        "date": _value(root, "DT"), "rules": _value(root, "RU"),
        "result": _value(root, "RE"),
    }
    info["winner"], info["margin"], info["result_reason"] = parse_result(info["result"])
    # A missing KM is taken as no komi, as KGS takes it.
    komi = _number(root, "KM", parse_komi, source)
    info["komi"] = 0.0 if komi is None else komi  # not "or": -0.0 stays -0.0
    info["handicap"] = _number(root, "HA", _handicap, source) or 0
    return info


def _handicap(text):
    stones = _natural(text)
    if stones is None or stones > MAX_SIZE * MAX_SIZE:
        raise ValueError(f"{text!r} is not a number of stones")
    return stones


def _check_handicap(record):
    """SGFError for more handicap stones than the board takes
    (:func:`~mockgo.go.handicap.max_handicap`: 9 on 19x19). ``HA[0]`` and
    ``HA[1]`` both mean no handicap stone and are read as written (FF[4]
    wants 2 or more, but files from some servers write 1 for a game
    without komi)."""
    most = max_handicap(record.size)
    if record.handicap > max(1, most):
        raise SGFError(record.source, "bad property value",
                       f"HA[{record.handicap}]: at most {most} handicap stones on a "
                       f"{record.size}x{record.size} board")


def _number(props, name, convert, source):
    text = _value(props, name)
    if text is None:
        return None
    try:
        return convert(text)
    except OutOfRange as error:
        raise SGFError(source, "bad property value", f"{name}[{_clip(text)}] {error}") from None
    except ValueError:
        raise SGFError(source, "bad property value",
                       f"{name}[{_clip(text)}] is not a number") from None


def _read_nodes(record, nodes, source, text=None):
    """Fill in set-up stones, moves and comments from a line of nodes."""
    # What is gathered while reading, so that each node costs what it holds,
    # not what came before it: the set-up stones as dicts (point -> None, in
    # order), and the comments of nodes without a move, as lists of parts
    # by the move they belong to (-1: the game), joined at the end.
    reading = {"black": dict.fromkeys(record.setup_black),
               "white": dict.fromkeys(record.setup_white), "listed": 0,
               "notes": collections.defaultdict(list)}
    for number, node in enumerate(nodes):
        try:
            _read_node(record, node.properties, number, source, reading)
            if len(record.moves) > MAX_MOVES:
                raise SGFError(source, "too long", f"more than {MAX_MOVES:,} moves in a line "
                                                   f"of play, the most a game may have")
        except SGFError as error:
            if text is None or node.offset < 0:
                raise
            line, _ = sgf_syntax.line_and_column(text, node.offset)
            detail = f"{error.detail} (line {line})" if error.detail else f"line {line}"
            raise SGFError(source, error.reason, detail) from None
    record.setup_black, record.setup_white = list(reading["black"]), list(reading["white"])
    for index, parts in reading["notes"].items():
        first = record.game_comment if index < 0 else record.comments[index]
        joined = "\n\n".join(([] if first is None else [first]) + parts)
        if index < 0:
            record.game_comment = joined
        else:
            record.comments[index] = joined


def _read_node(record, props, number, source, reading):
    if not _SETUP_PROPERTIES.isdisjoint(props):
        if record.moves:
            # Setting up stones mid-game is an edited diagram, not a game.
            raise SGFError(source, "set-up stones mid-game", f"node {number}")
        _apply_setup(reading, props, record.size, source)
    if "PL" in props and not record.moves:
        player = (_value(props, "PL") or "").upper()[:1]
        if player not in SGF_COLORS:
            raise SGFError(source, "bad property value", f"PL[{_value(props, 'PL')}]")
        record.to_play = SGF_COLORS[player]
    move = node_move(props, record.size, source, len(record.moves) + 1)
    comment = _value(props, "C")
    if move is not None:
        record.moves.append(move)
        record.comments.append(comment)
    elif comment is not None:
        # A comment on a node without a move belongs to the move before it,
        # or to the whole game if no move came yet.
        reading["notes"][len(record.moves) - 1].append(comment)


_SETUP_PROPERTIES = frozenset(("AB", "AW", "AE"))


def _apply_setup(setup, props, size, source):
    """Add a node's AB, AW and AE to ``setup`` (:func:`_read_nodes`' ``reading``),
    counting the points listed against the limit of a line
    (:data:`SETUP_BOARDS`) before any rectangle is expanded."""
    for name in ("AE", "AB", "AW"):
        setup["listed"] += count_setup_points(props.get(name, ()), size, source)
    limit = SETUP_BOARDS * size * size
    if setup["listed"] > limit:
        raise SGFError(source, "bad set-up stones",
                       f"more than {limit:,} set-up points ({SETUP_BOARDS} times the board's "
                       f"{size * size}) listed in AB, AW and AE")
    black, white = setup["black"], setup["white"]
    for point in setup_points(props.get("AE", ()), size, source):
        black.pop(point, None)
        white.pop(point, None)
    # Points listed twice (AB[aa][aa:bb]) count once, in the order first listed.
    black.update(dict.fromkeys(setup_points(props.get("AB", ()), size, source)))
    white.update(dict.fromkeys(setup_points(props.get("AW", ()), size, source)))


def _rectangles(values, size, source):
    """``(top, left, bottom, right)`` (rows and columns, inclusive) of each
    set-up value: a point ("dd") or an FF[4] rectangle ("aa:cc");
    SGFError for a bad one."""
    for value in values:
        corners = value.strip().split(":")
        try:
            flat = [coords.from_sgf(corner, size) for corner in corners]
        except ValueError as error:
            raise SGFError(source, "bad set-up stones", str(error)) from None
        if len(corners) > 2 or size * size in flat:
            raise SGFError(source, "bad set-up stones", f"[{_clip(value)}]")
        (top, left), (bottom, right) = divmod(flat[0], size), divmod(flat[-1], size)
        yield min(top, bottom), min(left, right), max(top, bottom), max(left, right)


def count_setup_points(values, size, source):
    """How many points the set-up values list (rectangles counted by their
    area, without expanding them; duplicates counted); SGFError, before
    counting further, when one is bad or when they list more than the board
    has points (``AB[aa:ss][aa:ss]`` lists the board twice: no position
    needs that)."""
    total = 0
    for top, left, bottom, right in _rectangles(values, size, source):
        total += (bottom - top + 1) * (right - left + 1)
        if total > size * size:
            raise SGFError(source, "bad set-up stones",
                           f"more than {size * size} set-up points (the board's) in one property")
    return total


def setup_points(values, size, source):
    """Flat points from set-up values (``AB``, ``AW``, ``AE``), expanding
    FF[4] rectangles ("aa:cc"); SGFError for a bad one, and for values that
    list more points than the board has (:func:`count_setup_points`)."""
    count_setup_points(values, size, source)  # first: no expanding of a million rectangles
    return [row * size + col for top, left, bottom, right in _rectangles(values, size, source)
            for row in range(top, bottom + 1) for col in range(left, right + 1)]


def node_move(props, size, source, number):
    """``(color, flat move)`` of a node's properties ``props``, or None if
    it has no move; SGFError (naming move ``number``) for a bad one."""
    black, white = props.get("B"), props.get("W")
    if black is None and white is None:
        return None
    if black is not None and white is not None:
        raise SGFError(source, "B and W in one node", f"at move {number}")
    letter, values = ("B", black) if black is not None else ("W", white)
    point = values[0].strip() if len(values) == 1 else None
    move = _sgf_moves(size).get(point)
    if move is not None:
        return SGF_COLORS[letter], move
    if point is None:
        raise SGFError(source, "bad move", f"move {number}: {letter} with {len(values)} values")
    # Not a move of this board: coords.from_sgf says why.
    letters = len(point) == 2 and all(char in coords.SGF_LETTERS for char in point)
    try:
        coords.from_sgf(point, size)
    except ValueError as error:
        raise SGFError(source, "move off the board" if letters else "bad move",
                       f"move {number} {letter}[{point}]: {error}") from None
    raise AssertionError(f"_sgf_moves({size}) lacks {point!r}")


@functools.lru_cache(maxsize=None)
def _sgf_moves(size):
    """SGF point to flat move for every move on the board, passes included:
    a dict lookup is the fast path for the 200-odd moves of every game."""
    moves = {coords.to_sgf(move, size): move for move in range(size * size + 1)}
    if size <= 19:
        moves["tt"] = size * size  # the FF[3] way to write a pass
    return moves


# ------------------------------------------------------------- replaying


def replay(record, superko=None):
    """The position before each move of the main line, as ``(board, color,
    move)``.

    The same Board object is advanced in place after each step (copying 300
    positions per game would cost more than the replay): a caller that keeps
    positions must keep ``board.copy()`` or the features it computes. Once
    the generator is exhausted the board holds the final position.

    Moves are played as the record gives them, also two of one colour in a
    row (KGS has those in handicap games). A move that the rules forbid
    stops the replay before it is yielded: the positions before it stay
    good, ``record.problem`` says what went wrong, and an SGFWarning is
    issued; nothing is raised. ``superko`` defaults to the record's rules
    (:func:`rules_use_superko`).
    """
    record.problem = None
    board = record.board(superko)
    for number, (color, move) in enumerate(record.moves, start=1):
        reason = board.illegal_reason(move, color)
        if reason:
            record.problem = (f"move {number} ({COLOR_LETTERS[color]} "
                              f"{coords.to_gtp(move, record.size)}) is illegal: "
                              f"{ILLEGAL_REASONS[reason]}")
            warnings.warn(f"{record.source}: {record.problem}", SGFWarning, stacklevel=2)
            return
        yield board, color, move
        board.play(move, color)


def final_board(record, superko=None):
    """The position after the last move that could be replayed."""
    board = None
    for board, _, _ in replay(record, superko):
        pass
    # replay() leaves its board at the end; a game without moves has none.
    return board if board is not None else record.board(superko)

