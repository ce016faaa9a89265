"""mockgo as a learner installs it, without the repository: the wheel
(built once a session, ``built_wheel``) is installed into a fresh virtual
environment, and from a folder outside the checkout, with no PYTHONPATH,
the installed ``mockgo`` lists its networks, plays a game in the terminal,
answers GTP's ``genmove``, and copies the notebooks out. The extras are
named in the wheel and resolve.

The fresh environment gets the wheel alone (``--no-deps``); TensorFlow and
the other dependencies come from the project's own environment through a
``.pth`` line naming its site-packages, so the test downloads nothing.
(``python -m venv --system-site-packages`` would not do: run from a venv, it
gives the base interpreter's site-packages, not the venv's.) Such a line
adds the folder to ``sys.path`` after the fresh environment's own, and the
``.pth`` files inside it are not run, so the checkout's editable mockgo is
not importable there: the installed one is the only mockgo.

The long test (make test-long) runs notebook 01 in quick mode from the copied notebooks, on
the installed package (five and a half minutes on a busy 2-core machine).
"""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ["rl-19", "sl-19", "sl-19-13x192", "value-19", "value-19-rl", "zero-9"]
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
EXTRAS = {"gpu", "cluster", "docs", "dev"}

# Every test of the module shares the built wheel with the image's test.
pytestmark = pytest.mark.xdist_group("wheel")


class Installed:
    """A fresh virtual environment with the wheel installed: ``run`` runs a
    command there (its ``bin/`` first on PATH, no PYTHONPATH) in ``cwd``."""

    def __init__(self, venv, wheel):
        self.venv, self.wheel = venv, wheel
        self.python = venv / "bin" / "python"
        self.env = {key: value for key, value in os.environ.items()
                    if key not in ("PYTHONPATH", "MOCKGO_QUICK", "VIRTUAL_ENV")}
        # The project environment's bin/ (on PATH where it is activated) would
        # give its own jupyter and mockgo commands: left out.
        project_bin = Path(sys.prefix, "bin").resolve()
        path = [p for p in self.env.get("PATH", "").split(os.pathsep)
                if p and Path(p).resolve() != project_bin]
        self.env["PATH"] = os.pathsep.join([str(venv / "bin"), *path])

    def run(self, command, cwd, stdin="", timeout=300, env=None, check=True):
        done = subprocess.run(command, input=stdin, capture_output=True, text=True, cwd=cwd,
                              env=dict(self.env, **(env or {})), timeout=timeout)
        if check:
            assert done.returncode == 0, (f"{command} exited {done.returncode}:\n"
                                          f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        return done

    def pip(self, *arguments, cwd):
        return self.run([sys.executable, "-m", "pip", "--python", str(self.python),
                         "--disable-pip-version-check", *arguments], cwd=cwd)


@pytest.fixture(scope="module")
def installed(built_wheel, tmp_path_factory):
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    environment = Installed(venv, built_wheel)
    environment.pip("install", "--no-deps", "--no-index", str(built_wheel), cwd=venv)
    # The dependencies: the project environment's site-packages, after the fresh one's.
    site = Path(sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)}))
    project = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (site / "project-dependencies.pth").write_text("\n".join(sorted(project)) + "\n")
    return environment


@pytest.fixture
def elsewhere(tmp_path):
    """A working folder outside the checkout."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    assert not folder.resolve().is_relative_to(ROOT)
    return folder


def test_the_installed_mockgo_runs_the_copied_notebooks_on_its_own_files(installed, elsewhere):
    """``mockgo notebooks DIR`` copies the notebooks out; from there the
    notebooks' root is DIR, and the mockgo they import is the wheel's, with
    its own 9x9 games and networks."""
    folder = elsewhere / "series"
    out = installed.run(["mockgo", "notebooks", str(folder)], cwd=elsewhere).stdout
    assert "jupyter lab" in out and (folder / "mockgo-notebooks.txt").is_file()
    assert sorted(p.name for p in (folder / "notebooks").glob("*.ipynb")) == NOTEBOOKS
    for name in NOTEBOOKS:
        assert (folder / "notebooks" / name).read_bytes() == (ROOT / "notebooks" / name).read_bytes()
    done = installed.run([str(installed.python), "-c", """
import mockgo
from mockgo import notebook, pretrained
root = notebook.repo_root()
print(mockgo.__file__, root, notebook.gnugo9_archive(root), pretrained.checked_path("zero-9"))
"""], cwd=folder / "notebooks")
    package, root, games, network = done.stdout.splitlines()[-1].split()
    site = installed.venv.resolve()
    assert Path(package).resolve().is_relative_to(site), package
    assert Path(root) == folder.resolve()
    assert Path(games).resolve().is_relative_to(site) and Path(games).stat().st_size > 100_000
    assert Path(network).resolve().is_relative_to(site)
    # The folder's data/download.sh runs the installed downloader.
    usage = installed.run(["bash", str(folder / "data" / "download.sh"), "--help"],
                          cwd=elsewhere).stdout
    assert usage.startswith("usage: python -m mockgo.data.download"), usage
    # A learner's edits stay unless --force.
    (folder / "notebooks" / NOTEBOOKS[0]).write_text("{}")
    out = installed.run(["mockgo", "notebooks", str(folder)], cwd=elsewhere).stdout
    assert f"kept {folder / 'notebooks' / NOTEBOOKS[0]}" in out
    assert (folder / "notebooks" / NOTEBOOKS[0]).read_text() == "{}"
    installed.run(["mockgo", "notebooks", str(folder), "--force"], cwd=elsewhere)
    assert (folder / "notebooks" / NOTEBOOKS[0]).read_text() != "{}"


def test_mockgo_models_lists_the_shipped_networks(installed, elsewhere):
    table = installed.run(["mockgo", "models"], cwd=elsewhere).stdout
    assert [line.split()[0] for line in table.splitlines()[1:len(SHIPPED) + 1]] == SHIPPED
    card = json.loads(installed.run(["mockgo", "models", "zero-9"], cwd=elsewhere).stdout)
    assert card["name"] == "zero-9" and card["board_size"] == 9


def test_mockgo_play_and_gtp_from_the_installed_package(installed, elsewhere):
    # The board's kernels run as Python here: compiling them (numba) is the
    # long test's, which runs a notebook from the installed package.
    python_kernels = {"NUMBA_DISABLE_JIT": "1"}
    game = installed.run(["mockgo", "play", "random:seed=3", "--size", "9", "--sgf", "g.sgf"],
                         cwd=elsewhere, stdin="E5\nC3\nquit\n", env=python_kernels).stdout
    assert "random (white) plays" in game and (elsewhere / "g.sgf").is_file()
    assert ";B[ee]" in (elsewhere / "g.sgf").read_text()  # E5, the first move typed
    gtp = installed.run(["mockgo", "gtp", "--player", "random:seed=1"], cwd=elsewhere,
                        stdin="boardsize 9\nclear_board\nplay b E5\ngenmove w\nquit\n",
                        env=python_kernels).stdout
    answers = [line for line in gtp.splitlines() if line.startswith(("=", "?"))]
    assert answers[:3] == ["=", "=", "="] and len(answers) == 5, gtp
    move = answers[3][1:].strip()
    assert move and move.upper() not in ("E5", "RESIGN"), gtp


def test_the_extras_are_named_and_resolve(installed, elsewhere):
    """gpu, cluster, docs and dev are extras of the wheel (no "ray" alias:
    cluster is the one name). cluster, docs and dev resolve offline against
    the project's environment, which the dev extra made (pip --dry-run
    --no-index: nothing to fetch); gpu's CUDA wheels are not here, so its
    requirement is read from the wheel's metadata."""
    report = elsewhere / "report.json"
    done = installed.pip("install", "--dry-run", "--no-deps", "--no-index", "--ignore-installed",
                         "--report", str(report), f"{installed.wheel}[gpu]", cwd=elsewhere)
    (item,) = json.loads(report.read_text())["install"]
    assert item["requested_extras"] == ["gpu"] and "does not provide" not in done.stderr
    assert set(item["metadata"]["provides_extra"]) == EXTRAS
    assert 'tensorflow[and-cuda]>=2.16; extra == "gpu"' in item["metadata"]["requires_dist"]
    done = installed.pip("install", "--dry-run", "--no-index", "--report", str(report),
                         f"{installed.wheel}[cluster,docs,dev]", cwd=elsewhere)
    to_install = [item["metadata"]["name"] for item in json.loads(report.read_text())["install"]]
    assert to_install == [] and "does not provide" not in done.stderr, done.stdout[-2000:]


# ------------------------------------------------------------------ long (make test-long)


@pytest.mark.long
def test_notebook_01_runs_in_quick_mode_from_the_installed_package(installed, elsewhere):
    """The copied notebook 01 in quick mode on the installed mockgo: its 9x9
    games come from the wheel (the checkout's editable mockgo could not find
    them there), the KGS archive from the checkout's data/kgs as a mirror."""
    archives = sorted((ROOT / "data" / "kgs").glob("KGS-*.tar.gz"))
    if not archives:
        pytest.skip("no KGS archive in data/kgs (bash data/download.sh --archives 1)")
    folder = elsewhere / "series"
    installed.run(["mockgo", "notebooks", str(folder)], cwd=elsewhere)
    (folder / "data" / "kgs").mkdir()
    shutil.copyfile(archives[0], folder / "data" / "kgs" / archives[0].name)
    installed.run([str(installed.python), "-m", "nbconvert", "--to", "notebook",
                   "--execute", "--ExecutePreprocessor.timeout=1200", "--output-dir",
                   str(elsewhere / "executed"), str(folder / "notebooks" / "01_supervised.ipynb")],
                  cwd=folder / "notebooks", timeout=1800,
                  env={"MOCKGO_QUICK": "1", "MOCKGO_KGS_MIRROR": str(ROOT / "data" / "kgs"),
                       "MPLBACKEND": "Agg"})
    assert (folder / "runs" / "01_supervised" / "quick" / "policy.keras").is_file()
    # A shipped network plays over GTP from the installed package.
    gtp = installed.run(["mockgo", "gtp", "--player", "mcts:pretrained=zero-9,readouts=16"],
                        cwd=elsewhere, stdin="boardsize 9\nclear_board\ngenmove b\nquit\n").stdout
    answers = [line for line in gtp.splitlines() if line.startswith(("=", "?"))]
    assert len(answers) == 4 and answers[2].startswith("= "), gtp
