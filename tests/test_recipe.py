"""The recipe (mockgo recipe): every stage at tiny size, its record and
resuming (under the JAX backend without TensorFlow too: tests/test_backends.py
runs the first test again there)."""

import json

import pytest

from mockgo.data import sgf_writer
from mockgo.learn.recipe import run_recipe
from mockgo.learn.recipe_config import PRESETS, RecipeConfig
from tests.test_dataset import random_game


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    """60 random 19x19 games between 7-dan players."""
    folder = tmp_path_factory.mktemp("games19")
    for i in range(60):
        sgf_writer.save_sgf(random_game(19, i, moves=60), folder / f"g{i:03d}.sgf")
    return folder


def test_the_tiny_recipe_runs_every_stage_and_resumes(games, tmp_path):
    lines = []
    record = run_recipe([games], tmp_path / "run", PRESETS["tiny"], log=lines.append)
    assert set(record["stages"]) == {"dataset", "sl", "value"}
    sl = record["stages"]["sl"]
    assert sl["test_positions"] > 0 and 0 <= sl["test_top1"] <= sl["test_top5"] <= 100
    assert sl["positions_trained"] == (PRESETS["tiny"].epochs * json.loads(
        (tmp_path / "run" / "sl_plan.json").read_text())["steps_per_epoch"] * 64)
    assert (tmp_path / "run" / "sl-policy.keras").is_file()
    value = record["stages"]["value"]
    assert value["positions"] == PRESETS["tiny"].value_games
    assert len(value["test_mse"]) == len(value["constant_mse"]) == 3
    assert (tmp_path / "run" / "value-network.keras").is_file()
    saved = json.loads((tmp_path / "run" / "recipe.json").read_text())
    assert saved["stages"] == record["stages"]
    # Run again: nothing is done twice.
    lines.clear()
    again = run_recipe([games], tmp_path / "run", PRESETS["tiny"], log=lines.append)
    assert again["stages"] == record["stages"]
    assert all("done before" in line for line in lines)
    # Other settings in the same folder are refused, naming the record.
    with pytest.raises(ValueError, match="recipe.json was made with other settings"):
        run_recipe([games], tmp_path / "run", RecipeConfig(layers=3), log=lines.append)


def test_the_recipe_command_names_a_missing_archive_folder(tmp_path, capsys):
    from mockgo.cli import main

    assert main(["recipe", "--archives", str(tmp_path / "nothing"), "--folder",
                 str(tmp_path / "run")]) == 1
    assert "no archives at" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["recipe", "--preset", "huge"])
