"""The commands that turn files into datasets, networks and games, and show
them: ``mockgo dataset``, ``train``, ``play``, ``show`` and ``evaluate`` with
a shipped name or a spec, run in-process through :func:`mockgo.cli.main`
on tiny boards and networks, bad input included."""

import argparse
import io
import json
import os
import subprocess
import sys

import pytest

from mockgo.cli import main
from mockgo.errors import positive_int
from mockgo.data import sgf_reader, sgf_writer
from mockgo.data.dataset import read_manifest
from mockgo.go import coords
from tests.test_dataset import random_game


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    """A folder of 9x9 random games, and an archive of the same games."""
    folder = tmp_path_factory.mktemp("games")
    for i in range(12):
        sgf_writer.save_sgf(random_game(9, i, moves=30), folder / f"game-{i:02d}.sgf")
    return folder


@pytest.fixture(scope="module")
def dataset(games, tmp_path_factory):
    out = tmp_path_factory.mktemp("ds") / "dataset"
    assert main(["dataset", str(games), "--out", str(out), "--encoder", "simple2", "--size", "9",
                 "--splits", "0.2", "0.2", "--workers", "1", "--quiet"]) == 0
    return out


def test_dataset_builds_and_resumes(dataset, games, capsys):
    manifest = read_manifest(dataset)
    assert manifest["complete"] and manifest["games_kept"] == 12
    assert manifest["spec"]["encoder"] == "simple2" and manifest["spec"]["board_size"] == 9
    assert sum(manifest["positions"].values()) == 12 * 30
    # Run again: a finished dataset is left as it is.
    before = (dataset / "dataset.json").read_bytes()
    assert main(["dataset", str(games), "--out", str(dataset), "--encoder", "simple2",
                 "--size", "9", "--splits", "0.2", "0.2", "--workers", "1", "--quiet"]) == 0
    assert (dataset / "dataset.json").read_bytes() == before
    assert "12 games kept" in capsys.readouterr().out


@pytest.mark.parametrize("arguments, message", [
    (["missing.tar.gz"], "no such SGF file, folder or archive: missing.tar.gz"),
    (["{games}", "--encoder", "nonsense"], "unknown encoder 'nonsense'"),
    (["{games}", "--splits", "0.6", "0.6"], "--splits 0.6 0.6"),
])
def test_dataset_bad_input_is_one_line_and_exit_2(games, tmp_path, capsys, arguments, message):
    arguments = [a.format(games=games) for a in arguments]
    assert main(["dataset", *arguments, "--out", str(tmp_path / "ds")]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "ds").exists()


@pytest.fixture(scope="module")
def game19(tmp_path_factory):
    path = tmp_path_factory.mktemp("g19") / "game.sgf"
    sgf_writer.save_sgf(random_game(19, 5, moves=20), path)
    return path


@pytest.mark.parametrize("network", ["sl-19", "policy:pretrained=sl-19"])
def test_evaluate_takes_a_shipped_name_or_a_spec(game19, tmp_path, network):
    scores = tmp_path / "scores.json"
    assert main(["evaluate", network, str(game19), "--quiet", "--json", str(scores)]) == 0
    result = json.loads(scores.read_text())
    assert result["games"] == 1 and result["scores"]["model"]["positions"] == 20


@pytest.mark.parametrize("network, message", [
    ("nosuchnet", "nosuchnet is neither a model file, nor a network that ships"),
    ("policy:pretrained=nosuch", "no pretrained network 'nosuch'"),
    ("random:seed=1", "random:seed=1: mockgo evaluate scores a policy network"),
    ("policy:path=missing.keras", "no model file missing.keras"),
])
def test_evaluate_names_a_wrong_network(game19, capsys, network, message):
    assert main(["evaluate", network, str(game19)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_train_policy_writes_the_network_and_its_card_and_resumes(dataset, tmp_path, capsys):
    from mockgo.nets.device import compute_device
    from mockgo.nets.io import load_model, read_trained_by

    out = tmp_path / "sl.keras"
    arguments = ["train", "policy", "--dataset", str(dataset), "--out", str(out), "--layers", "2",
                 "--filters", "4", "--epochs", "2", "--batch", "16", "--precision", "float32"]
    assert main(arguments) == 0
    card = json.loads((tmp_path / "sl.json").read_text())
    assert card["kind"] == "policy" and card["encoder"] == "simple2" and card["board_size"] == 9
    assert card["trained_by"]["device"] == compute_device()
    assert card["trained_by"]["precision"] == "float32"
    assert card["trained_by"] == read_trained_by(out)
    assert card["training"]["games"] == 12 and card["training"]["epochs"] == 2
    test = read_manifest(dataset)["positions"]["test"]
    assert 0 < card["results"]["test_positions"] <= test
    assert 0 <= card["results"]["test_top1"] <= card["results"]["test_top5"] <= 100
    assert len(card["results"]["validation_top1_by_epoch"]) == 2
    assert load_model(out).mockgo_info.kind == "policy"
    assert "sl.json" in capsys.readouterr().out
    # Done: run again, the run folder says so and nothing trains again.
    state = json.loads((tmp_path / "sl.keras.run" / "training" / "state.json").read_text())
    assert state["epoch"] == 2
    assert main(arguments) == 0
    again = json.loads((tmp_path / "sl.json").read_text())
    assert again["results"] == card["results"]


def test_train_value_writes_its_card(dataset, tmp_path):
    out = tmp_path / "value.keras"
    assert main(["train", "value", "--dataset", str(dataset), "--out", str(out), "--layers", "2",
                 "--filters", "4", "--epochs", "2", "--precision", "float32"]) == 0
    card = json.loads((tmp_path / "value.json").read_text())
    assert card["kind"] == "value" and card["trained_by"]["precision"] == "float32"
    assert card["results"]["test_positions"] == read_manifest(dataset)["positions"]["test"]
    assert card["results"]["test_mse"] >= 0 and card["results"]["constant_mse"] > 0


@pytest.mark.parametrize("arguments, message", [
    (["policy", "--dataset", "{tmp}/nothing"], "no dataset in"),
    (["policy", "--dataset", "{dataset}", "--precision", "half"], "--precision 'half'"),
    (["value", "--dataset", "{dataset}", "--seconds", "5"], "--seconds times a policy"),
    (["policy", "--dataset", "{dataset}", "--layers", "0"], "--layers must be at least 1"),
])
def test_train_bad_input(dataset, tmp_path, capsys, arguments, message):
    arguments = [a.format(tmp=tmp_path, dataset=dataset) for a in arguments]
    assert main(["train", *arguments, "--out", str(tmp_path / "n.keras")]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def play(monkeypatch, capsys, typed, *arguments):
    """``mockgo play`` in-process, with ``typed`` as its standard input."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in typed)))
    code = main(["play", *arguments])
    return code, capsys.readouterr()


def test_play_a_game_in_the_terminal(monkeypatch, capsys, tmp_path):
    from mockgo.data.gametree import load_tree

    sgf = tmp_path / "game.sgf"
    code, output = play(monkeypatch, capsys, ["c3", "z9", "C3", "undo", "b2", "pass", "resign"],
                        "random:seed=1", "--size", "5", "--sgf", str(sgf))
    assert code == 0
    out = output.out
    assert "   A B C D E" in out and "(X)" in out  # the board, the last move marked
    assert "cannot read 'z9'" in out
    assert "C3 is illegal: the point is occupied" in out
    assert "undone: back to move 0" in out
    assert "you resign: W+R" in out and f"saved {sgf}" in out
    tree = load_tree(sgf)
    record = tree.record()
    assert record.result == "W+R" and record.size == 5
    # C3 was taken back: the game is B2, white's answer, black's pass, white's answer.
    assert [color for color, _ in record.moves] == [1, 2, 1, 2]
    assert record.moves[0][1] == coords.from_gtp("B2", 5)
    assert record.moves[2][1] == coords.pass_index(5)


def test_play_white_and_quit_saves_the_game_so_far(monkeypatch, capsys, tmp_path):
    from mockgo.data.gametree import load_tree

    sgf = tmp_path / "quit.sgf"
    code, output = play(monkeypatch, capsys, ["D5", "quit"], "random:seed=2", "--size", "9",
                        "--color", "white", "--sgf", str(sgf))
    assert code == 0 and f"saved {sgf}" in output.out
    record = load_tree(sgf).record()
    assert record.result is None and len(record.moves) == 3  # black, D5, black's answer
    assert record.moves[1] == (2, coords.from_gtp("D5", 9))


@pytest.mark.parametrize("spec, message", [
    ("nonsense", "unknown player kind 'nonsense'"),
    ("policy:pretrained=nosuch", "no pretrained network 'nosuch'"),
    ("policy:pretrained=sl-19", "plays on 19x19 boards, not 9x9"),
])
def test_play_names_a_wrong_spec(monkeypatch, capsys, tmp_path, spec, message):
    code, output = play(monkeypatch, capsys, [], spec, "--size", "9",
                        "--sgf", str(tmp_path / "x.sgf"))
    assert code == 2 and message in output.err and len(output.err.strip().splitlines()) == 1
    assert not (tmp_path / "x.sgf").exists()


@pytest.fixture(scope="module")
def examples(tmp_path_factory):
    """A file of Zero's self-play examples: one 5x5 game of 6 moves, searched
    with uniform priors, written as self-play writes its batches."""
    from mockgo.search.evaluators import uniform_evaluator
    from mockgo.zero.config import ZeroConfig
    from mockgo.zero.examples import save_npz, stack_games
    from mockgo.zero.selfplay import play_selfplay_games

    config = ZeroConfig(board_size=5, readouts=8, parallel_readouts=1, games_in_parallel=1,
                        resign_threshold=None, max_moves=6)
    path = tmp_path_factory.mktemp("zero") / "examples.npz"
    save_npz(path, stack_games(play_selfplay_games(uniform_evaluator, config, [0])))
    return path


def test_show_a_zero_examples_file(examples, capsys):
    import numpy as np

    data = np.load(examples)
    assert main(["show", str(examples)]) == 0
    out = capsys.readouterr().out
    assert f"{len(data['z'])} examples of 1 games, 5x5" in out
    assert out.count("\nexample ") == len(data["z"])
    # Example 2: the position after two moves, its most visited move first.
    assert main(["show", str(examples), "--move", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count("\nexample ") == 1 and "black to play" in out
    best = int(np.argmax(data["pi"][2]))
    share = data["pi"][2][best]
    assert f"visits: a {coords.to_gtp(best, 5)} {share:.1%}" in out
    outcome = "won" if data["z"][2] > 0 else "lost" if data["z"][2] < 0 else "drew"
    assert f"and {outcome}" in out
    assert sum(line.count("X") + line.count("O") for line in out.splitlines()[3:8]) == 2


def test_show_an_sgf_record(games, capsys):
    path = games / "game-00.sgf"
    record = sgf_reader.load_sgf(path)
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.count("\nmove ") == len(record.moves) + 1  # the start, then every move
    assert main(["show", str(path), "--move", "3"]) == 0
    out = capsys.readouterr().out
    color, move = record.moves[2]
    assert f"move 3 of {len(record.moves)}: {'black' if color == 1 else 'white'} " \
           f"{coords.to_gtp(move, 9)}" in out
    assert out.count("\nmove ") == 1


@pytest.mark.parametrize("content, arguments, message", [
    (None, [], "no such file"),
    ("just some notes", [], "is neither an SGF record"),
    ("(;GM[1]SZ[9];B[ee]", [], "x.sgf"),
    ("(;GM[1]SZ[9];B[ee])", ["--move", "5"], "--move 5 is not on its main line (0 to 1)"),
])
def test_show_names_a_wrong_file(tmp_path, capsys, content, arguments, message):
    path = tmp_path / "x.sgf"
    if content is not None:
        path.write_text(content)
    assert main(["show", str(path), *arguments]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_help_lists_every_command():
    from mockgo.cli import SUBCOMMANDS

    done = subprocess.run([sys.executable, "-m", "mockgo.cli", "--help"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0
    for name in ("dataset", "train", "play", "show", "evaluate", *SUBCOMMANDS):
        # A name longer than argparse's column has its help on the next line.
        assert f"\n    {name} " in done.stdout or f"\n    {name}\n" in done.stdout, name


def test_play_and_show_stay_light(games, tmp_path):
    """A game against random moves, and a record shown, import neither
    Keras nor TensorFlow nor the notebook widget's libraries."""
    code = f"""
import io, sys
from mockgo.cli import main
sys.stdin = io.StringIO("D5\\nquit\\n")
assert main(["play", "random", "--size", "9", "--sgf", {str(tmp_path / 'g.sgf')!r}]) == 0
assert main(["show", {str(games / 'game-01.sgf')!r}, "--move", "4"]) == 0
heavy = [m for m in ("keras", "tensorflow", "jax", "anywidget", "ipywidgets") if m in sys.modules]
assert not heavy, heavy
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_counts_on_the_command_lines_are_whole_numbers_of_one_or_more():
    assert positive_int("16") == 16
    assert positive_int(" 3 ") == 3
    for text in ("0", "-3", "1.5", "1k", "", "\u00b2", "\u0663", "9" * 5000):
        with pytest.raises(argparse.ArgumentTypeError,
                           match=f"a whole number of 1 or more, not {text!r}"):
            positive_int(text)


@pytest.mark.parametrize("given, kept", [(None, "false"), ("true", "true")])
def test_every_command_lets_its_workers_share_one_gpu(monkeypatch, capsys, given, kept):
    """Before a command loads a network, XLA is told to take the GPU's memory as
    it needs it, so the workers it starts fit beside it; a setting given wins."""
    if given is None:
        monkeypatch.delenv("XLA_PYTHON_CLIENT_PREALLOCATE", raising=False)
    else:
        monkeypatch.setenv("XLA_PYTHON_CLIENT_PREALLOCATE", given)
    assert main(["models"]) == 0
    assert os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] == kept
