"""PUCT tree search (mockgo.search.mcts) on tic-tac-toe and small Go positions,
and the game interface it plays through (mockgo.search.games).

Tic-tac-toe is checked against the exact minimax solver (mockgo.search.minimax,
tested here too); the Go positions use
uniform priors and a value read off the area score, so the search has to find
captures and rescues by looking ahead."""

import math

import numpy as np
import pytest

from mockgo import BLACK, WHITE, Board
from mockgo.go import coords
from mockgo.play.search_player import PLAYER_SEARCH, SearchPlayer
from mockgo.search.evaluators import random_rollout_evaluator, uniform_evaluator
from mockgo.search.games import Game, GoGame, TicTacToe
from mockgo.search.minimax import best_actions, game_value
from mockgo.search.mcts import (MCTSPlayer, Node, ResignationCheck, SearchOptions, _select_edge,
                                default_softpick_moves, fewer_collections, forced_playouts,
                                pick_action, prune_forced_playouts, search_many, search_step)


class Counting:
    """Wraps an evaluator; counts calls and remembers every state it saw."""

    def __init__(self, evaluate=uniform_evaluator):
        self.evaluate, self.calls, self.states = evaluate, 0, []

    def __call__(self, states):
        self.calls += 1
        self.states.extend(states)
        return self.evaluate(states)


def score_evaluator(states):
    """Uniform priors; value = tanh(area score / 10) for the player to move."""
    priors, _ = uniform_evaluator(states)
    return priors, np.array([math.tanh(state.score() / 10) for state in states])


def ttt_player(readouts=1600, parallel=8, **kwargs):
    kwargs.setdefault("softpick_moves", 0)
    return MCTSPlayer(uniform_evaluator, num_readouts=readouts, dirichlet=False,
                      parallel_readouts=parallel, **kwargs)


def check_tree(node):
    """Statistics are whole visit counts, no virtual loss is left behind, and
    Q stays in [-1, 1]; children's own visits fit inside their edge counts."""
    if not node.is_expanded:
        return
    n = node.child_N
    assert np.all(n == np.round(n)) and np.all(n >= 0)
    assert node.n_total == n.sum()
    visited = n > 0
    assert np.all(np.abs(node.child_W[visited]) <= n[visited] + 1e-9)
    for action, child in node.children.items():
        if child.is_expanded:
            assert child.n_total + 1 <= n[action]
        check_tree(child)


# ------------------------------------------------------------- the games


def test_games_follow_the_protocol():
    assert isinstance(TicTacToe(), Game)
    assert isinstance(GoGame(5), Game)


def test_tictactoe_rules():
    state = TicTacToe.from_diagram("X X .  O O .  . . .")
    assert state.to_play == 1 and not state.is_terminal()
    won = state.play(2)
    assert won.winner == 1 and won.is_terminal() and won.terminal_value() == -1.0
    assert not won.legal_actions().any()
    assert state.cells[2] == 0  # play returns a new state
    draw = TicTacToe.from_diagram("X O X  X O O  O X X")
    assert draw.is_terminal() and draw.terminal_value() == 0.0
    assert game_value(TicTacToe()) == 0  # perfect play is a draw


def test_go_game_interface():
    game = GoGame(5, komi=0.5)
    assert game.num_actions == 26 and game.to_play == BLACK
    after = game.play(12)
    assert game.board.stones[12] == 0 and after.board.stones[12] == BLACK
    assert after.to_play == WHITE and not after.legal_actions()[12]
    over = after.play(25).play(25)
    assert over.is_terminal()
    # Black has the whole board and wins, so white (to move) sees -1.
    assert over.to_play == WHITE and over.terminal_value() == -1.0
    for komi, value in ((0.5, -1.0), (-0.5, 1.0), (0, 0.0)):  # empty board, black to move
        assert GoGame(5, komi=komi).play(25).play(25).terminal_value() == value
    capped = GoGame(5, max_moves=3).play(0).play(1).play(2)
    assert capped.is_terminal()
    assert game.key() != after.key() and game.key() == GoGame(5, komi=0.5).key()


# ------------------------------------------------------------ tic-tac-toe


def test_never_loses_to_random_player():
    """30 games with each colour against uniformly random moves, all 60 games
    searched in lockstep."""
    rng = np.random.default_rng(1)
    players = []
    for g in range(60):
        player = ttt_player(seed=g)
        player.initialize(TicTacToe())
        player.me = 1 + g % 2
        players.append(player)
    while True:
        for p in players:
            if not p.state.is_terminal() and p.state.to_play != p.me:
                p.play(int(rng.choice(np.flatnonzero(p.state.legal_actions()))))
        live = [p for p in players if not p.state.is_terminal()]
        if not live:
            break
        search_many(live)
        for p in live:
            p.play(p.pick_action())
    winners = [p.state.winner for p in players]
    assert all(w in (0, p.me) for w, p in zip(winners, players))
    assert sum(w == p.me for w, p in zip(winners, players)) >= 30  # it also wins


def test_self_play_is_a_draw_in_lockstep():
    """Nine games, one from each first move, searched in lockstep: every step
    of search_many is ONE evaluator call, and every game is a draw."""
    evaluate = Counting()
    players = []
    for first in range(9):
        player = ttt_player(readouts=1600, seed=first)
        player.evaluate = evaluate
        player.initialize(TicTacToe().play(first), move_number=1)
        players.append(player)
    while live := [p for p in players if not p.state.is_terminal()]:
        before = evaluate.calls
        search_many(live)
        steps = -(-1600 // 8) + 1  # readouts in batches of 8, plus expanding the roots
        assert evaluate.calls - before <= steps  # fewer once leaves are all terminal
        for p in live:
            assert p.root.child_N.sum() >= 1600
            p.play(p.pick_action())
    assert all(p.state.winner == 0 for p in players)


@pytest.mark.parametrize("diagram", [
    "X X .  O O .  . . .",  # win now (and O threatens too)
    "X O .  . . .  . . .",  # X to move after O's edge reply: a forced win
    "X . .  . O .  . . X",  # O to move: the edge saves, the corner loses
    ". . .  . X .  . . .",  # O to move: only a corner holds the draw
])
def test_finds_the_best_move(diagram):
    state = TicTacToe.from_diagram(diagram)
    best = set(best_actions(state))
    assert len(best) < len(np.flatnonzero(state.legal_actions()))  # some moves are worse
    player = ttt_player(readouts=1600, parallel=1)
    player.initialize(state)
    player.search()
    assert player.pick_action() in best


def test_blocks_a_threat():
    state = TicTacToe.from_diagram("O O .  X . .  . . X")
    assert best_actions(state) == [2]
    player = ttt_player(readouts=800)
    player.initialize(state)
    player.search()
    assert player.pick_action() == 2


def test_random_rollout_evaluator_values():
    evaluate = random_rollout_evaluator(np.random.default_rng(0))
    lost = TicTacToe.from_diagram("X X .  O O .  X . .")  # O to move, wins at 5
    priors, values = evaluate([lost, lost.play(5)])
    assert priors.shape == (2, 9) and values[1] == -1.0


# ---------------------------------------------------------------------- Go


def go_player(readouts, parallel=8):
    return MCTSPlayer(score_evaluator, num_readouts=readouts, dirichlet=False,
                      parallel_readouts=parallel, softpick_moves=0)


def test_go_captures_a_large_group():
    board = Board.from_diagram("""
        . . . . . . .
        . X X X X X .
        X O O O O O .
        . X X X X X .
        . . . . . . .
        . . . . . . .
        . . . . . . .
    """, to_play=BLACK, komi=0.5)
    player = go_player(800)
    player.initialize(GoGame.from_board(board))
    player.search()
    assert coords.to_gtp(player.pick_action(), 7) == "G5"


def test_go_saves_a_large_group_in_atari():
    board = Board.from_diagram("""
        . . . . . . .
        . O O O O . .
        O X X X X . .
        . O O O O . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
    """, to_play=BLACK, komi=0.5)
    player = go_player(2400)
    player.initialize(GoGame.from_board(board))
    player.search()
    assert coords.to_gtp(player.pick_action(), 7) == "F5"


# ----------------------------------------------------- batching and reuse


@pytest.mark.parametrize("readouts, parallel", [(203, 8), (200, 1), (64, 16)])
def test_visit_counts_sum_to_readouts_and_leaves_expand_once(readouts, parallel):
    evaluate = Counting()
    player = MCTSPlayer(evaluate, num_readouts=readouts, parallel_readouts=parallel, seed=0)
    player.initialize(GoGame(5))
    player.search()
    assert player.root.child_N.sum() == readouts
    assert len({id(s) for s in evaluate.states}) == len(evaluate.states)  # none twice
    check_tree(player.root)


def test_duplicate_leaves_count_as_readouts():
    """Two legal moves and 16 leaves per batch: leaves are selected several
    times per batch, evaluated once, and every selection counts."""
    state = TicTacToe.from_diagram("X O X  X O O  . X .")
    evaluate = Counting()
    player = MCTSPlayer(evaluate, num_readouts=64, parallel_readouts=16, dirichlet=False)
    player.initialize(state)
    player.search()
    assert player.root.child_N.sum() == 64
    assert len({id(s) for s in evaluate.states}) == len(evaluate.states)
    assert evaluate.calls <= 5  # the root, then at most one per batch
    check_tree(player.root)


def test_one_evaluator_call_per_step_for_many_games():
    evaluate = Counting()
    players = [MCTSPlayer(evaluate, num_readouts=64, parallel_readouts=8, seed=g)
               for g in range(4)]
    for p in players:
        p.initialize(GoGame(5))
    search_many(players)
    assert evaluate.calls == 1 + 64 // 8  # the roots, then one call per step
    assert len(evaluate.states) <= 4 + 4 * 64
    assert all(p.root.child_N.sum() == 64 for p in players)


def test_a_time_budget_stops_the_searches_with_their_trees_whole():
    import time

    class Slow(Counting):
        def __call__(self, states):
            time.sleep(0.01)
            return super().__call__(states)

    evaluate = Slow()
    players = [MCTSPlayer(evaluate, num_readouts=10**9, parallel_readouts=4, seed=g)
               for g in range(2)]
    for p in players:
        p.initialize(GoGame(5))
    search_many(players, seconds=0.15)
    assert evaluate.calls >= 2  # the roots, then at least one step of readouts
    for p in players:
        assert not p.searching and p.remaining == 0
        assert 4 <= p.root.child_N.sum() < 10**9
        assert p.root.child_N.sum() == 4 * (evaluate.calls - 1)  # every step's leaves backed up
        check_tree(p.root)
    # Readouts done before the time is up end the search, as without a budget.
    quick = MCTSPlayer(uniform_evaluator, num_readouts=16, parallel_readouts=4, seed=0)
    quick.initialize(GoGame(5))
    search_many([quick], seconds=600)
    assert quick.root.child_N.sum() == 16 and not quick.searching


def test_decided_when_the_runner_up_cannot_catch_up():
    player = ttt_player(readouts=50)
    player.initialize(TicTacToe())
    assert not player.decided(0)  # not searched
    player.root.expand(np.full(9, 1 / 9), 0.0)
    player.root.child_N[:] = [0, 3, 20, 0, 9, 0, 0, 0, 0]
    assert player.decided(10) and not player.decided(11)  # 20 - 9: a tie is not decided
    player.softpick_moves = 1  # the next pick is sampled by visits: never decided
    assert not player.decided(0)


def test_stop_early_plays_the_move_of_the_whole_search_with_fewer_readouts():
    """With a readout budget the search is the same up to the step where it
    stops, so the pick is the whole search's, whatever the position."""
    stopped, saved = 0, 0
    for g, first in enumerate([0, 6, 12, 18, 24, 7]):
        picks, readouts = [], []
        for stop_early in (False, True):
            p = MCTSPlayer(score_evaluator, num_readouts=400, parallel_readouts=8, seed=g,
                           softpick_moves=0, stop_early=stop_early)
            p.initialize(GoGame(5, komi=0.5).play(first))
            search_many([p])
            picks.append(p.pick_action())
            readouts.append(p.root.child_N.sum())
            check_tree(p.root)
        assert picks[0] == picks[1]
        assert readouts[0] == 400 and readouts[1] <= 400
        if p.stopped_early:
            stopped += 1
            saved += 400 - readouts[1]
            counts = np.sort(p.root.child_N)
            assert counts[-1] - counts[-2] > 400 - readouts[1]
    assert stopped >= 3 and saved > 0


def test_stop_early_with_a_time_budget():
    """One move has all the prior: every readout goes to it, and the search
    stops once the lead is more than the steps the time left can hold."""
    import time

    def one_move(states):
        time.sleep(0.005)
        priors = np.zeros((len(states), 26))
        priors[:, 12] = 1.0
        return priors, np.zeros(len(states))

    p = MCTSPlayer(one_move, num_readouts=10**9, parallel_readouts=4, seed=0,
                   softpick_moves=0, dirichlet=False, stop_early=True)
    p.initialize(GoGame(5))
    search_many([p], seconds=1.0)
    assert p.stopped_early and not p.searching and p.pick_action() == 12
    # A second search (the tree kept) starts undecided again.
    p.start_search()
    assert not p.stopped_early


def test_lockstep_search_equals_independent_searches():
    """The trees do not interact: searching K games together gives each the
    same tree as searching it alone (same seeds, same Dirichlet noise)."""
    def players():
        out = []
        for g, first in enumerate([0, 6, 12, 24]):
            p = MCTSPlayer(score_evaluator, num_readouts=120, parallel_readouts=8, seed=g)
            p.initialize(GoGame(5, komi=0.5).play(first))
            out.append(p)
        return out
    together, alone = players(), players()
    for _ in range(2):
        search_many(together)
        for p in alone:
            p.search()
        for a, b in zip(together, alone):
            np.testing.assert_array_equal(a.root.child_N, b.root.child_N)
            np.testing.assert_allclose(a.root.child_W, b.root.child_W)
            action = a.pick_action()
            assert b.pick_action() == action
            a.play(action)
            b.play(action)


def test_step_wise_searches_end_each_at_its_own_readouts():
    """search_step: one evaluator call per step for every search still
    going; each ends after its own readouts (a fresh root first sends
    itself), and its tree is the one search_many gives it alone."""
    def players():
        out = []
        for g, (first, readouts) in enumerate([(0, 16), (6, 40), (12, 8), (24, 64)]):
            p = MCTSPlayer(score_evaluator, num_readouts=readouts, parallel_readouts=8, seed=g)
            p.initialize(GoGame(5, komi=0.5).play(first))
            out.append(p)
        return out
    stepped, alone = players(), players()
    evaluate = Counting(score_evaluator)
    for p in stepped:
        assert not p.searching
        p.start_search()
        assert p.searching and p.remaining == p.num_readouts
    ended = {}
    steps = 0
    while any(p.searching for p in stepped):
        calls = evaluate.calls
        search_step(stepped, evaluate)
        steps += 1
        assert evaluate.calls == calls + 1
        for i, p in enumerate(stepped):
            if not p.searching:
                ended.setdefault(i, steps)
    assert ended == {0: 3, 1: 6, 2: 2, 3: 9}  # the root's step, then readouts / 8
    for a, b in zip(stepped, alone):
        b.search()
        np.testing.assert_array_equal(a.root.child_N, b.root.child_N)
        np.testing.assert_array_equal(a.root.child_W, b.root.child_W)
        check_tree(a.root)
    search_step(stepped, evaluate)  # nothing is searching: no call
    assert evaluate.calls == steps


def test_search_many_gives_the_trees_it_gave_before_search_step():
    """Recorded at d8bb338 (search_many's own loop, selection and backup in
    numpy): two games, playout cap randomization, forced playouts and
    Dirichlet noise; per search: full or fast, the root's visits, sum of W."""
    recorded = [
        (False, [0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 0.399667),
        (False, [1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 0.399667),
        (True, [0, 1, 3, 0, 2, 4, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 2, 2, 3, 2, 2, 1, 1], 0.29975025),
        (True, [2, 2, 1, 2, 2, 2, 2, 0, 4, 2, 2, 2, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1], 0.0),
        (True, [0, 2, 2, 0, 2, 2, 3, 2, 2, 3, 2, 2, 2, 2, 2, 2, 4, 2, 2, 2, 0, 2, 2, 2, 2, 1], 0.347728442),
        (False, [0, 2, 1, 1, 1, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 0.349708625),
    ]
    players = []
    for g, first in enumerate([0, 12]):
        p = MCTSPlayer(score_evaluator, num_readouts=48, parallel_readouts=8, seed=g,
                       full_search_share=0.5, fast_readouts=8, forced_playouts=2.0)
        p.initialize(GoGame(5, komi=0.5).play(first))
        players.append(p)
    found = []
    for _ in range(3):
        search_many(players)
        for p in players:
            found.append((p.full_search, p.root.child_N.astype(int).tolist(),
                          round(float(p.root.child_W.sum()), 9)))
            p.play(p.pick_action())
    assert found == recorded


def test_compiled_selection_is_argmax_q_plus_u():
    """_select_edge against the formula in numpy: Q + U, the first of
    equals, forced playouts at a root first, and the virtual loss added."""
    rng = np.random.default_rng(3)
    for trial in range(200):
        n = rng.integers(0, 6, 12).astype(np.float64)
        w = rng.uniform(-1, 1, 12) * n
        p = rng.dirichlet(np.ones(12))
        q = np.where(n > 0, w / np.maximum(n, 1), 0.1)
        q[rng.random(12) < 0.2] = -np.inf  # illegal
        if trial % 10 == 0:
            q[:] = 0.0
            p[:] = 1 / 12  # all equal: the first
        total, forced = float(n.sum()), [0.0, 2.0][trial % 2]
        score = q + 1.5 * math.sqrt(max(total, 1.0)) * p / (1 + n)
        short = n < forced_playouts(p, total, forced) if forced else np.zeros(12, bool)
        expected = int(np.where(short, score, -np.inf).argmax() if short.any()
                       else score.argmax())
        arrays = [a.copy() for a in (q, p, n, w)]
        assert _select_edge(*arrays, total, 1.5, 3, forced) == expected
        q2, _, n2, w2 = arrays
        assert n2[expected] == n[expected] + 3 and w2[expected] == w[expected] - 3
        assert q2[expected] == (w[expected] - 3) / (n[expected] + 3)
        assert np.array_equal(np.delete(n2, expected), np.delete(n, expected))


def test_fewer_collections_while_searching_and_as_before_after():
    import gc
    before = gc.get_threshold()
    with pytest.raises(RuntimeError):
        with fewer_collections(12345):
            assert gc.get_threshold() == (12345, *before[1:])
            raise RuntimeError("an interrupted search")
    assert gc.get_threshold() == before


def test_tree_reuse_keeps_the_chosen_subtree():
    player = ttt_player(readouts=400, parallel=1)
    player.initialize(TicTacToe())
    player.search()
    action = player.pick_action()
    child = player.root.children[action]
    visits, counts = player.root.child_N[action], child.child_N.copy()
    player.play(action)
    assert player.root is child and player.move_number == 1
    np.testing.assert_array_equal(player.root.child_N, counts)
    assert counts.sum() == visits - 1  # every visit but the one that expanded it
    player.search()
    assert player.root.child_N.sum() == counts.sum() + 400
    player.play(int(np.flatnonzero(player.state.legal_actions())[0]))  # unexplored is fine
    assert player.root.state.to_play == 1


def test_visit_distribution():
    board = Board.from_diagram("""
        . X . . .
        X . . . .
        . . O . .
        . . . . .
        . . . . .
    """, to_play=WHITE)  # white may not play the corner (suicide) nor on stones
    player = MCTSPlayer(uniform_evaluator, num_readouts=300, seed=0)
    player.initialize(GoGame.from_board(board))
    assert player.visit_distribution().sum() == pytest.approx(1.0)  # before any search
    player.search()
    pi = player.visit_distribution()
    legal = player.state.legal_actions()
    assert pi.shape == (26,) and pi.sum() == pytest.approx(1.0)
    assert np.all(pi[~legal] == 0) and not legal[0]


# ------------------------------------------------ noise and temperature


def test_dirichlet_noise_stays_on_legal_actions():
    board = Board.from_diagram("""
        . X . . .
        X . . . .
        . . O . .
        . . . . .
        . . . . .
    """, to_play=WHITE)
    game = GoGame.from_board(board)
    legal = game.legal_actions()
    plain = MCTSPlayer(uniform_evaluator, num_readouts=1, dirichlet=False)
    noisy = MCTSPlayer(uniform_evaluator, num_readouts=1, dirichlet=True, seed=3)
    for p in (plain, noisy):
        p.initialize(game)
        p.search()
    assert plain.root.child_P == pytest.approx(legal / legal.sum())
    assert not np.allclose(noisy.root.child_P, plain.root.child_P)
    assert noisy.root.child_P.sum() == pytest.approx(1.0)
    assert np.all(noisy.root.child_P[~legal] == 0) and np.all(noisy.root.child_P[legal] > 0)
    p = noisy.root.child_P.copy()
    noisy.search()  # noise is mixed in once per root
    np.testing.assert_array_equal(noisy.root.child_P, p)


def test_temperature_one_follows_visit_counts():
    root = Node(TicTacToe())
    root.expand(np.full(9, 1 / 9), 0.0)
    root.child_N[:] = [0, 10, 20, 30, 40, 0, 0, 0, 100]
    rng = np.random.default_rng(0)
    picks = np.bincount([pick_action(root, 1.0, rng) for _ in range(20000)], minlength=9)
    np.testing.assert_allclose(picks / 20000, root.child_N / 200, atol=0.01)
    assert pick_action(root, 0.0) == 8


def test_softpick_moves_then_most_visited():
    player = ttt_player(readouts=50, softpick_moves=2, seed=0)
    player.initialize(TicTacToe())
    player.root.expand(np.full(9, 1 / 9), 0.0)
    player.root.child_N[:] = [1, 1, 1, 1, 50, 1, 1, 1, 1]
    sampled = {player.pick_action() for _ in range(300)}
    assert len(sampled) > 1  # move 0: sampled
    player.move_number = 2
    assert {player.pick_action() for _ in range(20)} == {4}
    assert default_softpick_moves(362) == 30 and default_softpick_moves(82) == 6


# -------------------------------------------------------------- resigning


def test_resignation_and_its_false_positive_record():
    lost = TicTacToe.from_diagram("X . O  . O .  X . X")  # O to move: two X threats
    player = ttt_player(readouts=400)
    player.initialize(lost)
    player.search()
    assert player.root_value < -0.9
    assert player.should_resign()
    player.resign_enabled = False
    assert not player.should_resign()
    assert player.would_have_resigned == 2
    check = ResignationCheck(disabled_share=0.25)
    check.record(player.would_have_resigned, winner=1)  # it was right to resign
    check.record(2, winner=2)  # a false positive
    check.record(None, winner=1)  # nobody fell below the threshold
    assert (check.games, check.would_have_resigned, check.false_positives) == (3, 2, 1)
    assert check.false_positive_rate == 0.5
    rng = np.random.default_rng(0)
    share = np.mean([not check.resign_enabled(rng) for _ in range(4000)])
    assert share == pytest.approx(0.25, abs=0.03)
    drawn = ttt_player(readouts=400)
    drawn.initialize(TicTacToe())
    drawn.search()
    assert abs(drawn.root_value) < 0.5 and not drawn.should_resign()


# ------------------------------------------- KataGo's self-play search options


def test_playout_cap_randomization_bookkeeping():
    """Each search draws full (num_readouts, with noise) or fast
    (fast_readouts, no noise); the share of full ones follows
    full_search_share; without the option nothing is drawn."""
    player = MCTSPlayer(uniform_evaluator, num_readouts=24, fast_readouts=4,
                        full_search_share=0.3, parallel_readouts=4, seed=1)
    player.initialize(GoGame(5))
    full = 0
    for _ in range(40):
        if player.state.is_terminal():
            break
        before = player.root.child_N.sum() if player.root.is_expanded else 0
        player.search()
        added = player.root.child_N.sum() - before
        assert added == (24 if player.full_search else 4)
        assert player.root.noised == player.full_search  # noise on full searches only
        full += player.full_search
        player.play(player.pick_action())
    assert 4 <= full <= 22  # 40 draws at 0.3: 12 expected
    plain = MCTSPlayer(uniform_evaluator, num_readouts=8, seed=1)
    plain.initialize(GoGame(5))
    state = plain.rng.bit_generator.state
    assert plain.plan_search() == 8 and plain.full_search
    assert plain.rng.bit_generator.state == state
    with pytest.raises(ValueError, match="fast_readouts"):
        MCTSPlayer(uniform_evaluator, full_search_share=0.5)


def test_forced_playouts_give_every_root_child_its_share():
    """With k = 2 each root child c ends with about sqrt(2 P(c) N) visits
    or more, which plain PUCT does not give the low-prior children."""
    def search(forced):
        player = MCTSPlayer(score_evaluator, num_readouts=400, parallel_readouts=1,
                            forced_playouts=forced, seed=3)
        player.initialize(GoGame(5))
        player.search()
        root = player.root
        need = np.sqrt(2 * root.child_P * root.child_N.sum())
        return root.child_N, need

    counts, need = search(2.0)
    assert np.all(counts >= need - 1)
    plain, plain_need = search(0.0)
    assert np.any(plain < plain_need - 1)


def reference_pruning(n, p, q, c_puct, k):
    """Policy target pruning one visit at a time, as Wu (2019) describes it."""
    total = n.sum()
    best = int(n.argmax())
    scale = c_puct * math.sqrt(max(total, 1))
    puct = lambda c, visits: q[c] + scale * p[c] / (1 + visits)  # noqa: E731
    out = n.copy()
    for c in np.flatnonzero(n > 0):
        if c == best or puct(c, n[c]) >= puct(best, n[best]):
            continue  # the most visited, and children PUCT would have chosen anyway, stay
        for _ in range(int(math.floor(math.sqrt(k * p[c] * total)))):
            if out[c] > 0 and puct(c, out[c] - 1) < puct(best, n[best]):
                out[c] -= 1
            else:
                break
        if out[c] <= 1:
            out[c] = 0  # a single visit left: pruned outright
    return out


def test_policy_target_pruning_matches_the_reference_and_keeps_the_most_visited():
    rng = np.random.default_rng(0)
    for trial in range(300):
        actions = int(rng.integers(2, 12))
        root = Node(GoGame(3))
        root.child_P = rng.dirichlet(np.full(actions, 0.5))
        root.child_N = rng.integers(0, 60, actions).astype(float)
        root.child_N[rng.integers(actions)] += 1  # at least one visit
        root.child_Q = rng.uniform(-1, 1, actions)
        c_puct = float(rng.choice([0.5, 1.5, 3.0]))
        pruned = prune_forced_playouts(root, c_puct, 2.0)
        best = int(root.child_N.argmax())
        assert pruned[best] == root.child_N[best] and pruned.argmax() == best, trial
        assert np.all(pruned <= root.child_N) and np.all(pruned >= 0)
        assert pruned.tolist() == reference_pruning(root.child_N, root.child_P, root.child_Q,
                                                    c_puct, 2.0).tolist(), trial


def test_the_policy_target_is_pruned_after_a_forced_search_only():
    player = MCTSPlayer(score_evaluator, num_readouts=200, forced_playouts=2.0, seed=0)
    player.initialize(GoGame(5))
    player.search()
    pruned = prune_forced_playouts(player.root, player.c_puct, 2.0)
    assert pruned.sum() < player.root.child_N.sum()  # some forced visits came off
    np.testing.assert_allclose(player.visit_distribution(), pruned / pruned.sum())
    quiet = MCTSPlayer(score_evaluator, num_readouts=200, forced_playouts=2.0, dirichlet=False,
                       seed=0)
    quiet.initialize(GoGame(5))
    quiet.search()  # no noise: no forcing, no pruning (a match's search)
    np.testing.assert_allclose(quiet.visit_distribution(),
                               quiet.root.child_N / quiet.root.child_N.sum())


def test_minimax_check_of_players():
    from mockgo.search.minimax import check_player, reachable_positions

    positions = reachable_positions()
    assert len(positions) == 4520  # of the 5,478 legal positions, those not over
    assert len({s.key() for s in positions}) == len(positions)
    perfect = check_player(lambda states: [best_actions(s)[0] for s in states])
    assert perfect.never_loses and perfect.optimal == perfect.positions == 4520
    first = check_player(lambda states: [np.flatnonzero(s.legal_actions())[0] for s in states])
    assert not first.never_loses and first.optimal < 4520
    state, action = first.losing[0]
    assert game_value(state) >= 0 and action not in best_actions(state)


def test_the_search_options_are_one_object():
    """SearchOptions is the one list of the search's options: MCTSPlayer takes
    it or its fields as keywords (the same search), and SearchPlayer passes
    it on, its own defaults (200 readouts, no noise, no resigning) and its
    keywords on top."""
    options = SearchOptions(num_readouts=64, dirichlet=False, parallel_readouts=4)
    searched = []
    for player in (MCTSPlayer(uniform_evaluator, options, seed=3),
                   MCTSPlayer(uniform_evaluator, num_readouts=64, dirichlet=False,
                              parallel_readouts=4, seed=3),
                   MCTSPlayer(uniform_evaluator, SearchOptions(num_readouts=8), num_readouts=64,
                              dirichlet=False, parallel_readouts=4, seed=3)):
        assert (player.num_readouts, player.c_puct, player.resign_enabled) == (64, 1.5, True)
        player.initialize(TicTacToe())
        player.search()
        searched.append(player.root.child_N.copy())
    assert all(np.array_equal(searched[0], n) for n in searched)
    with pytest.raises(ValueError, match="fast_readouts"):
        SearchOptions(full_search_share=0.5)
    with pytest.raises(TypeError):
        MCTSPlayer(uniform_evaluator, 64)

    assert SearchPlayer(uniform_evaluator).search == PLAYER_SEARCH
    assert PLAYER_SEARCH == SearchOptions(num_readouts=200, dirichlet=False, resign_threshold=None)
    mine = SearchPlayer(uniform_evaluator, readouts=64, search=options, c_puct=5)
    assert mine.search == SearchOptions(num_readouts=64, dirichlet=False, parallel_readouts=4,
                                        c_puct=5)
    assert mine.options["c_puct"] == 5 and not mine.options["stop_early"]
    with pytest.raises(TypeError):
        SearchPlayer(uniform_evaluator, not_an_option=1)
