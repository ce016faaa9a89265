"""A Go board to play and review on inside JupyterLab.

::

    from mockgo.board_widget import play, review
    play("policy:pretrained=sl-19")                 # click to play against the SL policy
    play("mcts:path=zero.keras,readouts=200", size=9, you="white")
    play("gnugo:level=5", size=9, save_as="me-vs-gnugo.sgf")
    review("runs/04_zero/quick/katago/sgf/000002/full/notebook-00000.sgf",
           network="runs/04_zero/quick/katago/models/000002.keras")

Three parts, each its own module: :mod:`~mockgo.board_widget.session`, the
game or review itself in plain Python (a click becomes a move or a message,
the engine answers, undo, the overlays' numbers), testable without a
browser; :mod:`~mockgo.board_widget.svg`, the pictures; and
:mod:`~mockgo.board_widget.widget`, the thin anywidget view that shows them
and sends the clicks back (the engine thinks in a background thread, so the
page never freezes). Headless, the widget's output is a static SVG picture.
"""

from mockgo.board_widget.session import GameSession

__all__ = ["play", "review"]


def play(opponent, size=19, komi=7.5, you="black", handicap=0, network=None,
         value_network=None, save_as=None, seed=0, overlays=("search",)):
    """A board to play ``opponent`` (a player spec such as
    ``"policy:pretrained=sl-19"``, ``"mcts:path=zero.keras,readouts=200"``,
    ``"gnugo:level=5"``, or a Player) on: click a point to move, then the
    engine answers. ``overlays``: which of ``"policy"``, ``"search"`` and
    ``"graph"`` are on at the start (the view has a switch for each). The
    other options are :class:`~mockgo.board_widget.session.GameSession`'s."""
    from mockgo.board_widget.widget import BoardWidget  # anywidget, only for a board shown

    session = GameSession(opponent, size=size, komi=komi, you=you, handicap=handicap,
                          network=network, value_network=value_network, save_as=save_as,
                          seed=seed)
    return BoardWidget(session, **_switches(overlays))


def review(game, network=None, value_network=None, move=0, overlays=("search", "graph"),
           save_as=None):
    """A board to step through ``game`` (an SGF path or text, or a
    GameTree) and its variations, each move's comment beside it; with a
    ``network`` (a policy or dual network: a path, a model, a shipped name)
    its probabilities and its value at every move. Starts at ``move``
    (a move number on the main line). Clicking a point adds a variation."""
    from mockgo.board_widget.widget import BoardWidget  # anywidget, only for a board shown

    session = GameSession(tree=game, network=network, value_network=value_network,
                          save_as=save_as)
    session.go_to(move)
    return BoardWidget(session, **_switches(overlays))


def _switches(overlays):
    unknown = set(overlays) - {"policy", "search", "graph"}
    if unknown:
        raise ValueError(f"unknown overlays {sorted(unknown)}: choose from policy, search, graph")
    return {f"show_{name}": name in overlays for name in ("policy", "search", "graph")}
