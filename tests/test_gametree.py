"""Game trees (mockgo.data.gametree): reading every variation, writing the
tree back, and walking it with a cursor.

The fixtures include two files with Sabaki-style branches
(``sabaki_review_19x19.sgf``: nested variations, markup, time left, passes,
escaped brackets, a comment over two lines; ``sabaki_handicap_9x9.sgf``:
Latin-1 text, komi written x100, handicap stones, ``PL``, an FF[3] pass
``tt``, a variation at the first move).
"""

import tarfile
from pathlib import Path

import numpy as np
import pytest

from mockgo.data import sgf_reader
from mockgo.data.gametree import Cursor, GameTree, SearchSummary, load_tree, read_tree, save_tree
from mockgo.go import coords
from mockgo.go.board import BLACK, WHITE, Board, IllegalMove

FIXTURES = Path(__file__).parent / "fixtures" / "sgf"
READABLE = sorted(p.name for p in FIXTURES.glob("*.sgf") if not p.name.startswith("bad_"))
BROKEN = sorted(p.name for p in FIXTURES.glob("*.sgf") if p.name.startswith("bad_"))
KGS = Path(__file__).resolve().parents[2] / "shared" / "data" / "kgs" / "KGS-2017_02-19-525-.tar.gz"


def gtp(moves, size):
    return [coords.to_gtp(move, size) for _, move in moves]


# ------------------------------------------------------------- reading


@pytest.mark.parametrize("name", READABLE)
def test_every_readable_fixture_round_trips(name):
    tree = load_tree(FIXTURES / name)
    assert tree.record() == sgf_reader.load_sgf(FIXTURES / name)  # the main line is read_sgf's
    text = tree.to_sgf()
    again = read_tree(text)
    assert again.same_as(tree) and tree.same_as(again)
    assert read_tree(text.encode("utf-8")).same_as(tree)
    assert again.to_sgf() == text  # writing is stable


@pytest.mark.parametrize("name", BROKEN)
def test_broken_fixtures_fail_as_read_sgf_does(name):
    with pytest.raises(sgf_reader.SGFError) as expected:
        sgf_reader.load_sgf(FIXTURES / name)
    with pytest.raises(sgf_reader.SGFError) as caught:
        load_tree(FIXTURES / name)
    assert caught.value.reason == expected.value.reason


def test_the_sabaki_review_keeps_every_branch_and_property():
    tree = load_tree(FIXTURES / "sabaki_review_19x19.sgf")
    assert sum(1 for _ in tree.nodes()) == 20
    assert gtp(tree.record().moves, 19) == ["Q16", "D16", "Q3", "D4", "F3", "C6", "R10",
                                            "pass", "pass"]
    after_move_3 = tree.main_line()[3]
    assert [tree.move(n) for n in after_move_3.children] == [
        (WHITE, coords.from_gtp("D4", 19)), (WHITE, coords.from_gtp("R5", 19)),
        (WHITE, coords.from_gtp("C3", 19))]
    knight = after_move_3.children[1]
    assert tree.comment(knight) == "A Sabaki branch at move 4:\nthe knight's approach."
    branch = knight.children[0].children[0].children[1]
    assert tree.comment(branch) == "Nested branch."
    nc = tree.main_line()[6].children[1]
    assert tree.comment(nc) == "Or the other side first [with brackets] and a backslash \\ too."
    assert nc.properties["LB"] == ["qj:A", "pj:B"] and nc.properties["SQ"] == ["dj"]
    assert tree.main_line()[7].properties["BL"] == ["1722.5"]


def test_writing_normalises_the_encoding_and_komi_only():
    path = FIXTURES / "sabaki_handicap_9x9.sgf"
    assert b"CA[ISO-8859-1]" in path.read_bytes() and b"KM[50]" in path.read_bytes()
    tree = load_tree(path)
    text = tree.to_sgf()
    assert text.startswith("(;GM[1]FF[4]CA[UTF-8]AP[Sabaki:0.52.2]SZ[9]KM[0.5]HA[2]AB[gc][cg]"
                           "PB[Müller]PW[José]PL[W]")
    assert "W[tt]C[White passes (the FF[3\\] way).]" in text and "C[très bien]" in text
    again = read_tree(text.encode("utf-8"))
    assert again.same_as(tree)
    assert again.root.properties["CA"] == ["UTF-8"] and again.record().komi == 0.5
    # Anything else that differs is a different tree.
    again.main_line()[-1].properties["C"] = ["tres bien"]
    assert not again.same_as(tree)
    again = read_tree(text)
    again.add_move(again.main_line()[-1], WHITE, 0)
    assert not again.same_as(tree)
    again = read_tree(text.replace("KM[0.5]", "KM[6.5]"))
    assert not again.same_as(tree)


def test_save_tree_writes_atomically(tmp_path):
    tree = load_tree(FIXTURES / "sabaki_review_19x19.sgf")
    path = tmp_path / "review.sgf"
    save_tree(tree, path)
    assert load_tree(path).same_as(tree)
    assert [p.name for p in tmp_path.iterdir()] == ["review.sgf"]


@pytest.mark.parametrize("text, reason, detail", [
    ("(;SZ[9];B[ee]\n(;W[cc])\n(;W[zz]))", "move off the board", "(line 3)"),
    ("(;SZ[9];B[ee]\n(;W[cc])\n(;W[cc]B[dd]))", "B and W in one node", "(line 3)"),
    ("(;SZ[9];B[ee]\n(;W[cc])\n(;AB[dd]))", "set-up stones mid-game", "(line 3)"),
    ("(;SZ[9];B[ee]\n(;W[cc])\n(;W[cc]\n;B[ee]]))", "does not parse", "line 4, column 7"),
])
def test_bad_nodes_in_variations_are_named_by_line(text, reason, detail):
    with pytest.raises(sgf_reader.SGFError) as caught:
        read_tree(text, source="review.sgf")
    assert caught.value.reason == reason and detail in str(caught.value)
    assert str(caught.value).startswith(f"review.sgf: {reason}")


def test_real_kgs_games_read_as_trees_give_read_sgfs_records():
    if not KGS.exists():
        pytest.skip(f"no KGS archive at {KGS}")
    with tarfile.open(KGS, "r|*") as archive:
        members = (m for m in archive if m.isfile() and m.name.endswith(".sgf"))
        for _, member in zip(range(40), members):
            data = archive.extractfile(member).read()
            tree = read_tree(data, member.name)
            assert tree.record() == sgf_reader.read_sgf(data, member.name)
            assert read_tree(tree.to_sgf()).same_as(tree)


# ------------------------------------------------------------ navigation


def review():
    return load_tree(FIXTURES / "sabaki_review_19x19.sgf")


def test_forward_back_and_the_board_at_each_node():
    tree = review()
    cursor = Cursor(tree)
    assert cursor.node is tree.root and cursor.move_number == 0 and not cursor.board.stones.any()
    assert cursor.back() is False
    boards = []
    while cursor.forward():
        boards.append(cursor.board.stones.copy())
    assert cursor.move_number == 9 and cursor.forward() is False
    # The same positions as replaying the main line's record.
    replayed = [board.stones.copy() for board, _, _ in sgf_reader.replay(tree.record())][1:]
    replayed.append(sgf_reader.final_board(tree.record()).stones)
    assert all((a == b).all() for a, b in zip(boards, replayed))
    assert cursor.back() and cursor.move_number == 8 and (cursor.board.stones == boards[-2]).all()
    cursor.to_start()
    assert cursor.move_number == 0
    cursor.to_end()
    assert cursor.node is tree.main_line()[-1]


def test_go_to_a_move_number_along_the_line():
    tree = review()
    cursor = Cursor(tree)
    cursor.go_to(5)
    assert cursor.move_number == 5 and gtp(cursor.board.history, 19)[-1] == "F3"
    cursor.go_to(2)
    assert cursor.move_number == 2 and cursor.node is tree.main_line()[2]
    cursor.go_to(0)
    assert cursor.node is tree.root
    cursor.go_to(500)  # clipped to the end of the line
    assert cursor.node is tree.main_line()[-1]
    # In a variation, go_to stays on its line.
    cursor.go_to(3)
    cursor.forward(variation=1)
    cursor.go_to(7)
    assert gtp(cursor.board.history, 19) == ["Q16", "D16", "Q3", "R5", "R4", "Q5", "P5"]
    cursor.go_to(5)
    assert gtp(cursor.board.history, 19) == ["Q16", "D16", "Q3", "R5", "R4"]


def test_into_a_variation_and_its_siblings():
    tree = review()
    cursor = Cursor(tree)
    cursor.go_to(3)
    assert [tree.comment(n) for n in cursor.variations()] == [
        None, "A Sabaki branch at move 4:\nthe knight's approach.",
        "Another branch, with a\nline break kept."]
    cursor.forward(variation=2)
    assert cursor.siblings() == tree.main_line()[3].children
    assert cursor.node.properties["HO"] == ["1"] and cursor.move_number == 4
    with pytest.raises(IndexError):
        cursor.back() and cursor.forward(variation=3)


def test_play_adds_a_variation_or_follows_the_existing_move():
    tree = review()
    cursor = Cursor(tree)
    cursor.go_to(3)
    node = tree.main_line()[3]
    existing = cursor.play(coords.from_gtp("R5", 19))
    assert existing is node.children[1] and len(node.children) == 3  # followed, not added
    cursor.back()
    new = cursor.play(coords.from_gtp("K10", 19))
    assert node.children[-1] is new and len(node.children) == 4
    assert tree.move(new) == (WHITE, coords.from_gtp("K10", 19))
    assert cursor.board.stones[coords.from_gtp("K10", 19)] == WHITE
    # The new line is written and read back with the rest.
    assert read_tree(tree.to_sgf()).same_as(tree)
    assert "(;W[jj]))" in tree.to_sgf()
    line = tree.record(new)
    assert gtp(line.moves, 19) == ["Q16", "D16", "Q3", "K10"]


def test_an_illegal_move_is_refused_and_changes_nothing():
    tree = GameTree.new(size=9, komi=7.5)
    cursor = Cursor(tree)
    cursor.play(coords.from_gtp("E5", 9))
    before = tree.to_sgf()
    with pytest.raises(IllegalMove, match="occupied"):
        cursor.play(coords.from_gtp("E5", 9))
    assert tree.to_sgf() == before and cursor.move_number == 1


def test_a_variation_with_an_illegal_move_reads_but_cannot_be_entered():
    # White's C7 (cc) is played on black's stone in the variation.
    tree = read_tree("(;SZ[9]KM[7.5];B[ee];W[cc]\n(;B[gg])\n(;B[cc]))")
    cursor = Cursor(tree)
    cursor.go_to(2)
    with pytest.raises(IllegalMove, match="occupied"):
        cursor.forward(variation=1)
    assert cursor.move_number == 2
    cursor.forward(variation=0)
    assert cursor.move_number == 3


def test_new_games_and_handicap_set_up():
    tree = GameTree.new(size=9, komi=0.5, black="me", white="random",
                        handicap_stones=[coords.from_gtp("C3", 9), coords.from_gtp("G7", 9)])
    cursor = Cursor(tree)
    assert cursor.board.to_play == WHITE and cursor.board.komi == 0.5
    assert (cursor.board.stones == BLACK).sum() == 2
    cursor.play(cursor.board.pass_index)
    cursor.play(coords.from_gtp("E5", 9))
    record = sgf_reader.read_sgf(tree.to_sgf())
    assert (record.black, record.white, record.handicap) == ("me", "random", 2)
    assert record.moves == [(WHITE, 81), (BLACK, coords.from_gtp("E5", 9))]
    tree.remove(tree.main_line()[-1])
    assert len(tree.record().moves) == 1
    with pytest.raises(ValueError):
        tree.remove(tree.root)


# ------------------------------------------------------- search comments


def test_search_summaries_read_back_and_read_zero_comments():
    summary = SearchSummary(0.25, 200, [(coords.from_gtp("E5", 9), 80, 0.14),
                                        (81, 40, -0.5)])
    text = summary.comment(9)
    assert text == "value +0.250, visits 200: E5 80 (+0.14), pass 40 (-0.50)"
    assert SearchSummary.parse(text, 9) == summary
    assert SearchSummary.parse("a comment", 9) is None and SearchSummary.parse(None, 9) is None
    assert summary.win_rate(BLACK) == 0.625 and summary.win_rate(WHITE) == 0.375
    assert summary.win_rate(WHITE, color=WHITE) == 0.625

    # What Zero's self-play writes (mockgo.play.search_player.search_comment).
    from mockgo.search.evaluators import uniform_evaluator
    from mockgo.search.games import GoGame
    from mockgo.search.mcts import MCTSPlayer
    from mockgo.play.search_player import search_comment

    player = MCTSPlayer(uniform_evaluator, num_readouts=24, dirichlet=False, seed=0)
    player.initialize(GoGame.from_board(Board(5), max_moves=50))
    player.search()
    parsed = SearchSummary.parse(search_comment(player), 5)
    assert parsed.visits == int(player.root.child_N.sum())
    top = int(np.argmax(player.root.child_N))
    assert parsed.moves[0][:2] == (top, int(player.root.child_N[top]))
