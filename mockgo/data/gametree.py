"""Game trees: a game record with all its variations, and a cursor that
walks it, as Sabaki and other SGF editors show a game.

:func:`mockgo.data.sgf_reader.read_sgf` keeps a game's main line, which is what
datasets and matches need. A reviewed game is more: a move can have
alternatives (variations), each a line of its own, with comments, set-up
stones and any other property (markup, time left...). :func:`read_tree`
keeps all of it::

    tree = load_tree("review.sgf")
    cursor = Cursor(tree)
    cursor.forward()                    # the main line's next move
    cursor.variations()                 # the moves that follow here: [main, alternatives...]
    cursor.forward(variation=1)         # into the second of them
    cursor.play(coords.from_gtp("D4", 19))  # a move of one's own: a new variation
    cursor.board                        # the position here (a Board)
    save_tree(tree, "review.sgf")

A tree is made of :class:`~mockgo.data.sgf_syntax.SyntaxNode` s: each node's
``properties`` as read (identifier to the list of its values), its
``children`` (the first continues the main line) and its ``parent``. The
tree decodes what the properties mean with the same functions as the record
reader (:func:`GameTree.move`, :func:`GameTree.record`), so a tree's main line
is exactly :func:`~mockgo.data.sgf_reader.read_sgf`'s record.

Writing keeps every property and variation; it normalises two things, as
:func:`~mockgo.data.sgf_writer.to_sgf` does: the text is UTF-8, so the root's
``CA`` says ``UTF-8``, and komi is written with a decimal point (``KM[650]``,
komi x 100, becomes ``KM[6.5]``). :meth:`GameTree.same_as` compares two trees
up to those. Comments of a search (the Zero self-play SGFs, the board
widget's games) follow one format, :class:`SearchSummary`.
"""

import dataclasses
import math
import re

from mockgo.data import charsets, sgf_reader, sgf_syntax, sgf_writer
from mockgo.data.files import atomic_write_text
from mockgo.go import coords
from mockgo.go.board import BLACK, WHITE

__all__ = ["Cursor", "GameTree", "SearchSummary", "load_tree", "read_tree", "save_tree"]

_COLOR_LETTERS = {BLACK: "B", WHITE: "W"}


class GameTree:
    """A game with its variations: ``root`` (a SyntaxNode whose properties
    are the game's information), ``size``, ``source`` (where it was read).

    Make one with :func:`read_tree`, or :meth:`new` for a game to play.
    Every node's move and set-up stones were checked when it was read or
    added; whether a move is legal is checked when a :class:`Cursor` goes
    there (an illegal move in a variation does not spoil the others).
    """

    def __init__(self, root, source="<tree>"):
        self.root = root
        self.source = source
        self.size = sgf_reader.record_from_nodes([root], source).size

    @classmethod
    def new(cls, size=19, komi=7.5, black=None, white=None, rules="Chinese", date=None,
            handicap_stones=(), comment=None):
        """A tree with only its root: a new game (FF[4], UTF-8, written by
        mockgo), black's handicap stones set up (flat points), if any."""
        info = sgf_reader.GameRecord(size=size, komi=komi, black=black, white=white, rules=rules,
                                     date=date, setup_black=list(handicap_stones),
                                     handicap=len(handicap_stones), game_comment=comment)
        return read_tree(sgf_writer.to_sgf(info), source="<new game>")

    # ------------------------------------------------------------ the tree

    def nodes(self):
        """Every node, depth first, main line before variations."""
        stack = [self.root]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def main_line(self):
        """The nodes of the main line, root first."""
        return sgf_syntax.main_line(self.root)

    @staticmethod
    def line_to(node):
        """The nodes from the root down to ``node``."""
        line = [node]
        while line[-1].parent is not None:
            line.append(line[-1].parent)
        return line[::-1]

    def record(self, node=None):
        """The :class:`~mockgo.data.sgf_reader.GameRecord` of the line from the
        root to ``node`` (default: the whole main line). For the main line
        it equals :func:`~mockgo.data.sgf_reader.read_sgf` of the file."""
        line = self.main_line() if node is None else self.line_to(node)
        return sgf_reader.record_from_nodes(line, self.source)

    def move(self, node):
        """``(color, flat move)`` of a node, or None if it has none."""
        return sgf_reader.node_move(node.properties, self.size, self.source, "?")

    @staticmethod
    def comment(node):
        """A node's comment (``C``), or None."""
        values = node.properties.get("C")
        return values[0] if values and values[0].strip() else None

    def set_property(self, node, name, value):
        """Set (``value``, a str) or remove (None) one property of a node."""
        if value is None:
            node.properties.pop(name, None)
        else:
            node.properties[name] = [value]

    def add_move(self, parent, color, move):
        """A new child of ``parent`` with ``color``'s ``move`` (no rules are
        checked: :meth:`Cursor.play` does); the last of its children, so a
        variation when ``parent`` already has one."""
        node = sgf_syntax.SyntaxNode({_COLOR_LETTERS[color]: [coords.to_sgf(move, self.size)]},
                                     parent)
        parent.children.append(node)
        return node

    @staticmethod
    def remove(node):
        """Take ``node`` and everything below it out of the tree."""
        if node.parent is None:
            raise ValueError("the root cannot be removed")
        node.parent.children.remove(node)
        node.parent = None

    # ------------------------------------------------------------ writing

    def to_sgf(self):
        """The tree as SGF text (UTF-8, komi with a decimal point)."""
        properties = {}
        for name, values in self.root.properties.items():  # CA[UTF-8] after GM and FF
            properties[name] = values
            if name in ("GM", "FF") and "CA" not in self.root.properties:
                properties.pop("CA", None)
                properties["CA"] = ["UTF-8"]
        properties["CA"] = ["UTF-8"]
        komi = sgf_reader.record_from_nodes([self.root], self.source).komi
        if "KM" in properties:
            properties["KM"] = [sgf_writer.format_komi(komi)]
        root = sgf_syntax.SyntaxNode(properties)
        root.children = self.root.children
        return sgf_syntax.write_tree(root)

    def same_as(self, other):
        """Whether ``other`` is the same tree: the same properties at every
        node, the same variations in the same order; the root's ``CA`` is not
        compared, and its komi as a number (what writing normalises)."""
        if self.size != other.size or \
                self.record(self.root).komi != other.record(other.root).komi:
            return False
        stack = [(self.root, other.root)]
        while stack:
            a, b = stack.pop()
            mine, theirs = a.properties, b.properties
            if a is self.root:
                mine, theirs = ({k: v for k, v in p.items() if k not in ("CA", "KM")}
                                for p in (mine, theirs))
            if mine != theirs or len(a.children) != len(b.children):
                return False
            stack.extend(zip(a.children, b.children))
        return True

    def __repr__(self):
        count = sum(1 for _ in self.nodes())
        return f"<GameTree {self.size}x{self.size} {self.source}: {count} nodes>"


def read_tree(data, source="<string>"):
    """A :class:`GameTree` from the text or bytes of an SGF file: its first
    game, every variation kept. Every node's move and set-up stones are
    checked (SGFError naming the node's line, as :func:`~mockgo.data.sgf_reader.read_sgf` does);
    the main line is then exactly ``read_sgf``'s record."""
    text = data if isinstance(data, str) else charsets.decode_sgf_bytes(data)
    root = sgf_reader.parse_first_game(text, source)
    sgf_reader.record_from_nodes(sgf_syntax.main_line(root), source, text)  # the main line's checks
    tree = GameTree(root, source)
    _check_variations(tree, text)
    return tree


def _check_variations(tree, text):
    """Check every node of the tree once, carrying down each line what the
    checks need of the nodes above (whether a move came, the set-up points
    listed so far and the moves so far), so that a tree of thousands of
    nested variations costs its number of nodes, not that squared."""
    size, source = tree.size, tree.source
    setup_limit = sgf_reader.SETUP_BOARDS * size * size
    # (node, moves above it, set-up points listed above it)
    stack = [(tree.root, 0, 0)]
    while stack:
        node, moves, listed = stack.pop()
        properties = node.properties
        try:
            move = sgf_reader.node_move(properties, size, source, "in a variation")
            for name in ("AB", "AW", "AE"):
                if name in properties:
                    # As in read_sgf: set-up stones before the first move only.
                    if moves:
                        raise sgf_reader.SGFError(source, "set-up stones mid-game", name)
                    listed += sgf_reader.count_setup_points(properties[name], size, source)
            moves += move is not None
            if listed > setup_limit:
                raise sgf_reader.SGFError(source, "bad set-up stones",
                                          f"more than {setup_limit:,} set-up points listed in "
                                          f"AB, AW and AE of one line")
            if moves > sgf_reader.MAX_MOVES:
                raise sgf_reader.SGFError(source, "too long",
                                          f"more than {sgf_reader.MAX_MOVES:,} moves in a "
                                          f"line of play")
        except sgf_reader.SGFError as error:
            line, _ = (sgf_syntax.line_and_column(text, node.offset) if node.offset >= 0
                       else (0, 0))
            raise sgf_reader.SGFError(error.source, error.reason,
                                      f"{error.detail} (line {line})" if error.detail
                                      else f"line {line}") from None
        stack.extend((child, moves, listed) for child in reversed(node.children))


def load_tree(path):
    """:func:`read_tree` of a file (with :func:`~mockgo.data.sgf_reader.load_sgf`'s
    checks: a regular file, not too large)."""
    return read_tree(sgf_reader._read_sgf_file(path), source=str(path))


def save_tree(tree, path):
    """Write the tree to ``path`` atomically (:meth:`GameTree.to_sgf`)."""
    atomic_write_text(path, tree.to_sgf())


# ------------------------------------------------------------------ cursor


class Cursor:
    """A place in a :class:`GameTree`: ``node``, the ``line`` of nodes from
    the root to it, and ``board``, the position after its move.

    Navigation: :meth:`forward` (into the main continuation or a
    variation), :meth:`back`, :meth:`go_to` (a move number on this line and
    its main continuation), :meth:`to_start`, :meth:`to_end`; :meth:`play`
    adds a move (a new variation when the node already has a different
    next move, or follows the existing one). Going to a node whose move the
    rules forbid raises :class:`~mockgo.go.board.IllegalMove` and stays
    where it was.
    """

    def __init__(self, tree, node=None):
        self.tree = tree
        self._go(tree.root if node is None else node)

    def _go(self, node):
        line = GameTree.line_to(node)
        record = sgf_reader.record_from_nodes(line, self.tree.source)
        board = record.board()
        for color, move in record.moves:
            board.play(move, color)  # IllegalMove names the move
        self.node, self.line, self.board = node, line, board

    @property
    def move_number(self):
        """Moves (passes included) played to reach this node."""
        return self.board.move_number

    def variations(self):
        """The nodes that can follow: the main continuation first."""
        return list(self.node.children)

    def siblings(self):
        """The alternatives to this node's move (itself included), in order."""
        return [self.node] if self.node.parent is None else list(self.node.parent.children)

    def forward(self, variation=0):
        """Go to the ``variation`` th next node (0: the main continuation);
        False at the end of the line."""
        children = self.node.children
        if not children:
            return False
        if not 0 <= variation < len(children):
            raise IndexError(f"{len(children)} variations here, not {variation + 1}")
        self._step(children[variation])
        return True

    def _step(self, child):
        move = self.tree.move(child)
        if child.properties.keys() & {"AB", "AW", "AE"}:
            self._go(child)  # set-up stones: replay (read_tree allows them before any move)
        elif move is None:
            self.node = child
            self.line = self.line + [child]
        else:
            board = self.board.copy()
            board.play(move[1], move[0])
            self.node, self.line, self.board = child, self.line + [child], board

    def back(self):
        """Go to the parent node; False at the root."""
        if self.node.parent is None:
            return False
        self._go(self.node.parent)
        return True

    def to_start(self):
        self._go(self.tree.root)

    def to_end(self):
        """Follow the main continuation to the end of the line."""
        while self.forward():
            pass

    def go_to(self, move_number):
        """Go to the node where move ``move_number`` was played on this line
        (0: the root), back along it or forward along its main continuation;
        clipped to the line's ends."""
        if move_number < self.move_number:
            target = self.tree.root
            if move_number > 0:
                count = 0
                for node in self.line:
                    count += self.tree.move(node) is not None
                    if count == move_number:
                        target = node
                        break
            self._go(target)
        while self.move_number < move_number and self.forward():
            pass

    def play(self, move, color=None):
        """Play ``move`` (a flat index or pass) for ``color`` (default: the
        player to move) here: go to the child with that move if there is
        one, else add it (a new variation if there are other children).
        Raises IllegalMove, adding nothing, if the rules forbid it."""
        color = self.board.to_play if color is None else color
        for child in self.node.children:
            if self.tree.move(child) == (color, move):
                self._step(child)
                return child
        board = self.board.copy()
        board.play(move, color)  # raises IllegalMove first
        child = self.tree.add_move(self.node, color, move)
        self.node, self.line, self.board = child, self.line + [child], board
        return child


# ------------------------------------------------------------ search comments


@dataclasses.dataclass
class SearchSummary:
    """What a search thought of a position, as an SGF comment: its ``value``
    for the player to move (-1 to +1), the ``visits`` of all its moves, and
    the most visited ``moves`` as ``(flat move, visits, Q)``, Q the move's
    value for the player to move. The Zero self-play games carry one per
    move (``mockgo.zero.selfplay``), written ``value +0.123, visits 200: E5
    80 (+0.14), D4 40 (+0.10)``; so do the board widget's games."""

    value: float
    visits: int
    moves: list

    def comment(self, size):
        moves = ", ".join(f"{coords.to_gtp(int(m), size)} {int(n)} ({q:+.2f})"
                          for m, n, q in self.moves)
        return f"value {self.value:+.3f}, visits {int(self.visits)}: {moves}"

    @classmethod
    def parse(cls, text, size):
        """The summary a comment starts with, or None if it has none."""
        match = _SUMMARY.match(text or "")
        if match is None:
            return None
        moves = []
        for vertex, visits, q in _SUMMARY_MOVE.findall(match.group(3)):
            try:
                moves.append((coords.from_gtp(vertex, size), int(visits), float(q)))
            except ValueError:
                return None
        value = float(match.group(1))
        return cls(value, int(match.group(2)), moves) if math.isfinite(value) else None

    def win_rate(self, to_play, color=BLACK):
        """The value as ``color``'s chance to win (0 to 1), the player to
        move being ``to_play``."""
        share = (self.value + 1) / 2
        return share if to_play == color else 1 - share


# A fast search of playout cap randomization says so first (mockgo.zero.selfplay).
_SUMMARY = re.compile(r"\s*(?:fast search, )?value ([+-]?[0-9.]+), visits ([0-9]+):([^\n]*)")
_SUMMARY_MOVE = re.compile(r"([A-Za-z]+[0-9]*|pass) ([0-9]+) \(([+-]?[0-9.]+)\)")
