"""KataGo's additions to the Zero loop (Wu 2019, "Accelerating Self-Play
Learning in Go"): the ownership and score targets (checked against GnuGo's
dead stones, seki and territory), playout cap randomization, forced
playouts and policy target pruning, global pooling, and the switches in
ZeroConfig and ``mockgo zero``."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from mockgo.data import sgf_reader
from mockgo.go import coords
from mockgo.go.board import BLACK, EMPTY, WHITE, Board
from mockgo.go.ownership import final_owners
from mockgo.zero.config import ZeroConfig
from mockgo.zero.selfplay import end_targets

MATCHES = Path(__file__).parent.parent / "docs" / "matches" / "uct-heavy-20000-vs-gnugo1"
FIXTURES = Path(__file__).parent / "fixtures"

# Row 9 first. Top left: a seki (black A8 B8 B9 with the eye A9, white C8-F8 D9
# F9 with the eye E9, C9 shared); A3 is a dead black stone in white's area,
# G2 a dead white one in black's.
SEKI_AND_DEAD = """
. X . O . O X . .
X X O O O O X . .
O O X X X X X . .
. O X . . . . . .
. O X . . . . . .
. O X . . . . . .
X O X . . . . . .
. O X . . X O X .
. O X . . . . . .
"""


def board_from(diagram, komi=7.5):
    rows = [row.split() for row in diagram.strip().splitlines()]
    size = len(rows)
    points = {c: [r * size + k for r in range(size) for k in range(size) if rows[r][k] == c]
              for c in "XO"}
    board = Board(size, komi=komi)
    board.setup(black=points["X"], white=points["O"])
    return board


def gnugo_statuses(gnugo_path, board=None, sgf_path=None):
    """GnuGo's (Chinese rules) final_status_list of each kind and its final_score."""
    from mockgo.play.gtp_engine import GTPEngine, gnugo_command

    with GTPEngine(gnugo_command(level=10, binary=gnugo_path)) as engine:
        if sgf_path is not None:
            engine.send(f"loadsgf {sgf_path}")
        else:
            engine.send(f"boardsize {board.size}")
            engine.send("clear_board")
            engine.send(f"komi {board.komi}")
            for p in np.flatnonzero(board.stones):
                color = "black" if board.stones[p] == BLACK else "white"
                engine.send(f"play {color} {coords.to_gtp(int(p), board.size)}")
        size = board.size if board is not None else sgf_reader.load_sgf(sgf_path).size
        lists = {kind: [coords.from_gtp(word, size)
                        for word in engine.send(f"final_status_list {kind}").split()]
                 for kind in ("alive", "dead", "seki", "black_territory", "white_territory",
                              "dame")}
        return lists, engine.send("final_score")


def expected_owners(board, lists):
    """Each point's owner as GnuGo's lists say: alive and seki stones their
    colour's, dead stones the opponent's, territory its colour's, dame no one's."""
    owners = np.full(board.pass_index, -1)
    for p in lists["alive"] + lists["seki"]:
        owners[p] = board.stones[p]
    for p in lists["dead"]:
        owners[p] = 3 - board.stones[p]
    for kind, color in (("black_territory", BLACK), ("white_territory", WHITE),
                        ("dame", EMPTY)):
        owners[lists[kind]] = color
    assert (owners >= 0).all(), "GnuGo's lists cover every point"
    return owners


def score_text(owners, komi):
    score = (owners == BLACK).sum() - (owners == WHITE).sum() - komi
    return "0" if score == 0 else f"{'B' if score > 0 else 'W'}+{abs(score):g}"


# ------------------------------------------------------------ ownership labels


def test_ownership_labels_with_seki_and_dead_stones_as_gnugo_marks_them(gnugo_path):
    board = board_from(SEKI_AND_DEAD)
    lists, score = gnugo_statuses(gnugo_path, board=board)
    gtp = lambda names: sorted(coords.to_gtp(p, 9) for p in names)  # noqa: E731
    # The position has what the test is about: GnuGo sees the seki and both dead stones.
    assert gtp(lists["seki"]) == sorted("A8 B8 B9 C8 D8 E8 F8 D9 F9".split())
    assert gtp(lists["dead"]) == ["A3", "G2"]
    owners = final_owners(board, lists["dead"], lists["seki"])
    assert owners.tolist() == expected_owners(board, lists).tolist()
    # The seki's shared liberty and its eyes are no one's; Tromp-Taylor alone
    # would give the eyes to the colour around them.
    for point in ("A9", "C9", "E9"):
        assert owners[coords.from_gtp(point, 9)] == EMPTY
    plain = final_owners(board, lists["dead"])
    assert [plain[coords.from_gtp(p, 9)] for p in ("A9", "C9", "E9")] == [BLACK, EMPTY, WHITE]
    assert score_text(owners, board.komi) == score == "B+30.5"


@pytest.mark.parametrize("game", ["game-004-uct-rave-heavy-20000-vs-gnugo-l1.sgf",
                                  "game-005-gnugo-l1-vs-uct-rave-heavy-20000.sgf"])
def test_ownership_labels_of_real_games_agree_with_gnugo_point_by_point(gnugo_path, game):
    path = MATCHES / game
    board = sgf_reader.final_board(sgf_reader.load_sgf(path))
    lists, score = gnugo_statuses(gnugo_path, sgf_path=path)
    assert len(lists["dead"]) >= 5  # games with dead stones on both sides' areas
    owners = final_owners(board, lists["dead"], lists["seki"])
    assert owners.tolist() == expected_owners(board, lists).tolist()
    assert score_text(owners, board.komi) == score


def test_end_targets_are_from_the_player_to_moves_view():
    board = board_from(SEKI_AND_DEAD)
    board.play(board.pass_index)
    board.play(board.pass_index)
    colors = np.array([BLACK, WHITE, BLACK])
    ownership, score, weight = end_targets(board, colors)
    black_view = np.select([final_owners(board) == BLACK, final_owners(board) == WHITE],
                           [1, -1], 0)
    assert ownership.dtype == np.int8 and ownership.shape == (3, 81)
    assert ownership[0].tolist() == black_view.tolist() == (-ownership[1]).tolist()
    assert score.tolist() == [board.area_score(), -board.area_score(), board.area_score()]
    # The margin is the ownership's sum less komi, for either player.
    assert ownership[0].sum() - board.komi == score[0]
    assert ownership[1].sum() + board.komi == score[1]
    assert weight == 1.0


def test_resigned_and_move_capped_games_give_no_ownership_or_score_weight():
    resigned = board_from(SEKI_AND_DEAD)
    resigned.resign()
    capped = board_from(SEKI_AND_DEAD)
    capped.play(capped.pass_index)  # one pass: the game is not over
    for board in (resigned, capped):
        assert end_targets(board, np.array([BLACK]))[2] == 0.0


# ------------------------------------------------- the network's heads and pooling


def test_heads_and_global_pooling_shapes():
    from mockgo.nets.io import kind_of
    from mockgo.nets.inference import Predictor
    from mockgo.nets.models import dual_network

    model = dual_network(9, 17, blocks=4, filters=16, ownership_head=True, score_head=True,
                         global_pooling=4)
    assert model.output_names == ["policy", "value", "ownership", "score"]
    assert [tuple(out.shape) for out in model.outputs] == [(None, 82), (None, 1), (None, 81),
                                                          (None, 1)]
    names = {layer.name for layer in model.layers}
    # Blocks 2, 5, 8, ... pool: of four blocks, the second.
    assert {name.split("_")[0] for name in names if "gpool" in name} == {"res2"}
    shape = lambda name: tuple(model.get_layer(name).output.shape)  # noqa: E731
    assert shape("res2_conv1") == (None, 9, 9, 12)  # filters - pooled channels
    assert shape("res2_gpool_relu") == (None, 9, 9, 4)
    assert shape("res2_gpool_concat") == (None, 8)  # mean and max of each pooled channel
    assert shape("res2_gpool_reshape") == (None, 1, 1, 12)  # one bias per channel
    assert shape("res2_gpool_add") == (None, 9, 9, 12)
    assert shape("res2_conv2") == shape("res2_add") == (None, 9, 9, 16)
    planes = np.random.default_rng(0).integers(0, 2, (3, 9, 9, 17), dtype=np.uint8)
    policy, value, ownership, score = (np.asarray(out) for out in model(planes))
    assert ownership.shape == (3, 81) and np.all(np.abs(ownership) <= 1) and score.shape == (3, 1)
    # The search asks for the policy and value only.
    predictor = Predictor(model)
    assert predictor.is_dual and kind_of(model) == "dual"
    p, v = predictor.predict(planes)
    assert p.shape == (3, 82) and v.shape == (3,)
    np.testing.assert_allclose(p, policy, atol=1e-5)
    # A 1-channel pooling still fits; as many pooled channels as filters does not.
    with pytest.raises(ValueError, match="global_pooling"):
        dual_network(9, 17, blocks=2, filters=16, global_pooling=16)


def test_a_model_saved_before_the_new_options_loads_and_plays_unchanged():
    from mockgo.nets.inference import Predictor
    from mockgo.nets.io import load_model
    from mockgo.nets.models import dual_network

    # Saved by mockgo before this change (1 block, 8 filters), with its outputs.
    old = load_model(FIXTURES / "dual-before-katago.keras")
    expected = np.load(FIXTURES / "dual-before-katago.npz")
    policy, value = Predictor(old).predict(expected["planes"])
    np.testing.assert_allclose(policy, expected["policy"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(value, expected["value"], rtol=1e-5, atol=1e-6)
    # Without the options the builder makes the same layers and weights as then.
    new = dual_network(9, 17, blocks=1, filters=8, l2=1e-4)
    assert [(layer.name, [tuple(w.shape) for w in layer.weights]) for layer in new.layers] == \
        [(layer.name, [tuple(w.shape) for w in layer.weights]) for layer in old.layers]


def test_a_model_with_heads_trains_on_weighted_targets_and_loads_compiled(tmp_path):
    import keras

    from mockgo.nets.io import load_model, save_model
    from mockgo.nets.models import dual_network
    from mockgo.zero.train import compile_dual, targets

    config = ZeroConfig.for_test().with_katago()
    keras.utils.set_random_seed(0)
    model = compile_dual(dual_network(9, 17, blocks=1, filters=8, ownership_head=True,
                                      score_head=True, global_pooling=2), config)
    rng = np.random.default_rng(0)
    n = 32
    examples = {"planes": rng.integers(0, 2, (n, 9, 9, 17), dtype=np.uint8),
                "pi": np.full((n, 82), 1 / 82, np.float32), "z": np.ones(n, np.float32),
                "ownership": rng.integers(-1, 2, (n, 81)).astype(np.int8),
                "score": np.full(n, 40.5, np.float32),
                "aux_weight": np.repeat([1.0, 0.0], n // 2).astype(np.float32)}
    y, weights = targets(model, examples)
    assert [len(part) for part in (y, weights)] == [4, 4]
    assert y[3][0, 0] == pytest.approx(0.5)  # the margin as a share of the 81 points
    before = model.evaluate(examples["planes"], y, sample_weight=weights, verbose=0,
                            return_dict=True)
    # Examples of weight 0 count for nothing in the ownership and score losses.
    half = {k: v[: n // 2] for k, v in examples.items()}
    y_half, w_half = targets(model, half)
    alone = model.evaluate(half["planes"], y_half, sample_weight=w_half, verbose=0,
                           return_dict=True)
    assert before["ownership_loss"] == pytest.approx(alone["ownership_loss"] / 2, rel=1e-4)
    rest = {k: v[n // 2:] for k, v in examples.items()}
    y_rest, w_rest = targets(model, rest)
    unweighted = model.evaluate(rest["planes"], y_rest, sample_weight=w_rest, verbose=0,
                                return_dict=True)
    assert unweighted["ownership_loss"] == unweighted["score_loss"] == 0.0
    assert unweighted["policy_loss"] > 0 and unweighted["value_loss"] > 0
    model.fit(examples["planes"], y, sample_weight=weights, batch_size=16, epochs=1, verbose=0)
    save_model(model, tmp_path / "heads.keras")
    loaded = load_model(tmp_path / "heads.keras", compile=True)
    assert loaded.compiled and loaded.output_names == model.output_names
    again = loaded.evaluate(examples["planes"], y, sample_weight=weights, verbose=0,
                            return_dict=True)
    after = model.evaluate(examples["planes"], y, sample_weight=weights, verbose=0,
                           return_dict=True)
    assert again["loss"] == pytest.approx(after["loss"], rel=1e-5)


# ------------------------------------------------------------- self-play


def test_selfplay_records_full_searches_only_with_their_end_targets():
    import keras

    from mockgo.nets.models import dual_network
    from mockgo.search.evaluators import NetworkEvaluator
    from mockgo.zero.examples import stack_games
    from mockgo.zero.selfplay import play_selfplay_games

    config = dataclasses.replace(ZeroConfig.for_test(), max_moves=60).with_katago()
    assert (config.full_search_share, config.fast_readouts, config.forced_playouts) == \
        (0.25, 2, 2.0)
    keras.utils.set_random_seed(0)
    evaluator = NetworkEvaluator(dual_network(9, 17, blocks=1, filters=8), batch_size=32, seed=0)
    games = play_selfplay_games(evaluator, config, [0, 1, 2, 3], seed_parts=("test",))
    for game in games:
        searched = len(game.comments)
        fast = [i for i, comment in enumerate(game.comments) if comment.startswith("fast search")]
        assert game.full_searches + game.fast_searches == searched
        assert game.fast_searches == len(fast) and len(game.z) == game.full_searches
        # The examples are the moves that were searched in full, in order.
        assert game.moves.tolist() == [i for i in range(searched) if i not in fast]
        assert np.allclose(game.pi.sum(axis=1), 1)
        ended = game.board.passes >= 2 and game.board.resigned is None
        assert game.aux_weight == (1.0 if ended else 0.0)
        colors = np.array([game.board.history[m][0] for m in game.moves])
        ownership, score, _ = end_targets(game.board, colors)
        assert game.ownership.tolist() == ownership.tolist()
        assert game.score.tolist() == score.tolist()
        if ended:  # the margin agrees with the result
            assert np.all(np.sign(game.score) == game.z)
    share = sum(g.full_searches for g in games) / sum(len(g.comments) for g in games)
    assert 0.1 < share < 0.45
    stacked = stack_games(games)
    assert stacked["aux_weight"].tolist() == sum(([g.aux_weight] * len(g.z) for g in games), [])
    assert stacked["ownership"].shape == (len(stacked["z"]), 81)


# ---------------------------------------------------- the switches and old runs


def test_katago_flag_and_set_fields(tmp_path):
    from mockgo.zero.cli import _parser, config_from_args

    def config(*argv):
        return config_from_args(_parser().parse_args(["--base-dir", str(tmp_path / "run"),
                                                      *argv]))

    plain = config("--test")
    assert plain == ZeroConfig.for_test()
    assert (plain.ownership_head, plain.full_search_share, plain.forced_playouts,
            plain.global_pooling, plain.strength_every) == (False, 1.0, 0.0, 0, 0)
    katago = config("--test", "--katago")
    assert katago == ZeroConfig.for_test().with_katago()
    assert (katago.ownership_head, katago.score_head, katago.global_pooling,
            katago.full_search_share, katago.fast_readouts, katago.forced_playouts) == \
        (True, True, 2, 0.25, 2, 2.0)
    # --set keeps its value under --katago; the fast search follows --readouts.
    mixed = config("--readouts", "64", "--katago", "--set", "forced_playouts=1",
                   "--set", "score_head=false", "--set", "strength_every=5")
    assert (mixed.forced_playouts, mixed.fast_readouts, mixed.score_head,
            mixed.strength_every) == (1.0, 16, False, 5)


def test_a_config_json_from_before_the_new_fields_loads_with_them_off(tmp_path):
    import json

    from mockgo.zero.layout import RunLayout
    from mockgo.zero.run import bootstrap

    new_fields = {"ownership_head", "score_head", "ownership_weight", "score_weight",
                  "global_pooling", "full_search_share", "fast_readouts", "forced_playouts",
                  "strength_every", "strength_games", "strength_level"}
    old = {k: v for k, v in ZeroConfig.for_test().to_dict().items() if k not in new_fields}
    assert ZeroConfig.from_dict(old) == ZeroConfig.for_test()
    base = tmp_path / "old-run"
    bootstrap(base, ZeroConfig.for_test())
    RunLayout(base).config.write_text(json.dumps(old))  # as an old run wrote it
    bootstrap(base, ZeroConfig.for_test())  # resumes
    with pytest.raises(ValueError):
        bootstrap(base, ZeroConfig.for_test().with_katago())  # another config is refused


# ------------------------------------------------------------- the strength curve


def test_strength_curve_matches_gnugo_and_resumes(gnugo_path, tmp_path):
    import json

    from mockgo.zero.run import bootstrap

    # The whole KataGo set on, so the loop runs it end to end (heads, pooling, playout cap).
    config = ZeroConfig.for_test(strength_every=1, strength_games=2, games_per_generation=4,
                                 games_in_parallel=4, evaluate=False, max_moves=40,
                                 epochs=1).with_katago()
    base = tmp_path / "run"
    run = bootstrap(base, config)
    run.run(1, progress=False)
    rec = run.record(1)
    assert rec["selfplay"]["fast_searches"] > rec["selfplay"]["full_searches"] > 0
    assert {"ownership_loss", "score_loss"} <= set(rec["train"]["history"])
    assert run.model(1).output_names == ["policy", "value", "ownership", "score"]
    example = run.example(1, game=0, move=5)  # the first full search from move 5 on
    assert example["board"].move_number >= 5 and not example["comment"].startswith("fast")
    lines = (base / "strength_curve.jsonl").read_text().splitlines()
    point = json.loads(lines[0])
    assert len(lines) == 1 and point["level"] == 1 and point["games"] == 2
    assert point["generation"] == 1 and point["wins"] <= 2 and point["selfplay_games"] == 4
    assert point["cpu_hours"] > 0 and point["hours"] > 0 and point["seconds_per_move"] > 0
    games = sorted((base / "sgf" / "strength" / "000001-vs-gnugo-l1").glob("*.sgf"))
    # the colours alternate
    assert len(games) == 2 and sgf_reader.load_sgf(games[1]).black == "gnugo-l1"
    # A point is made once: opened again, the run plays no match.
    again = bootstrap(base, config)
    assert again.gnugo_strength(1) == again.strength_curve() == [point]
    # A strength match cut short is finished from its folder when the run goes on.
    state = json.loads((base / "state.json").read_text())
    del state["generations"]["1"]["strength"]
    (base / "state.json").write_text(json.dumps(state))
    log = games[0].with_name("games.jsonl")  # the match stopped before its second game ended
    log.write_text(log.read_text().splitlines(keepends=True)[0])
    games[1].unlink()
    resumed = bootstrap(base, config)
    resumed.run(1, progress=False)
    assert resumed.strength_curve()[0]["games"] == 2 and games[1].exists()
    assert (json.loads(games[0].with_name("match.json").read_text())["spec_b"] == "gnugo-l1")


def test_strength_schedule_and_level_10_once_level_1_is_won(tmp_path, monkeypatch):
    from mockgo.zero import run as zero_run

    monkeypatch.setattr(zero_run, "find_gnugo", lambda: "/usr/games/gnugo")
    config = ZeroConfig.for_test(strength_every=2)
    run = zero_run.bootstrap(tmp_path / "run", config)
    played = []
    wins = {2: 3, 4: 6, 6: 1}  # of 10 at level 1, by generation

    def fake_match(generation, level, progress):
        played.append((generation, level))
        won = wins[generation] if level == 1 else 0
        return {"generation": generation, "level": level, "wins": won, "games": 10,
                "win_rate": won / 10, "opponent": f"gnugo-l{level}", "cpu_hours": generation}

    monkeypatch.setattr(run, "_strength_match", fake_match)
    for g in range(1, 7):
        run.state["generations"][str(g)] = {"generation": g, "done": True}
        run.state["latest"] = g
        run.gnugo_strength(g)
    assert played == [(2, 1), (4, 1), (4, 10), (6, 1), (6, 10)]
    assert [p["generation"] for p in run.strength_curve()] == [2, 4, 4, 6, 6]
    assert (tmp_path / "run" / "strength_curve.jsonl").read_text().count("\n") == 5
    assert run.gnugo_strength(0) == [] and run.gnugo_strength(3) == []


def test_strength_curve_plot(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    from mockgo.plotting import plot_strength_curve, strength_elo

    points = [{"level": 1, "wins": w, "games": 10, "cpu_hours": h,
               "wilson_95": list(__import__("mockgo.play.results", fromlist=["x"])
                                 .wilson_interval(w, 10))} for w, h in ((0, 1), (5, 2), (10, 3))]
    elo, low, high = strength_elo(points[1])
    assert elo == pytest.approx(0) and low < 0 < high
    assert all(low <= elo <= high and abs(elo) < 800 for elo, low, high in map(strength_elo, points))
    ax = plot_strength_curve({"katago": points, "plain": points[:1]})
    assert len(ax.lines) >= 2 and ax.get_xlabel() == "CPU-hours"


def test_equal_cost_plot_draws_each_match_at_the_other_runs_cpu_hours():
    import matplotlib

    matplotlib.use("Agg")
    from mockgo.play.results import wilson_interval
    from mockgo.plotting import plot_equal_cost

    matches = ((35, 0.37), (20, 0.7), (4, 1.0))  # wins of 40, CPU-hours
    points = [{"wins": w, "games": 40, "other_cpu_hours": h,
               "wilson_95": list(wilson_interval(w, 40))} for w, h in matches]
    ax = plot_equal_cost(points, names=("katago", "plain"))
    xs, ys = ax.lines[0].get_data()
    assert list(xs) == [0.37, 0.7, 1.0]
    assert ys[0] > 0 and ys[1] == pytest.approx(0, abs=15) and ys[2] < 0
    assert "katago against plain" in ax.get_legend().get_texts()[0].get_text()


# ------------------------------------------------------- the tic-tac-toe warm-up


def test_tictactoe_warmup_runs_the_loop_and_is_checked_against_minimax():
    from mockgo.search.games import TicTacToe
    from mockgo.search.minimax import check_player
    from mockgo.zero.tictactoe import (TicTacToeEvaluator, encode, network_player,
                                       search_player, train_tictactoe)

    state = TicTacToe.from_diagram("X O .  . X .  . . .")  # O to move
    planes = encode([state])
    assert planes.shape == (1, 3, 3, 2)
    assert planes[0, :, :, 0].sum() == 1 and planes[0, :, :, 1].sum() == 2  # mover's, opponent's
    model, history = train_tictactoe(generations=2, games=8, readouts=8, epochs=1)
    assert [r["generation"] for r in history] == [1, 2] and history[-1]["examples"] > 16
    assert all(np.isfinite(r["policy_loss"]) and 0 <= r["draws"] <= 1 for r in history)
    priors, values = TicTacToeEvaluator(model)([state, TicTacToe()])
    assert priors.shape == (2, 9) and np.allclose(priors.sum(axis=1), 1)
    assert np.all(priors[0][[0, 1, 4]] == 0) and np.all(np.abs(values) <= 1)
    # Both players answer every position with a legal move; the check runs.
    for choose in (network_player(model), search_player(model, readouts=4)):
        moves = choose([state, TicTacToe()])
        assert state.legal_actions()[moves[0]] and 0 <= moves[1] < 9
    report = check_player(network_player(model))
    assert report.positions == 4520 and 0 <= report.optimal <= 4520


# ------------------------------------------------------------- faster inference


def test_xla_and_bfloat16_graphs_give_the_models_outputs():
    from mockgo.nets.inference import Predictor, fastest_precision
    from mockgo.nets.models import dual_network

    model = dual_network(9, 17, blocks=1, filters=8, ownership_head=True)
    planes = np.random.default_rng(0).integers(0, 2, (5, 9, 9, 17), dtype=np.uint8)
    policy, value = Predictor(model).predict(planes)
    xla_policy, xla_value = Predictor(model, jit_compile=True).predict(planes)
    np.testing.assert_allclose(xla_policy, policy, atol=1e-5)
    np.testing.assert_allclose(xla_value, value, atol=1e-5)
    half = Predictor(model, precision="bfloat16")
    half_policy, half_value = half.predict(planes)
    assert half_policy.dtype == np.float32 and half_value.shape == (5,)
    np.testing.assert_allclose(half_policy, policy, atol=2e-2)
    np.testing.assert_allclose(half_value, value, atol=5e-2)
    # The bfloat16 graph reads a copy of the weights: sync_weights after training.
    model.get_layer("value").set_weights([w * 0 for w in model.get_layer("value").get_weights()])
    assert np.abs(half.predict(planes)[1]).max() > 0
    half.sync_weights()
    assert np.abs(half.predict(planes)[1]).max() == 0
    with pytest.raises(ValueError, match="precision"):
        Predictor(model, precision="float16")
    assert Predictor(model, precision="auto").precision == fastest_precision()
    with pytest.raises(ValueError, match="precision"):
        ZeroConfig(precision="int8")


def test_auto_precision_follows_the_cpus_bfloat16_instructions(tmp_path):
    from mockgo.nets.inference import fastest_precision

    with_bf16 = tmp_path / "cpuinfo-bf16"
    with_bf16.write_text("flags\t\t: fpu sse2 avx2 avx512f avx512_bf16 avx512_vnni\n")
    without = tmp_path / "cpuinfo"
    without.write_text("flags\t\t: fpu sse2 avx2 avx512f\n")
    assert fastest_precision(with_bf16) == "bfloat16"
    assert fastest_precision(without) == fastest_precision(tmp_path / "missing") == "float32"


# ------------------------------------------------- head to head at equal CPU time


def _fake_generations(run, cpu_seconds, strength_at=()):
    """Give ``run`` generations 1..len(cpu_seconds) that each cost that many
    CPU seconds (self-play half, training a quarter, an evaluation match a
    quarter: every part ZeroRun.cost counts), all with model 0's weights
    (copied), and a strength point at each of ``strength_at``."""
    import shutil

    for g, seconds in enumerate(cpu_seconds, start=1):
        shutil.copy(run.model_path(0), run.model_path(g))
        rec = {"generation": g, "done": True,
               "selfplay": {"cpu_seconds": seconds / 2, "games": 4},
               "train": {"cpu_seconds": seconds / 4}, "cost": {"evaluate": [1.0, seconds / 4]}}
        if g in strength_at:
            rec["strength"] = [{"generation": g, "level": 1, "wins": 0, "games": 2}]
        run.state["generations"][str(g)] = rec
        run.state["latest"] = g


def test_equal_cost_matches_pair_models_of_no_more_cpu_time_and_resume(tmp_path, monkeypatch):
    from mockgo.play import match as play_match
    from mockgo.zero import match as zero_match
    from mockgo.zero import run as zero_run

    # The games are scored with every stone alive, as without GnuGo: GnuGo's
    # list of dead stones took about 7 s for each game cut off at 24 moves
    # (measured: the test took 34 s with it, 6 s without), and which models
    # meet is the point here, not the scores (a match scored by GnuGo:
    # tests/test_arena.py).
    monkeypatch.setattr(play_match, "find_gnugo", lambda: None)
    small = dict(max_moves=24, games_in_parallel=2, eval_readouts=4)
    katago = zero_run.bootstrap(tmp_path / "katago",
                                ZeroConfig.for_test(**small).with_katago())
    plain = zero_run.bootstrap(tmp_path / "plain", ZeroConfig.for_test(**small))
    _fake_generations(katago, [360.0] * 6)  # 0.1 CPU-hours a generation
    _fake_generations(plain, [900.0] * 3, strength_at=(1, 3))  # 0.25 a generation
    assert [katago.generation_within(h) for h in (0.05, 0.1, 0.25, 0.75, 9.0)] == [0, 1, 2, 6, 6]
    assert all(katago.generation_within(katago.cost(g)["cpu_hours"]) == g for g in range(7))

    points = zero_match.equal_cost_matches(katago, plain, games=2, progress=False)
    # the plain run's strength-curve generations, each against the last katago
    # generation of no more CPU time: 0.25 -> 2, 0.75 -> 6 (0.6)
    assert [(p["other_generation"], p["generation"]) for p in points] == [(1, 2), (3, 6)]
    assert [round(p["cpu_hours"], 6) for p in points] == [0.2, 0.6]
    assert [round(p["other_cpu_hours"], 6) for p in points] == [0.25, 0.75]
    assert all(p["games"] == 2 and 0 <= p["wins"] <= 2 for p in points)
    folder = tmp_path / "katago" / "sgf" / "equal-cost" / "000002-vs-plain-000001-r4"
    games = sorted(folder.glob("*.sgf"))
    assert len(games) == 2
    first = sgf_reader.load_sgf(games[0])
    assert (first.black, first.white) == ("katago-000002-r4", "plain-000001-r4")
    assert sgf_reader.load_sgf(games[1]).black == "plain-000001-r4"  # colours alternate
    # Asked again, the matches are read from their folders: no game is played.
    monkeypatch.setattr(zero_match, "evaluator_for", _refuse_to_play)
    played = zero_match.equal_cost_matches(katago, plain, games=2, generations=[1],
                                         progress=False)
    assert played == points[:1]
    # Other readouts are another match, in another folder: never the games above.
    with pytest.raises(AssertionError, match="played again"):
        zero_match.equal_cost_matches(katago, plain, games=2, readouts=3, generations=[1],
                                    progress=False)
    # Runs of different boards or komi cannot be compared.
    other = zero_run.bootstrap(tmp_path / "komi", ZeroConfig.for_test(komi=6.5, **small))
    with pytest.raises(ValueError, match="komi 7.5 against 6.5"):
        zero_match.equal_cost_matches(katago, other, games=2, generations=[1], progress=False)


def _refuse_to_play(*args, **kwargs):
    raise AssertionError("a finished match was played again")
