"""``mockgo show FILE``: what a game record or a file of training examples
holds, position by position, in the terminal.

::

    mockgo show game.sgf                 # every position of the main line
    mockgo show game.sgf --move 40       # the position after move 40
    mockgo show runs/zero9/data/selfplay/000001/job-b0000.npz --move 10

Two kinds of file, told apart by their content:

- an **SGF record** (text starting with ``(;``): each position along the
  main line, the board drawn (:class:`~mockgo.go.board.Board`'s drawing, the
  last move in parentheses), the move number and the move, and the node's
  comment (a Zero self-play game's comments are its searches' summaries);
- a **file of AlphaGo Zero's self-play examples** (an ``.npz`` archive with
  ``planes``, ``pi`` and ``z``, :mod:`mockgo.zero.selfplay`): each position
  the search was run on, drawn from its planes, with the search's visit
  distribution ``pi`` (its most visited moves with their shares of the
  visits, lettered ``a``, ``b``... on the board) and the game's outcome for
  the player to move, ``z``.

A file of neither kind is an error naming it (exit status 2).
"""

import numpy as np

from mockgo.data.files import CorruptFileError, read_npz
from mockgo.data.gametree import Cursor, load_tree
from mockgo.errors import InputError
from mockgo.go import coords
from mockgo.go.board import BLACK, COLOR_NAMES, WHITE, board_lines

__all__ = ["configure_parser", "draw_stones", "file_kind", "run_cli", "show_examples",
           "show_sgf"]

EXAMPLE_KEYS = ("planes", "pi", "z")
TOP = 5  # moves listed per position


def file_kind(path):
    """``"sgf"`` or ``"examples"`` from a file's first bytes; ValueError
    naming the file for anything else, FileNotFoundError for no file."""
    from pathlib import Path

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    with open(path, "rb") as file:
        head = file.read(4096)
    if head[:2] == b"PK":  # a zip archive: numpy's .npz
        return "examples"
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if text.startswith("(") and text[1:].lstrip().startswith(";"):
        return "sgf"
    raise ValueError(f"{path} is neither an SGF record (text starting with '(;') nor a file of "
                     f"self-play examples (an .npz archive)")


def draw_stones(black, white, labels=None):
    """A board drawn from two boolean arrays of N*N points (black's and
    white's stones), columns lettered as GTP letters them; ``labels`` maps
    points to one character drawn there instead of the empty point."""
    size = int(round(len(black) ** 0.5))
    labels = labels or {}
    return "\n".join(board_lines(size, lambda p: "X" if black[p] else "O" if white[p] else
                                  labels.get(p, ".")))


def show_sgf(path, move=None, out=print):
    """Each position of the record's main line (or the one after ``move``
    moves), drawn with its move number, its move and its comment."""
    tree = load_tree(path)
    cursor = Cursor(tree)
    total = len(tree.record().moves)
    if move is not None:
        if not 0 <= move <= total:
            raise ValueError(f"{path}: --move {move} is not on its main line (0 to {total})")
        cursor.go_to(move)
    info = tree.record(tree.root)
    out(f"{path}: {info.black or 'black'} against {info.white or 'white'}, {tree.size}x"
        f"{tree.size}, komi {info.komi}{', ' + info.result if info.result else ''}; "
        f"{total} moves")
    while True:
        played = tree.move(cursor.node)
        what = "start" if played is None else (
            f"{COLOR_NAMES[played[0]]} {coords.to_gtp(played[1], tree.size)}")
        out(f"\nmove {cursor.move_number} of {total}: {what}")
        out(str(cursor.board))
        comment = tree.comment(cursor.node)
        if comment:
            out(comment)
        if move is not None or not cursor.forward():
            break


def show_examples(path, move=None, out=print, top=TOP):
    """Each example of a self-play examples file (or those of move number
    ``move``): the position, the search's most visited moves with their
    shares of the visits, and the outcome."""
    data = read_npz(path)
    missing = [key for key in EXAMPLE_KEYS if key not in data]
    if missing:
        raise CorruptFileError(f"{path} is not a file of self-play examples: it has no "
                               f"{', '.join(missing)}")
    planes, pi, z = data["planes"], data["pi"], data["z"]
    size = planes.shape[1]
    games = data.get("game", np.full(len(z), -1))
    moves = data.get("move")
    chosen = range(len(z))
    if move is not None:
        if moves is None:
            raise ValueError(f"{path} does not record move numbers (an older file)")
        chosen = np.flatnonzero(moves == move)
        if not len(chosen):
            raise ValueError(f"{path} has no example at move {move} (its moves: "
                             f"{int(moves.min())} to {int(moves.max())})")
    out(f"{path}: {len(z)} examples of {len(np.unique(games))} games, {size}x{size}")
    for i in chosen:
        # AlphaGo Zero's planes: 0 the player's stones, 1 the opponent's, 16 black to play.
        to_play = BLACK if planes[i, 0, 0, 16] else WHITE
        mine, theirs = planes[i, :, :, 0].reshape(-1), planes[i, :, :, 1].reshape(-1)
        black, white = (mine, theirs) if to_play == BLACK else (theirs, mine)
        order = [int(a) for a in np.argsort(-pi[i], kind="stable")[:top] if pi[i, a] > 0]
        labels = {a: "abcdefghij"[k] for k, a in enumerate(order) if a < size * size}
        where = f"game {int(games[i])}" + (f", move {int(moves[i])}" if moves is not None else "")
        outcome = "won" if z[i] > 0 else "lost" if z[i] < 0 else "drew"
        out(f"\nexample {i} ({where}): {COLOR_NAMES[to_play]} to play, and {outcome} "
            f"(z {float(z[i]):+.0f})")
        out(draw_stones(black, white, labels))
        out("visits: " + ", ".join(
            f"{'abcdefghij'[k] + ' ' if a < size * size else ''}{coords.to_gtp(a, size)} "
            f"{pi[i, a]:.1%}" for k, a in enumerate(order)))


# ------------------------------------------------------------ command line


def configure_parser(parser):
    """The options of ``mockgo show``."""
    parser.description = (
        "Print an SGF record (the positions along its main line, each drawn with its move "
        "number, move and comment) or a file of AlphaGo Zero's self-play examples (each "
        "position with the search's most visited moves, their shares of the visits, and the "
        "outcome); the kind is read off the file.")
    parser.add_argument("file", help="an .sgf record or a self-play examples .npz file")
    parser.add_argument("--move", type=int, metavar="N",
                        help="only the position after move N (SGF), or the examples of move "
                             "N (examples)")
    return parser


def run_cli(args):
    """``mockgo show FILE``: draw the record or the examples file, position by position."""
    try:
        kind = file_kind(args.file)
    except (FileNotFoundError, ValueError) as error:
        raise InputError(str(error)) from None
    try:
        (show_sgf if kind == "sgf" else show_examples)(args.file, args.move)
    except (CorruptFileError, ValueError) as error:
        raise InputError(str(error)) from None
    return 0
