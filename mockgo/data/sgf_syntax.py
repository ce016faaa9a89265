"""SGF's syntax: text to a tree of nodes of properties, and back.

An SGF file is a *collection* of *game trees*; a game tree is a sequence of
*nodes* followed by its *variations* (more game trees); a node is ``;``
followed by *properties*, each an upper-case identifier and one or more
bracketed values::

    (;GM[1]SZ[9]C[a comment];B[ee];W[cc](;B[gc];W[gg])(;B[cg]C[a variation]))

This module knows only that grammar (FF[4], section 3 of the standard); what
the properties *mean* (moves, set-up stones, komi...) is for
:mod:`mockgo.data.sgf_reader` (a game's main line) and
:mod:`mockgo.data.gametree` (the whole tree, with navigation). It parses the
first game tree of a text into :class:`SyntaxNode` s, each with its
properties (an ordered dict of identifier to list of values) and children;
the first child is the main line's next node. A value is kept as written,
with its escapes undone (``\\]`` is ``]``, ``\\\\`` is ``\\``; a backslash
before a line break keeps the line break), spaces and line breaks included.

The grammar is read by the ``sgf`` package (``sgf.Parser``, which builds
``sgf.GameTree`` s of ``sgf.Node`` s); this module wraps it and turns its
tree into SyntaxNodes. As in ``sgf``: text before the first ``(`` is
ignored; only the ASCII white space `` \\t\\r\\n`` may stand between
tokens; a property given twice in one node keeps its last values. What the
wrapper adds, where ``sgf`` alone falls short on real files:

- *The first game only.* ``sgf`` reads a whole collection and fails on
  anything after it (NULs, a ``^Z``, a signature in old files); the text
  is cut at the ``)`` that closes the first game tree
  (:func:`first_game_end`). A file cut off right after a variation's ``)``
  is read as far as it goes.
- *Errors with a line and column.* ``sgf.ParseException`` gives only the
  character and the parser's state; the wrapper hands the parser an
  iterator of the text and asks it how far it got, which gives the
  position, and tells a character that cannot be there from a text that
  ran out. Errors are :class:`SGFSyntaxError` (a ValueError) naming the
  line and column, and every node keeps the position of its ``;``, so that
  the readers' errors can name a node's line.
- *Bounds.* A node costs some 200 bytes of memory as a SyntaxNode, more as
  an ``sgf.Node``, and its share of the time of every reader after the
  parser, while it can be written in one byte (``;``): unbounded, ``sgf``
  took 12.5 s and 1.4 GB on a 4 MB file of empty nodes. So a game tree of
  more than :data:`MAX_NODES` nodes is refused (:class:`SGFTooLargeError`)
  as soon as the parser meets the node too many, before ``sgf`` builds it:
  the wrapper counts the nodes through the parser's ``start_node``
  callback. A long game is a few hundred nodes, a reviewed one with its
  variations a few thousand.
- *No recursion.* ``sgf`` parses without recursing, and its tree is turned
  into SyntaxNodes with a stack, so thousands of moves or of nested
  variations need no deep Python stack.

Writing stays this module's own (:func:`write_tree`): ``sgf``'s writer
(``GameTree.output``) recurses once per nested variation (a RecursionError
at 1,000 deep, where mockgo writes and reads back 5,000), sorts each
node's properties (``GM[1]FF[4]`` after ``AP``, a reviewed file's order
lost) and writes the whole tree on one line.

Speed: ``sgf`` reads a character at a time in Python, and makes some ten
objects a node; with the garbage collector paused while it does (see
``_GCPaused``), a KGS game (1.6 kB) parses in about 0.7 ms of
processor time, where the regular expressions mockgo used before took
0.5 ms, and ``read_sgf`` reads some 870 KGS games a second instead of 1,350
(best of five runs each, on the development machine). The worst files under
the size limit are read or refused in at most 1.46 s and 269 MB (mockgo's
former parser, measured right after: 1.37 s and 267 MB; the worst cases
are the 100,000-node ones, ``benchmarks/sgf_worst_case.py``).
"""

import gc
import itertools
import re
import threading

import sgf

__all__ = ["MAX_NODES", "SGFSyntaxError", "SGFTooLargeError", "SyntaxNode", "escape",
           "first_game_end", "line_and_column",
           "main_line", "parse_first_game", "write_tree"]


class SGFSyntaxError(ValueError):
    """Text that is not SGF: ``problem`` says what (``"unexpected ']'"``,
    ``"the file ends in the middle of the game"``), ``line`` and ``column``
    where (from 1)."""

    def __init__(self, problem, line, column):
        self.problem, self.line, self.column = problem, line, column
        super().__init__(f"{problem} (line {line}, column {column})")

    def __reduce__(self):
        return SGFSyntaxError, (self.problem, self.line, self.column)


class SGFTooLargeError(SGFSyntaxError):
    """SGF that may well be right but has more nodes than :data:`MAX_NODES`:
    ``line`` and ``column`` are where the node too many begins."""

    def __reduce__(self):
        return SGFTooLargeError, (self.problem, self.line, self.column)


#: The most nodes (moves, set-up, comments... in all the variations) a game
#: tree may have; see the module docstring.
MAX_NODES = 100_000


class SyntaxNode:
    """One node: ``properties`` (identifier to the list of its values, in
    the order read), ``children`` (the first continues the main line, the
    others are variations), ``parent`` (None at the root) and ``offset``
    (where its ``;`` is in the text it was read from; -1 for a node made in
    memory)."""

    __slots__ = ("properties", "children", "parent", "offset")

    def __init__(self, properties=None, parent=None, offset=-1):
        self.properties = {} if properties is None else properties
        self.children = []
        self.parent = parent
        self.offset = offset

    def __repr__(self):
        shown = "".join(f"{name}" + "".join(f"[{value}]" for value in values)
                        for name, values in self.properties.items())
        return f"<SyntaxNode ;{shown[:60]} ({len(self.children)} children)>"


def line_and_column(text, offset):
    """The line and column (from 1) of ``text[offset]``."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


# What can hold the parentheses of a game tree: a property value ("[",
# anything, "]", a backslash escaping the next character; unended, it runs
# to the end of the text), or a parenthesis. Linear: no backtracking.
_VALUE_OR_PARENTHESIS = re.compile(r"\[[^\\\]]*+(?:\\.[^\\\]]*+)*+\\?+(?:\]|\Z)|[()]",
                                   re.DOTALL)


def first_game_end(text):
    """Where the ``)`` that closes the first game tree of ``text`` is, or
    None if it has none. Parentheses are counted from the first ``(``,
    skipping property values, as the parser reads them."""
    depth = 0
    for token in _VALUE_OR_PARENTHESIS.finditer(text, max(text.find("("), 0)):
        char = token.group()
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return token.start()
    return None


# What may come next, for the error message, in each state of sgf's parser
# that raises ParseException on a character: after "(" (1), in a node (2),
# in a property's identifier (3), after a game tree's ")" (4), after a
# property's value (7).
_EXPECTED = {1: "a node (';')", 2: "a property, ';', '(' or ')'",
             3: "a property, ';', '(' or ')'", 4: "'(' or ')'",
             7: "a property, ';', '(' or ')'"}


def parse_first_game(text):
    """The root :class:`SyntaxNode` of the first game tree in ``text``.

    Reading stops at the ``)`` that closes it: whatever follows (more
    games, a signature, NULs) is not looked at. If the first game tree is
    never closed, the text after its last ``)`` is ignored, and what is
    before must end just after a ``)`` (a file cut off between two
    variations reads as far as it goes); else SGFSyntaxError.
    """
    start = text.find("(")
    if start < 0:
        raise SGFSyntaxError("no game tree", 1, 1)
    end = first_game_end(text)
    if end is None:  # never closed: up to the last ")"
        last = text.rfind(")")
        limit = last + 1 if last > start else len(text)
    else:
        limit = end + 1
    piece = text[start:limit]
    chars, the_end = iter(piece), _End()
    parser = _BoundedParser(text, start + len(piece), chars)
    collection = sgf.Collection(parser)
    with _GC_PAUSED:
        try:
            # chain: the parser reads the characters at C speed, and _End
            # notes that it read them all.
            parser.parse(itertools.chain(chars, the_end))
        except sgf.ParseException as error:
            if the_end.reached:  # in a value, a node... when the text ran out
                raise SGFSyntaxError("the file ends in the middle of the game",
                                     *line_and_column(text, limit)) from None
            char, state = error.args
            raise SGFSyntaxError(f"unexpected {char!r} where {_EXPECTED[state]} should be",
                                 *line_and_column(text, parser.offset())) from None
        root = _syntax_tree(collection[0], parser.offsets)
        parser.__dict__.clear()  # the callbacks it holds: bound to sgf's nodes
        return root


class _GCPaused:
    """Python's cyclic garbage collector paused while ``sgf`` builds its
    tree, then resumed as it was (a lock keeps two threads from crossing
    their pauses). ``sgf`` makes some ten objects a node, all alive until
    the parse ends: the collector, started again and again by so many new
    objects, looked through them for nothing, and took more time than the
    parse (at 100,000 nodes, 1.58 s of processor time with it, 0.64 s
    without)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._was_enabled = False

    def __enter__(self):
        self._lock.acquire()
        self._was_enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exception):
        if self._was_enabled:
            gc.enable()
        self._lock.release()


_GC_PAUSED = _GCPaused()


class _End:
    """An iterator of nothing that notes when it was reached."""

    reached = False

    def __iter__(self):
        return self

    def __next__(self):
        self.reached = True
        raise StopIteration


class _BoundedParser(sgf.Parser):
    """``sgf.Parser`` that notes where each node begins and refuses the
    node one more than :data:`MAX_NODES` before sgf builds it.

    sgf's tree builders hand the parser the method to call at each new node
    (``parser.start_node = ...``); the property below keeps that method and
    gives the parser a counting one in its place. Where the parser is, is
    what ``chars``, the iterator of the text it reads, has left."""

    def __init__(self, text, end, chars):
        self._text, self._end, self._chars = text, end, chars
        self.offsets = []  # of each node's ";" in ``text``, in the text's order

    def offset(self):
        """Where in ``text`` the character the parser read last is."""
        return self._end - self._chars.__length_hint__() - 1

    @property
    def start_node(self):
        return self._counted_start_node

    @start_node.setter
    def start_node(self, method):
        self._start_node = method

    def _counted_start_node(self):
        if len(self.offsets) == MAX_NODES:
            raise SGFTooLargeError(f"more than {MAX_NODES:,} nodes, the most a game tree "
                                   f"may have", *line_and_column(self._text, self.offset()))
        self.offsets.append(self.offset())
        self._start_node()


def _syntax_tree(game, offsets):
    """sgf's game tree as SyntaxNodes (sharing its property dicts). sgf
    nests a ``GameTree`` per variation; they are walked with a stack, as
    deep as they go, in the text's order, which is the order of
    ``offsets``. sgf's objects are taken apart as they are read: their
    links to each other (parent, previous, next, variations...) are cycles,
    which only the cyclic collector would free, some time later; without
    them, each is freed as soon as it is read."""
    offsets = iter(offsets)
    root = None
    stack = [(game, None)]  # a game tree, and the SyntaxNode it hangs from
    while stack:
        game, parent = stack.pop()
        for node in game.nodes:
            child = SyntaxNode(node.properties, parent, next(offsets))
            node.__dict__.clear()
            if parent is None:
                root = child
            else:
                parent.children.append(child)
            parent = child
        stack.extend((variation, parent) for variation in reversed(game.children))
        game.__dict__.clear()
    return root


def main_line(root):
    """The nodes of the main line, root first: the first child at each branch."""
    nodes = [root]
    while nodes[-1].children:
        nodes.append(nodes[-1].children[0])
    return nodes


def escape(value):
    """A property value as SGF writes it: ``\\`` and ``]`` escaped."""
    return value.replace("\\", "\\\\").replace("]", "\\]")


def _node_text(node):
    return ";" + "".join(name + "".join(f"[{escape(value)}]" for value in values)
                         for name, values in node.properties.items() if values)


def write_tree(root, nodes_per_line=10):
    """SGF text of the game tree under ``root``: ``(``, the nodes, one
    ``(...)`` per variation where a node has more than one child, ``)``.
    A sequence breaks its line every ``nodes_per_line`` nodes, and each
    variation starts on a new line, for people reading the file."""
    parts = []
    # What is still to write: a game tree to open at a node, or None, the ")"
    # that closes a game tree after its variations.
    stack = [root]
    while stack:
        node = stack.pop()
        if node is None:
            parts.append(")")
            continue
        parts.append("(" if not parts else "\n(")
        in_line = 0
        while True:
            if in_line == nodes_per_line:
                parts.append("\n")
                in_line = 0
            parts.append(_node_text(node))
            in_line += 1
            if len(node.children) != 1:
                break
            node = node.children[0]
        if node.children:  # variations, then this tree's ")"
            stack.append(None)
            stack.extend(reversed(node.children))
        else:
            parts.append(")")
    return "".join(parts) + "\n"
