"""Every tutorial notebook must run top to bottom in quick mode, and pass
the checks of its own key results that it makes as it goes
(``notebook.check`` cells: a failed one fails the notebook's cell).

The notebooks are executed in memory with nbclient, so nothing is written back
into notebooks/ (the repository keeps them without outputs).
"""

import json
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from mockgo import notebook as notebook_helpers

NOTEBOOKS_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))

# Quick mode keeps each notebook to seconds, but a cold numba compile or a
# TensorFlow start-up on a slow CI machine can take minutes for one cell.
CELL_TIMEOUT_S = 1200


def describe_failure(notebook, error):
    """Which cell failed, its source and its traceback, without terminal colours."""
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                traceback = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(output.traceback))
                return f"cell {index} failed:\n{cell.source}\n\n{traceback}"
    return str(error)  # nbclient's own message also quotes the cell's source


# Notebook 01 (Keras' fit, saving, evaluating and playing a network) runs on
# JAX too, the backend of a machine whose GPU TensorFlow does not reach. The
# other learners' JAX code (REINFORCE's update, the value fit, the Zero
# loop, the recipe) is tested under JAX by tests/test_backends.py; notebook
# 03's quick preset was measured on both backends (mockgo/presets.py), but
# its JAX run is left out of `make test` for time (a minute and a half of
# the 20 that CI allows); to run it, add its name here.
ON_JAX = ["01_supervised.ipynb"]
RUNS = [(path, "tensorflow") for path in NOTEBOOKS] + \
    [(path, "jax") for path in NOTEBOOKS if path.name in ON_JAX]


# One pytest process runs them all, in this order (pytest-xdist's group,
# `make test`): a quick run empties its notebook's run folder first, so two
# at once (01 on each backend) would delete each other's work, and 02 and 03
# take the networks 01 and 02 have just saved.
@pytest.mark.slow
@pytest.mark.xdist_group("notebooks")
@pytest.mark.parametrize("path,backend", RUNS, ids=lambda v: getattr(v, "name", v))
def test_notebook_executes(path, backend, monkeypatch):
    # The kernel is started as a child process and inherits os.environ.
    monkeypatch.setenv("MOCKGO_QUICK", "1")
    monkeypatch.setenv("KERAS_BACKEND", backend)
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        kernel_name="python3",
        timeout=CELL_TIMEOUT_S,
        # The kernel's working directory, as when a learner opens the notebook in Jupyter.
        resources={"metadata": {"path": str(NOTEBOOKS_DIR)}},
    )
    failure = None
    try:
        client.execute()
    except CellExecutionError as error:
        failure = describe_failure(notebook, error)
    # Failing outside the except block keeps nbclient's coloured copy out of the report.
    if failure:
        pytest.fail(f"{path.name}: {failure}", pytrace=False)


def test_a_notebook_check_names_the_result_that_failed(capsys):
    notebook_helpers.check(2 > 1, "two beats one")
    assert capsys.readouterr().out == "check passed: two beats one\n"
    with pytest.raises(AssertionError, match="notebook check failed: top-1 9% beats 10%"):
        notebook_helpers.check(0.09 > 0.10, "top-1 9% beats 10%")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_notebook_checks_its_results_and_is_stored_without_outputs(path):
    raw = json.loads(path.read_text(encoding="utf-8"))
    notebook = nbformat.read(path, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert any("notebook.check(" in cell.source for cell in code), path.name
    assert all(not cell.outputs and cell.execution_count is None for cell in code), path.name
    # nbformat 4.5 cells carry an id (a missing one is a warning now, an error
    # in later nbformat versions): a cell added by hand must get one. Read
    # from the file as it is: nbformat.read fills a missing id in.
    ids = [cell.get("id") for cell in raw["cells"]]
    assert all(ids) and len(set(ids)) == len(ids), f"{path.name}: a cell without an id, or two alike"


DOCS_DIR = NOTEBOOKS_DIR.parent / "docs" / "notebooks"
# Executed copies older than their notebook's code, each with why, until
# `make docs DOCS=...` runs them again (hours: their full runs are not on the
# machine that last executed them). Once regenerated, the test below says to
# take the name out.
STALE_DOCS = {
    "01_supervised": "one name for one thing: the games whose planes are checked are long_games",
    "02_value_net": "the value network and its errors by phase written out; one name for one thing",
    "03_policy_gradient": "the partner's noise term read from the measured mean results",
    "04_zero_selfplay": "the generations rated against GnuGo level 1 too, an anchor above them",
    "05_arena": "each policy compared with its own searches; the Elo fit and Wilson written out",
}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_executed_copy_in_docs_ran_the_notebooks_present_code(path):
    """docs/notebooks/ holds each notebook executed in full mode (make docs):
    its outputs are only the notebook's if its code cells are the same."""
    executed = DOCS_DIR / path.name
    code = [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    ran = [c.source for c in nbformat.read(executed, as_version=4).cells if c.cell_type == "code"]
    if path.stem in STALE_DOCS:
        assert ran != code, f"{executed.name} is up to date again: take it out of STALE_DOCS"
    else:
        assert ran == code, (f"{executed} ran other code than {path}: run "
                             f"`make docs DOCS={path.stem}`")


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p.stem not in STALE_DOCS],
                         ids=lambda p: p.name)
def test_the_executed_copy_in_docs_has_the_notebooks_present_prose(path):
    """An executed copy that ran the present code shows the present prose
    too: markdown edited since it ran is carried into it without running it
    again (mockgo.notebook_export.take_markdown)."""
    executed = DOCS_DIR / path.name
    prose = [c.source for c in nbformat.read(path, as_version=4).cells
             if c.cell_type == "markdown"]
    shown = [c.source for c in nbformat.read(executed, as_version=4).cells
             if c.cell_type == "markdown"]
    copy = f"docs/notebooks/{path.name}"
    assert shown == prose, (f"{copy}'s markdown is not notebooks/{path.name}'s: run `python -m "
                            f"mockgo.notebook_export --root . --markdown-from notebooks {copy}`")
