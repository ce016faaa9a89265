"""The board widget's model (mockgo.board_widget.session) and its thin view
(widget.py), without a browser: clicks become moves or messages, the engine
answers (in a thread that leaves the kernel free), undo, saving, the
overlays, the review of a record with variations, the static picture.
The browser itself is tested end to end in tests/test_board_widget_e2e.py.
"""

import threading
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import numpy as np
import pytest

from mockgo.board_widget import play, review
from mockgo.board_widget.session import GameSession
from mockgo.board_widget.svg import board_svg, graph_svg
from mockgo.board_widget.widget import BoardWidget
from mockgo.data import sgf_reader
from mockgo.data.gametree import Cursor, GameTree, SearchSummary
from mockgo.go import coords
from mockgo.go.board import BLACK, EMPTY, WHITE, Board
from mockgo.play.random_player import RandomPlayer

FIXTURES = Path(__file__).parent / "fixtures" / "sgf"


def at(vertex, size=9):
    return coords.from_gtp(vertex, size)


def stones(session):
    return session.board.stones.copy()


def click_empty(session, vertices=("C3", "G7", "C7", "G3", "E3", "E7", "C5", "G5")):
    """Click the first of ``vertices`` that is empty (the random engine may
    have taken some); returns it."""
    vertex = next(v for v in vertices if session.board.stones[at(v)] == EMPTY)
    assert session.click(at(vertex)), session.message
    return vertex


# ------------------------------------------------------------ the model


def test_a_click_becomes_a_move_and_the_engine_answers():
    session = GameSession("random:seed=3", size=9)
    assert session.mode == "play" and not session.engine_to_move()
    assert session.click(at("E5"))
    assert session.board.stones[at("E5")] == BLACK and session.message == "black E5"
    assert session.engine_to_move()
    move = session.engine_move()
    assert 0 <= move < 81 and session.board.stones[move] == WHITE
    assert session.board.history == [(BLACK, at("E5")), (WHITE, move)]
    assert session.message == f"random (white) plays {coords.to_gtp(move, 9)}"
    assert not session.engine_to_move()


@pytest.mark.parametrize("setup, click, message", [
    (["E5"], "E5", "E5 is illegal: the point is occupied"),
    ([], "Z9", "is not a point of the board"),
])
def test_an_illegal_click_is_refused_with_a_message(setup, click, message):
    session = GameSession("random:seed=0", size=9)
    for vertex in setup:
        session.click(at(vertex))
        session.engine_move()
    before = session.sgf()
    point = at(click) if click != "Z9" else 81 + 5
    assert not session.click(point)
    assert message in session.message
    assert session.sgf() == before


def test_suicide_ko_and_out_of_turn_are_refused():
    # White's stones around A9: black A9 would be suicide.
    tree = GameTree.new(size=9)
    cursor = Cursor(tree)
    for vertex in ["E5", "B9", "E4", "A8"]:
        cursor.play(at(vertex))
    session = GameSession("random:seed=0", tree=tree)  # a game going on from that position
    assert session.board.move_number == 4 and session.board.to_play == BLACK
    assert not session.click(at("A9")) and "suicide" in session.message
    assert session.click(at("D5"))
    assert not session.click(at("D6")) and session.message == "it is random's turn"


def test_undo_restores_the_position_before_the_learners_move():
    session = GameSession("random:seed=1", size=9)
    session.click(at("E5"))
    session.engine_move()
    before, history = stones(session), list(session.board.history)
    click_empty(session)
    session.engine_move()
    assert session.undo()
    assert (stones(session) == before).all() and session.board.history == history
    assert len(session.tree.record().moves) == 2  # the undone moves are gone from the record
    assert session.board.to_play == BLACK and not session.engine_to_move()
    assert session.undo() and session.undo() is False and session.message == "nothing to undo"


def test_the_saved_sgf_replays_to_the_same_board(tmp_path):
    session = GameSession("random:seed=2", size=9, save_as=tmp_path / "game.sgf")
    session.click(at("E5"))
    session.engine_move()
    for _ in range(4):
        click_empty(session)
        session.engine_move()
    path = session.save()
    assert path == tmp_path / "game.sgf" and session.message == f"saved {path}"
    record = sgf_reader.load_sgf(path)
    assert (record.black, record.white) == ("you", "random")
    assert (sgf_reader.final_board(record).stones == session.board.stones).all()
    assert record.moves == session.board.history


def test_resigning_passing_and_new_games():
    session = GameSession("random:seed=4", size=9, you="white")
    assert session.engine_to_move()  # the engine has black: it moves first
    session.engine_move()
    assert session.resign() and session.result == "B+R" and session.over
    assert not session.click(at("E5")) and "the game is over (B+R)" in session.message
    session.undo()  # takes the resignation back with nothing else: no white move yet
    assert session.result == "B+R"
    session.new_game()
    assert session.result is None and session.board.move_number == 0 and session.games == 2
    # Two passes end the game, scored with dead stones removed.
    session.engine_move()
    session.pass_turn()
    while not session.over:
        session.engine_move() if session.engine_to_move() else session.pass_turn()
    assert session.result and session.result[0] in "BW0" and "two passes" in session.message
    saved = sgf_reader.read_sgf(session.sgf())
    assert saved.result == session.result


def test_handicap_games_start_with_white():
    session = GameSession("random:seed=5", size=9, handicap=2, you="black")
    assert (session.board.stones == BLACK).sum() == 2 and session.engine_to_move()
    session.engine_move()
    click_empty(session)
    assert sgf_reader.read_sgf(session.sgf()).handicap == 2


def test_the_engines_search_is_kept_and_shown():
    session = GameSession("uct:playouts=300,rave=1,seed=0", size=9)
    session.click(at("E5"))
    move = session.engine_move()
    summary = session.search()
    assert isinstance(summary, SearchSummary) and summary.visits == 300
    # It plays its most visited move (ties broken at random).
    assert summary.moves[0][1] == max(n for _, n, _ in summary.moves)
    assert move in [m for m, n, _ in summary.moves if n == summary.moves[0][1]]
    assert SearchSummary.parse(sgf_reader.read_sgf(session.sgf()).comments[1], 9) == summary
    rates = session.win_rates()
    assert rates[0] is None and 0 <= rates[1] <= 1 and len(rates) == 3
    picture = board_svg(session.board, search=summary)
    assert picture.count('class="mg-candidate"') == len(summary.moves) - 1  # one is a stone now


def test_a_network_gives_the_policy_heatmap_and_the_value_graph(tmp_path):
    from mockgo.nets.io import save_for_play
    from mockgo.nets.models import dual_network

    path = save_for_play(dual_network(9, 17, blocks=1, filters=8), tmp_path / "dual.keras")
    session = GameSession(f"mcts:path={path},readouts=8,seed=0", size=9)
    assert session.analyst.policy_net is not None and session.analyst.value_net is not None
    session.click(at("E5"))
    policy = session.policy()
    assert policy.shape == (82,) and abs(policy.sum() - 1) < 1e-6 and policy[at("E5")] == 0
    session.engine_move()
    rates = session.win_rates()
    assert len(rates) == 3 and all(0 <= r <= 1 for r in rates)
    # The same network given for a review.
    viewer = GameSession(tree=session.sgf(), network=path)
    viewer.cursor.to_end()
    assert np.allclose(viewer.win_rates(), rates)
    assert viewer.evaluation() == pytest.approx(rates[-1])
    widget = BoardWidget(viewer)
    assert widget.wait(30) and widget.info["evaluation"] == pytest.approx(rates[-1])


# ------------------------------------------------------------ reviewing


def test_review_walks_the_record_and_its_variations():
    widget = review(FIXTURES / "sabaki_review_19x19.sgf", move=3)
    session = widget.session
    assert session.mode == "review" and widget.info["move_number"] == 3
    assert [v[1] for v in widget.info["variations"]] == ["W D4", "W R5", "W C3"]
    widget.act("forward", variation=1)
    assert widget.info["comment"].startswith("A Sabaki branch") and widget.info["sibling"] == [1, 3]
    widget.act("sibling", index=2)
    assert widget.info["last_move"] == "C3"
    widget.act("back")
    widget.act("last")
    assert widget.info["move_number"] == 9 and widget.info["result"] == "W+3.5"
    widget.act("first")
    assert widget.info["move_number"] == 0
    widget.act("go_to", move=5)
    assert widget.info["last_move"] == "F3"
    # A click in a review adds a variation.
    widget.act("play", point=coords.from_gtp("K10", 19))
    assert widget.info["move_number"] == 6 and widget.info["sibling"] == [1, 2]
    assert len(list(session.tree.nodes())) == 21


def test_review_of_zero_games_reads_the_search_comments():
    tree = GameTree.new(size=9, komi=7.5)
    cursor = Cursor(tree)
    for k, vertex in enumerate(["E5", "C3", "G7"]):
        cursor.play(at(vertex))
        summary = SearchSummary(0.2 * (k + 1) - 0.5, 16, [(at(vertex), 10, 0.1), (at("A1"), 6, -0.2)])
        tree.set_property(cursor.node, "C", summary.comment(9))
    widget = review(tree.to_sgf(), move=2, overlays=("search", "graph"))
    assert widget.session.search().moves[0][0] == at("C3")
    assert 'class="mg-candidate"' in widget.board_svg and "40%" in widget.board_svg  # A1, -0.2
    # Black's chances after moves 0 to 3: each position's search, for its player to move
    # (-0.3 for black, -0.1 for white, +0.1 for black); nothing searched the last one.
    assert widget.session.win_rates()[3] is None
    assert np.allclose(widget.session.win_rates()[:3], [0.35, 0.55, 0.55])
    assert widget.graph_svg.count('class="mg-move"') == 4


# ------------------------------------------------------------ the view


class SlowPlayer(RandomPlayer):
    """A random player that thinks for a while, as a real engine does."""

    def __init__(self, seconds):
        super().__init__(seed=0, name="slow")
        self.seconds = seconds

    def choose(self, turns):
        time.sleep(self.seconds)
        return super().choose(turns)


def test_the_engine_thinks_in_a_thread_and_the_kernel_stays_free():
    widget = BoardWidget(GameSession(SlowPlayer(0.6), size=9))
    started = time.perf_counter()
    widget.act("play", point=at("E5"))
    assert time.perf_counter() - started < 0.4  # answered before the engine is done
    assert widget.busy and widget.info["busy"] and "slow is thinking" in widget.info["message"]
    assert threading.current_thread() is threading.main_thread()
    widget.act("play", point=at("C3"))  # refused while it thinks
    assert "slow is thinking: wait for it" in widget.info["message"]
    assert widget.wait(10)
    assert not widget.busy and widget.session.board.move_number == 2 and not widget.errors
    assert widget.info["message"].startswith("slow (white) plays")
    assert (widget.session.board.stones != EMPTY).sum() == 2
    assert widget.board_svg.count('class="mg-stone') == 2


def test_the_widget_saves_and_undoes(tmp_path):
    widget = play("random:seed=6", size=9, save_as=tmp_path / "w.sgf")
    widget.act("play", point=at("E5"))
    widget.wait(10)
    widget.act("save")
    assert sgf_reader.load_sgf(tmp_path / "w.sgf").moves == widget.session.board.history
    widget.act("undo")
    assert widget.info["move_number"] == 0 and 'class="mg-stone' not in widget.board_svg
    widget.act("bogus")
    assert widget.info["message"] == "unknown action 'bogus'"


def test_the_static_picture_is_the_board_as_svg():
    widget = play("uct:playouts=60,rave=1,seed=1", size=9, overlays=("search", "graph"))
    widget.act("play", point=at("E5"))
    widget.wait(30)
    data, _ = widget._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data
    assert data["text/plain"].startswith("<BoardWidget: you (black) against uct-rave-60 (white), move 2")
    svg = ElementTree.fromstring(data["image/svg+xml"])  # well-formed
    assert svg.tag.endswith("svg")
    text = data["image/svg+xml"]
    assert text.count('class="mg-stone') == 2 and 'class="mg-value-line"' not in text
    assert 'class="mg-graph"' in text and 'class="mg-point"' not in text  # nothing to click


def test_graph_svg_marks_gaps_and_the_current_move():
    picture = graph_svg([0.5, None, 0.6, 0.7], current=2)
    assert picture.count("<polyline") == 1 and picture.count("<circle") == 1
    assert 'class="mg-current"' in picture and picture.count('data-move=') == 4
    ElementTree.fromstring(picture)
    board = Board(9)
    board.play(at("E5"))
    ElementTree.fromstring(board_svg(board, heatmap=np.full(82, 1 / 82)))


def test_gnugo_plays_through_the_same_session(gnugo_path):
    session = GameSession(f"gnugo:level=1,binary={gnugo_path}", size=9)
    try:
        session.click(at("E5"))
        reply = session.engine_move()
        assert session.board.stones[reply] == WHITE
        click_empty(session)
        session.undo()  # GnuGo is set up again from the position
        point = click_empty(session, ("G3", "C7", "G7", "C3"))
        second = session.engine_move()
        assert session.board.history[:2] == [(BLACK, at("E5")), (WHITE, reply)]
        assert session.board.history[2:] == [(BLACK, at(point)), (WHITE, second)]
    finally:
        session.close()
