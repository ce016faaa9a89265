"""benchmarks/notebook_times.py, which measures the notebooks' times: a run
stopped at its deadline keeps the cells it ran and says why it stopped."""

import importlib.util
import json
import os
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent


def _notebook_times():
    spec = importlib.util.spec_from_file_location(
        "notebook_times", ROOT / "benchmarks" / "notebook_times.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_run_stopped_at_its_deadline_keeps_the_cells_it_ran(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("MOCKGO_QUICK", raising=False)
    source, output = tmp_path / "slow.ipynb", tmp_path / "out" / "slow-quick.ipynb"
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("A slow notebook"),
        nbformat.v4.new_code_cell("import os\nprint('quick' if os.environ['MOCKGO_QUICK'] == '1' "
                                  "else 'full')"),
        nbformat.v4.new_code_cell(  # the last cell is in the output already
            f"import nbformat\nran = nbformat.read({str(output)!r}, as_version=4)\n"
            "print(ran.cells[1].outputs[0]['text'].strip())"),
        nbformat.v4.new_code_cell("import time\ntime.sleep(120)"),
        nbformat.v4.new_code_cell("print('never')")])
    nbformat.write(notebook, source)

    status = _notebook_times().main([str(source), "--deadline", "10", "--output", str(output)])

    record = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert status == 1
    assert (record["finished"], record["error"]) == (False, "stopped at the deadline of 10 s")
    assert (record["cells_run"], record["code_cells"], record["mode"]) == (2, 4, "quick")
    assert "MOCKGO_QUICK" not in os.environ  # the kernel's mode, not this process's
    assert 9 <= record["seconds"] < 60
    ran = nbformat.read(output, as_version=4).cells
    assert ran[1].outputs[0]["text"] == ran[2].outputs[0]["text"] == "quick\n"
    assert ran[4].outputs == []
