"""The preprocessor that keeps TensorFlow's native start-up lines out of
executed notebooks (mockgo.notebook_export), on the lines a full-mode run of
notebook 01 wrote into its first Keras cell, and through nbconvert's command
line as the Makefile calls it."""

import subprocess
import sys

import nbformat

from mockgo.notebook_export import DropNativeLogLines, is_native_log_line

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
    "M_TRIM_THRESHOLD=128 kb was set.\n",
]
KEPT = [
    "epoch 1:  50%|█████     | 5/10 [00:01<00:01, 4.2batch/s]\n",
    "UserWarning: I0000 is not a log line when it does not start the line\n",
    "E1124 12:00:00 is a date, not TensorFlow's prefix] without a file and line\n",
    "WARNING: something the notebook's own code warned about\n",
    # TensorFlow's own warnings later in a run say something: kept
    "W0000 00:00:1795468950.123456   17371 cpu_allocator_impl.cc:83] Allocation of 1207959552 "
    "exceeds 10% of free system memory.\n",
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
