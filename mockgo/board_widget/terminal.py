"""``mockgo play SPEC``: a game of Go in the terminal against any player.

::

    mockgo play random --size 9                      # a first game, against random moves
    mockgo play policy:pretrained=sl-19 --color white --sgf me-vs-sl.sgf
    mockgo play gnugo:level=1 --size 9

The board is drawn after every move (as GnuGo's ``showboard`` draws it:
``X`` black, ``O`` white, the last move in parentheses, columns lettered as
GTP letters them, without ``I``). At the prompt type a point (``D4``, in
any case), ``pass``, ``undo`` (take back your last move and the answer to
it), ``resign`` or ``quit``. A move that cannot be read, or that the rules
forbid, gets one line saying why, and the prompt again.

The game is the board widget's :class:`~mockgo.board_widget.session.GameSession`
(the same moves, undo, scoring and SGF), here read from lines of text
instead of clicks: :func:`play_in_terminal` takes the lines and the output
as arguments, so a test feeds it a list. The game is saved as SGF when it
ends (two passes, or a resignation) and when it is left with ``quit`` or at
the end of the input.
"""

import sys

from mockgo.board_widget.session import GameSession
from mockgo.errors import InputError
from mockgo.go import coords
from mockgo.go.board import COLOR_NAMES
from mockgo.play.lazy_player import PlayerPlan
from mockgo.play.specs import plan_player

__all__ = ["COMMANDS", "configure_parser", "play_in_terminal", "run_cli"]

COMMANDS = ("pass", "undo", "resign", "quit")  #: The words the prompt takes besides a point.
HELP = "type a point such as D4, or pass, undo, resign, quit"


def play_in_terminal(session, lines, out=sys.stdout, save_as=None, prompt=True):
    """Play ``session`` (a GameSession in play mode) with the learner's
    moves read from ``lines`` (any iterable of strings, such as
    ``sys.stdin``), writing the board and the messages to ``out``; save the
    game as SGF to ``save_as`` (default: the session's file) when it ends
    or is left. Returns the path of the SGF file."""

    def say(text):
        out.write(text + "\n")
        out.flush()

    lines = iter(lines)
    say(str(session.board))
    say(f"you play {COLOR_NAMES[session.you]} against {session.engine.name}: {HELP}")
    while not session.over:
        if session.engine_to_move():
            session.engine_move()
            say(str(session.board))
            say(session.message)
            continue
        if prompt:
            out.write(f"{COLOR_NAMES[session.you]} (move {session.board.move_number + 1})> ")
            out.flush()
        line = next(lines, None)
        if line is None:  # end of input: as quit
            say("")
            break
        text = line.strip().lower()
        if not text:
            continue
        if text == "quit":
            break
        if text in ("pass", "resign", "undo"):
            done = {"pass": session.pass_turn, "resign": session.resign,
                    "undo": session.undo}[text]()
        else:
            try:
                point = coords.from_gtp(text, session.size)
            except ValueError:
                say(f"cannot read {line.strip()!r}: {HELP}")
                continue
            done = session.click(point)
        if done and text != "resign":
            say(str(session.board))
        say(session.message)
    path = session.save(save_as)
    say(f"{'game over: ' + session.result + '; ' if session.over else ''}saved {path}")
    return path


# ------------------------------------------------------------ command line


def configure_parser(parser):
    """The options of ``mockgo play``."""
    parser.description = (
        "Play a game of Go in the terminal against any player: the board drawn after each "
        f"move; {HELP}. The game is saved as SGF at its end, and on quit.")
    parser.add_argument("spec", help="the opponent: a player spec, such as random, "
                                     "policy:pretrained=sl-19, gnugo:level=1, mcts:readouts=200")
    parser.add_argument("--size", type=int, default=19, help="board size (default 19)")
    parser.add_argument("--komi", type=float, default=7.5, help="komi (default 7.5)")
    parser.add_argument("--color", choices=("black", "white"), default="black",
                        help="the colour you play (default black)")
    parser.add_argument("--sgf", metavar="OUT.sgf",
                        help="where the game is saved (default mockgo-DATE-TIME.sgf here)")
    parser.add_argument("--seed", type=int, default=0, help="the opponent's random generator")
    return parser


def run_cli(args):
    """``mockgo play SPEC``: a game in the terminal, on standard input and output."""
    if not 2 <= args.size <= coords.MAX_GTP_SIZE:
        raise InputError(f"--size {args.size}: a board of 2 to {coords.MAX_GTP_SIZE} lines")
    try:
        opponent = plan_player(args.spec)  # a wrong spec is named before anything loads
    except (FileNotFoundError, ValueError) as error:
        raise InputError(str(error)) from None
    if opponent.size is not None and opponent.size != args.size:
        raise InputError(f"{args.spec} plays on {opponent.size}x{opponent.size} boards, not "
                         f"{args.size}x{args.size}: give --size {opponent.size}")
    if isinstance(opponent, PlayerPlan):
        opponent = opponent.build()
    session = GameSession(opponent, size=args.size, komi=args.komi, you=args.color,
                          save_as=args.sgf, seed=args.seed)
    try:
        play_in_terminal(session, sys.stdin, sys.stdout, prompt=sys.stdin.isatty())
    finally:
        session.close()
    return 0
