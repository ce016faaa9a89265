"""What an executed notebook keeps when ``make notebooks``, ``make full`` or
``make docs`` writes it: an nbconvert preprocessor that drops the native
start-up lines TensorFlow's C++ runtime prints to stderr.

Those lines ("oneDNN custom operations are on", "Could not find cuda
drivers", "failed call to cuInit", ...) are written by TensorFlow's C++
logging before Python's logging or absl's exist, so neither
``TF_CPP_MIN_LOG_LEVEL`` nor ``absl.logging`` silences them (measured with
TensorFlow 2.21 at levels 2 and 3). They say nothing about the notebook, and
in ``docs/notebooks/`` they would sit in the first cell that imports Keras,
with a date and process id that change every run. The preprocessor removes
those lines, known by the source files that print them
(:func:`mockgo.native_log.is_native_log_line`), from stderr stream
outputs; every other line (TensorFlow's warnings later in a run included),
and every stdout output, is kept as it was.

Used through nbconvert's command line (the Makefile's ``EXECUTE``)::

    jupyter nbconvert --to notebook --execute \\
        --NotebookExporter.preprocessors=mockgo.notebook_export.DropNativeLogLines ...
"""

from nbconvert.preprocessors import Preprocessor

from mockgo.native_log import is_native_log_line

__all__ = ["DropNativeLogLines", "is_native_log_line"]


class DropNativeLogLines(Preprocessor):
    """Drop TensorFlow's native log lines from every code cell's stderr
    stream outputs, and an output left empty by that."""

    def preprocess_cell(self, cell, resources, index):
        if cell.get("cell_type") != "code":
            return cell, resources
        kept = []
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                text = output.get("text", "")
                text = "".join(text) if isinstance(text, list) else text
                lines = [line for line in text.splitlines(keepends=True)
                         if not is_native_log_line(line)]
                if not lines:
                    continue
                output["text"] = "".join(lines)
            kept.append(output)
        cell["outputs"] = kept
        return cell, resources
