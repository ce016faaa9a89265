"""mockgo.data.files: atomic writes and the resumable-folder settings check."""

import pytest

from mockgo.data.files import atomic_open, atomic_path, atomic_write_text, check_same_settings


def test_atomic_write_replaces_the_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "state.json"
    target.write_text("old")
    atomic_write_text(target, "new")
    assert target.read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]
    assert target.stat().st_mode & 0o777 == 0o644


def test_a_failed_write_keeps_the_old_file(tmp_path):
    target = tmp_path / "games.tsv"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_open(target, "w") as file:
            file.write("half of the new")
            raise RuntimeError("crash")
    assert target.read_text() == "old"
    with pytest.raises(RuntimeError):
        with atomic_path(target, suffix=".npz") as temporary:
            temporary.write_text("half")
            raise RuntimeError("crash")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["games.tsv"]


def test_atomic_path_makes_the_folder_and_renames_over_the_target(tmp_path):
    target = tmp_path / "models" / "000001.keras"
    with atomic_path(target, suffix=".keras") as temporary:
        assert temporary.parent == target.parent and temporary.name.endswith(".keras")
        temporary.write_bytes(b"weights")
    assert target.read_bytes() == b"weights"


def test_other_settings_are_refused_naming_the_folder_and_each_difference(tmp_path):
    stored = {"games": 800, "size": 9, "komi": 7.5}
    check_same_settings(tmp_path, "value data", stored, dict(stored))
    with pytest.raises(ValueError) as error:
        check_same_settings(tmp_path, "value data", stored, {"games": 900, "size": 9, "seed": 1})
    message = str(error.value)
    assert str(tmp_path) in message and "value data made with other settings" in message
    for difference in ("'games': (800, 900)", "'komi': (7.5, None)", "'seed': (None, 1)"):
        assert difference in message
    assert "'size'" not in message
