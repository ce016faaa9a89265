"""SGF files under the size limit that would cost gigabytes or minutes.

A file under :data:`~mockgo.data.sgf_reader.MAX_SGF_BYTES` can still describe
far more than its size: ``AB[aa:ss]`` is 7 bytes for 361 points, ``;`` one
byte for a node. Every reader (``read_sgf`` for datasets, matches and
``mockgo evaluate``; ``read_tree`` for reviews; GTP ``loadsgf``) must read
such a file or refuse it with an SGFError that says why, in bounded time
and memory. The time and memory of the worst cases are measured by
``benchmarks/sgf_worst_case.py``, not here: these tests check what is read
and what is refused, and with which message.
"""

import pytest

from mockgo.gtp.server import GTPServer
from mockgo.data import gametree
from mockgo.data.sgf_reader import MAX_MOVES, SETUP_BOARDS, SGFError, load_sgf, read_sgf
from mockgo.data.sgf_syntax import MAX_NODES
from mockgo.go.board import BLACK
from mockgo.play.random_player import RandomPlayer


def refusal(text, reader=read_sgf):
    with pytest.raises(SGFError) as caught:
        reader(text, source="game.sgf")
    return caught.value


# ------------------------------------------------- set-up lists that expand


@pytest.mark.parametrize("text", [
    # The file: 3.5 MB that expanded to 180 million points (4.5 GB,
    # 30 s) before it was refused as stones without liberties.
    "(;SZ[19]AB" + "[aa:ss]" * 500000 + ")",
    "(;SZ[19]AE" + "[aa:ss]" * 2000 + ")",  # AE: was read, after expanding them all
    "(;SZ[19]AW" + "[aa]" * 100000 + ")",  # many values of one point
    "(;SZ[19]AB[aa:ss][aa])",  # one more than the board
])
@pytest.mark.parametrize("reader", [read_sgf, gametree.read_tree])
def test_set_up_lists_of_more_than_a_board_are_refused(text, reader):
    error = refusal(text, reader)
    assert error.reason == "bad set-up stones"
    assert "more than 361 set-up points" in str(error) and "(line 1)" in str(error)
    assert str(error).startswith("game.sgf: ")


def test_set_up_points_of_a_line_are_bounded():
    # Each node lists the board once; five of them list it more often than
    # any position needs (they were read, each node rebuilding the lists).
    text = "(;SZ[19]" + ";AE[aa:ss]" * (SETUP_BOARDS + 1) + ";B[aa])"
    limit = f"{SETUP_BOARDS * 361:,}"
    for reader in (read_sgf, gametree.read_tree):
        error = refusal(text, reader)
        assert error.reason == "bad set-up stones"
        assert f"more than {limit} set-up points" in str(error)
    # Up to the limit, the set-up is read as before.
    record = read_sgf("(;SZ[19]" + ";AE[aa:ss]" * (SETUP_BOARDS - 1)
                      + ";AB[aa][ab:bb];AE[bb];B[cc])")
    assert record.setup_black == [0, 19] and record.moves == [(BLACK, 40)]


def test_set_up_in_a_variation_counts_for_its_line():
    # The main line is fine (read_sgf reads it); the second variation sets up
    # more points than a line may: read_tree, which checks every line, refuses.
    text = ("(;SZ[19](;B[aa])\n(" + ";AE[aa:ss]" * (SETUP_BOARDS + 1) + "))")
    assert read_sgf(text).moves == [(BLACK, 0)]
    error = refusal(text, gametree.read_tree)
    assert "set-up points" in str(error) and "(line 2)" in str(error)


def test_set_up_in_nested_variations_is_counted_down_each_line():
    # Set-up nodes nested 5,000 deep beside the main line: each was checked
    # against the whole line above it (12 million steps, and 200 million at
    # 20,000 deep) and read; now each is looked at once, and the line is
    # refused where its set-up points pass the limit.
    depth = 5000
    text = "(;SZ[19](;B[aa])\n" + "(;AE[aa]" * depth + ")" * depth + ")"
    assert len(read_sgf(text).moves) == 1
    error = refusal(text, gametree.read_tree)
    assert f"more than {SETUP_BOARDS * 361:,} set-up points" in str(error)
    assert "(line 2)" in str(error)


# ---------------------------------------------------- nodes, moves, values


@pytest.mark.parametrize("text", [
    "(;SZ[19]" + ";" * MAX_NODES + ")",  # a node a byte
    "(;SZ[19]" + "(;B[aa])" * MAX_NODES + ")",  # many variations
    "(;SZ[19]" + "(;" * MAX_NODES + ")" * MAX_NODES + ")",  # deep nesting
    "(;SZ[19]" + ";B[tt]" * MAX_NODES,  # never closed: not read twice
])
def test_trees_of_too_many_nodes_are_refused(text):
    for reader in (read_sgf, gametree.read_tree):
        error = refusal(text, reader)
        assert error.reason == "too large"
        assert f"more than {MAX_NODES:,} nodes" in str(error) and "(line 1, column " in str(error)


def test_trees_at_the_node_limit_are_read():
    tree = gametree.read_tree("(;SZ[19]" + "(;B[aa])" * (MAX_NODES - 1) + ")")
    assert len(tree.root.children) == MAX_NODES - 1
    record = read_sgf("(;SZ[19]" + ";C[note]" * (MAX_NODES - 1) + ")")
    # 99,999 comments without a move: joined once, not copied 99,999 times.
    assert record.game_comment == "\n\n".join(["note"] * (MAX_NODES - 1))


def test_lines_of_too_many_moves_are_refused():
    moves = ";B[tt];W[tt]" * (MAX_MOVES // 2)
    assert len(read_sgf("(;SZ[19]" + moves + ")").moves) == MAX_MOVES
    for text in ("(;SZ[19]" + moves + ";B[tt])", "(;SZ[19](;B[aa])(" + moves + ";B[tt]))"):
        error = refusal(text, gametree.read_tree)
        assert error.reason == "too long" and f"more than {MAX_MOVES:,} moves" in str(error)
    assert refusal("(;SZ[19]" + moves + ";B[tt])").reason == "too long"


def test_many_values_of_one_property_are_read():
    # Only the first value of C counts; a million of them cost one regular
    # expression, not a list of tuples per property.
    record = read_sgf("(;SZ[19]C[first]" + "[x]" * 1_000_000 + ";B[aa])")
    assert record.game_comment == "first" and record.moves == [(BLACK, 0)]
    record = read_sgf("(;SZ[19]" + "XX[]YY[]" * 500_000 + "C[last];B[aa])")
    assert record.game_comment == "last"


def test_escapes_are_undone_quickly_and_right():
    record = read_sgf("(;SZ[19]C[" + "\\]\\\\" * 500_000 + "])")
    assert record.game_comment == "]\\" * 500_000


# ------------------------------------------------------------- the readers


def test_gtp_loadsgf_refuses_what_the_readers_refuse(tmp_path):
    server = GTPServer(RandomPlayer(), size=19)
    path = tmp_path / "setup.sgf"
    path.write_text("(;SZ[19]" + ";AE[aa:ss]" * (SETUP_BOARDS + 1) + ";B[aa])")
    assert server.handle(f"loadsgf {path}\n") == "? cannot load file\n\n"
    with pytest.raises(SGFError, match="set-up points"):
        load_sgf(path)
    path.write_text("(;SZ[19]" + ";B[tt];W[tt]" * (MAX_MOVES // 2) + ";B[tt])")
    assert server.handle(f"loadsgf {path}\n") == "? cannot load file\n\n"
