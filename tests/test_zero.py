"""The AlphaGo Zero loop (mockgo.zero): end to end with the --test settings,
resuming interrupted steps, the training examples, the SGF files and the
promotion rule.

The loop runs once per module (a tiny network: 1 block of 8 filters, 8
readouts a move), through the command line; the other tests start small
runs of their own in temporary folders and interrupt them through the
``callback`` hook that every long step takes."""

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from mockgo import BLACK, WHITE
from mockgo.data import sgf_reader
from mockgo.go.features import get_encoder
from mockgo.nets.inference import fastest_precision
from mockgo.play.results import MatchResult
from mockgo.search.games import SensibleGoGame
from mockgo.zero import run as zero_run
from mockgo.zero.cli import _parser as zero_parser
from mockgo.zero.cli import generations_wanted
from mockgo.zero.cli import main as zero_main
from mockgo.zero.config import ZeroConfig
from mockgo.zero.layout import RunLayout, is_holdout, model_name
from mockgo.zero.report import elo_chain, generation_line, resume_lines
from mockgo.zero.run import STEPS, bootstrap
from mockgo.zero.train import augment

GAMES = 8  # ZeroConfig.for_test().games_per_generation


class Interrupt(Exception):
    """What the tests raise to stop a step midway, as Ctrl-C would."""


@pytest.fixture(scope="module")
def loop_dir(tmp_path_factory):
    """A run of two generations made by the command line with --test."""
    base = tmp_path_factory.mktemp("zero") / "run"
    assert zero_main(["--base-dir", str(base), "--test", "--generations", "2", "--quiet"]) == 0
    return base


def example_files(base, kind="*"):
    return sorted(base.glob(f"data/{kind}/*/*.npz"))


def game_numbers(base, job):
    numbers = []
    for path in example_files(base):
        if path.name.startswith(job):
            with np.load(path) as data:
                numbers += sorted(set(data["game"].tolist()))
    return sorted(numbers)


# ------------------------------------------------------------------ the loop


def test_loop_makes_generations(loop_dir):
    state = json.loads((loop_dir / "state.json").read_text())
    assert state["latest"] == 2
    assert json.loads((loop_dir / "config.json").read_text()) == ZeroConfig.for_test().to_dict()
    for g in (0, 1, 2):
        assert (loop_dir / "models" / f"{g:06d}.keras").is_file()
    for g in ("1", "2"):
        rec = state["generations"][g]
        assert rec["done"] and set(STEPS) <= set(rec)
        assert rec["selfplay"]["games"] == GAMES and rec["selfplay"]["complete"]
        assert len(rec["train"]["history"]["policy_loss"]) == 2  # epochs
        assert np.isfinite(rec["validate"]["policy_loss"]) and rec["validate"]["examples"] > 0
        assert rec["evaluate"]["games"] == 4
        assert rec["evaluate"]["promoted"] == (rec["evaluate"]["win_rate"] >= 0.55)
        assert 0 <= rec["selfplay"]["false_positive_rate"] <= 1
        assert rec["selfplay"]["evals_per_s"] > 0 and rec["selfplay"]["games_per_hour"] > 0
        # The network's precision as "auto" (or the config) chose it here is on record.
        precision = ZeroConfig.for_test().precision
        assert rec["selfplay"]["precisions"] == [
            fastest_precision() if precision == "auto" else precision]
    # Only the newest training chunks are kept; no temporary files are left.
    assert [p.name for p in (loop_dir / "data" / "training_chunks").iterdir()] == ["000002"]
    assert not list(loop_dir.rglob("*.tmp*")) and not list((loop_dir / "models" / ".training").iterdir())


def test_selfplay_saves_every_game_once(loop_dir):
    for job in ("gen000001", "gen000002"):
        assert game_numbers(loop_dir, job) == list(range(GAMES))
        for kind in ("clean", "full"):
            assert len(list(loop_dir.glob(f"sgf/*/{kind}/{job}-*.sgf"))) == GAMES
    # Holdout: every fourth game (holdout_share 0.25), in data/holdout only.
    held = [p for p in example_files(loop_dir, "holdout") if p.name.startswith("gen000001")]
    with np.load(held[0]) as data:
        assert sorted(set(data["game"].tolist())) == [3, 7]


def test_sgf_files_are_readable(loop_dir):
    paths = sorted(loop_dir.glob("sgf/**/*.sgf"))
    assert len(paths) == 2 * 2 * GAMES + 2 * 4  # clean and full self-play, evaluation games
    for path in paths:
        record = sgf_reader.load_sgf(path)
        board = sgf_reader.final_board(record)
        assert record.problem is None and record.size == 9 and record.winner in (BLACK, WHITE)
        if "/full/" in str(path):
            assert all(c and c.startswith("value ") and "visits" in c for c in record.comments)
        else:
            assert not any(record.comments)
        if record.result_reason != "resign":
            assert board.result() == record.result


def test_examples_pi_and_z(loop_dir):
    """pi sums to 1 and is 0 on illegal moves; z is +1 exactly when the
    player to move went on to win; the planes are the position's agz17."""
    encoder = get_encoder("agz17", 9)
    path = next(p for p in example_files(loop_dir, "selfplay") if p.name.startswith("gen000002"))
    model = path.parent.name
    with np.load(path) as data:
        planes, pi, z, games, moves = (data[k] for k in ("planes", "pi", "z", "game", "move"))
    assert planes.dtype == np.uint8 and planes.shape[1:] == (9, 9, 17)
    np.testing.assert_allclose(pi.sum(axis=1), 1.0, atol=1e-5)
    assert set(np.unique(z)) <= {-1.0, 1.0}
    checked = 0
    for game in sorted(set(games.tolist())):
        clean = loop_dir / "sgf" / model / "clean"
        record = sgf_reader.load_sgf(clean / f"gen000002-{game:05d}.sgf")
        rows = np.flatnonzero(games == game)
        assert moves[rows].tolist() == list(range(len(rows))) == list(range(len(record.moves)))
        for row, (board, color, move) in zip(rows, sgf_reader.replay(record)):
            legal = board.legal_moves()
            assert np.all(pi[row][~legal] == 0) and pi[row][move] > 0
            assert z[row] == (1.0 if color == record.winner else -1.0)
            assert np.array_equal(planes[row], encoder.encode(board))
            checked += 1
    assert checked == len(z)


def test_training_curves_and_history(loop_dir):
    run = bootstrap(loop_dir, ZeroConfig.for_test())
    curves = run.curves()
    assert set(curves) == {"policy_loss", "value_loss", "val_policy_loss", "val_value_loss"}
    assert all(len(values) == 2 for values in curves.values())
    assert len(run.selfplay_sgfs(2)) == GAMES
    assert "generation 2" in generation_line(run.record(2))
    # run again towards more generations, the loop first reprints what was made
    report = resume_lines(run.generations(), 5, run.state_path.name)
    assert report[0] == "generations 1 to 2 were made before (from state.json); going on to 5"
    assert report[1:] == [generation_line(run.record(g)) for g in (1, 2)]
    assert resume_lines(run.generations(), 2, "state.json") == []   # nothing left to make


def test_the_elo_chain_adds_up_each_generations_match_against_the_one_before(tmp_path):
    """Random at 0 Elo; 3 of 4 is +191 Elo, 1 of 4 is -191; a match won in
    full counts at its Wilson bound, and from there the chain is a bound."""
    def entry(model, opponent, wins, games=4, readouts=16):
        return {"model": model, "opponent": opponent, "wins": wins, "games": games,
                "win_rate": wins / games, "readouts": readouts}
    table = {"a": entry("000000", "random", 3), "b": entry("000002", "000000", 1),
             "c": entry("000004", "000002", 4), "d": entry("000004", "000002", 0, games=2),
             "e": {"win_rate": 1.0, "wins": 4, "games": 4}}  # a match from before the fields
    (tmp_path / "strength.json").write_text(json.dumps(table))
    chain = elo_chain(tmp_path, [0, 2, 4], games=4, readouts=16)
    assert [p["opponent"] for p in chain] == ["random", "000000", "000002"]
    assert [round(p["link"]) for p in chain] == [191, -191, 7]  # 4 of 4: Wilson low 51.0%
    assert [round(p["elo"]) for p in chain] == [191, 0, 7]
    assert [p["bound"] for p in chain] == [False, False, True]
    with pytest.raises(ValueError, match="no match of 000004 against 000000 .4 games, 16 read"):
        elo_chain(tmp_path, [0, 4], games=4, readouts=16)
    with pytest.raises(ValueError, match="no match of 000000 against random"):
        elo_chain(tmp_path / "elsewhere", [0], games=4, readouts=16)


def test_the_runs_matches_make_its_elo_chain(loop_dir, tmp_path):
    base = tmp_path / "run"
    shutil.copytree(loop_dir, base)
    run = bootstrap(base, ZeroConfig.for_test())
    readouts = run.config.match_readouts
    # A match kept before its entry named its players is read, not played again.
    (base / "strength.json").write_text(json.dumps(
        {f"000000 vs random, 2 games, {readouts} readouts": {"win_rate": 0.5, "wins": 1,
                                                              "games": 2}}))
    chain = run.elo_chain([0, 2], 2, progress=False)
    assert [(p["generation"], p["opponent"], p["wins"], p["games"]) for p in chain][0] == \
        (0, "random", 1, 2)
    assert (chain[1]["generation"], chain[1]["opponent"], chain[1]["games"]) == (2, "000000", 2)
    assert chain[1]["elo"] == pytest.approx(chain[0]["link"] + chain[1]["link"])
    assert elo_chain(base, [0, 2], games=2, readouts=readouts) == chain
    assert len(json.loads((base / "strength.json").read_text())) == 2


def test_another_config_is_refused(loop_dir):
    with pytest.raises(ValueError, match="other settings"):
        bootstrap(loop_dir, ZeroConfig.for_test(readouts=9))
    assert zero_main(["--base-dir", str(loop_dir), "--readouts", "9", "--quiet"]) == 2


def test_workers_without_a_cluster_are_worker_processes_here(loop_dir, tmp_path, monkeypatch,
                                                             capsys):
    from mockgo import cluster
    from mockgo.zero import cli

    assert zero_main(["--base-dir", str(loop_dir), "--workers", "0", "--quiet"]) == 2
    assert "--workers 0: give at least 1" in capsys.readouterr().err
    asked = []

    def make_executor(cluster_name=None, workers=1, **options):
        asked.append((cluster_name, workers))
        return cluster.InProcess()  # the games as here, without starting processes

    monkeypatch.setattr(cli, "make_executor", make_executor)
    base = tmp_path / "run"
    shutil.copytree(loop_dir, base)
    args = ["--base-dir", str(base), "--selfplay-only", "--model",
            str(base / "models" / "000001.keras"), "--games", "2", "--job", "extra", "--quiet"]
    assert zero_main(args + ["--workers", "2"]) == 0
    assert asked == [(None, 2)] and game_numbers(base, "extra") == [0, 1]


def test_selfplay_only_command(loop_dir, tmp_path):
    base = tmp_path / "run"
    shutil.copytree(loop_dir, base)
    model = base / "models" / "000001.keras"
    args = ["--base-dir", str(base), "--selfplay-only", "--model", str(model), "--games", "3",
            "--job", "extra", "--quiet"]
    assert zero_main(args) == 0
    assert game_numbers(base, "extra") == [0, 1, 2]
    assert len(list((base / "sgf" / "000001" / "full").glob("extra-*.sgf"))) == 3
    assert zero_main(args) == 0  # complete: nothing more is played
    assert len(list((base / "sgf" / "000001" / "clean").glob("extra-*.sgf"))) == 3


def test_selfplay_only_games_feed_the_next_training_window(loop_dir, tmp_path, capsys):
    """MiniGo's extra self-play workers: an extra job's finished batches join
    the window of the generations its model's games are in, once each; a
    batch its progress file does not name (a job stopped mid-batch) does not."""
    base = tmp_path / "run"
    shutil.copytree(loop_dir, base)
    run = bootstrap(base, ZeroConfig.for_test())
    best = model_name(run.best)
    layout = RunLayout(base)
    assert zero_main(["--base-dir", str(base), "--selfplay-only", "--games", "12", "--job",
                      "extra", "--quiet"]) == 0  # two batches of 8 and 4 games
    extra = layout.finished_examples(best, "extra")
    assert [f.name for f in extra] == ["extra-b0000.npz", "extra-b0001.npz"]
    # A batch file the progress file does not name is left out.
    shutil.copy(extra[0], layout.examples(best, "extra", batch=2))
    assert layout.finished_examples(best, "extra") == extra
    assert layout.extra_jobs(best) == ["extra"]
    assert zero_main(["--base-dir", str(base), "--generations", "3", "--quiet"]) == 0
    after = bootstrap(base, ZeroConfig.for_test())
    gathered = after.record(3)["gather"]
    assert gathered["extra_jobs"] == [f"{best}/extra"]  # generation 3's games are best's too
    own = sum(len(layout.examples(model, job)) for model, job in after._window(3))
    assert gathered["files"] == own + 2
    # The loop's own job names are refused for extra jobs.
    assert zero_main(["--base-dir", str(base), "--selfplay-only", "--games", "2", "--job",
                      "gen000009", "--quiet"]) == 2
    assert "the loop's own self-play jobs" in capsys.readouterr().err


def test_validate_only_and_evaluate_only_report_and_change_nothing(loop_dir, tmp_path, capsys):
    """MiniGo's --validation and --evaluation modes: figures about trained
    models, printed as JSON; the run's state and models stay as they were."""
    base = tmp_path / "run"
    shutil.copytree(loop_dir, base)
    state = (base / "state.json").read_text()
    run = bootstrap(base, ZeroConfig.for_test())
    assert zero_main(["--base-dir", str(base), "--validate-only", "--quiet"]) == 0
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    # The latest generation's figures are the ones its own step 4 recorded.
    recorded = run.record(2)["validate"]
    assert printed["generation"] == 2 and printed["examples"] == recorded["examples"] > 0
    assert printed["loss"] == pytest.approx(recorded["loss"], abs=1e-3)
    assert zero_main(["--base-dir", str(base), "--evaluate-only", "--generation", "2",
                      "--opponent", "0", "--games", "2", "--quiet"]) == 0
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (printed["generation"], printed["opponent"], printed["games"]) == (2, 0, 2)
    assert 0 <= printed["wins"] <= 2 and len(printed["wilson_95"]) == 2
    assert len(list((base / "sgf" / "evaluate" / "000002-vs-000000-extra").glob("*.sgf"))) == 2
    assert (base / "state.json").read_text() == state
    assert zero_main(["--base-dir", str(base), "--validate-only", "--generation", "7"]) == 2
    assert "generations 0 to 2, not 7" in capsys.readouterr().err


def test_a_run_without_its_state_is_refused_unless_restarted(loop_dir, tmp_path, capsys):
    base = tmp_path / "run"
    shutil.copytree(loop_dir, base)
    config = ZeroConfig.for_test()
    (base / "state.json").unlink()
    with pytest.raises(ValueError) as error:
        bootstrap(base, config)
    message = str(error.value)
    assert message.startswith(f"{base} holds earlier work (")
    assert ("files: models/000001.keras, models/000002.keras, "
            "data/holdout/000000/gen000001-b0000.npz, ") in message and "more)" in message
    assert message.endswith("no readable state.json to say what it is or how far it got, so "
                            "going on would start over and overwrite it. To delete it and start "
                            "over, pass restart=True to bootstrap (mockgo zero --restart); to "
                            "keep it, use another folder")
    assert zero_main(["--base-dir", str(base), "--generations", "3", "--quiet"]) == 2
    assert "no readable state.json" in capsys.readouterr().err
    models = sorted(p.name for p in (base / "models").glob("*.keras"))
    assert models == ["000000.keras", "000001.keras", "000002.keras"]  # nothing overwritten
    # Without config.json, the state and the models are of unknown settings.
    shutil.copy(loop_dir / "state.json", base / "state.json")
    (base / "config.json").unlink()
    with pytest.raises(ValueError, match=r"no readable config\.json"):
        bootstrap(base, config)
    # Asked for, a restart deletes the run and begins again.
    assert zero_main(["--base-dir", str(base), "--test", "--restart", "--generations", "0",
                      "--quiet"]) == 0
    assert sorted(str(p.relative_to(base)) for p in base.rglob("*") if p.is_file()) == [
        ".lock", "config.json", "models/000000.keras", "state.json"]  # .lock: the loop's
    assert json.loads((base / "state.json").read_text())["latest"] == 0


def test_a_second_loop_or_a_restart_under_a_running_loop_is_refused(
        loop_dir, tmp_path, capsys, another_process_holds):
    """The loop holds the run folder's lock (files.folder_lock): with it
    held by another process, the loop and --restart stop at once, naming
    the holder, and nothing of the run is touched."""
    base = tmp_path / "run"
    shutil.copytree(loop_dir, base)
    before = sorted(str(p.relative_to(base)) for p in base.rglob("*") if p.is_file())
    with another_process_holds(base, "the AlphaGo Zero loop") as pid:
        capsys.readouterr()
        for extra in ([], ["--restart"]):
            assert zero_main(["--base-dir", str(base), "--test", "--generations", "3",
                              "--quiet", *extra]) == 2
            assert f"process {pid} (the AlphaGo Zero loop" in capsys.readouterr().err
    after = sorted(str(p.relative_to(base)) for p in base.rglob("*") if p.is_file())
    assert after == sorted(set(before) | {".lock"})
    assert json.loads((base / "state.json").read_text())["latest"] == 2


def test_a_damaged_state_or_model_is_named(loop_dir, tmp_path):
    base = tmp_path / "run"
    shutil.copytree(loop_dir, base)
    config = ZeroConfig.for_test()
    state = (base / "state.json").read_bytes()
    (base / "state.json").write_bytes(state[:len(state) // 2])
    with pytest.raises(ValueError, match=rf"^{base / 'state.json'} is damaged: not valid JSON .*"
                                         r"To delete the run and start over, pass restart=True "
                                         r"to bootstrap \(mockgo zero --restart\)$"):
        bootstrap(base, config)
    (base / "state.json").write_bytes(state)
    model = base / "models" / "000002.keras"
    model.write_bytes(model.read_bytes()[:4096])
    with pytest.raises(ValueError, match=rf"^{model} is not a Keras model: not a readable "):
        bootstrap(base, config).model(2)


# ------------------------------------------------------------------ resuming


def small_config(**changes):
    return ZeroConfig.for_test(games_in_parallel=3, max_moves=40, **changes)


def test_selfplay_resumes_without_losing_or_duplicating_games(tmp_path):
    config = small_config()
    run = bootstrap(tmp_path / "run", config)
    progress = tmp_path / "run" / "data" / "selfplay" / "000000" / "gen000001.json"

    def stop_in_second_batch(event, info):
        if event == "selfplay_step" and info["batch"] == 1 and info["step"] == 5:
            raise Interrupt

    with pytest.raises(Interrupt):
        run.selfplay(progress=False, callback=stop_in_second_batch)
    assert list(json.loads(progress.read_text())["batches"]) == ["0"]
    assert game_numbers(tmp_path / "run", "gen000001") == [0, 1, 2]
    first_batch = tmp_path / "run" / "data" / "selfplay" / "000000" / "gen000001-b0000.npz"
    written = first_batch.stat().st_mtime_ns

    def stop_after_second_batch(event, info):
        if event == "selfplay_batch" and info["batch"] == 1:
            raise Interrupt

    run = bootstrap(tmp_path / "run", config)  # as a new process would
    with pytest.raises(Interrupt):
        run.selfplay(progress=False, callback=stop_after_second_batch)
    assert list(json.loads(progress.read_text())["batches"]) == ["0", "1"]

    run = bootstrap(tmp_path / "run", config)
    summary = run.selfplay(progress=False)
    assert summary["games"] == GAMES and summary["complete"]
    assert game_numbers(tmp_path / "run", "gen000001") == list(range(GAMES))
    assert first_batch.stat().st_mtime_ns == written  # batch 0 was not played again
    for kind in ("clean", "full"):
        names = sorted(p.name for p in (tmp_path / "run" / "sgf" / "000000" / kind).iterdir())
        assert names == [f"gen000001-{i:05d}.sgf" for i in range(GAMES)]
    assert not list((tmp_path / "run").rglob("*.tmp*"))


def test_train_resumes_from_its_last_epoch(tmp_path):
    config = small_config(epochs=3, evaluate=False)
    run = bootstrap(tmp_path / "run", config)
    run.selfplay(progress=False)
    run.gather()

    def stop_after_first_epoch(event, info):
        if event == "train_epoch" and info["epoch"] == 1:
            raise Interrupt

    with pytest.raises(Interrupt):
        run.train(progress=False, callback=stop_after_first_epoch)
    assert not (tmp_path / "run" / "models" / "000001.keras").exists()
    state = json.loads((tmp_path / "run" / "state.json").read_text())
    assert state["generations"]["1"]["train_progress"]["epochs"] == 1

    epochs = []
    run = bootstrap(tmp_path / "run", config)
    result = run.train(progress=False, callback=lambda event, info: epochs.append(info["epoch"]))
    assert epochs == [2, 3]  # epoch 1 is not trained again
    assert len(result["history"]["policy_loss"]) == 3
    assert (tmp_path / "run" / "models" / "000001.keras").is_file()
    run.validate()
    assert run.evaluate(progress=False)["promoted"]  # no evaluation: promoted at once
    assert (run.latest, run.best) == (1, 1)
    run.run(2, progress=False)  # the next generation trains from the resumed model
    assert run.latest == 2 and run.record(2)["selfplay"]["model"] == "000001"


# --------------------------------------------------------------- promotion


@pytest.mark.parametrize("wins, promoted", [(11, True), (10, False), (20, True), (0, False)])
def test_evaluate_promotes_at_55_percent(tmp_path, monkeypatch, wins, promoted):
    run = bootstrap(tmp_path / "run", small_config(eval_games=20))
    shutil.copy(run.model_path(0), run.model_path(1))
    run.record().update(selfplay={}, gather={}, train={}, validate={})
    played = []

    def fake_match(first, second, games, config, **options):
        played.append(games)
        # A (the new model) is black in the even games: make it win the first `wins`.
        results = [SimpleNamespace(index=i, winner=(BLACK if (i < wins) == (i % 2 == 0) else WHITE))
                   for i in range(games)]
        return MatchResult("000001", "000000", "000001", "000000", 9, 7.5, results)

    monkeypatch.setattr(zero_run, "play_match", fake_match)
    summary = run.evaluate(progress=False)
    assert played == [20]
    assert summary["win_rate"] == wins / 20 and summary["promoted"] == promoted
    assert (run.latest, run.best) == (1, 1 if promoted else 0)


# ------------------------------------------- one game, and the games in lockstep


def position_evaluator(states):
    """A deterministic evaluator of each position alone, whatever is
    evaluated beside it (a network with random symmetries is not): priors
    drawn from the position's hash, the value the area score for the player
    to move over 20 (clipped to +-1), so that a side that falls behind
    resigns. Plain numpy, no transcendental functions: the same numbers on
    every machine."""
    n = states[0].num_actions
    priors, values = np.empty((len(states), n)), np.empty(len(states))
    for i, state in enumerate(states):
        board = state.board
        priors[i] = np.random.default_rng([int(board.hash), board.to_play]).random(n)
        score = board.area_score() if board.to_play == BLACK else -board.area_score()
        values[i] = min(max(score / 20, -1.0), 1.0)
    return priors, values


def pinned_config(katago):
    """A small self-play config whose games end every way: two passes,
    resignations, the move cap, and would-be resignations in the games where
    resigning is off."""
    config = ZeroConfig.for_test(max_moves=100, resign_threshold=-0.7, holdout_share=0.25)
    return config.with_katago() if katago else config


@pytest.mark.parametrize("katago", [False, True], ids=["alphago-zero", "katago"])
def test_one_game_played_move_by_move_is_the_game_the_lockstep_batch_plays(katago):
    """play_selfplay_game, the readable one, gives every field of each
    SelfPlayGame of play_selfplay_games, the fast one, to the bit: the same
    random numbers (the game's own), the same searches, the same examples.
    With KataGo's options too (fast searches are no examples; forced
    playouts pruned from pi)."""
    import dataclasses

    from mockgo.zero.selfplay import SelfPlayGame, play_selfplay_game, play_selfplay_games

    config = pinned_config(katago)
    batch = play_selfplay_games(position_evaluator, config, list(range(8)), ("m", "j"))
    endings = {("resign" if g.board.resigned is not None else
                "score" if g.board.passes >= 2 else "move cap") for g in batch}
    assert endings == {"resign", "score", "move cap"}
    assert any(g.would_have_resigned is not None for g in batch)
    assert (sum(g.fast_searches for g in batch) > 0) == katago
    for game in batch:
        alone = play_selfplay_game(position_evaluator, config, game.number, ("m", "j"))
        for field in dataclasses.fields(SelfPlayGame):
            mine, its = getattr(alone, field.name), getattr(game, field.name)
            if field.name == "board":
                assert (mine.history, mine.resigned, mine.area_score()) == \
                    (its.history, its.resigned, its.area_score())
            elif isinstance(its, np.ndarray):
                assert (mine.dtype, mine.shape) == (its.dtype, its.shape), field.name
                assert mine.tobytes() == its.tobytes(), field.name
            else:
                assert mine == its, field.name


# What write_batch wrote for pinned_config's 8 games (position_evaluator),
# before the self-play player attached its records to its moves (the hooks
# on_search and on_end_game): the examples' arrays and the SGF files. The
# files carry no date (they once carried the day's, and the pins held for
# one day only; the games are those pinned then, checked by adding it back).
PINNED_SELFPLAY = {
    False: "ea68cda56e7f96fc5368b523dc88b0ab29e641a67fad15359eeadc0e39bc52ea",
    True: "4784f6814a6846f6ab7f05050c38e0ea68aa9cbffcd17ed11a1f03da40f28f90",
}


@pytest.mark.parametrize("katago", [False, True], ids=["alphago-zero", "katago"])
def test_selfplay_writes_the_pinned_examples_and_games(katago, tmp_path):
    """A batch's files are those self-play wrote before (the digest of every
    example array and every SGF file): a change that alters a run's data
    for the same seed shows here."""
    import hashlib

    from mockgo.zero.selfplay import play_selfplay_games, write_batch

    config = pinned_config(katago)
    games = play_selfplay_games(position_evaluator, config, list(range(8)), ("m", "j"))
    layout = RunLayout(tmp_path)
    for folder in (layout.examples_dir("m"), layout.examples_dir("m", holdout=True),
                   layout.sgf_dir("m", "clean"), layout.sgf_dir("m", "full")):
        folder.mkdir(parents=True)
    write_batch(layout, config, "m", "j", 0, games, dict(seconds=1.0, cpu_seconds=1.0,
                                                         evaluations=0, network_seconds=0.0,
                                                         precision="float32"))
    digest = hashlib.sha256()
    for path in sorted(tmp_path.rglob("*")):
        if path.suffix == ".npz":
            with np.load(path) as data:
                for name in sorted(data.files):
                    digest.update(name.encode() + str(data[name].dtype).encode()
                                  + data[name].tobytes())
        elif path.suffix == ".sgf":
            digest.update(path.name.encode() + path.read_bytes())
    assert digest.hexdigest() == PINNED_SELFPLAY[katago]


def test_zero_game_plays_sensible_moves_and_passes_last():
    from mockgo import Board

    diagram = """
        . X {} O O
        X X X O .
        . X O O O
        X X O . O
        . X O O .
    """
    game = SensibleGoGame.from_board(Board.from_diagram(diagram.format("."), to_play=BLACK))
    # Black's own eyes (A5, A3, A1) are left out, and so is the pass: C5 is left.
    assert np.flatnonzero(game.legal_actions()).tolist() == [2]
    assert game.board.legal_moves()[[0, 10, 20]].all()
    for color in (BLACK, WHITE):  # nothing but eyes: the pass is the one action
        game = SensibleGoGame.from_board(Board.from_diagram(diagram.format("X"), to_play=color))
        assert np.flatnonzero(game.legal_actions()).tolist() == [25]
    assert isinstance(game.play(25), SensibleGoGame)
    assert type(ZeroConfig.for_test(sensible_moves=False).new_game()) is not SensibleGoGame


def test_holdout_share_is_exact():
    held = [i for i in range(100) if is_holdout(i, 0.05)]
    assert held == [19, 39, 59, 79, 99]
    assert not any(is_holdout(i, 0.0) for i in range(100))


def test_augment_turns_planes_and_pi_together():
    rng = np.random.default_rng(0)
    planes = np.zeros((40, 9, 9, 17), np.uint8)
    pi = np.zeros((40, 82), np.float32)
    points = rng.integers(0, 81, 40)
    planes[np.arange(40), points // 9, points % 9, 0] = 1
    pi[np.arange(40), points] = 1.0
    pi[:, 81] = 0.5  # pass stays pass
    turned, turned_pi = augment(planes, pi, rng)
    flat = turned[..., 0].reshape(40, 81)
    assert np.array_equal(flat.argmax(axis=1), turned_pi[:, :81].argmax(axis=1))
    assert np.all(turned_pi[:, 81] == 0.5)
    assert len({tuple(p) for p in flat.argmax(axis=1).reshape(-1, 1)}) > 1


def test_a_damaged_example_file_is_named(tmp_path):
    from mockgo.data.files import CorruptFileError
    from mockgo.zero.examples import load_examples, save_npz
    good = tmp_path / "gen000001-b0000.npz"
    save_npz(good, dict(planes=np.zeros((2, 3), np.uint8), pi=np.zeros((2, 4)), z=np.ones(2),
                        game=np.arange(2)))
    assert load_examples([good])[2].tolist() == [1.0, 1.0]
    cut = tmp_path / "gen000001-b0001.npz"
    cut.write_bytes(good.read_bytes()[:40])
    with pytest.raises(CorruptFileError, match="gen000001-b0001.npz is damaged"):
        load_examples([good, cut])


def test_a_run_starts_from_a_given_dual_network_and_refuses_one_that_does_not_fit(tmp_path,
                                                                                 capsys):
    import keras

    from mockgo.nets.io import load_model, save_model
    from mockgo.nets.models import dual_network

    keras.utils.set_random_seed(3)
    given = dual_network(7, 17, blocks=1, filters=8, name="supervised")
    path = tmp_path / "supervised.keras"
    save_model(given, path, encoder="agz17")
    run = bootstrap(tmp_path / "run", ZeroConfig.for_test(board_size=7, init_model=str(path)))
    for mine, theirs in zip(load_model(run.model_path(0)).get_weights(), given.get_weights()):
        np.testing.assert_array_equal(mine, theirs)
    # Another size of board or tower is named, and no run folder is left behind.
    for changes, named in ((dict(board_size=9), "board size 7"),
                           (dict(blocks=2), "blocks and filters (1, 8)"),
                           (dict(ownership_head=True), "ownership head False")):
        with pytest.raises(ValueError, match=named.replace("(", r"\(").replace(")", r"\)")):
            bootstrap(tmp_path / "bad", ZeroConfig.for_test(**{"board_size": 7, **changes},
                                                             init_model=str(path)))
        assert not (tmp_path / "bad" / "config.json").exists()
    # The command takes the tower's size from the file.
    assert zero_main(["--base-dir", str(tmp_path / "cli"), "--test", "--board-size", "7",
                      "--init", str(path), "--generations", "0", "--quiet"]) == 0
    stored = json.loads((tmp_path / "cli" / "config.json").read_text())
    assert (stored["blocks"], stored["filters"], stored["init_model"]) == (1, 8, str(path))
    assert zero_main(["--base-dir", str(tmp_path / "none"), "--test",
                      "--init", str(tmp_path / "missing.keras")]) == 2
    assert "missing.keras" in capsys.readouterr().err


def test_a_bigger_network_grows_on_a_runs_games_and_a_run_starts_from_it(loop_dir, tmp_path):
    from mockgo.nets.io import load_model, model_info
    from mockgo.zero.grow import grow_network, played_examples

    assert len(played_examples(loop_dir, [1, 2])) >= 2  # a job of each generation
    with pytest.raises(ValueError, match="no self-play examples of generation 9"):
        played_examples(loop_dir, [9])
    out = tmp_path / "grown.keras"
    grown = grow_network(loop_dir, out, blocks=2, filters=12, generations=[1, 2], epochs=1,
                         progress=False)
    model = load_model(out)
    info = model_info(model)
    assert (info.kind, info.encoder, info.board_size) == ("dual", "agz17", 9)
    assert grown["parameters"] == model.count_params() > load_model(
        loop_dir / "models" / "000000.keras").count_params()
    assert grown["examples"] > 0 and len(grown["history"]["loss"]) == 1
    assert zero_main(["--base-dir", str(tmp_path / "bigger"), "--test", "--init", str(out),
                      "--generations", "0", "--quiet"]) == 0
    stored = json.loads((tmp_path / "bigger" / "config.json").read_text())
    assert (stored["blocks"], stored["filters"]) == (2, 12)


def test_a_run_goes_on_from_the_shipped_zero_network_by_name(tmp_path):
    # How a long run continues on a fresh machine: from the committed network.
    from mockgo import pretrained
    from mockgo.nets.io import load_model

    assert zero_main(["--base-dir", str(tmp_path / "run"), "--init", "zero-9", "--katago",
                      "--no-evaluate", "--generations", "0", "--quiet"]) == 0
    stored = json.loads((tmp_path / "run" / "config.json").read_text())
    assert stored["init_model"] == str(pretrained.path("zero-9"))
    assert (stored["blocks"], stored["filters"], stored["board_size"]) == (4, 32, 9)
    copied = load_model(tmp_path / "run" / "models" / "000000.keras")
    for mine, shipped in zip(copied.get_weights(), pretrained.load("zero-9").get_weights()):
        np.testing.assert_array_equal(mine, shipped)


def test_generations_given_are_taken_as_given():
    # "--test --generations 10" ran 2 generations: 10 was the default, so it
    # was taken as not given.
    def wanted(*options):
        return generations_wanted(zero_parser().parse_args(["--base-dir", "run", *options]))
    assert wanted("--test", "--generations", "10") == 10
    assert wanted("--test") == 2 and wanted() == 10
    assert wanted("--generations", "3") == 3 and wanted("--test", "--generations", "5") == 5


def test_an_epoch_trains_on_the_same_batches_whatever_the_process_did_before():
    """A resumed run trains in a new process: its epochs must not depend on
    the backend's global random state (Keras' own shuffle draws from it),
    only on the epoch's seeded generator."""
    import keras

    from mockgo.zero.config import ENCODER
    from mockgo.zero.train import compile_dual, fit_epoch, new_network

    config = ZeroConfig.for_test(batch_size=16)
    n, points = 64, 81
    rng = np.random.default_rng(0)
    pi = rng.random((n, points + 1)).astype(np.float32)
    examples = {"planes": rng.integers(0, 2, (n, 9, 9, get_encoder(ENCODER, 9).num_planes)
                                       ).astype(np.uint8),
                "pi": pi / pi.sum(axis=1, keepdims=True),
                "z": rng.choice([-1.0, 1.0], n).astype(np.float32), "game": np.arange(n),
                "ownership": np.zeros((n, points), np.int8), "score": np.zeros(n, np.float32),
                "aux_weight": np.zeros(n, np.float32)}

    def trained(global_seed):
        keras.utils.set_random_seed(0)
        model = new_network(config, "generation_000000")
        compile_dual(model, config)
        keras.utils.set_random_seed(global_seed)  # what the process did before
        fit_epoch(model, examples, config, 0, np.random.default_rng(5), verbose=0)
        return model.get_weights()

    for a, b in zip(trained(1), trained(2)):
        np.testing.assert_array_equal(a, b)


def test_a_match_between_kept_evaluators_does_not_depend_on_what_they_played_before(tmp_path):
    """The loop keeps each model's evaluator, warm from self-play, for the
    evaluation match; a resumed run makes a fresh one. The match's seed
    decides its games either way."""
    import keras

    from mockgo.search.evaluators import NetworkEvaluator
    from mockgo.zero.match import play_match
    from mockgo.zero.train import new_network

    config = ZeroConfig.for_test(eval_games=2, max_moves=12)
    keras.utils.set_random_seed(0)
    sides = [NetworkEvaluator(new_network(config, f"generation_00000{k}"), batch_size=8,
                              random_symmetry=True, seed=k, precision=config.precision)
             for k in range(2)]
    play_match(*sides, 2, config, seed=7, sgf_dir=tmp_path / "first")
    play_match(*sides, 2, config, seed=7, sgf_dir=tmp_path / "again")  # their generators moved on
    first = sorted((tmp_path / "first").glob("*.sgf"))
    assert len(first) == 2
    for path in first:
        assert path.read_bytes() == (tmp_path / "again" / path.name).read_bytes()


def test_the_loop_deletes_its_own_temporaries_not_an_extra_jobs(tmp_path):
    """A killed loop leaves temporaries that it deletes when it resumes;
    those of an extra --selfplay-only job, which may be writing beside the
    loop (it takes no lock), stay."""
    layout = RunLayout(tmp_path)
    ours = ["models/.000001.keras.k2j4_x9a.tmp.keras", ".state.json.k2j4_x9a.tmp",
            "data/selfplay/000000/.gen000001-b0002.npz.k2j4_x9a.tmp",
            "data/holdout/000000/.gen000001-b0002.npz.k2j4_x9a.tmp",
            "data/selfplay/000000/.gen000001.json.k2j4_x9a.tmp",
            "sgf/000000/full/.gen000001-00004.sgf.k2j4_x9a.tmp",
            "sgf/evaluate/000001-vs-000000/.game-000-000001-vs-000000.sgf.k2j4_x9a.tmp"]
    theirs = ["data/selfplay/000000/.extra-b0000.npz.k2j4_x9a.tmp",
              "data/selfplay/000000/.extra.json.k2j4_x9a.tmp",
              "data/selfplay/000000/.gen000001-x-b0000.npz.k2j4_x9a.tmp",
              "sgf/000000/clean/.extra-00000.sgf.k2j4_x9a.tmp"]
    assert [layout.loop_owns(path) for path in ours] == [True] * len(ours)
    assert [layout.loop_owns(path) for path in theirs] == [False] * len(theirs)


def test_generations_rated_against_fixed_players_on_the_9x9_ladders_scale(loop_dir, tmp_path):
    from mockgo.arena.generations import anchored_ratings, generation_spec

    base = tmp_path / "run"
    shutil.copytree(loop_dir, base)
    run = bootstrap(base, ZeroConfig.for_test())
    recorded = Path(__file__).resolve().parent.parent / "docs" / "matches" / "ladder-9x9"
    result = anchored_ratings(run, [0, 2], ("random", "uct:playouts=1000"), 2, recorded,
                              readouts=2, workers=1)
    spec = generation_spec(run, 2, readouts=2)
    assert spec == f"mcts:path={run.model_path(2)},readouts=2,name=gen2"
    rating = result.ratings[spec]
    assert rating.name == "gen2" and rating.games == 4 and rating.low < rating.elo < rating.high
    # The anchors are placed by their recorded games: uct:playouts=1000 far above random.
    assert result.ratings["random"].elo == 0 and result.ratings["uct:playouts=1000"].elo > 300
    assert len(result.recorded) == len(list(recorded.iterdir()))
    assert sorted(p.name for p in (base / "sgf" / "anchored").iterdir()) == ["02", "03", "04",
                                                                             "05"]
    with pytest.raises(FileNotFoundError, match="holds no recorded matches"):
        anchored_ratings(run, [0], ("random",), 2, tmp_path, readouts=2, workers=1)
