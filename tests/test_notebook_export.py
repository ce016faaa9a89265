"""The preprocessor that keeps TensorFlow's native start-up lines out of
executed notebooks (mockgo.notebook_export), on the lines a full-mode run of
notebook 01 wrote into its first Keras cell, and through nbconvert's command
line as the Makefile calls it."""

import copy
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from mockgo.native_log import is_native_log_line
from mockgo.notebook_export import DropNativeLogLines

# Copied from docs/notebooks/01_supervised.ipynb as executed on 2026-11-24.
NATIVE = [
    "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR\n",
    "I0000 00:00:1795468937.455237   17371 port.cc:153] oneDNN custom operations are on. "
    "You may see slightly different numerical results due to floating-point round-off errors "
    "from different computation orders. To turn them off, set the environment variable "
    "`TF_ENABLE_ONEDNN_OPTS=0`.\n",
    "I0000 00:00:1795468937.459870   17371 cudart_stub.cc:31] Could not find cuda drivers on "
    "your machine, GPU will not be used.\n",
    "I0000 00:00:1795468937.623644   17371 cpu_feature_guard.cc:227] This TensorFlow binary is "
    "optimized to use available CPU instructions in performance-critical operations.\n",
    "To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other "
    "operations, rebuild TensorFlow with the appropriate compiler flags.\n",
    "E0000 00:00:1795468942.172809   17371 cuda_platform.cc:52] failed call to cuInit: "
    "INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)\n",
    # notebook 01's first training cell, executed on 2026-11-25
    "I0000 00:00:1795586460.775152    5641 generator_dataset_op.cc:213] Memory patch applied: "
    "M_TRIM_THRESHOLD=128 kb was set.\n",    # notebook 01's first 9x9 training, executed in full mode
    "E0000 00:00:1795693984.132717   32096 util.cc:131] oneDNN supports DT_INT64 only on "
    "platforms with AVX-512. Falling back to the default Eigen-based implementation if present.\n",
    # notebook 02's dual tower in full mode, executed on 2026-11-26
    "E0000 00:00:1795721836.014157   27108 util.cc:131] oneDNN supports DT_UINT8 only on "
    "platforms with AVX-512. Falling back to the default Eigen-based implementation if present.\n",
]
KEPT = [
    "epoch 1:  50%|█████     | 5/10 [00:01<00:01, 4.2batch/s]\n",
    "UserWarning: I0000 is not a log line when it does not start the line\n",
    "E1124 12:00:00 is a date, not TensorFlow's prefix] without a file and line\n",
    "WARNING: something the notebook's own code warned about\n",
    # TensorFlow's own warnings later in a run say something: kept
    "W0000 00:00:1795468950.123456   17371 cpu_allocator_impl.cc:83] Allocation of 1207959552 "
    "exceeds 10% of free system memory.\n",
    "E0000 00:00:1795468951.000001   17371 util.cc:131] another message of a common file\n",
    "E0000 00:00:1795468951.000001   17371 op_kernel.cc:1840] OP_REQUIRES failed at "
    "conv_ops.cc:101 : RESOURCE_EXHAUSTED\n",
]


def notebook_with(stderr, stdout="42\n"):
    cell = nbformat.v4.new_code_cell("import keras", outputs=[
        nbformat.v4.new_output("stream", name="stderr", text=stderr),
        nbformat.v4.new_output("stream", name="stdout", text=stdout)])
    return nbformat.v4.new_notebook(cells=[cell, nbformat.v4.new_markdown_cell("# text")])


def test_every_native_line_is_recognised_and_no_other():
    assert all(is_native_log_line(line) for line in NATIVE)
    assert not any(is_native_log_line(line) for line in KEPT)


def test_the_native_lines_are_dropped_and_the_others_kept_in_order():
    mixed = [NATIVE[0], KEPT[0], *NATIVE[1:4], KEPT[1], KEPT[2], NATIVE[4], NATIVE[5], *KEPT[3:]]
    nb, _ = DropNativeLogLines().preprocess(notebook_with("".join(mixed)), {})
    stderr, stdout = nb.cells[0].outputs
    assert stderr.text == "".join(KEPT)
    assert stdout.text == "42\n"


def test_an_output_of_native_lines_alone_is_removed():
    nb, _ = DropNativeLogLines().preprocess(notebook_with("".join(NATIVE)), {})
    assert [o.name for o in nb.cells[0].outputs] == ["stdout"]


def test_nbconvert_runs_it_as_the_makefile_names_it(tmp_path):
    source = tmp_path / "in.ipynb"
    notebook = notebook_with("".join(NATIVE + KEPT[:1]), stdout="4")
    notebook.cells[0].outputs.append(nbformat.v4.new_output("stream", name="stdout", text="2\n"))
    nbformat.write(notebook, source)
    subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook",
                    "--NotebookExporter.preprocessors=nbconvert.preprocessors."
                    "CoalesceStreamsPreprocessor",
                    "--NotebookExporter.preprocessors=mockgo.notebook_export.DropNativeLogLines",
                    "--output-dir", str(tmp_path / "out"), str(source)],
                   check=True, capture_output=True, timeout=120)
    written = nbformat.read(tmp_path / "out" / "in.ipynb", as_version=4)
    # both preprocessors ran: the two stdout outputs were coalesced into one
    assert [o.text for o in written.cells[0].outputs] == [KEPT[0], "42\n"]


# CleanOutputs: the outputs as a reader on another machine should see them.
ROOT = "/srv/someone/mockgo"


def test_paths_are_written_relative_to_the_repository():
    from mockgo.notebook_export import relative_paths
    text = (f"A = x (policy:path={ROOT}/runs/01_supervised/full/policy.keras)\n"
            f"KGS source: folder /srv/someone/shared/kgs\n"
            f"cd {ROOT} && ls\n"
            f"{ROOT}-old/x and {ROOT}2 are other folders\n")
    assert relative_paths(text, ROOT) == (
        "A = x (policy:path=runs/01_supervised/full/policy.keras)\n"
        "KGS source: folder ../shared/kgs\n"
        "cd . && ls\n"
        "../mockgo-old/x and ../mockgo2 are other folders\n")


def test_a_path_cut_short_by_a_table_becomes_an_ellipsis_not_a_guess():
    from mockgo.notebook_export import relative_paths
    row = "rl-policy (policy:path=/srv/someone/mo   +550     +328 to +773\n"
    # padded to the width it had, so that the table's columns stay aligned
    assert relative_paths(row, ROOT) == ("rl-policy (policy:path=" + "…".ljust(len("/srv/someone/mo"))
                                         + "   +550     +328 to +773\n")
    # a prefix too short to be the root's is left alone (it may be anything)
    assert relative_paths("see /srv/ or /srv/s", ROOT) == "see /srv/ or /srv/s"


def test_ansi_codes_and_redrawn_lines_are_cleaned():
    from mockgo.notebook_export import clean_text
    keras = "\x1b[1m2000/2000\x1b[0m \x1b[32m━━━━\x1b[0m\x1b[37m\x1b[0m \x1b[1m283s\x1b[0m - loss: 2.8\n"
    bar = "games:   0%|   | 0/8\rgames:  50%|#  | 4/8\rgames: 100%|###| 8/8\r\n"
    assert clean_text(keras + bar, ROOT) == "2000/2000 ━━━━ 283s - loss: 2.8\ngames: 100%|###| 8/8\n"


def progress_notebook():
    """A notebook as tqdm.auto leaves it: the bar's text is its first frame,
    the widget state its last; a bar drawn with leave=False, closed with a
    stale label; and a widget that is no progress bar."""
    def model(name, **state):
        return {"model_name": name, "model_module": "@jupyter-widgets/controls",
                "model_module_version": "2.0.0", "state": state}
    state = {
        "box": model("HBoxModel", children=["IPY_MODEL_l", "IPY_MODEL_p", "IPY_MODEL_r"]),
        "l": model("HTMLModel", value="building\u2007dataset:\u2007100%"),
        "p": model("FloatProgressModel", value=28559.0, max=28559.0, bar_style="success"),
        "r": model("HTMLModel", value="\u200728559/28559\u2007[04:15&lt;00:00,\u200772.14game/s]"),
        "epoch": model("HBoxModel", children=["IPY_MODEL_el", "IPY_MODEL_ep", "IPY_MODEL_er"]),
        "el": model("HTMLModel", value="epoch\u20071:\u200798%"),
        "ep": model("FloatProgressModel", value=40.0, max=40.0, bar_style=""),
        "er": model("HTMLModel", value="\u200739/40\u2007[00:41&lt;00:00]"),
        "board": model("AnyModel", layout="IPY_MODEL_layout"),
        "layout": model("LayoutModel"),
        "unused": model("LayoutModel")}
    def view(model_id, text):
        return nbformat.v4.new_output("display_data", data={
            "application/vnd.jupyter.widget-view+json": {
                "model_id": model_id, "version_major": 2, "version_minor": 0},
            "text/plain": text})
    cell = nbformat.v4.new_code_cell("build()", outputs=[
        view("box", "building dataset:   0%|          | 0/28559 [00:00<?, ?game/s]"),
        view("epoch", "epoch 1:   0%|          | 0/40 [00:00<?, ?batch/s]"),
        view("board", "<BoardWidget: move 0>"),
        nbformat.v4.new_output("error", ename="OSError", evalue=f"{ROOT}/x missing",
                               traceback=[f"\x1b[31mOSError\x1b[0m: {ROOT}/x missing"])])
    nb = nbformat.v4.new_notebook(cells=[cell])
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {
        "state": state, "version_major": 2, "version_minor": 0}}
    return nb


def test_a_progress_bar_widget_is_stored_as_the_line_it_ended_on():
    from mockgo.notebook_export import CleanOutputs
    nb, _ = CleanOutputs(root=ROOT).preprocess(progress_notebook(), {})
    bar, board, error = nb.cells[0].outputs
    assert (bar.output_type, bar.name) == ("stream", "stdout")
    assert bar.text == "building dataset: 100% 28559/28559 [04:15<00:00, 72.14game/s]\n"
    # any other widget keeps its view (the board widget is drawn from its state)
    assert "application/vnd.jupyter.widget-view+json" in board.data
    assert error.traceback == ["OSError: x missing"] and error.evalue == "x missing"
    # the epoch's bar (leave=False) was gone when the cell ended: it is not stored
    assert not any("epoch 1" in str(output) for output in nb.cells[0].outputs)
    # the saved widget state keeps what an output still shows, and what that refers to
    saved = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    assert list(saved) == ["board", "layout"]


def test_nbconvert_runs_the_cleaning_as_the_makefile_names_it(tmp_path):
    source = tmp_path / "in.ipynb"
    nbformat.write(progress_notebook(), source)
    subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook",
                    "--NotebookExporter.preprocessors=mockgo.notebook_export.DropNativeLogLines",
                    "--NotebookExporter.preprocessors=mockgo.notebook_export.CleanOutputs",
                    f"--CleanOutputs.root={ROOT}",
                    "--output-dir", str(tmp_path / "out"), str(source)],
                   check=True, capture_output=True, timeout=120)
    written = nbformat.read(tmp_path / "out" / "in.ipynb", as_version=4)
    assert written.cells[0].outputs[0].text.startswith("building dataset: 100% 28559/28559")
    assert written.cells[0].outputs[2].evalue == "x missing"


REPO = Path(__file__).resolve().parent.parent


def executed_and_source():
    """A notebook as executed (outputs) and as edited since (its prose only)."""
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
    executed = new_notebook(cells=[new_markdown_cell("# Title", id="a"),
                                   new_code_cell("x = 1\nprint(x)", id="b",
                                                 outputs=[new_output("stream", text="1\n")]),
                                   new_markdown_cell("One is printed.", id="c")])
    source = nbformat.from_dict(copy.deepcopy(executed))
    source.cells[1].outputs = []
    source.cells[2].source = "The cell above prints one."
    return executed, source


def test_take_markdown_carries_the_edited_prose_and_keeps_the_outputs():
    from mockgo.notebook_export import take_markdown
    executed, source = executed_and_source()
    assert take_markdown(executed, source) == 1
    assert executed.cells[2].source == "The cell above prints one."
    assert executed.cells[1].outputs[0].text == "1\n"
    assert take_markdown(executed, source) == 0


def test_take_markdown_refuses_a_notebook_whose_code_or_cells_changed():
    from mockgo.notebook_export import take_markdown
    executed, source = executed_and_source()
    source.cells[1].source = "x = 2\nprint(x)"
    with pytest.raises(ValueError, match="code cell b differs"):
        take_markdown(executed, source)
    executed, source = executed_and_source()
    source.cells.insert(1, nbformat.v4.new_markdown_cell("New.", id="d"))
    with pytest.raises(ValueError, match="added, removed or moved"):
        take_markdown(executed, source)
    assert executed.cells[2].source == "One is printed."


def take_markdown_command(tmp_path):
    """The command line on tmp_path's docs/n.ipynb, its notebook in notebooks/."""
    return subprocess.run([sys.executable, "-m", "mockgo.notebook_export", "--root", str(tmp_path),
                           "--markdown-from", str(tmp_path / "notebooks"),
                           str(tmp_path / "docs" / "n.ipynb")],
                          capture_output=True, text=True, timeout=120, cwd=REPO)


def test_the_command_line_takes_markdown_into_an_executed_copy(tmp_path):
    executed, source = executed_and_source()
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "docs").mkdir()
    nbformat.write(source, tmp_path / "notebooks" / "n.ipynb")
    nbformat.write(executed, tmp_path / "docs" / "n.ipynb")
    done = take_markdown_command(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "1 markdown cells from" in done.stdout
    written = nbformat.read(tmp_path / "docs" / "n.ipynb", as_version=4)
    assert written.cells[2].source == "The cell above prints one."
    source.cells[1].source = "x = 3"
    nbformat.write(source, tmp_path / "notebooks" / "n.ipynb")
    done = take_markdown_command(tmp_path)
    assert done.returncode == 1 and "execute the notebook again" in done.stderr
