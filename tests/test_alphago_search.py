"""AlphaGo's search (search.evaluators.AlphaGoEvaluator in the PUCT search,
the alphago: player spec) and players that answer a pass (ownership.should_pass)."""

from types import SimpleNamespace

import keras
import numpy as np
import pytest

from mockgo import Board
from mockgo.go import coords
from mockgo.go.board import BLACK, WHITE
from mockgo.go.features import ALPHAGO48, ALPHAGO49, get_encoder
from mockgo.go.ownership import should_pass
from mockgo.nets.inference import fastest_precision
from mockgo.nets.io import NetworkInfo, save_model
from mockgo.nets.models import dual_network, policy_network, value_network
from mockgo.play.policy_player import PolicyPlayer
from mockgo.play.search_player import SearchPlayer
from mockgo.play.specs import make_player
from mockgo.search.evaluators import AlphaGoEvaluator, uniform_evaluator
from mockgo.search.games import GoGame, SensibleGoGame

EYE_SPACE = """
. . . . . . .
. . . . . . .
. . . . . . .
X X X X X X X
X O O O O O X
X O . . . O X
X O O O O O X
"""


@pytest.fixture(scope="module")
def networks():
    """Untrained 7x7 AlphaGo networks: what the search makes of them comes
    from its rollouts and its tree, not from knowledge."""
    keras.utils.set_random_seed(0)
    policy = policy_network(7, 48, layers=2, filters=8)
    policy.mockgo_info = NetworkInfo("policy", ALPHAGO48, 7)
    value = value_network(7, 49, layers=2, filters=8, hidden=16)
    value.mockgo_info = NetworkInfo("value", ALPHAGO49, 7)
    return policy, value


def test_evaluator_priors_and_values(networks):
    policy, value = networks
    states = [GoGame(7), GoGame(7).play(24)]
    for mix in (0.0, 0.5, 1.0):
        priors, values = AlphaGoEvaluator(policy, value, mix=mix, seed=0)(states)
        assert priors.shape == (2, 50)
        assert np.allclose(priors.sum(axis=1), 1.0)
        assert priors[1, 24] == 0.0  # occupied
        assert priors[0, 49] == 0.0  # the policy has no pass output
        assert np.all(np.abs(values) <= 1.0)
    # mix=1: the rollout's result alone, exactly +-1 (or 0 for a draw).
    _, values = AlphaGoEvaluator(policy, None, mix=1.0, seed=0)(states)
    assert set(np.abs(values)) <= {0.0, 1.0}
    # mix=0: the value network alone, the same whatever the seed.
    a = AlphaGoEvaluator(policy, value, mix=0.0, seed=0)(states)[1]
    b = AlphaGoEvaluator(policy, value, mix=0.0, seed=1)(states)[1]
    assert np.allclose(a, b)


@pytest.mark.parametrize("heavy", [False, True], ids=["light", "heavy"])
def test_evaluator_rollouts_are_the_boards_playouts(networks, heavy):
    """At mix=1 a leaf's value is one compiled playout of its board, with
    MoGo's rules when ``heavy``, from the evaluator's seeded generator: the
    same results as Board.random_playout from the same state."""
    policy, _ = networks
    states = [GoGame(7), GoGame(7).play(24), GoGame(7).play(24).play(17)]
    _, values = AlphaGoEvaluator(policy, None, mix=1.0, seed=5, heavy=heavy)(states)
    generator = np.array([np.random.default_rng(5).integers(1, 2**63)], np.uint64)
    expected = []
    for state in states:
        margin = state.board.random_playout(generator, heavy=heavy).score
        margin = margin if state.to_play == BLACK else -margin
        expected.append(np.sign(margin))
    assert values.tolist() == expected


def test_evaluator_refuses_what_it_cannot_use(networks):
    policy, value = networks
    with pytest.raises(ValueError, match=r"give value= or mix=1"):
        AlphaGoEvaluator(policy, None, mix=0.5)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        AlphaGoEvaluator(policy, value, mix=1.5)


def test_a_dual_network_gives_the_priors_and_v_in_one_call(tmp_path):
    """AlphaGo Zero's network in AlphaGo's search (the mixing measured on
    9x9): its policy head is the prior, its value head v, both from one
    network call when it is given as both."""
    from mockgo.nets.inference import Predictor, masked_policy
    from mockgo.nets.io import save_for_play

    dual = dual_network(7, 17, blocks=1, filters=8)
    path = tmp_path / "dual.keras"
    save_for_play(dual, path, encoder="agz17")
    states = [GoGame(7), GoGame(7).play(24)]
    planes = np.stack([get_encoder("agz17", 7).encode(s.board) for s in states])
    policy, value = Predictor(dual).predict(planes)
    legal = np.stack([s.legal_actions() for s in states])
    evaluate = AlphaGoEvaluator(str(path), str(path), mix=0.0)
    assert evaluate.shared and evaluate.value is evaluate.policy
    priors, values = evaluate(states)
    assert np.allclose(priors, masked_policy(policy, legal), atol=1e-5)
    assert np.allclose(values, value, atol=1e-5)
    half = AlphaGoEvaluator(dual, dual, mix=0.5, seed=3)
    rollouts = AlphaGoEvaluator(dual, None, mix=1.0, seed=3)(states)[1]
    assert np.allclose(half(states)[1], 0.5 * value + 0.5 * rollouts, atol=1e-5)


@pytest.mark.parametrize("mix", [1.0, 0.5])
@pytest.mark.parametrize("to_play", [BLACK, WHITE], ids=["kill", "make-eyes"])
def test_search_finds_the_vital_point(networks, mix, to_play):
    """The straight three's middle point kills (black) or makes two eyes
    (white), and decides the game (komi 20.5): found with untrained networks
    by the search and its rollouts."""
    policy, value = networks
    for seed in range(3):
        evaluate = AlphaGoEvaluator(policy, value, mix=mix, seed=seed)
        player = SearchPlayer(evaluate, readouts=400, c_puct=5, parallel_readouts=8,
                              softpick_moves=0, size=7, game=SensibleGoGame, seed=seed)
        board = Board.from_diagram(EYE_SPACE, to_play=to_play, komi=20.5)
        assert coords.to_gtp(player.select_move(board), 7) == "D2"
        assert evaluate.evaluations >= 400 / 8  # leaves were batched


def test_a_slow_first_evaluator_call_is_charged_to_no_move(monkeypatch):
    """A process's first network call traces the graphs (seconds): a timed
    player makes it before its first move's clock starts, so that move
    gets its whole budget. The clock here is a fake one that the evaluator
    moves on: 100 s for its first call, 0.013 s for each other."""
    import time

    clock = SimpleNamespace(now=0.0, calls=0)

    def evaluate(states):
        clock.now += 100.0 if clock.calls == 0 else 0.013
        clock.calls += 1
        return uniform_evaluator(states)

    monkeypatch.setattr(time, "perf_counter", lambda: clock.now)
    player = SearchPlayer(evaluate, seconds=1.0, parallel_readouts=8, size=5, seed=0)
    player.select_move(Board(5))
    first = player.trees[0].root.n_total
    assert first >= 8 * 70  # about 75 steps of 8 readouts in the second of the budget
    player.select_move(Board(5), game=1)
    assert player.trees[1].root.n_total == first  # no second warm-up


def test_alphago_spec_from_files(networks, tmp_path):
    policy, value = networks
    save_model(policy, tmp_path / "policy.keras")
    save_model(value, tmp_path / "value.keras")
    player = make_player(f"alphago:policy={tmp_path / 'policy.keras'},"
                         f"value={tmp_path / 'value.keras'},readouts=32,mix=0.5,seed=0")
    assert player.size == 7 and player.answer_passes
    move = player.select_move(Board(7))
    assert Board(7).is_legal(move)
    rollouts_only = make_player(f"alphago:policy={tmp_path / 'policy.keras'},readouts=16,mix=1")
    assert rollouts_only.evaluate.value is None
    timed = make_player(f"alphago:policy={tmp_path / 'policy.keras'},seconds=0.1,mix=1")
    assert timed.name == "alphago-0.1s-mix1" and Board(7).is_legal(timed.select_move(Board(7)))
    assert not timed.evaluate.heavy
    # Precision: by default the faster one here, as measured (fastest_precision).
    assert timed.evaluate.policy.precision == fastest_precision()
    exact = make_player(f"alphago:policy={tmp_path / 'policy.keras'},"
                        f"value={tmp_path / 'value.keras'},readouts=8,precision=bfloat16")
    assert exact.evaluate.policy.precision == exact.evaluate.value.precision == "bfloat16"
    with pytest.raises(ValueError, match="precision must be auto or one of"):
        make_player(f"alphago:policy={tmp_path / 'policy.keras'},mix=1,precision=half")
    heavy = make_player(f"alphago:policy={tmp_path / 'policy.keras'},readouts=16,mix=1,heavy=1")
    assert heavy.evaluate.heavy and heavy.name == "alphago-16-mix1-heavy"
    with pytest.raises(ValueError, match="heavy is 0 or 1"):
        make_player(f"alphago:policy={tmp_path / 'policy.keras'},mix=1,heavy=yes")
    quick = make_player(f"alphago:policy={tmp_path / 'policy.keras'},seconds=5,mix=1,stop_early=1")
    assert quick.options["stop_early"] and not timed.options["stop_early"]
    with pytest.raises(ValueError, match="stop_early is 0 or 1"):
        make_player(f"alphago:policy={tmp_path / 'policy.keras'},mix=1,stop_early=yes")
    with pytest.raises(ValueError, match="value=PATH"):
        make_player(f"alphago:policy={tmp_path / 'policy.keras'},mix=0.5")


# ---------------------------------------------------------- answering a pass

SETTLED = """
. X O . .
X X O O .
X . X O O
X X X O .
. X O O O
"""


def _after_pass(diagram, to_play, komi):
    board = Board.from_diagram(diagram, komi=komi)
    board.to_play = 3 - to_play
    board.play(board.pass_index)
    return board


def test_should_pass_when_won_or_when_nothing_is_left_to_gain():
    # White is ahead (13 to 12 with komi 7.5): white passes back.
    assert should_pass(_after_pass(SETTLED, WHITE, 7.5))
    # Black is behind by 8.5 with every point settled: its sensible moves
    # (into white's area) cannot gain, so it passes back.
    assert should_pass(_after_pass(SETTLED, BLACK, 7.5))
    # Black is behind by 7.5 with seven open points between the two sides:
    # taking them could win, so it plays on; white, ahead, passes.
    open_middle = """
        . X . O .
        X X . O O
        X . . . O
        X X . O .
        . X . O O"""
    assert not should_pass(_after_pass(open_middle, BLACK, 7.5))
    assert should_pass(_after_pass(open_middle, WHITE, 7.5))
    # Black behind, its only sensible moves in its own two-point eyes.
    own_only = """
        . X O O O
        . X O . O
        X X O O O
        . X O . O
        . X O O O"""
    board = _after_pass(own_only, BLACK, 7.5)
    assert board.sensible_moves()[:-1].any()
    assert should_pass(board)
    # No pass to answer: never.
    assert not should_pass(Board.from_diagram(SETTLED, komi=7.5))


def test_spec_players_answer_a_pass_and_learning_players_play_on():
    board = _after_pass(SETTLED, WHITE, 7.5)  # white ahead, with moves left to play
    keras.utils.set_random_seed(1)
    policy = policy_network(5, 48, layers=2, filters=8)
    policy.mockgo_info = NetworkInfo("policy", ALPHAGO48, 5)
    assert PolicyPlayer(policy, answer_passes=True).select_move(board) == board.pass_index
    assert PolicyPlayer(policy).select_move(board) != board.pass_index
    assert make_player("uct:playouts=200,seed=0").select_move(board) == board.pass_index


def test_the_alphago_spec_takes_a_dual_network_and_draws_its_first_moves_by_visits():
    player = make_player("alphago:policy_pretrained=zero-9,value_pretrained=zero-9,readouts=8,"
                         "mix=0.5,softpick=6")
    assert isinstance(player, SearchPlayer) and player.search.softpick_moves == 6
    assert player.evaluate.shared and player.size == 9
    assert make_player("alphago:policy_pretrained=zero-9,value_pretrained=zero-9,readouts=8"
                       ).search.softpick_moves == 0
