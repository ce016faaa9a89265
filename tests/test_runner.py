"""The batched game runner (mockgo.play.runner): legal games, no own eyes filled,
scores, log-probabilities that match the policy, move caps, SGF, one
network call per step. Small boards and tiny untrained nets: seconds."""

import math

import keras
import numpy as np
import pytest

from mockgo import Board
from mockgo.data import sgf_reader
from mockgo.go.board import BLACK, WHITE
from mockgo.go.features import get_encoder
from mockgo.nets.inference import masked_policy
from mockgo.nets.models import policy_network
from mockgo.play.match import match as play_match
from mockgo.play.player import RESIGN
from mockgo.play.policy_player import PolicyPlayer
from mockgo.play.random_player import RandomPlayer
from mockgo.play.search_player import SearchPlayer
from mockgo.play.specs import as_player
from mockgo.play.runner import RANDOM_MOVE, mixture, play_games
from mockgo.play.sampling import temper
from mockgo.search.evaluators import uniform_evaluator

N = 5


@pytest.fixture(scope="module")
def model():
    keras.utils.set_random_seed(1)
    return policy_network(N, 48, layers=2, filters=4)


@pytest.fixture(scope="module")
def policy(model):
    return PolicyPlayer(model, "alphago48", temperature=1.0, name="net", keep_planes=True)


@pytest.fixture(scope="module")
def match(policy):
    """Policy against random, 12 games, the policy black in the even ones."""
    return play_match(policy, RandomPlayer(), 12, N, seed=0)


def replay_positions(game):
    """The Board before each move of the game, from a fresh board (one
    Board, played on: copy what is kept), then the final position."""
    board = Board(game.size, komi=game.board.komi)
    for move in game.moves:
        yield board
        assert board.is_legal(int(move)), "the runner played an illegal move"
        board.play(int(move))
    yield board


def test_every_move_is_legal_and_replays_to_the_final_board(match):
    for game in match.games:
        *_, final = replay_positions(game)
        assert (final.stones == game.board.stones).all()
        assert final.history == game.board.history


def test_never_fills_its_own_eye_and_passes_only_without_a_choice(match):
    for game in match.games:
        for t, board in enumerate(replay_positions(game)):
            if t == game.length:
                break
            move = int(game.moves[t])
            sensible = board.sensible_moves()
            assert (game.masks[t] == sensible).all()
            assert sensible[move]
            if move == board.pass_index:
                assert not sensible[:-1].any()
            else:
                assert not board.is_eye(move)


def test_games_end_by_two_passes_or_the_cap_and_are_scored_by_area(match):
    for game in match.games:
        assert game.board.passes >= 2 or game.length == 2 * N * N
        assert game.capped == (game.board.passes < 2)
        *_, final = replay_positions(game)
        assert game.score == final.area_score()
        assert game.winner == final.winner()
        assert game.result == final.result()
    wins = sum((g.outcome(BLACK if i % 2 == 0 else WHITE) + 1) / 2
               for i, g in enumerate(match.games))
    assert match.wins == wins and match.win_rate == wins / 12


def test_log_probabilities_match_the_policy(match, policy):
    encoder = get_encoder("alphago48", N)
    checked = 0
    for i, game in enumerate(match.games):
        ours = BLACK if i % 2 == 0 else WHITE
        net_rows = np.flatnonzero(game.evaluated)
        assert (game.colors[net_rows] == ours).all()
        planes = game.kept_planes(net_rows)
        # The kept planes are the positions' planes: re-encode to check.
        assert (planes == game.planes_at(net_rows, encoder)).all()
        p = masked_policy(policy.predictor.predict(planes), game.masks[net_rows])
        expected = np.log(p[np.arange(len(net_rows)), game.moves[net_rows]])
        np.testing.assert_allclose(game.log_probs[net_rows], expected, atol=1e-5)
        # The random player's moves: uniform over the sensible points.
        theirs = np.flatnonzero(game.colors != ours)
        points = game.masks[theirs, :-1].sum(axis=1)
        expected = np.where(points > 0, -np.log(np.maximum(points, 1)), 0.0)
        np.testing.assert_allclose(game.log_probs[theirs], expected)
        assert (game.chosen_by == np.where(game.colors == BLACK, 0, 1)).all()
        checked += len(net_rows)
    assert checked > 50


def test_temperature_zero_is_greedy_and_temper_sharpens():
    p = np.array([[0.5, 0.3, 0.2, 0.0], [0.1, 0.2, 0.3, 0.4]])
    greedy = temper(p, [0.0, 0.0])
    assert (greedy == np.eye(4)[[0, 3]]).all()
    sharp = temper(p, [0.5, 0.5])
    expected = p ** 2 / (p ** 2).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(sharp, expected)
    assert (temper(p, [1.0, 1.0]) == p).all()


def test_greedy_player_records_log_probability_zero(policy):
    greedy = policy.with_temperature(0.0, keep_planes=True)
    game, = play_games(greedy, greedy, 1, N, rng=0, max_moves=8)
    rows = np.flatnonzero(game.evaluated)
    assert (game.log_probs[rows] == 0).all()
    p = masked_policy(policy.predictor.predict(game.kept_planes(rows)), game.masks[rows])
    assert (game.moves[rows] == p.argmax(axis=1)).all()


def test_move_cap(policy):
    games = play_games(policy, policy, 3, N, rng=2, max_moves=7)
    for game in games:
        assert game.length == 7 and game.capped
        assert game.score == game.board.area_score()


def test_sgf_is_saved_and_reads_back(match, tmp_path):
    game = match.games[0]
    path = tmp_path / "game.sgf"
    game.save_sgf(path)
    record = sgf_reader.load_sgf(path)
    assert record.size == N and record.komi == game.board.komi
    assert record.moves == [(int(c), int(m)) for c, m in game.board.history]
    assert record.result == game.result
    assert record.black == "net" and record.white == "random"
    assert (sgf_reader.final_board(record).stones == game.board.stones).all()


def test_one_network_call_per_step_in_self_play(policy):
    stats = {}
    games = play_games(policy, policy, 6, N, rng=3, stats=stats)
    assert stats["network_calls"] <= stats["steps"]
    assert stats["evaluations"] == sum(int(g.evaluated.sum()) for g in games)
    assert stats["moves"] == sum(g.length for g in games)
    # A network at two temperatures still shares the call.
    stats = {}
    play_games(policy, policy.with_temperature(0.5), 6, N, rng=3, stats=stats)
    assert stats["network_calls"] <= stats["steps"]


def test_two_networks_one_call_each_per_step(policy):
    other = PolicyPlayer(policy_network(N, 48, layers=2, filters=4), "alphago48")
    stats = {}
    play_match(policy, other, 6, N, seed=4, stats=stats)
    assert stats["steps"] < stats["network_calls"] <= 2 * stats["steps"]


def test_random_move_at_step_u_is_uniform_over_legal_points(policy):
    at = np.array([1, 5, 9, 200])
    games = play_games(policy, policy, 4, N, rng=5, random_move_at=at)
    for game, u in zip(games[:3], at):
        t = u - 1
        assert game.chosen_by[t] == RANDOM_MOVE
        board = next(b for i, b in enumerate(replay_positions(game)) if i == t)
        legal = board.legal_moves()
        assert (game.masks[t, :-1] == legal[:-1]).all() and not game.masks[t, -1]
        assert math.isclose(game.log_probs[t], -math.log(legal[:-1].sum()))
        assert (game.chosen_by != RANDOM_MOVE).sum() == game.length - 1
    assert (games[3].chosen_by != RANDOM_MOVE).all()  # the game ended before move 200


def test_refilled_batches_and_continued_boards(policy):
    games = play_games(policy, RandomPlayer(), 7, N, rng=6, concurrent=3)
    assert len(games) == 7 and all(g.board.is_over or g.capped for g in games)
    start = Board(N)
    for move in (6, 7, 8):
        start.play(move)
    game, = play_games(policy, policy, 1, N, rng=7, boards=[start])
    assert game.start_move == 3 and game.board.history[:3] == [(1, 6), (2, 7), (1, 8)]
    assert game.length == game.board.move_number - 3


def test_anything_that_plays_is_a_player(model, policy):
    assert as_player(policy) is policy
    wrapped = as_player(model, temperature=0.5)
    assert isinstance(wrapped, PolicyPlayer) and wrapped.temperature == 0.5
    assert wrapped.encoder.name == "alphago48"
    assert isinstance(as_player("random:seed=3"), RandomPlayer)
    board = Board(N)
    assert board.is_legal(wrapped.select_move(board))
    # The same network at another temperature shares its compiled predictor.
    assert policy.with_temperature(0.0).predictor is policy.predictor


def test_a_game_does_not_depend_on_the_games_beside_it(policy):
    seeds = [11, 12, 13, 14]
    together = play_games(policy, RandomPlayer(), 4, N, seeds=seeds)
    alone = [play_games(policy, RandomPlayer(), 1, N, seeds=[s])[0] for s in seeds]
    for a, b in zip(together, alone):
        assert a.board.history == b.board.history


def test_step_wise_search_plays_the_same_games_in_fewer_calls():
    """SearchPlayer(stepwise=True): each choose() is one search step, games
    whose search is done move on (THINKING for the rest), so the calls are
    fewer and fuller; each game's trees do not depend on the games beside
    it, so the games are those of the lockstep search, move for move, with
    a time for every move and only played moves counted."""
    def counting():
        calls = []

        def evaluate(states):
            calls.append(len(states))
            return uniform_evaluator(states)
        return evaluate, calls

    played = {}
    for stepwise in (False, True):
        evaluate, calls = counting()
        # The search's own move cap (10) below the games' (20): its roots turn
        # terminal; a forced random move at move 5; moves sampled to move 12.
        player = SearchPlayer(evaluate, readouts=24, parallel_readouts=4, full_search_share=0.25,
                              fast_readouts=4, resign_threshold=None, stepwise=stepwise,
                              max_moves=10, softpick_moves=12, name="search")
        stats = {}
        games = play_games(player, player, 6, N, seeds=range(6), max_moves=20, stats=stats,
                           random_move_at=5)
        played[stepwise] = (games, calls, stats)
    (lockstep, lockstep_calls, lockstep_stats), (stepped, stepped_calls, stepped_stats) = \
        played[False], played[True]
    for a, b in zip(lockstep, stepped):
        assert a.board.history == b.board.history
        assert len(b.think_seconds) == b.length
        searched = b.chosen_by != RANDOM_MOVE
        assert (b.think_seconds[searched] > 0).all() and (b.think_seconds[~searched] == 0).all()
    assert stepped_stats["moves"] == lockstep_stats["moves"] == sum(g.length for g in stepped)
    assert sum(stepped_calls) == sum(lockstep_calls)  # the same trees: the same leaves
    assert len(stepped_calls) < len(lockstep_calls)
    assert np.mean(stepped_calls) > np.mean(lockstep_calls)
    assert stepped_stats["steps"] > lockstep_stats["steps"]  # a step is now a search step
    # select_move steps a step-wise search to its end.
    single = SearchPlayer(uniform_evaluator, readouts=16, stepwise=True)
    assert Board(N).is_legal(single.select_move(Board(N)))


def test_what_a_player_attaches_to_its_answers_stays_with_its_moves():
    """Any player may attach a record to each answer (Choices.records): the
    runner keeps it with the move it played (PlayedGame.records, one per
    move; None where the player attached none). A resignation is no move
    and keeps none."""
    class Noting(RandomPlayer):
        def choose(self, turns):
            choices = super().choose(turns)
            choices.records = [(t.game, t.board.move_number, int(move))
                               for t, move in zip(turns, choices.moves)]
            for i, turn in enumerate(turns):
                if turn.game == 1 and turn.board.move_number == 6:
                    choices.moves[i] = RESIGN
            return choices

    games = play_games(Noting(name="noting"), RandomPlayer(), 3, N, seeds=[5, 6, 7], max_moves=30)
    assert games[1].reason == "resign" and games[1].length == 6
    for game in games:
        assert len(game.records) == game.length
        for t, (record, move, color) in enumerate(zip(game.records, game.moves, game.colors)):
            assert record == ((game.index, t, int(move)) if color == BLACK else None)


def test_a_search_player_attaches_the_record_of_each_moves_search():
    """SearchPlayer(record_encoder=...): each move a search chose carries a
    MoveSearch: the position as the encoder sees it, the root's visits, the
    search's comment; step-wise, only the answer that ends a search, not its
    THINKING steps. Without an encoder, no records."""
    from mockgo.data.gametree import SearchSummary
    from mockgo.play.search_player import MoveSearch

    encoder = get_encoder("agz17", N)
    player = SearchPlayer(uniform_evaluator, readouts=16, parallel_readouts=4, stepwise=True,
                          full_search_share=0.5, fast_readouts=4, resign_threshold=None,
                          record_encoder=encoder, name="search")
    plain = SearchPlayer(uniform_evaluator, readouts=16, parallel_readouts=4,
                         resign_threshold=None, name="plain")
    games = play_games(player, plain, 2, N, seeds=[1, 2], max_moves=16)
    for game in games:
        mine = np.flatnonzero(game.colors == BLACK)
        assert all(game.records[t] is None for t in np.flatnonzero(game.colors == WHITE))
        searches = [game.records[t] for t in mine]
        assert all(isinstance(s, MoveSearch) for s in searches)
        assert [s.move_number for s in searches] == mine.tolist()
        assert {s.color for s in searches} == {BLACK}
        np.testing.assert_array_equal(np.stack([s.planes for s in searches]),
                                      game.planes_at(mine, encoder))
        for search in searches:
            assert search.pi.sum() == pytest.approx(1.0)
            comment = search.comment.removeprefix("fast search, ")
            assert (comment == search.comment) == search.full_search
            # The root's visits: this search's readouts and those the kept subtree had.
            assert SearchSummary.parse(comment, N).visits >= (16 if search.full_search else 4)
        assert {s.full_search for s in searches} == {True, False}


def test_mixture_keeps_the_proportions():
    a, b = RandomPlayer(name="a"), RandomPlayer(name="b")
    chosen = mixture([a, b], [3, 1], 8, rng=0)
    assert [p.name for p in chosen].count("a") == 6 and len(chosen) == 8
