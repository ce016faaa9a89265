"""mockgo.notebook: the MOCKGO_QUICK switch and repo_root()."""

from pathlib import Path

import pytest

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
