"""SGF's grammar (mockgo.data.sgf_syntax, around the ``sgf`` package's
parser): the tree of nodes it reads, the errors it names by line and column,
and the text it writes back.

The cases below pin down what the wrapper adds to ``sgf``: the first game
only, a file cut off between variations, errors with their position, no
recursion. (When mockgo parsed with its own regular expressions, and when it
went back to ``sgf``, the KGS games read into equal records and random and
damaged texts parsed or failed alike, position of the error included.)
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mockgo.data.sgf_syntax import (SGFSyntaxError, SyntaxNode, escape, first_game_end,
                                    line_and_column, main_line, parse_first_game, write_tree)

REVIEW = """(;GM[1]FF[4]SZ[9]C[a reviewed game]
;B[ee];W[cc]
(;B[gc]C[main line];W[gg]
  (;B[cg];W[dh])
  (;B[gh]C[second variation]))
(;B[cg]C[variation at move 3];W[gc]))"""


def props(nodes):
    return [node.properties for node in nodes]


def test_a_tree_with_variations():
    root = parse_first_game(REVIEW)
    assert root.parent is None and root.properties["C"] == ["a reviewed game"]
    assert props(main_line(root)) == [root.properties, {"B": ["ee"]}, {"W": ["cc"]},
                                      {"B": ["gc"], "C": ["main line"]}, {"W": ["gg"]},
                                      {"B": ["cg"]}, {"W": ["dh"]}]
    white_cc = main_line(root)[2]
    assert [child.properties for child in white_cc.children] == [
        {"B": ["gc"], "C": ["main line"]}, {"B": ["cg"], "C": ["variation at move 3"]}]
    assert all(child.parent is white_cc for child in white_cc.children)
    white_gg = main_line(root)[4]
    assert [c.properties.get("C") for c in white_gg.children] == [None, ["second variation"]]
    # Offsets point at each node's ";".
    assert REVIEW[white_cc.offset:].startswith(";W[cc]")


def test_values_keep_their_text_with_escapes_undone():
    root = parse_first_game("(;C[a \\] b \\\\ c\\\nd [e\\]\n  f]AB[aa][bb]\n [cc]LB[aa:x\\:y])")
    assert root.properties == {"C": ["a ] b \\ c\nd [e]\n  f"], "AB": ["aa", "bb", "cc"],
                               "LB": ["aa:x:y"]}


def test_a_property_given_twice_keeps_its_last_values():
    assert parse_first_game("(;B[aa]C[x]B[bb])").properties == {"B": ["bb"], "C": ["x"]}


def test_what_surrounds_the_first_game_is_not_read():
    root = parse_first_game("junk (;B[aa]) (;W[bb]) \x00\x1a -- signature (")
    assert props(main_line(root)) == [{"B": ["aa"]}]


def test_a_file_cut_off_between_variations_reads_as_far_as_it_goes():
    root = parse_first_game("(;B[aa](;W[bb])(;W[cc]) garbage")
    assert [c.properties for c in root.children] == [{"W": ["bb"]}, {"W": ["cc"]}]


@pytest.mark.parametrize("text, problem, line, column", [
    ("(;B[aa];W[bb]", "the file ends in the middle of the game", 1, 14),
    ("(;GM[1]\n;B[ee]]", "unexpected ']'", 2, 7),
    ("(;GM[1]\n;B[ee]", "the file ends in the middle of the game", 2, 7),
    ("(;GM[1]\n;B[ee]W", "the file ends in the middle of the game", 2, 8),
    ("(;GM[1]\n;B[ee]W)", "unexpected ')' where a property", 2, 8),
    ("(;GM[1]\n\n  ;b[ee])", "unexpected 'b'", 3, 4),
    ("(;GM [1])", "unexpected ' '", 1, 5),
    ("(;B[aa] [bb)", "the file ends in the middle of the game", 1, 13),
    ("()", "unexpected ')' where a node (';') should be", 1, 2),
    ("(;B[aa](;W[bb]);B[cc])", "unexpected ';' where '(' or ')' should be", 1, 16),
    ("(;C[smile :)", "the file ends in the middle of the game", 1, 13),
    ("(;B[aa]\x0c)", "unexpected '\\x0c'", 1, 8),
    ("no tree", "no game tree", 1, 1),
])
def test_errors_name_the_line_and_column(text, problem, line, column):
    with pytest.raises(SGFSyntaxError) as caught:
        parse_first_game(text)
    error = caught.value
    assert error.problem.startswith(problem)
    assert (error.line, error.column) == (line, column)
    assert str(error).endswith(f"(line {line}, column {column})")


def test_line_and_column():
    assert line_and_column("ab\ncd\nef", 0) == (1, 1)
    assert line_and_column("ab\ncd\nef", 4) == (2, 2)
    assert line_and_column("ab\ncd\nef", 6) == (3, 1)


def test_first_game_end_skips_parentheses_in_values():
    text = "(;C[a ( b \\] )];B[aa](;W[bb]))(;B[cc])"
    assert first_game_end(text) == text.index(")(")
    assert first_game_end("(;B[aa](;W[bb])") is None


def test_deep_games_and_deep_variations_need_no_recursion():
    moves = "".join(f";{'BW'[i % 2]}[aa]" for i in range(20000))
    assert len(main_line(parse_first_game("(;GM[1]" + moves + ")"))) == 20001
    nested = "(;B[aa]" * 5000 + ")" * 5000
    root = parse_first_game(nested)
    assert len(main_line(root)) == 5000
    assert write_tree(root).count("(") == 1  # one child each: one sequence
    # Every node of a 5,000-move line with a second child: 4,999 nested variations.
    root = node = SyntaxNode({"B": ["aa"]})
    for _ in range(4999):
        main, side = SyntaxNode({"W": ["bb"]}, node), SyntaxNode({"W": ["cc"]}, node)
        node.children += [main, side]
        node = main
    again = parse_first_game(write_tree(root))
    assert len(main_line(again)) == 5000
    assert all(len(n.children) == 2 for n in main_line(again)[:-1])


def test_write_then_parse_gives_the_same_tree():
    root = parse_first_game(REVIEW + "\n")
    text = write_tree(root)
    again = parse_first_game(text)
    assert write_tree(again) == text
    stack = [(root, again)]
    while stack:
        a, b = stack.pop()
        assert a.properties == b.properties and len(a.children) == len(b.children)
        stack.extend(zip(a.children, b.children))
    assert text.startswith("(;GM[1]FF[4]SZ[9]C[a reviewed game];B[ee];W[cc]\n(;B[gc]")


def test_written_values_are_escaped():
    node = SyntaxNode({"C": ["a ] b \\ c"]})
    assert write_tree(node) == "(;C[a \\] b \\\\ c])\n"
    assert escape("x]\\") == "x\\]\\\\"
    assert parse_first_game(write_tree(node)).properties == node.properties


def test_long_sequences_break_their_lines():
    root = parse_first_game("(;GM[1]" + ";B[aa];W[bb]" * 15 + ")")
    lines = write_tree(root, nodes_per_line=10).splitlines()
    assert len(lines) == 4 and lines[0].count(";") == 10


# Any tree of any property values: written, then read, it is the same tree.
PROPERTIES = settings(max_examples=60, deadline=None, derandomize=True,
                      suppress_health_check=[HealthCheck.too_slow])
property_lists = st.dictionaries(st.from_regex(r"[A-Z]{1,3}", fullmatch=True),
                                 st.lists(st.text(max_size=6), min_size=1, max_size=3),
                                 max_size=3)


@st.composite
def trees(draw):
    root = SyntaxNode(draw(property_lists))
    nodes = [root]
    for _ in range(draw(st.integers(0, 12))):
        parent = draw(st.sampled_from(nodes))
        child = SyntaxNode(draw(property_lists), parent)
        parent.children.append(child)
        nodes.append(child)
    return root


@PROPERTIES
@given(trees())
def test_any_tree_written_reads_back_the_same(root):
    again = parse_first_game(write_tree(root, nodes_per_line=3))
    stack = [(root, again)]
    while stack:
        a, b = stack.pop()
        assert a.properties == b.properties and len(a.children) == len(b.children)
        stack.extend(zip(a.children, b.children))
