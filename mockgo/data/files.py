"""Writing files so that a crash never leaves half of one.

Datasets, checkpoints and game records are written to a temporary file in
the same folder and then renamed over the target: the rename is atomic, so
readers (and a resumed job) see the old file or the new one.
"""

import contextlib
import os
import tempfile
from pathlib import Path


@contextlib.contextmanager
def atomic_open(path, mode="wb", encoding=None):
    """Open a temporary file beside ``path``; on a clean exit it replaces
    ``path``, on an exception it is removed and ``path`` is untouched."""
    path = Path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(handle, 0o644)  # mkstemp makes it private; these are ordinary files
        with os.fdopen(handle, mode, encoding=encoding) as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def atomic_write_text(path, text):
    with atomic_open(path, "w", encoding="utf-8") as file:
        file.write(text)


@contextlib.contextmanager
def atomic_path(path, suffix=".tmp"):
    """A temporary path beside ``path`` for a writer that wants a file name
    (Keras' ``model.save``, ``np.savez``); on a clean exit the file is synced
    and renamed over ``path``, on an exception it is removed. ``suffix``:
    the temporary name's ending, for writers that check it (Keras wants
    ``.keras`` or ``.weights.h5``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix)
    os.close(handle)
    try:
        yield Path(temporary)
        with open(temporary, "rb") as file:
            os.fsync(file.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def check_same_settings(folder, what, stored, given):
    """For a job that resumes from ``folder``: ValueError, naming the folder
    and each setting that differs as ``name: (stored, given)``, when the
    settings it stored (a dict) are not the ones ``given`` now, so that a
    run is never continued with other settings than it began with."""
    changed = {key: (stored.get(key), given.get(key)) for key in {**stored, **given}
               if stored.get(key) != given.get(key)}
    if changed:
        raise ValueError(f"{folder} holds {what} made with other settings "
                         f"(name: (stored, given)): {changed}; use another folder or delete it")
