"""Writing game records as SGF files, the other way from
:mod:`mockgo.data.sgf_reader`: :func:`record_from_board` makes a record of a
game played on a Board, :func:`to_sgf` and :func:`save_sgf` write it
(FF[4], UTF-8, main line only), in a form that
:func:`~mockgo.data.sgf_reader.read_sgf` reads back to an equal record.
"""

import datetime
import math

from mockgo.data import sgf_syntax
from mockgo.data.files import atomic_write_text
from mockgo.data.sgf_reader import COLOR_LETTERS, GameRecord, final_board, parse_result
from mockgo.go import coords
from mockgo.go.board import BLACK, EMPTY, WHITE, check_komi
from mockgo.go.handicap import max_handicap


def format_komi(komi):
    """A ``KM`` value that :func:`~mockgo.data.sgf_reader.parse_komi` reads
    back as exactly ``komi``: the shortest repr of the float, which always has a decimal point or an
    exponent (``"6.5"``, ``"0.0"``, ``"-100.0"``, ``"0.3333333333333333"``).
    ValueError for what is no komi (:func:`~mockgo.go.board.check_komi`):
    a file that says ``KM[1e+16]`` could not be read back."""
    komi = float(komi)
    if not math.isfinite(komi):
        raise ValueError(f"komi {komi} is not a finite number")
    return repr(check_komi(komi))


def format_result(winner, margin=None, reason=None):
    """An ``RE`` value: ``"B+3.5"``, ``"W+R"``, ``"0"``; None if unknown."""
    if winner is None:
        return None
    if winner == EMPTY:
        return "0"
    how = {"resign": "R", "time": "T", "forfeit": "F"}.get(reason, "")
    if not how and margin is not None:
        how = f"{margin:g}"
    return f"{COLOR_LETTERS[winner]}+{how}"


def to_sgf(record):
    """The record as SGF text (FF[4], UTF-8), main line only.

    :func:`~mockgo.data.sgf_reader.read_sgf` reads it back to an equal record. Komi is written
    with a decimal point (``KM[7.5]``, ``KM[0.0]``, ``KM[-100.0]``) and
    all its digits, so that the x100 rule of :func:`~mockgo.data.sgf_reader.parse_komi` never takes
    it for ``KM[650]``; a komi that is not finite raises ValueError.
    """
    size = record.size
    root = [("GM", "1"), ("FF", "4"), ("CA", "UTF-8"), ("AP", "mockgo"),
            ("SZ", str(size)), ("KM", format_komi(record.komi)), ("RU", record.rules),
            ("PB", record.black), ("PW", record.white),
            ("BR", record.black_rank), ("WR", record.white_rank), ("DT", record.date),
            ("RE", record.result if record.result is not None
             else format_result(record.winner, record.margin, record.result_reason))]
    text = ";" + "".join(f"{name}[{sgf_syntax.escape(value)}]" for name, value in root
                         if value is not None)
    if record.handicap:
        text += f"HA[{record.handicap}]"
    for name, points in (("AB", record.setup_black), ("AW", record.setup_white)):
        if points:
            text += name + "".join(f"[{coords.to_sgf(p, size)}]" for p in points)
    if record.to_play is not None:
        text += f"PL[{COLOR_LETTERS[record.to_play]}]"
    if record.game_comment:
        text += f"C[{sgf_syntax.escape(record.game_comment)}]"
    lines = [text]
    # Comments may lag behind moves appended to a record after it was made.
    comments = record.comments + [None] * (len(record.moves) - len(record.comments))
    nodes = [_move_node(color, move, comment, size)
             for (color, move), comment in zip(record.moves, comments)]
    for start in range(0, len(nodes), 10):  # ten moves a line, for people reading it
        lines.append("".join(nodes[start:start + 10]))
    return "(" + "\n".join(lines) + ")\n"


def _move_node(color, move, comment, size):
    node = f";{COLOR_LETTERS[color]}[{coords.to_sgf(move, size)}]"
    return node + (f"C[{sgf_syntax.escape(comment)}]" if comment else "")


def save_sgf(record, path):
    """Write the record to ``path`` atomically: a job killed while writing
    leaves the old file or the new one, never half a game."""
    atomic_write_text(path, to_sgf(record))


def record_from_board(board, black="Black", white="White", rules="Chinese",
                      comments=None, result=None, date=None, start=None):
    """A GameRecord of the game played on ``board`` (its moves history), so
    self-play can save its games.

    ``result`` defaults to ``board.result()``, ``date`` to today (``""``:
    no date, for files that must not change with the day they are
    written, as self-play's, which a resumed run writes again). Set-up
    stones (handicap) are found on the board (stones that no move put
    there); if some of them were captured, pass ``start``, the Board as it
    was before the first move.
    """
    origin = start if start is not None else board
    setup = (origin.stones != EMPTY) & (origin.played_at < 0)
    setup_black = [int(p) for p in setup.nonzero()[0] if origin.stones[p] == BLACK]
    setup_white = [int(p) for p in setup.nonzero()[0] if origin.stones[p] == WHITE]
    result = board.result() if result is None else result
    winner, margin, reason = parse_result(result)
    # Black stones alone are a handicap, up to as many as a board takes
    # (GTP's set_free_handicap allows more): more is a set-up position,
    # written without HA, which would make the file unreadable.
    handicap = len(setup_black) if setup_black and not setup_white else 0
    record = GameRecord(
        size=board.size, komi=board.komi,
        handicap=handicap if handicap <= max(1, max_handicap(board.size)) else 0,
        setup_black=setup_black, setup_white=setup_white,
        black=black, white=white, rules=rules,
        date=datetime.date.today().isoformat() if date is None else (date or None),
        result=result, winner=winner, margin=margin, result_reason=reason,
        moves=[(int(color), int(move)) for color, move in board.history],
        comments=list(comments or []))
    first = board.history[0][0] if board.history else origin.to_play
    if first != record.first_color():
        record.to_play = first
    _check_same_game(record, board)
    return record


def _check_same_game(record, board):
    # Captured set-up stones may leave no trace in the final position, but
    # they do in the count of captures.
    replayed = final_board(record, superko=board.superko)
    if record.problem or replayed.captures != board.captures \
            or not (replayed.stones == board.stones).all():
        raise ValueError("replaying the history does not give the board's position: "
                         "set-up stones were captured? pass start=")
