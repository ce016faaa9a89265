"""The value network's data curve (mockgo.learn.value_curve): read from a
value-data folder's batches, one network a point, resumable."""

import json

import numpy as np
import pytest

from mockgo.learn.value import value_dataset
from mockgo.learn.value_curve import saved_value_data, value_data_curve
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
        folder / "batch_00000.npz")["outcomes"])
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
