"""Classic Monte Carlo tree search (mockgo.search.uct), its compiled
playouts (Board.random_playout), Monte Carlo ownership (mockgo.go.ownership)
and the uct player."""

import functools

import numpy as np
import pytest

from mockgo import Board
from mockgo.go import coords
from mockgo.go.board import BLACK, EMPTY, WHITE
from mockgo.go.ownership import estimate_dead
from mockgo.play.player import RESIGN
from mockgo.play.search_player import UCTPlayer
from mockgo.play.specs import make_player
from mockgo.search.games import GoGame, TicTacToe
from mockgo.search.uct import UCTSearch, score_value

# ------------------------------------------------------------- playouts


@pytest.mark.parametrize("heavy", [False, True], ids=["uniform", "heavy"])
@pytest.mark.parametrize("size", [5, 9, 19])
def test_random_playout_replays_as_sensible_moves_to_the_same_end(size, heavy):
    """Every move of a compiled playout is legal and sensible on a real
    Board (simple ko: playouts do not check superko), the game ends by two
    passes or at the cap, and its score is the final position's."""
    state = np.array([size * 7919 + 1], np.uint64)
    board = Board(size, superko=False)
    for move in (coords.from_gtp("C3", size), coords.from_gtp("D4", size)):
        board.play(move)
    for _ in range(20):
        result = board.random_playout(state, heavy=heavy)
        replay = board.copy()
        for move in result.moves:
            move = int(move)
            if move != replay.pass_index:
                assert replay.sensible_moves()[move], coords.to_gtp(move, size)
            elif not heavy:  # a pass only when nothing sensible is left
                assert not replay.sensible_moves()[:-1].any()
            replay.play(move)
        assert replay.passes >= 2 or len(result.moves) == 3 * size * size
        assert np.array_equal(replay.stones, result.stones)
        assert result.score == replay.area_score()
    assert board.move_number == 2  # the board itself was not touched


def test_heavy_playouts_capture_what_the_last_move_left_in_atari():
    """Black's last move (C3) is a stone with one liberty (C2): a heavy
    playout's first move, white's, takes it every time; a uniform one only
    now and then."""
    board = Board.from_diagram("""
        . . . . .
        . . O . .
        . O . O .
        . . . . .
        . . . . .""", to_play=BLACK)
    board.play(coords.from_gtp("C3", 5))
    capture = coords.from_gtp("C2", 5)
    state = np.array([7], np.uint64)
    firsts = [int(board.random_playout(state, heavy=True).moves[0]) for _ in range(30)]
    assert firsts == [capture] * 30
    firsts = [int(board.random_playout(state).moves[0]) for _ in range(30)]
    assert firsts.count(capture) < 15


def test_random_playout_is_reproducible_from_its_state():
    a = Board(9).random_playout(np.array([42], np.uint64))
    b = Board(9).random_playout(np.array([42], np.uint64))
    c = Board(9).random_playout(np.array([43], np.uint64))
    assert np.array_equal(a.moves, b.moves) and not np.array_equal(a.moves, c.moves)


# ------------------------------------------------------------ ownership

ALIVE_AND_DEAD = """
. . . . . . .
. X X X X X .
. X . . . X .
. X . O . X .
. X . . . X .
. X X X X X .
. . . . . . .
"""


def test_owner_map_and_a_dead_stone_inside_territory():
    board = Board.from_diagram(ALIVE_AND_DEAD)
    owner = board.owner_map()
    # The inside touches black and white: no one's by Tromp-Taylor.
    assert owner[coords.from_gtp("C5", 7)] == EMPTY
    assert owner[coords.from_gtp("A1", 7)] == BLACK and owner[coords.from_gtp("B2", 7)] == BLACK
    white_stone = coords.from_gtp("D4", 7)
    assert estimate_dead(board) == [white_stone]
    # With it removed black owns the whole board.
    assert board.area_score(estimate_dead(board)) == 49 - 7.5
    # After the two passes that end the game the answer is the same (the
    # playouts used to stop at once, two passes having been played, and
    # called every stone alive: our final_score gave W+6.5 where GnuGo's,
    # and the truth, was W+88.5).
    board.play(board.pass_index)
    board.play(board.pass_index)
    assert board.is_over and estimate_dead(board) == [white_stone]


# ---------------------------------------------------------------- search


def _minimax_value(state):
    """Tic-tac-toe's exact value for the player to move."""
    @functools.lru_cache(maxsize=None)
    def value(key):
        s = TicTacToe(key[0], key[1], key[2])
        if s.is_terminal():
            return s.terminal_value()
        return max(-value(_key(s.play(a))) for a in np.flatnonzero(s.legal_actions()))
    return value(_key(state))


def _key(state):
    return state.cells, state.to_play, state.winner


@pytest.mark.parametrize("rave", [False, True])
def test_uct_never_loses_tic_tac_toe_against_perfect_play(rave):
    """From the empty board and every first move, UCT (either colour)
    against a minimax player: never a loss."""
    search = UCTSearch(playouts=1500, rave=rave, seed=1)
    starts = [TicTacToe()] + [TicTacToe().play(a) for a in range(9)]
    for start in starts:
        for uct_player in (1, 2):
            state = start
            while not state.is_terminal():
                if state.to_play == uct_player:
                    root = search.new_root(state)
                    search.run(root)
                    action = search.best_action(root)
                else:  # the perfect player: the first action of the best value
                    actions = np.flatnonzero(state.legal_actions())
                    action = max(actions, key=lambda a: -_minimax_value(state.play(a)))
                state = state.play(action)
            if state.winner:
                assert state.winner == uct_player or _minimax_value(start) != 0 \
                    and start.to_play != uct_player, (start, state)


@pytest.mark.parametrize("rave", [False, True])
def test_first_visits_spread_over_the_board_whatever_the_first_playout(rave):
    """Issue 21: a rollout search gave the top row all its visits when the
    first playout was lost. Here, on an empty 9x9 board and for seeds whose
    first playout is won and lost, the first 150 simulations reach many
    moves, none of them taking a large share. (RAVE concentrates sooner:
    its AMAF values single out the good moves after a few playouts.)"""
    first_results = set()
    for seed in range(6):
        search = UCTSearch(playouts=150, rave=rave, seed=seed)
        root = search.new_root(GoGame(9))
        search.run(root, playouts=1)
        first_results.add(float(root.W.sum()))
        search.run(root, playouts=149)
        visited = np.count_nonzero(root.N)
        assert visited >= (70 if not rave else 12), (seed, visited)
        assert root.N.max() <= (0.25 if not rave else 0.4) * 150, (seed, root.N.max())
    assert first_results == {0.0, 1.0}  # both cases were seen


EYE_SPACE = """
. . . . . . .
. . . . . . .
. . . . . . .
X X X X X X X
X O O O O O X
X O . . . O X
X O O O O O X
"""
CAPTURE = """
. X O . .
. X O . .
. X O . .
X X O . .
O O . . .
"""


@pytest.mark.parametrize("rave", [False, True])
@pytest.mark.parametrize("diagram, komi, to_play, answer", [
    (EYE_SPACE, 20.5, BLACK, "D2"),  # kill: the vital point of a straight three
    (EYE_SPACE, 20.5, WHITE, "D2"),  # live: the same point makes two eyes
    (CAPTURE, 0.5, BLACK, "C1"),  # take the two stones in atari
], ids=["kill", "make-eyes", "capture"])
def test_uct_finds_the_move_that_decides_the_game(rave, diagram, komi, to_play, answer):
    for seed in range(3):
        board = Board.from_diagram(diagram, to_play=to_play, komi=komi)
        search = UCTSearch(playouts=3000, rave=rave, seed=seed)
        root = search.new_root(GoGame.from_board(board))
        search.run(root)
        assert coords.to_gtp(search.best_action(root), board.size) == answer


def test_score_value_mixes_the_margin_in():
    board = Board(9)  # black to move
    assert score_value(3.5, board) == 1.0 and score_value(-0.5, board) == -1.0
    assert score_value(0.0, board) == 0.0
    big, small = score_value(40.5, board, 0.2), score_value(0.5, board, 0.2)
    assert 1.0 > big > small > 0.8 - 1e-9  # a win is worth more than any loss
    assert score_value(-40.5, board, 0.2) < score_value(-0.5, board, 0.2) < -0.8 + 1e-9
    board.play(40)  # white to move: the same scores, the other way round
    assert score_value(40.5, board, 0.2) == -big
    with pytest.raises(ValueError, match="score_weight"):
        UCTSearch(score_weight=1.0)


def black_always_wins(state, rng):
    """A playout of one's own that plays nothing and says black won."""
    rng.random()  # it draws from the search's generator, as a real one does
    return (1.0 if state.to_play == BLACK else -1.0), []


@pytest.mark.parametrize("expand_after", [1, 3])
@pytest.mark.parametrize("rave", [False, True], ids=["uct", "rave"])
def test_a_playout_function_of_ones_own_replaces_the_compiled_ones(expand_after, rave):
    """With playout=, every simulation's result is the function's, the sign
    right whether the move was expanded or played first (expand_after), and
    the search's generator starts where a plain one from the seed does (the
    compiled playouts' state is not drawn): a search written out in Python
    with the same function and seed makes the same choices (notebook 05)."""
    calls = []

    def counted(state, rng):
        calls.append(state.board.move_number)
        return black_always_wins(state, rng)

    search = UCTSearch(playouts=60, rave=rave, expand_after=expand_after, playout=counted, seed=4)
    assert search._playout_state is None
    assert search.rng.random() == np.random.default_rng(4).random()
    root = search.new_root(GoGame(5))  # black to move
    search.run(root)
    tried = root.N > 0
    assert root.N.sum() == 60 and len(calls) == 60  # nothing in the tree ended the game
    assert np.array_equal(root.W[tried], root.N[tried])  # black won every simulation
    assert min(calls) == 1  # each began after the root's move (played first or expanded)
    # The compiled playouts are the default, their state drawn from the seed as before.
    plain = UCTSearch(seed=4)
    assert plain._playout_state[0] == np.random.default_rng(4).integers(1, 2**63)


def test_search_time_budget_and_bad_options():
    search = UCTSearch(playouts=10, seed=0)
    root = search.new_root(GoGame(9))
    search.run(root, seconds=0.2)
    assert root.visits > 10
    with pytest.raises(ValueError, match="playouts"):
        UCTSearch(playouts=0)


# ---------------------------------------------------------------- player

def test_uct_player_spec_seed_and_resignation():
    assert isinstance(make_player("uct:playouts=100,rave=1"), UCTPlayer)
    board = Board(9)
    a = make_player("uct:playouts=200,seed=3").select_move(board)
    b = make_player("uct:playouts=200,seed=3").select_move(board)
    assert a == b
    with pytest.raises(ValueError, match="rave is 0 or 1"):
        make_player("uct:rave=yes")
    assert make_player("uct:playouts=10,heavy=1").options["heavy"]
    # A hopeless position: white has one stone, black the rest of 5x5.
    hopeless = Board.from_diagram("""
        X X X X X
        X X X X X
        X X . X X
        X X X X X
        X X X X .
    """, to_play=WHITE, komi=0.5)
    assert make_player("uct:playouts=200,resign=0.1,seed=0").select_move(hopeless) == RESIGN
