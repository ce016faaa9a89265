"""mockgo.notebook: the MOCKGO_QUICK switch, repo_root(), the presets and run folders."""

import os
import pty
import warnings
from pathlib import Path

import pytest

from mockgo import notebook, presets
from mockgo.notebook import quick_mode, repo_root


@pytest.mark.parametrize("value, expected", [
    ("1", True), ("true", True), ("YES", True), (" yes ", True),
    ("0", False), ("false", False), ("No", False), ("", False),
])
def test_quick_mode_reads_environment(monkeypatch, value, expected):
    monkeypatch.setenv("MOCKGO_QUICK", value)
    assert quick_mode() is expected
    assert quick_mode(default=not expected) is expected


def test_quick_mode_unset_uses_default(monkeypatch):
    monkeypatch.delenv("MOCKGO_QUICK", raising=False)
    assert quick_mode() is False
    assert quick_mode(default=True) is True


def test_quick_mode_rejects_typos(monkeypatch):
    monkeypatch.setenv("MOCKGO_QUICK", "ture")
    with pytest.raises(ValueError, match="MOCKGO_QUICK"):
        quick_mode()


def test_repo_root_from_notebooks_folder(monkeypatch):
    root = Path(__file__).resolve().parent.parent
    monkeypatch.chdir(root / "notebooks")
    assert repo_root() == root


def test_repo_root_missing(tmp_path):
    with pytest.raises(FileNotFoundError):
        repo_root(tmp_path)


# ------------------------------------------------------------ presets


@pytest.mark.parametrize("name", presets.NOTEBOOKS)
def test_every_notebook_has_a_quick_and_a_full_preset(name):
    quick, full = presets.preset(name, True), presets.preset(name, False)
    assert type(quick) is type(full) and quick != full


def test_presets_are_what_the_notebooks_were_measured_with():
    assert presets.preset("01_supervised", False).epochs == 10
    assert presets.preset("03_policy_gradient", False).config.size == 19
    assert presets.preset("03_policy_gradient", True).size == 9
    zero = presets.preset("04_zero_selfplay", False)
    assert (zero.config.blocks, zero.config.filters, zero.generations) == (4, 32, 60)
    assert zero.config.ownership_head and not zero.config.evaluate  # KataGo's set, no gate
    assert zero.plain.evaluate and not zero.plain.ownership_head  # AlphaGo Zero's
    assert zero.config.strength_every == zero.plain.strength_every == zero.chain_every == 5
    assert zero.without_gnugo().config.strength_every == 0
    # An anchor above every generation, so that none is rated by the virtual draw alone;
    # none of GnuGo's without it.
    assert "gnugo:level=1" in zero.anchors
    assert not any(a.startswith("gnugo") for a in zero.without_gnugo().anchors)
    assert notebook.zero_dir("/r", False, "plain") == Path("/r/runs/04_zero/full/plain")
    with pytest.raises(ValueError, match="katago"):
        notebook.zero_dir("/r", False, "other")
    assert notebook.reinforce_dir("/r", True, "zero") == \
        Path("/r/runs/03_policy_gradient/quick/run-zero")
    # The run with a partner is named by it: a shipped name, or a file's name.
    assert notebook.reinforce_dir("/r", False, "partner", partner="sl-19-13x192") == \
        Path("/r/runs/03_policy_gradient/full/run-partner-sl-19-13x192")
    assert notebook.reinforce_dir("/r", False, "partner", partner="/n/mine.keras").name == \
        "run-partner-mine"
    for baseline, partner in (("partner", None), ("value", "zero-9")):
        with pytest.raises(ValueError, match="or 'partner' with a partner: "):
            notebook.reinforce_dir("/r", False, baseline, partner=partner)
    with pytest.raises(ValueError, match="unknown notebook '05_nothing'"):
        presets.preset("05_nothing", True)


@pytest.mark.parametrize("name", presets.NOTEBOOKS)
def test_full_mode_on_a_gpu_picks_the_gpu_preset_where_a_notebook_has_one(name):
    gpu, cpu = "GPU (NVIDIA H200)", "CPU"
    assert presets.preset_name(name, True, gpu) == presets.preset_name(name, True, cpu) == "quick"
    assert presets.preset(name, True, gpu) == presets.preset(name, True)
    assert presets.preset_name(name, False, cpu) == "full"
    assert presets.preset(name, False, cpu) == presets.preset(name, False)
    if name in ("01_supervised", "02_value_net"):
        assert presets.preset_name(name, False, gpu) == "gpu"
        assert presets.preset(name, False, gpu) != presets.preset(name, False)
    else:
        assert presets.preset_name(name, False, gpu) == "full"
        assert presets.preset(name, False, gpu) == presets.preset(name, False)


def test_the_gpu_presets_train_the_recipes_networks():
    from mockgo.learn.recipe_config import PRESETS

    recipe = PRESETS["gpu"]
    sl = presets.preset("01_supervised", False, "GPU (NVIDIA H100)")
    assert (sl.mode, sl.layers, sl.filters, sl.batch_size) == ("gpu", 13, 192, 1024)
    assert (sl.layers, sl.filters, sl.epochs) == (recipe.layers, recipe.filters, recipe.epochs)
    assert sl.archives is None and sl.max_games is None  # every game, as in full mode
    value = presets.preset("02_value_net", False, "GPU (NVIDIA H100)")
    assert value.net["layers"] == recipe.value_layers == 13 and value.games == recipe.value_games
    assert value.size == 19


def test_a_notebook_says_which_preset_and_device_ran(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("")
    monkeypatch.delenv("XLA_PYTHON_CLIENT_PREALLOCATE", raising=False)
    nb = notebook.start("01_supervised", quick=False, root=tmp_path, device="GPU (NVIDIA H200)")
    assert nb.preset.layers == 13 and nb.preset_name == "gpu"
    assert os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] == "false"  # its workers share the GPU
    first = nb.describe().splitlines()[0]
    assert first == ("01_supervised, full mode, the gpu preset on GPU (NVIDIA H200), "
                     "run folder runs/01_supervised/full")
    nb = notebook.start("01_supervised", quick=False, root=tmp_path, device="CPU")
    assert nb.preset.layers == 6
    assert nb.describe().startswith("01_supervised, full mode, the full preset on CPU,")
    # Without a device given, the one the networks compute on.
    from mockgo.nets.device import compute_device

    quick = notebook.start("02_value_net", quick=True, root=tmp_path)
    assert quick.device == compute_device() and quick.preset_name == "quick"


def test_start_empties_quick_folders_and_keeps_full_ones(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    quick = notebook.start("02_value_net", quick=True, root=tmp_path)
    assert quick.folder == tmp_path / "runs" / "02_value_net" / "quick"
    (quick.folder / "old.npz").write_text("x")
    full = notebook.start("02_value_net", quick=False, root=tmp_path)
    (full.folder / "work.npz").write_text("x")
    assert not (notebook.start("02_value_net", quick=True, root=tmp_path).folder / "old.npz").exists()
    assert (notebook.start("02_value_net", quick=False, root=tmp_path).folder / "work.npz").exists()
    assert notebook.start("04_zero_selfplay", quick=False, root=tmp_path).folder == \
        tmp_path / "runs" / "04_zero" / "full"  # the folder full runs already use
    assert notebook.sl_policy_path(tmp_path, False) == \
        tmp_path / "runs" / "01_supervised" / "full" / "policy.keras"


def test_start_quiets_the_fork_warning_of_a_cells_shell_command_and_no_other(tmp_path):
    # What JAX registers once it runs: a warning at every fork, attributed to
    # the fork's caller; a cell's `!bash` forks through pty.fork.
    armed = []

    def warn_at_fork():
        if armed:
            warnings.warn("os.fork() was called. os.fork() is incompatible with multithreaded "
                          "code", RuntimeWarning, stacklevel=2)

    os.register_at_fork(before=warn_at_fork)
    (tmp_path / "pyproject.toml").write_text("")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        notebook.start("01_supervised", quick=True, root=tmp_path, device="CPU")
        armed.append(True)
        try:
            for fork in (pty.fork, lambda: (os.fork(), None)):
                pid, _ = fork()
                if pid == 0:
                    os._exit(0)
                os.waitpid(pid, 0)
        finally:
            armed.clear()
    assert {w.filename for w in caught if "os.fork()" in str(w.message)} == {__file__}


def test_missing_archives_name_the_command_that_fetches_them(tmp_path):
    with pytest.raises(FileNotFoundError, match="run bash data/download.sh --archives 2"):
        notebook.kgs_archives(tmp_path, 2)


def test_full_mode_falls_back_to_the_networks_that_ship(tmp_path, monkeypatch):
    """With no run folders, full mode takes the networks that ship (here a
    tiny value net shipped into a scratch folder as value-19) and says so."""
    import keras

    from mockgo import pretrained
    from mockgo.nets.io import save_for_play
    from mockgo.nets.models import value_network

    source = tmp_path / "value.keras"
    save_for_play(value_network(19, 49, layers=2, filters=4, hidden=8), source,
                  encoder="alphago49")
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    for name in ("sl-19.json", "sl-19.keras"):
        (shelf / name).write_bytes((pretrained.FOLDER / name).read_bytes())
    monkeypatch.setattr(pretrained, "FOLDER", shelf)
    pretrained.ship("value-19", source, headline="a test network")
    empty = tmp_path / "repo"

    sl = notebook.load_sl_policy(empty, quick=False, size=19, stand_in=False)
    assert not sl.stand_in and sl.note.startswith(
        "sl-19, the SL policy that notebook 01's full run trained, as it ships with mockgo (")
    assert "used because notebook 01's policy is missing" in sl.note
    value = notebook.load_value_network(empty, quick=False, policy=None, size=19, stand_in=False)
    assert not value.stand_in and value.note.startswith(
        "value-19, the value network that notebook 02's full run trained, as it ships with "
        "mockgo (a test network; its card: mockgo models value-19); used because notebook 02's "
        "value network is missing")
    assert value.model.input_shape[1:] == (19, 19, 49)
    # Other board sizes have nothing shipped: full mode refuses, rather than train on a stand-in.
    with pytest.raises(FileNotFoundError, match="notebook 02's value network is missing"):
        notebook.load_value_network(empty, quick=False, policy=None, size=9, stand_in=False)
    keras.backend.clear_session()


def test_a_table_aligns_labels_left_and_figures_right():
    import numpy as np

    text = notebook.table(["", "top-1", "MSE"], [["dual network", "38.3%", np.float32(1.4263)],
                                                 ["zero", None, np.int64(12000)]])
    assert text.splitlines() == ["              top-1     MSE",
                                 "dual network  38.3%   1.426",
                                 "zero                 12,000"]
    assert notebook.table(["", "a"], [["x", 0.5]], digits=1) == "     a\nx  0.5"
    with pytest.raises(ValueError, match="every row needs 3 cells"):
        notebook.table(["", "top-1", "MSE"], [["dual", 0.4]])
