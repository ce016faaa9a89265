"""TensorFlow's native start-up log lines: telling them from other lines,
and keeping them off a program's standard error.

When TensorFlow is imported, and again at its first operation, its C++
runtime prints lines such as::

    WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
    I0000 00:00:1795468937.455237   17371 port.cc:153] oneDNN custom operations are on. ...
    I0000 00:00:1795468937.456120   17371 cudart_stub.cc:31] Could not find cuda drivers ...
    E0000 00:00:1795468938.012345   17371 cuda_platform.cc:52] failed call to cuInit: ...

They are written to file descriptor 2 by C++ logging that starts before
Python's logging or absl's exist, so neither ``TF_CPP_MIN_LOG_LEVEL`` nor
``absl.logging`` silences them all (measured with TensorFlow 2.21: level 3
drops the cuInit error, not the others). They say nothing about mockgo's
work, and in a notebook's saved outputs or a GTP engine's log they hide
the lines that do.

- :func:`is_native_log_line` knows them, by the source files that print
  them (:mod:`mockgo.notebook_export` drops them from executed notebooks).
- :func:`native_lines_dropped` is a context manager that sends file
  descriptor 2 to a temporary file while its block runs (the import and the
  first network call), then writes back to standard error every line that
  is not one of them: a real error or warning of that time still shows,
  only later than it happened.
"""

import contextlib
import os
import re
import sys
import tempfile

__all__ = ["is_native_log_line", "native_lines_dropped"]

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
# is not initialised, and the continuation of cpu_feature_guard's message;
# and one line with the prefix, known by its message.
_NATIVE_LINES = (
    re.compile(r"^WARNING: All log messages before absl::InitializeLog\(\) is called "
               r"are written to STDERR$"),
    re.compile(r"^To enable the following instructions: .* in other operations, rebuild "
               r"TensorFlow with the appropriate compiler flags\.$"),
    # oneDNN's notice at its first operation on a type it leaves to Eigen
    # (DT_INT64, DT_UINT8...), from a file (util.cc) too common a name to
    # drop every line of (TensorFlow 2.21).
    re.compile(r"^[IWEF]\d{4} \d\d:\d\d:[\d.]+\s+\d+ util\.cc:\d+\] oneDNN supports DT_[A-Z0-9]+ "
               r"only on platforms with AVX-512\."),
)


def is_native_log_line(line):
    """Whether ``line`` (without its newline) is one of TensorFlow's native
    start-up log lines."""
    line = line.rstrip("\r\n")
    return bool(_NATIVE_PREFIX.match(line)) or any(p.match(line) for p in _NATIVE_LINES)


@contextlib.contextmanager
def native_lines_dropped():
    """Run the block with file descriptor 2 (standard error, for C++ and
    Python alike) sent to a temporary file; afterwards, write the lines it
    got to standard error again, less TensorFlow's start-up lines
    (:func:`is_native_log_line`).

    For a command-line program's own process (the GTP engine's first
    network load): another thread writing to standard error meanwhile is
    held back with the block's lines. Where file descriptor 2 cannot be
    redirected (no such descriptor), the block runs as it is.
    """
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, AttributeError, ValueError):
        yield
        return
    with tempfile.TemporaryFile() as capture:
        os.dup2(capture.fileno(), 2)
        try:
            yield
        finally:
            try:
                sys.stderr.flush()
            except (OSError, ValueError):
                pass
            os.dup2(saved, 2)
            os.close(saved)
            capture.seek(0)
            text = capture.read().decode("utf-8", errors="replace")
            kept = [line for line in text.splitlines(keepends=True)
                    if not is_native_log_line(line)]
            if kept:
                sys.stderr.write("".join(kept))
                sys.stderr.flush()
