"""What the board widget does, in plain Python: a game against an engine, or
the review of a record, testable without a browser.

A :class:`GameSession` holds a :class:`~mockgo.data.gametree.GameTree` and a
:class:`~mockgo.data.gametree.Cursor` in it. In a game (``opponent`` given:
any player spec of :func:`mockgo.play.specs.make_player`, ``policy:...``,
``mcts:...``, ``uct:...``, ``gnugo:level=5``, or a Player) the learner's
click becomes a move (:meth:`GameSession.click`; an illegal one is refused
with a message saying why), then :meth:`GameSession.engine_move` asks the
engine for its answer and plays it; ``pass_turn``, ``undo`` (back to the
learner's previous turn), ``resign``, ``new_game`` and ``save`` do what they
say. In a review (no opponent) the cursor walks the record and its
variations, and a click plays a move there, adding a variation.

What the overlays show comes from here too: the policy's move probabilities
(:meth:`GameSession.policy`), a search's visit counts and values for the top
moves (:meth:`GameSession.search`: the search that chose the move just played,
from the :class:`~mockgo.data.gametree.SearchSummary` in its comment, which
the engine's moves get here and Zero's self-play writes), and black's winning chances over the game
(:meth:`GameSession.win_rates`): a value network's at every position when
there is one, else the searches' own values. The networks are the
engine's (a ``policy:`` player's network, an ``mcts:`` player's dual
network, an ``alphago:`` player's policy and value networks), or given with
``network=`` (a policy or a dual network) and ``value_network=``.

The session is not thread-safe: the widget (:mod:`mockgo.board_widget.widget`)
runs one action at a time, the engine's in a thread of its own.
"""

import datetime
from pathlib import Path

import numpy as np

from mockgo import pretrained
from mockgo.data.gametree import Cursor, GameTree, SearchSummary, load_tree, read_tree, save_tree
from mockgo.go import coords
from mockgo.go.board import BLACK, COLOR_NAMES, ILLEGAL_REASONS, WHITE, IllegalMove
from mockgo.go.handicap import fixed_handicap_points
from mockgo.go.ownership import estimate_dead
from mockgo.nets.io import kind_of
from mockgo.play.player import RESIGN, Player
from mockgo.play.specs import make_player

__all__ = ["Analyst", "GameSession"]


def _color(value):
    if value in (BLACK, WHITE, None):
        return value
    return {"black": BLACK, "b": BLACK, "white": WHITE, "w": WHITE}[str(value).lower()]


class Analyst:
    """A network's opinion of positions: a policy (move probabilities) and a
    value (the chance that black wins), from up to two networks, each a
    ``(predictor, encoder)`` pair (:func:`mockgo.nets.inference.network_input`).
    Either may be None; a dual network is both."""

    def __init__(self, policy=None, value=None):
        self.policy_net, self.value_net = policy, value

    @classmethod
    def from_networks(cls, network=None, value_network=None):
        """From a policy or dual network and/or a value network (Keras
        models, paths, names of shipped networks, or Predictors)."""
        def load(model):
            from mockgo.nets.inference import network_input  # lazy: it imports Keras

            if isinstance(model, str) and model in pretrained.names():
                model = pretrained.load(model)
            return network_input(model)

        policy = value = None
        if network is not None:
            policy = load(network)
            kind = kind_of(policy[0].model)
            if kind == "value":
                policy, value = None, policy
            elif kind == "dual":
                value = policy
        if value_network is not None:
            value = load(value_network)
        return cls(policy, value) if policy or value else None

    @classmethod
    def from_player(cls, player):
        """The networks a player moves by, or None (random, UCT, GnuGo...)."""
        predictor = getattr(player, "predictor", None)  # PolicyPlayer
        if predictor is not None:
            pair = (predictor, player.encoder)
            return cls(pair, pair if predictor.is_dual else None)
        evaluate = getattr(player, "evaluate", None)
        if hasattr(evaluate, "predictor"):  # NetworkEvaluator: a dual network
            pair = (evaluate.predictor, evaluate.encoder)
            return cls(pair, pair)
        if hasattr(evaluate, "policy_encoder"):  # AlphaGoEvaluator
            value = None if evaluate.value is None else (evaluate.value, evaluate.value_encoder)
            return cls((evaluate.policy, evaluate.policy_encoder), value)
        return None

    @property
    def size(self):
        return (self.policy_net or self.value_net)[1].size

    def policy(self, board):
        """Move probabilities (N*N + 1, pass last) masked to the legal
        moves, or None without a policy network."""
        if self.policy_net is None:
            return None
        from mockgo.nets.inference import masked_policy  # lazy: it imports Keras

        predictor, encoder = self.policy_net
        out = predictor.predict(encoder.encode(board)[None])
        out = out[0] if isinstance(out, tuple) else out
        return masked_policy(np.asarray(out)[0], board.legal_moves())

    def black_win_rates(self, boards):
        """The chance that black wins each position (0 to 1), in one
        network call; None without a value network."""
        if self.value_net is None or not boards:
            return None
        predictor, encoder = self.value_net
        planes = np.stack([encoder.encode(board) for board in boards])
        out = predictor.predict(planes)
        values = np.asarray(out[1] if isinstance(out, tuple) else out, float).reshape(len(boards))
        to_play = np.array([board.to_play for board in boards])
        return np.where(to_play == BLACK, (values + 1) / 2, (1 - values) / 2)


class GameSession:
    """A game against ``opponent`` (a spec or a Player; None: a review),
    or the review of ``tree`` (a GameTree, an SGF path, or SGF text); with
    both, the game goes on from the end of the tree's main line.

    ``you``: the colour the learner plays (``"black"`` or ``"white"``); the
    engine plays the other. ``size``, ``komi``, ``handicap`` (black's
    stones, on the usual points) set up new games. ``network``,
    ``value_network``: what the overlays use (module docstring). ``save_as``:
    the file :meth:`save` writes (default: ``mockgo-<date>-<time>.sgf`` in
    the working folder). ``seed``: the engine's generator.
    """

    def __init__(self, opponent=None, tree=None, size=19, komi=7.5, you="black", handicap=0,
                 network=None, value_network=None, save_as=None, seed=0, name="you"):
        self.engine = None if opponent is None else make_player(opponent) \
            if not isinstance(opponent, Player) else opponent
        self.you = _color(you) if self.engine is not None else None
        self.name = name
        self.seed = seed
        self.size, self.komi, self.handicap = size, komi, handicap
        self.save_as = None if save_as is None else Path(save_as)
        self.message = ""
        self.games = 0
        self._policies = {}  # node -> the policy of its position
        self._win_rates = {}  # node -> black's chance from the value network
        self._has_summaries = None
        self.analyst = Analyst.from_networks(network, value_network)
        if self.analyst is None and self.engine is not None:
            self.analyst = Analyst.from_player(self.engine)
        if tree is not None:
            self.load(tree)
            if self.engine is not None:  # play on from the end of its main line
                self.cursor.to_end()
                self._start_engine()
        elif self.engine is None:
            raise ValueError("give an opponent to play, or a tree to review")
        else:
            self.new_game()

    # ------------------------------------------------------------- state

    @property
    def mode(self):
        return "play" if self.engine is not None else "review"

    @property
    def board(self):
        return self.cursor.board

    @property
    def node(self):
        return self.cursor.node

    @property
    def result(self):
        """The game's result (``RE``), once it is over."""
        values = self.tree.root.properties.get("RE")
        return values[0] if values else None

    @property
    def over(self):
        """In a game: a result is set (two passes, or a resignation)."""
        return self.mode == "play" and self.result is not None

    def engine_to_move(self):
        """Whether the engine should move now."""
        return self.mode == "play" and not self.over and self.board.to_play != self.you

    # ------------------------------------------------------------- games

    def new_game(self, you=None):
        """A new empty game (the same opponent, board, komi, handicap)."""
        if self.engine is None:
            raise ValueError("a review has no games to start: give an opponent")
        if you is not None:
            self.you = _color(you)
        stones = fixed_handicap_points(self.size, self.handicap) if self.handicap else []
        names = {self.you: self.name, 3 - self.you: self.engine.name}
        self.tree = GameTree.new(self.size, self.komi, black=names[BLACK], white=names[WHITE],
                                 date=datetime.date.today().isoformat(),
                                 handicap_stones=[int(p) for p in stones])
        self.cursor = Cursor(self.tree)
        self._policies.clear()
        self._win_rates.clear()
        self._start_engine()

    def _start_engine(self):
        self.engine.check_size(self.size)
        self.games += 1
        self._rng = self.engine.game_rng([self.seed, self.games])
        self.engine.start_game(0, self.board.copy(), self._rng)
        self.message = (f"you play {COLOR_NAMES[self.you]} against {self.engine.name}: "
                        + ("click a point" if not self.engine_to_move() else "its move"))

    def load(self, tree):
        """Review ``tree`` (a GameTree, a path, or SGF text), from its start."""
        if isinstance(tree, GameTree):
            self.tree = tree
        elif isinstance(tree, Path) or (isinstance(tree, str) and not tree.lstrip().startswith("(")
                                        and "\n" not in tree):
            self.tree = load_tree(tree)
        else:
            self.tree = read_tree(tree)
        self.size = self.tree.size
        self.cursor = Cursor(self.tree)
        self._policies.clear()
        self._win_rates.clear()
        self._has_summaries = None
        info = self.tree.record(self.tree.root)
        self.message = (f"{info.black or 'black'} against {info.white or 'white'}"
                        f"{', ' + info.result if info.result else ''}: "
                        f"{len(self.tree.record().moves)} moves in the main line")

    # ------------------------------------------------------------ moves

    def click(self, point):
        """The learner clicked ``point`` (a flat index): play it if it may
        be played. Returns whether it was; ``message`` says why not."""
        if not 0 <= point < self.size * self.size:
            self.message = f"{point} is not a point of the board"
            return False
        return self._play(point)

    def pass_turn(self):
        return self._play(self.board.pass_index)

    def _play(self, move):
        if self.mode == "play":
            if self.over:
                self.message = f"the game is over ({self.result}): start a new game"
                return False
            if self.engine_to_move():
                self.message = f"it is {self.engine.name}'s turn"
                return False
            if self.node.children:
                self.message = "go to the end of the game to play on"
                return False
        where = coords.to_gtp(move, self.size)
        reason = self.board.illegal_reason(move)
        if reason:
            self.message = f"{where} is illegal: {ILLEGAL_REASONS[reason]}"
            return False
        color = self.board.to_play
        self.cursor.play(move)
        self.message = f"{COLOR_NAMES[color]} {'passes' if move == self.board.pass_index else where}"
        if self.mode == "play":
            self.engine.observe(0, self.board, move)
            self._end_if_two_passes()
        return True

    def engine_move(self):
        """The engine's answer, played (or its resignation); returns the move.
        Its search's summary, if it searched, becomes the move's comment."""
        if not self.engine_to_move():
            raise RuntimeError("it is not the engine's turn")
        board = self.board
        move = self.engine.select_move(board.copy(), self._rng, game=0)
        summary = None
        if hasattr(self.engine, "search_summary"):
            summary = self.engine.search_summary(0, board)
        color = board.to_play
        if move == RESIGN:
            self.tree.set_property(self.tree.root, "RE", f"{'BW'[color == BLACK]}+R")
            self.message = f"{self.engine.name} resigns: you win"
            return move
        self.cursor.play(move)
        if summary is not None:
            self.tree.set_property(self.node, "C", summary.comment(self.size))
        self.engine.observe(0, self.board, move)
        self.message = f"{self.engine.name} ({COLOR_NAMES[color]}) " + (
            "passes" if move == board.pass_index else f"plays {coords.to_gtp(move, self.size)}")
        self._end_if_two_passes()
        return move

    def _end_if_two_passes(self):
        if self.board.passes >= 2:
            dead = estimate_dead(self.board, seed=self.seed)
            result = self.board.result(dead)
            self.tree.set_property(self.tree.root, "RE", result)
            self.message = f"two passes: {result} (Tromp-Taylor area, {len(dead)} dead stones " \
                           f"removed by playouts)"
            self.engine.end_game(0)

    def resign(self):
        """The learner gives up the game."""
        if self.mode != "play" or self.over:
            self.message = "there is no game to resign"
            return False
        self.tree.set_property(self.tree.root, "RE", f"{'BW'[self.you == BLACK]}+R")
        self.message = f"you resign: {self.result}"
        self.engine.end_game(0)
        return True

    def undo(self):
        """Take back the learner's last move and the engine's answer (a
        resignation or a result is taken back too): the position is the one
        before that move, the learner to play."""
        if self.mode != "play":
            return self.back()
        line = self.cursor.line
        human = [node for node in line[1:] if self.tree.move(node)
                 and self.tree.move(node)[0] == self.you]
        if not human:
            self.message = "nothing to undo"
            return False
        self.tree.set_property(self.tree.root, "RE", None)
        target = human[-1].parent
        self.tree.remove(human[-1])
        self.cursor = Cursor(self.tree, target)
        self.message = f"undone: back to move {self.cursor.move_number}"
        return True

    def save(self, path=None):
        """Write the game (the whole tree) as SGF; returns the path."""
        path = Path(path or self.save_as or
                    f"mockgo-{datetime.datetime.now():%Y%m%d-%H%M%S}.sgf")
        save_tree(self.tree, path)
        self.message = f"saved {path}"
        return path

    def sgf(self):
        return self.tree.to_sgf()

    # -------------------------------------------------------- navigation

    def forward(self, variation=0):
        try:
            moved = self.cursor.forward(variation)
        except IllegalMove as error:
            self.message = f"cannot go there: {error}"
            return False
        self.message = "" if moved else "the end of this line"
        return moved

    def back(self):
        moved = self.cursor.back()
        self.message = "" if moved else "the start of the game"
        return moved

    def to_start(self):
        self.cursor.to_start()
        self.message = ""
        return True

    def to_end(self):
        self.cursor.to_end()
        self.message = ""
        return True

    def go_to(self, move_number):
        self.cursor.go_to(int(move_number))
        self.message = ""
        return True

    def choose_variation(self, index):
        """Switch to the ``index`` th alternative of the current move."""
        siblings = self.cursor.siblings()
        if not 0 <= index < len(siblings) or self.node.parent is None:
            return False
        self.cursor.back()
        return self.forward(index)

    # ---------------------------------------------------------- overlays

    def policy(self):
        """The network's move probabilities here, or None without a policy
        network (cached per node)."""
        if self.analyst is None or self.analyst.policy_net is None \
                or self.analyst.size != self.size:
            return None
        if self.node not in self._policies:
            self._policies[self.node] = self.analyst.policy(self.board)
        return self._policies[self.node]

    def search(self):
        """The search that chose the move of this node: the summary in its
        comment (the engine's, or Zero's self-play), or None."""
        return SearchSummary.parse(self.tree.comment(self.node), self.size)

    def evaluation(self, compute=True):
        """The value network's chance that black wins here (0 to 1), or
        None without one; ``compute=False``: only if already known."""
        analyst = self.analyst
        if analyst is None or analyst.value_net is None or analyst.size != self.size:
            return None
        if compute and self.node not in self._win_rates:
            self._win_rates[self.node] = float(analyst.black_win_rates([self.board])[0])
        return self._win_rates.get(self.node)

    def line(self):
        """The nodes of the current line: to here, then the main continuation."""
        nodes = list(self.cursor.line)
        while nodes[-1].children:
            nodes.append(nodes[-1].children[0])
        return nodes

    def win_rates(self):
        """Black's winning chances after each move of the current line
        (index = move number; None where nothing is known): the value
        network's, or else each position's search summary's."""
        nodes = self.line()
        boards = self._boards(nodes)
        positions = [(node, board) for node, board in zip(nodes, boards) if board is not None]
        if self.analyst is not None and self.analyst.value_net is not None \
                and self.analyst.size == self.size:
            todo = [(node, board) for node, board in positions if node not in self._win_rates]
            if todo:
                rates = self.analyst.black_win_rates([board for _, board in todo])
                self._win_rates.update({node: float(r) for (node, _), r in zip(todo, rates)})
            known = {board.move_number: self._win_rates[node] for node, board in positions}
        else:
            known = {}
            for node, board in positions:
                summary = next((s for s in (SearchSummary.parse(self.tree.comment(child),
                                                                 self.size)
                                            for child in node.children[:1]) if s), None)
                if summary is not None:
                    known[board.move_number] = summary.win_rate(board.to_play)
        last = max((board.move_number for _, board in positions), default=0)
        return [known.get(k) for k in range(last + 1)]

    def _boards(self, nodes):
        """The position after each node (a copy where it has a move; None
        after a move the rules forbid, and from there on)."""
        record = self.tree.record(nodes[0])
        board = record.board()
        out = []
        for node in nodes:
            if node is not nodes[0]:
                move = self.tree.move(node)
                if move is not None:
                    if board is None or board.illegal_reason(move[1], move[0]):
                        board = None
                    else:
                        board = board.copy()
                        board.play(move[1], move[0])
            out.append(board)
        return out

    # ----------------------------------------------------------- the view

    def variations(self):
        """The moves that can follow, as ``(index, label, comment)``."""
        out = []
        for index, child in enumerate(self.node.children):
            move = self.tree.move(child)
            label = "—" if move is None else \
                f"{'BW'[move[0] == WHITE]} {coords.to_gtp(move[1], self.size)}"
            out.append((index, label, self.tree.comment(child) or ""))
        return out

    def info(self):
        """What the view shows beside the board."""
        board = self.board
        root = self.tree.record(self.tree.root)
        siblings = self.cursor.siblings()
        return {
            "mode": self.mode, "size": self.size, "move_number": board.move_number,
            "to_play": COLOR_NAMES[board.to_play],
            "black": root.black or "black", "white": root.white or "white",
            "captures": {"black": board.captures[BLACK], "white": board.captures[WHITE]},
            "komi": board.komi, "result": self.result, "over": self.over,
            "message": self.message,
            "comment": self.tree.comment(self.node) or "",
            "variations": [list(v) for v in self.variations()],
            "sibling": [siblings.index(self.node), len(siblings)],
            "can_undo": self.mode == "play" and len(self.cursor.line) > 1,
            "has_policy": self.analyst is not None and self.analyst.policy_net is not None
            and self.analyst.size == self.size,
            "has_search": self._searches(),
            "has_graph": self._searches() or (self.analyst is not None
                                              and self.analyst.value_net is not None
                                              and self.analyst.size == self.size),
            "evaluation": self.evaluation(compute=False),
            "engine": None if self.engine is None else self.engine.name,
            "you": None if self.you is None else COLOR_NAMES[self.you],
            "last_move": None if board.last_move is None
            else coords.to_gtp(board.last_move, self.size),
        }

    def _searches(self):
        """Whether there are searches to show: the engine searches, or the
        record has search summaries (looked for once)."""
        if self.engine is not None:
            return hasattr(self.engine, "search_summary")
        if self._has_summaries is None:
            self._has_summaries = any(SearchSummary.parse(self.tree.comment(node), self.size)
                                      for node in self.tree.nodes())
        return self._has_summaries

    def close(self):
        if self.engine is not None:
            self.engine.close()
