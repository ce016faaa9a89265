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
those lines, known by the source files that print them, from stderr stream
outputs; every other line (TensorFlow's warnings later in a run included),
and every stdout output, is kept as it was.

Used through nbconvert's command line (the Makefile's ``EXECUTE``)::

    jupyter nbconvert --to notebook --execute \\
        --NotebookExporter.preprocessors=mockgo.notebook_export.DropNativeLogLines ...
"""

import re

from nbconvert.preprocessors import Preprocessor

__all__ = ["DropNativeLogLines", "is_native_log_line"]

# abseil's C++ log prefix (severity letter, MMDD, time, thread id, file:line])
# from the files that speak once, at start-up or at the first use of a part:
# oneDNN's notice, the CPU features, looking for CUDA, and tf.data's first
# generator dataset ("Memory patch applied: M_TRIM_THRESHOLD=128 kb was
# set", TensorFlow 2.21); a warning or error of any other file, later in the
# run, is kept.
# e.g. "I0000 00:00:1795468937.455237   17371 port.cc:153] oneDNN custom ..."
_START_UP_FILES = ("port.cc", "cudart_stub.cc", "cpu_feature_guard.cc", "cuda_platform.cc",
                   "cuda_executor.cc", "cuda_dnn.cc", "cuda_fft.cc", "cuda_blas.cc",
                   "generator_dataset_op.cc")
_NATIVE_PREFIX = re.compile(r"^[IWEF]\d{4} \d\d:\d\d:[\d.]+\s+\d+ (%s):\d+\] "
                            % "|".join(re.escape(name) for name in _START_UP_FILES))
# Lines printed beside them without the prefix: absl's warning that logging
# is not initialised, and the continuation of cpu_feature_guard's message.
_NATIVE_LINES = (
    re.compile(r"^WARNING: All log messages before absl::InitializeLog\(\) is called "
               r"are written to STDERR$"),
    re.compile(r"^To enable the following instructions: .* in other operations, rebuild "
               r"TensorFlow with the appropriate compiler flags\.$"),
)


def is_native_log_line(line):
    """Whether ``line`` (without its newline) is one of TensorFlow's native
    start-up log lines."""
    line = line.rstrip("\r\n")
    return bool(_NATIVE_PREFIX.match(line)) or any(p.match(line) for p in _NATIVE_LINES)


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
