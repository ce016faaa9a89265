"""SGF's syntax: text to a tree of nodes of properties, and back.

An SGF file is a *collection* of *game trees*; a game tree is a sequence of
*nodes* followed by its *variations* (more game trees); a node is ``;``
followed by *properties*, each an upper-case identifier and one or more
bracketed values::

    (;GM[1]SZ[9]C[a comment];B[ee];W[cc](;B[gc];W[gg])(;B[cg]C[a variation]))

This module knows only that grammar (FF[4], section 3 of the standard); what
the properties *mean* (moves, set-up stones, komi...) is for
:mod:`mockgo.data.records` (a game's main line) and
:mod:`mockgo.data.gametree` (the whole tree, with navigation). It parses the
first game tree of a text into :class:`SyntaxNode` s, each with its
properties (an ordered dict of identifier to list of values) and children;
the first child is the main line's next node. A value is kept as written,
with its escapes undone (``\\]`` is ``]``, ``\\\\`` is ``\\``; a backslash
before a line break keeps the line break), spaces and line breaks included.

As the ``sgf`` package that mockgo used before: text before the first ``(``
is ignored; only the ASCII white space `` \\t\\r\\n`` may stand between
tokens; a property given twice in one node keeps its last values; a file cut
off right after a variation's ``)`` is read as far as it goes. Errors are
:class:`SGFSyntaxError` (a ValueError) naming the line and column.

There is no recursion: the parser keeps its own stack of open game trees,
and :func:`write_tree` its own stack of nodes to write, so a game of
thousands of moves, or of thousands of nested variations, needs no deep
Python stack.

A node costs some 200 bytes of memory and its share of the time of every
reader after the parser, while it can be written in one byte (``;``): a
4 MB file of empty nodes would be 4 million of them, gigabytes and seconds.
So a game tree of more than :data:`MAX_NODES` nodes is refused
(:class:`SGFTooLargeError`) as soon as the parser meets the node too many,
before it was all read. A long game is a few hundred nodes, a reviewed one
with its variations a few thousand.
"""

import operator
import re

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


# The most nodes (moves, set-up, comments... in all the variations) a game
# tree may have; see the module docstring.
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


_SPACE = r"[ \t\r\n]*+"
_VALUE_TEXT = r"\[[^\\\]]*+(?:\\.[^\\\]]*+)*+\]"
_VALUES_TEXT = _VALUE_TEXT + r"(?:" + _SPACE + _VALUE_TEXT + r")*+"
_PROPERTY_TEXT = _SPACE + r"([A-Z]+)(" + _VALUES_TEXT + r")"
# One token after optional white space: a node (";" and all its properties),
# "(", ")", or any other character (an error: a property where none may be,
# a value never closed...).
_TOKEN = re.compile(_SPACE + r"(?:(;)((?:" + _SPACE + r"[A-Z]+" + _VALUES_TEXT + r")*+)"
                    r"|([()])|(.))", re.DOTALL)
_PROPERTY = re.compile(_PROPERTY_TEXT, re.DOTALL)
_ONE_PLAIN_PROPERTY = re.compile(r"([A-Z]+)\[([^\\\]\[]*)\]")
# One value, its text without the brackets.
_VALUE = re.compile(r"\[([^\\\]]*+(?:\\.[^\\\]]*+)*+)\]", re.DOTALL)
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
# What an escape stands for: the character after the backslash. A function
# in C, not the template r"\1", which Python expands anew for each match
# (a value of a million escapes took a second).
_ESCAPED = operator.itemgetter(1)

# What may come next in each state of the parser, for the error message.
_AFTER_OPEN, _IN_NODE, _AFTER_CLOSE = 0, 1, 2
_EXPECTED = {_AFTER_OPEN: "a node (';')", _IN_NODE: "a property, ';', '(' or ')'",
             _AFTER_CLOSE: "'(' or ')'"}


def _properties(text):
    """A node's properties from the text after its ``;``."""
    simple = _ONE_PLAIN_PROPERTY.fullmatch(text)
    if simple is not None:  # most nodes: a move, B[pd]
        return {simple.group(1): [simple.group(2)]}
    properties = {}
    # finditer, not findall: a node of a million properties (XX[]XX[]...)
    # must not make a list of a million tuples first.
    for identifier, values in map(re.Match.groups, _PROPERTY.finditer(text)):
        if "\\" not in values and values.count("[") == 1:
            properties[identifier] = [values[1:-1]]  # the usual case: one plain value
        else:  # given twice: the last one counts
            properties[identifier] = [_ESCAPE.sub(_ESCAPED, value) if "\\" in value else value
                                      for value in _VALUE.findall(values)]
    return properties


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
    try:
        return _parse(text, start, len(text))
    except SGFTooLargeError:
        raise  # reading again up to the last ")" would only meet it again
    except SGFSyntaxError:
        if first_game_end(text) is not None:
            raise  # the first game tree ends: the error is in it
    # Never closed: read up to the last ")".
    last = text.rfind(")")
    return _parse(text, start, last + 1 if last > start else len(text))


def _parse(text, start, limit):
    collection = SyntaxNode()  # holds the root as its only child
    open_trees = []  # the node each open game tree hangs from
    node = collection  # the node read last, or the one a closed tree hung from
    state = _AFTER_CLOSE
    nodes = 0
    for token in _TOKEN.finditer(text, start, limit):
        semicolon, properties, parenthesis, other = token.groups()
        if semicolon is not None:
            if state == _AFTER_CLOSE:
                _unexpected(text, token.start(1), state, limit)
            nodes += 1
            if nodes > MAX_NODES:
                raise SGFTooLargeError(f"more than {MAX_NODES:,} nodes, the most a game tree "
                                       f"may have", *line_and_column(text, token.start(1)))
            child = SyntaxNode(_properties(properties) if properties else {}, node,
                               token.start(1))
            node.children.append(child)
            node = child
            state = _IN_NODE
        elif parenthesis == "(":
            if state == _AFTER_OPEN:
                _unexpected(text, token.start(3), state, limit)
            open_trees.append(node)
            state = _AFTER_OPEN
        elif parenthesis == ")":
            if state == _AFTER_OPEN:
                _unexpected(text, token.start(3), state, limit)
            node = open_trees.pop()
            state = _AFTER_CLOSE
            if not open_trees:
                break
        else:
            at = token.start(4)
            _unexpected(text, _error_at(text, at, limit, state, text[:at].rstrip(" \t\r\n")
                                        .endswith("]")), state, limit)
    else:
        # The text ran out before the first game tree closed: readable only
        # if it stopped just after a variation's ")".
        if state != _AFTER_CLOSE or not open_trees:
            _unexpected(text, limit, state, limit)
    root = collection.children[0]
    root.parent = None
    return root


def _error_at(text, at, limit, state, after_property):
    """Where the character at ``at``, which no token matched, shows the
    text to be wrong: past ``limit`` if it opens a value that is never
    closed (the file ends in the middle), else the first character that
    cannot be there."""
    if state == _IN_NODE:
        if text[at] == "[" and after_property:
            return limit  # a property's next value
        if "A" <= text[at] <= "Z":  # an identifier: without a value, or one never closed
            while at < limit and "A" <= text[at] <= "Z":
                at += 1
            if at < limit and text[at] == "[":
                return limit
    return at


def _unexpected(text, at, state, limit):
    if at >= limit:
        raise SGFSyntaxError("the file ends in the middle of the game",
                             *line_and_column(text, min(at, len(text))))
    raise SGFSyntaxError(f"unexpected {text[at]!r} where {_EXPECTED[state]} should be",
                         *line_and_column(text, at))


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
