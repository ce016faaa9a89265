"""The value network's data curve (mockgo.learn.value_curve): read from a
value-data folder's batches, one network a point, resumable."""

import json
import warnings

import numpy as np
import pytest

from conftest import decided_and_open_planes
from mockgo.learn import trainers
from mockgo.learn.value import (DeadNetworkWarning, build_value, fit_value_network,
                                gives_one_value, value_dataset)
from mockgo.learn.value_curve import positions_saved, saved_value_data, value_data_curve
from mockgo.nets.io import load_model
from mockgo.play.random_player import RandomPlayer


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("value") / "value_data"
    value_dataset(RandomPlayer(), 96, 5, batch=32, rng=0, folder=folder)
    return folder


def test_the_batches_played_so_far_are_read_in_order(folder):
    data = saved_value_data(folder)
    whole = value_dataset(RandomPlayer(), 96, 5, batch=32, rng=0, folder=folder)
    assert np.array_equal(data.planes, whole.planes) and np.array_equal(data.steps, whole.steps)
    (folder.parent / "partial").mkdir()
    (folder.parent / "partial" / "batch_00000.npz").write_bytes(
        (folder / "batch_00000.npz").read_bytes())
    (folder.parent / "partial" / "batch_00002.npz").write_bytes(
        (folder / "batch_00002.npz").read_bytes())  # batch 1 missing: read up to it
    assert len(saved_value_data(folder.parent / "partial")) == len(np.load(
        folder / "batch_00000.npz")["outcomes"]) == positions_saved(folder.parent / "partial")
    assert positions_saved(folder) == len(data) and positions_saved(folder.parent) == 0
    with pytest.raises(FileNotFoundError, match="holds no value data batches"):
        saved_value_data(folder.parent)


def test_a_curve_point_per_size_scored_on_the_same_test_positions_and_resumed(folder, tmp_path):
    data = saved_value_data(folder)
    settings = dict(test_positions=24, validation_positions=16, edges=(1, 11, 21, 33), layers=2,
                    filters=4, epochs=2, symmetries=False)
    points = value_data_curve(data, [16, 32], tmp_path, **settings)
    assert [p["positions"] for p in points] == [16, 32]
    for p in points:
        assert sum(p["count"]) == 24 and all(isinstance(c, int) for c in p["count"])
        assert len(p["network"]) == 3 and 1 <= p["epochs"] <= 2
    assert points[0]["constant"] == points[1]["constant"]  # one constant for the whole curve
    saved = json.loads((tmp_path / "curve.json").read_text())
    assert [p["positions"] for p in saved["points"]] == [16, 32]
    assert (tmp_path / "value_000016.keras").is_file()
    # Run again with one more size: the two points are read back, one is made.
    (tmp_path / "value_000016.keras").unlink()
    again = value_data_curve(data, [16, 32, 48], tmp_path, **settings)
    assert again[:2] == points and not (tmp_path / "value_000016.keras").exists()
    with pytest.raises(ValueError, match="other"):
        value_data_curve(data, [16], tmp_path, **dict(settings, layers=3))
    with pytest.raises(ValueError, match="fewer than 1,000"):
        value_data_curve(data, [1000], tmp_path / "more", **settings)


def kill(model):
    """Kill a value network as training can: its one-filter 1x1 convolution
    (the layer before the flatten) outputs 0 everywhere after its ReLU."""
    layer = model.layers[model.layers.index(model.get_layer("flatten")) - 1]
    kernel, bias = layer.get_weights()
    layer.set_weights([np.zeros_like(kernel), np.full_like(bias, -1.0)])


def test_a_network_that_died_in_training_is_trained_again_from_the_next_seed(
        folder, tmp_path, monkeypatch):
    real, seeds = trainers.fit_value_network, []

    def dies_from(dead_seeds):
        def fit(model, *args, seed, **kwargs):
            seeds.append(seed)
            history = real(model, *args, seed=seed, **kwargs)
            if seed in dead_seeds:
                kill(model)
            return history
        return fit

    data = saved_value_data(folder)
    settings = dict(test_positions=24, validation_positions=16, edges=(1, 11, 21, 33), layers=2,
                    filters=4, epochs=1, symmetries=False)
    monkeypatch.setattr(trainers, "fit_value_network", dies_from({0}))
    with pytest.warns(DeadNetworkWarning,
                      match="died in its training from seed 0.*again from seed 1"):
        point, = value_data_curve(data, [16], tmp_path / "a", **settings)
    assert seeds == [0, 1] and point["seed"] == 1
    assert (tmp_path / "a" / "fit_000016").is_dir()
    assert (tmp_path / "a" / "fit_000016_seed1").is_dir()
    assert not gives_one_value(load_model(tmp_path / "a" / "value_000016.keras"), data.planes)
    seeds.clear()
    monkeypatch.setattr(trainers, "fit_value_network", dies_from({0, 1}))
    with pytest.raises(RuntimeError, match="died in each of 2 trainings"), \
            pytest.warns(DeadNetworkWarning, match="again from seed 1"):
        value_data_curve(data, [16], tmp_path / "b", tries=2, **settings)
    assert seeds == [0, 1] and not (tmp_path / "b" / "curve.json").exists()
    with pytest.raises(ValueError, match="tries=0"):
        value_data_curve(data, [16], tmp_path / "c", tries=0, **settings)
    # Run again, the first try's finished folder is read back, not trained again, and
    # the second try's too: the same point.
    seeds.clear()
    monkeypatch.setattr(trainers, "fit_value_network", dies_from({0}))
    with pytest.warns(DeadNetworkWarning, match="again from seed 1"):
        again, = value_data_curve(data, [16], tmp_path / "d", **settings)
    (tmp_path / "d" / "curve.json").unlink()
    with pytest.warns(DeadNetworkWarning, match="again from seed 1"):
        assert value_data_curve(data, [16], tmp_path / "d", **settings) == [again]


def test_a_value_network_without_folders_is_tried_again_and_one_row_is_not_a_death(
        folder, monkeypatch):
    data = saved_value_data(folder)
    real = trainers.fit_value_network

    def dies_from_seed_0(model, *args, seed, **kwargs):
        history = real(model, *args, seed=seed, **kwargs)
        if seed == 0:
            kill(model)
        return history

    monkeypatch.setattr(trainers, "fit_value_network", dies_from_seed_0)
    with pytest.warns(DeadNetworkWarning, match="again from seed 1"):
        model, history = trainers.train_value_on_positions(
            data.planes[:16], data.outcomes[:16], None, 5, 2, 4, epochs=1)
    assert history["seed"] == 1 and len(history["loss"]) == 1
    assert not gives_one_value(model, data.planes)
    assert not gives_one_value(model, data.planes[:1])  # one position has one value: no sign


def test_the_split_does_not_move_as_batches_are_added(folder, tmp_path):
    # A curve begun on the first batches scores the same test positions with
    # the same constant once more batches are played.
    early = tmp_path / "early"
    early.mkdir()
    for k in (0, 1):
        (early / f"batch_{k:05d}.npz").write_bytes((folder / f"batch_{k:05d}.npz").read_bytes())
    settings = dict(test_positions=24, validation_positions=16, edges=(1, 11, 21, 33), layers=2,
                    filters=4, epochs=1, symmetries=False)
    before = value_data_curve(saved_value_data(early), [16], tmp_path / "a", **settings)
    after = value_data_curve(saved_value_data(folder), [16], tmp_path / "b", **settings)
    assert before[0]["count"] == after[0]["count"] and before[0]["constant"] == after[0]["constant"]
    assert np.allclose(before[0]["network"], after[0]["network"], atol=1e-3)


def test_the_saved_curve_is_read_back_and_drawn(folder, tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    from mockgo.learn.value_curve import plot_value_data_curve, read_value_data_curve

    data = saved_value_data(folder)
    edges = (1, 11, 21, 33)
    points = value_data_curve(data, [16, 32], tmp_path, test_positions=24, validation_positions=16,
                              edges=edges, layers=2, filters=4, epochs=1, symmetries=False)
    settings, read = read_value_data_curve(tmp_path)
    assert read == points and settings["edges"] == list(edges)
    ax = plot_value_data_curve(read, settings["edges"])
    assert len(ax.get_lines()) == 2 * 3  # a network line and a constant line per phase


def test_the_command_line_says_what_is_missing_without_a_traceback(folder, tmp_path, capsys):
    from mockgo.learn.value_curve import main

    assert main(["--data", str(folder), "--out", str(tmp_path), "--sizes", "5000"]) == 2
    assert "fewer than 5,000" in capsys.readouterr().err
    assert main(["--data", str(tmp_path), "--out", str(tmp_path), "--sizes", "10"]) == 2
    assert "holds no value data batches" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--data", str(folder), "--out", str(tmp_path), "--sizes", "1k"])
    assert "whole numbers" in capsys.readouterr().err


def test_a_perfect_judges_error_is_estimated_without_bias_from_few_rollouts():
    from mockgo.learn.value_curve import ideal_mse

    assert ideal_mse([1.0, -1.0, 1.0], rollouts=8) == 0.0  # decided positions: no error left
    # True values m, n rollouts each: the estimate's mean is 1 - mean(m**2), which the
    # plain mean of the rollouts' squares overstates by (1 - m**2) / n.
    rng = np.random.default_rng(0)
    m = rng.uniform(-1, 1, 20000)
    n = 4
    means = 2 * rng.binomial(n, (1 + m) / 2) / n - 1
    assert ideal_mse(means, n) == pytest.approx(1 - np.mean(m**2), abs=0.01)
    assert 1 - np.mean(means**2) < 1 - np.mean(m**2) - 0.1
    with pytest.raises(ValueError, match="2 or more rollouts"):
        ideal_mse(means, 1)
    # Its standard error: the spread of the estimate over 40 draws of 500 positions.
    from mockgo.learn.value_curve import ideal_standard_error

    draws = [ideal_mse(2 * rng.binomial(n, (1 + m[:500]) / 2) / n - 1, n) for _ in range(40)]
    positions = [ideal_mse(2 * rng.binomial(n, (1 + mm) / 2) / n - 1, n)
                 for mm in rng.uniform(-1, 1, (40, 500))]
    se = ideal_standard_error(means[:500], n)
    assert np.std(draws) < se and np.std(positions) == pytest.approx(se, rel=0.35)


def test_a_policys_rollouts_of_a_decided_position_all_end_alike():
    from mockgo.learn.value_curve import policy_rollout_values

    planes, _ = decided_and_open_planes()
    values = policy_rollout_values(RandomPlayer(), planes, rollouts=32, seed=1)
    assert values[0] == -1.0 and -1 < values[1] < 1  # white to move has lost; the other is open
    np.testing.assert_array_equal(values, policy_rollout_values(RandomPlayer(), planes,
                                                                rollouts=32, seed=1))


def test_the_ideal_is_measured_on_the_curves_test_positions_and_resumed(folder, tmp_path):
    from mockgo.learn.value_curve import (held_out_positions, plot_value_data_curve,
                                          read_value_data_ideal, value_data_ideal)

    data = saved_value_data(folder)
    settings = dict(per_phase=4, rollouts=2, test_positions=24, validation_positions=16,
                    edges=(1, 11, 21, 33), chunk=4)
    phases = value_data_ideal(data, RandomPlayer(), tmp_path, **settings)
    test, _ = held_out_positions(len(data), 24, 16, 0)
    for phase, (low, high) in zip(phases, [(1, 11), (11, 21), (21, 33)]):
        assert phase["moves"] == f"{low}-{high - 1}"
        assert phase["count"] == min(4, int(((data.steps[test] >= low) &
                                             (data.steps[test] < high)).sum()))
        assert 0 <= phase["constant_played_out"] <= 4
        # Two rollouts: each position's term of the ideal is in [-1, 1].
        assert 0 <= phase["rollouts"] <= 4 and 0 <= phase["ideal"] <= 2 and phase["ideal_se"] >= 0
    assert read_value_data_ideal(tmp_path) == phases
    points = value_data_curve(data, [16], tmp_path / "curve", test_positions=24,
                              validation_positions=16, edges=(1, 11, 21, 33), layers=2, filters=4,
                              epochs=1, symmetries=False)
    ax = plot_value_data_curve(points, (1, 11, 21, 33), ideal=phases)
    assert len(ax.get_lines()) == 3 * 3  # and a dotted line a phase
    chunks = sorted(tmp_path.glob("rollouts_*.npy"))
    assert len(chunks) == -(-sum(p["count"] for p in phases) // 4)
    chunks[-1].unlink()  # stopped before its last chunk: played again, the same games
    (tmp_path / "ideal.json").unlink()
    assert value_data_ideal(data, RandomPlayer(), tmp_path, **settings) == phases
    with pytest.raises(ValueError, match="other settings"):
        value_data_ideal(data, RandomPlayer(), tmp_path, **{**settings, "rollouts": 3})
    for bad in ({"rollouts": 1}, {"per_phase": 0}):  # refused before a game is played
        with pytest.raises(ValueError, match="2 or more rollouts"):
            value_data_ideal(data, RandomPlayer(), tmp_path / "bad", **{**settings, **bad})
        assert not (tmp_path / "bad").exists()


def test_the_command_line_takes_sizes_or_a_policy_to_roll_out(folder, tmp_path, capsys):
    from mockgo.learn.value_curve import main

    for extra in ([], ["--sizes", "10", "--ideal", "sl-19"]):
        with pytest.raises(SystemExit):
            main(["--data", str(folder), "--out", str(tmp_path), *extra])
        assert "--sizes" in capsys.readouterr().err
    assert main(["--data", str(folder), "--out", str(tmp_path), "--ideal", "no-such"]) == 2
    assert "no pretrained network 'no-such'" in capsys.readouterr().err


def test_the_command_line_plays_the_data_with_shipped_policies_and_resumes(tmp_path, capsys,
                                                                           monkeypatch):
    import mockgo.learn.value
    from mockgo.learn.value_curve import main

    data = tmp_path / "value_data"
    with pytest.raises(SystemExit):
        main(["--data", str(data), "--play", "sl-19", "--sizes", "10"])
    assert "--play" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # a curve needs its folder
        main(["--data", str(data), "--sizes", "10"])
    assert "need --out" in capsys.readouterr().err
    assert main(["--data", str(data), "--play", "no-such"]) == 2
    assert "no pretrained network 'no-such'" in capsys.readouterr().err

    play = ["--data", str(data), "--play", "sl-19", "--finish", "rl-19", "--games", "2",
            "--batch", "1"]
    assert main(play) == 0
    assert "2 positions from" in capsys.readouterr().out
    assert json.loads((data / "value_data.json").read_text())["rl_policy"] is True
    kept = saved_value_data(data)
    assert len(kept) == 2 and set(kept.outcomes) <= {-1.0, 1.0}
    assert main(play) == 0  # done already: read back, nothing played
    assert np.array_equal(saved_value_data(data).planes, kept.planes)
    assert main([*play, "--seed", "1"]) == 2  # other settings for the same folder
    assert "seed" in capsys.readouterr().err
    assert main([*play[:-4], "--finish", "sl-19", *play[-4:]]) == 2  # other policies
    assert "rl-19" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*play[:-2], "--batch", "0"])
    assert "1 or more" in capsys.readouterr().err

    def stopped(*args, **kwargs):  # Ctrl-C in the middle of the games
        raise KeyboardInterrupt
    monkeypatch.setattr(mockgo.learn.value, "value_dataset", stopped)
    assert main(play) == 130
    assert "stopped with 2 positions kept" in capsys.readouterr().err


def test_a_dead_network_is_named_by_its_own_warning_which_the_trainer_handles(
        folder, monkeypatch):
    data = saved_value_data(folder)
    net = build_value(2, 4, 5, data.planes.shape[-1], "float32", seed=0)
    kill(net)  # a dead ReLU passes no gradient: training cannot bring it back
    with pytest.warns(DeadNetworkWarning, match="gives every position the same value"):
        fit_value_network(net, data.planes[:16], data.outcomes[:16], epochs=1)
    real = trainers.fit_value_network

    def dead_from_the_start(model, *args, **kwargs):
        kill(model)
        return real(model, *args, **kwargs)

    monkeypatch.setattr(trainers, "fit_value_network", dead_from_the_start)
    with warnings.catch_warnings(record=True) as caught, \
            pytest.raises(RuntimeError, match="died in each of 1 trainings"):
        warnings.simplefilter("always")
        trainers.train_value_on_positions(data.planes[:16], data.outcomes[:16], None, 5, 2, 4,
                                          epochs=1, tries=1)
    assert not [w for w in caught if issubclass(w.category, DeadNetworkWarning)]
