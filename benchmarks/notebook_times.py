"""How long a notebook takes, cell by cell: executes it in a fresh kernel in
quick or full mode and prints one JSON line (the whole run's seconds, each
code cell's seconds, status and first line, the slowest first; whether it
finished, the error if not).

A notebook's time in the README is measured with this. The executed
notebook is written to ``--output`` after every cell, so a run stopped by
``--deadline`` (or a failing cell) still leaves the cells it ran, outputs
and all. The kernel sees this process's environment: ``KERAS_BACKEND=jax``
before the command runs the notebook on JAX.

    python benchmarks/notebook_times.py notebooks/01_supervised.ipynb --mode quick
    python benchmarks/notebook_times.py notebooks/01_supervised.ipynb --mode full \\
        --deadline 3600 --output build/01-full.ipynb
"""

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mockgo.data.files import atomic_write_text  # noqa: E402

ANSI = re.compile(r"\x1b\[[0-9;]*m")  # IPython colours its tracebacks
DEADLINE = "Deadline"  # the error a cell stopped at the deadline ends with


def time_notebook(path, mode, output, deadline=None, kernel="python3"):
    """Execute the notebook at ``path`` in ``mode`` ("quick" or "full"),
    writing it to ``output`` after each cell; stop the cell running when
    ``deadline`` seconds have passed (None: no limit). Returns the record
    printed by :func:`main`."""
    path, output = Path(path), Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    notebook = nbformat.read(str(path), as_version=4)
    started = time.perf_counter()
    cells, began = [], {}

    def before(cell, cell_index, **_):
        began[cell_index] = time.perf_counter()

    def after(cell, cell_index, execute_reply=None, **_):
        seconds = time.perf_counter() - began[cell_index]
        status = (execute_reply or {}).get("content", {}).get("status", "ok")  # or "error"
        cells.append({"cell": cell_index, "seconds": round(seconds, 1), "status": status,
                      "first_line": cell.source.splitlines()[0][:80] if cell.source else ""})
        atomic_write_text(output, nbformat.writes(notebook))

    def time_left(cell):
        if deadline is None:
            return None
        return max(1, int(deadline - (time.perf_counter() - started)))

    # At the deadline the kernel is interrupted and the cell ends at once as
    # failed with DEADLINE, without waiting for a cell that ignores the
    # interrupt.
    client = NotebookClient(notebook, kernel_name=kernel, timeout_func=time_left,
                            interrupt_on_timeout=True,
                            error_on_timeout={"ename": DEADLINE, "evalue": "", "traceback": []},
                            on_cell_execute=before, on_cell_executed=after,
                            resources={"metadata": {"path": str(path.resolve().parent)}})
    error = None
    mode_before = os.environ.get("MOCKGO_QUICK")
    os.environ["MOCKGO_QUICK"] = "1" if mode == "quick" else "0"  # the kernel inherits it
    try:
        client.execute()
    except CellExecutionError as failure:
        if failure.ename == DEADLINE:
            error = f"stopped at the deadline of {deadline:.0f} s"
        else:
            error = ANSI.sub("", str(failure)).strip().splitlines()[-1][:300]
    except (CellTimeoutError, DeadKernelError) as failure:
        error = str(failure).strip().splitlines()[-1][:300]
    finally:
        if mode_before is None:
            os.environ.pop("MOCKGO_QUICK", None)
        else:
            os.environ["MOCKGO_QUICK"] = mode_before
    atomic_write_text(output, nbformat.writes(notebook))
    return {"benchmark": "notebook_times", "notebook": path.stem, "mode": mode,
            "backend": os.environ.get("KERAS_BACKEND", "tensorflow"),
            "seconds": round(time.perf_counter() - started, 1), "finished": error is None,
            "error": error, "cells_run": sum(cell["status"] == "ok" for cell in cells),
            "code_cells": sum(cell.cell_type == "code" for cell in notebook.cells),
            "cells": sorted(cells, key=lambda c: -c["seconds"])}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", type=Path)
    parser.add_argument("--mode", choices=("quick", "full"), default="quick")
    parser.add_argument("--output", type=Path, default=None,
                        help="the executed notebook (default: build/times/NAME-MODE.ipynb)")
    parser.add_argument("--deadline", type=float, default=None,
                        help="seconds after which the cell running is stopped")
    args = parser.parse_args(argv)
    output = args.output or Path("build/times") / f"{args.notebook.stem}-{args.mode}.ipynb"
    record = time_notebook(args.notebook, args.mode, output, args.deadline)
    print(json.dumps(record))
    return 0 if record["finished"] else 1


if __name__ == "__main__":
    sys.exit(main())
