"""Writing files so that a crash never leaves half of one.

Datasets, checkpoints and game records are written to a temporary file in
the same folder and then renamed over the target: the rename is atomic, so
readers (and a resumed job) see the old file or the new one. A job killed
in the middle of a write (SIGKILL, a power cut) leaves its temporary file
behind, named ``.<target>.<8 random characters>.tmp...``
(:func:`is_temporary`); the job removes them when it resumes, while it
holds its folder's lock (:func:`remove_temporaries`).

What a resumed job reads back is read through :func:`read_json` and
:func:`read_npz`, whose errors name the damaged file; and a job whose folder
holds work but no state refuses to start over it
(:func:`refuse_unrecorded_work`) unless the caller asks for a restart
(:func:`discard_work`). A long job holds its folder's lock
(:func:`folder_lock`) while it writes, so that a second one started on the
same folder stops at once instead of writing over the first.
"""

import contextlib
import io
import json
import math
import os
import re
import sys
import tempfile
import threading
import zipfile
import zlib
from pathlib import Path

import numpy as np


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
    """Write ``text`` (UTF-8) to ``path`` atomically (:func:`atomic_open`)."""
    with atomic_open(path, "w", encoding="utf-8") as file:
        file.write(text)


@contextlib.contextmanager
def atomic_path(path, suffix=".tmp"):
    """A temporary path beside ``path`` for a writer that wants a file name
    (Keras' ``model.save``, ``np.savez``); on a clean exit the file is synced
    and renamed over ``path``, on an exception it is removed. ``suffix``:
    the temporary name's ending, for writers that check it (Keras wants
    ``.keras`` or ``.weights.h5``), starting with ``.tmp`` (``.tmp.keras``)
    so that the file is known as a temporary (:func:`is_temporary`)."""
    path = Path(path)
    if not suffix.startswith(".tmp"):
        raise ValueError(f"atomic_path({path}): the suffix {suffix!r} should start with "
                         f"'.tmp' (e.g. '.tmp.keras'), or a crash's leftover would not be "
                         f"known as a temporary")
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


# ------------------------------------------------ reading what jobs left behind


class CorruptFileError(ValueError):
    """A file that is there but cannot be read as what it should be (cut
    short by a full disk or a copy that stopped, or damaged); the message
    names the file, since a bare ``JSONDecodeError`` or ``BadZipFile`` does
    not say which of a run's hundreds of files is the bad one."""


def read_json(path, what, missing_ok=False, remedy=None, schema=None):
    """The JSON value in ``path`` (``what``: what it should hold, for the
    message). A missing file is FileNotFoundError, or None with
    ``missing_ok``; a file that is not valid JSON (e.g. cut short, or not
    text at all) is :class:`CorruptFileError` naming it, with ``remedy``
    (how to get out of it) appended; so is one whose value does not have
    the shape ``schema`` gives (:func:`check_schema`), naming the field."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        if missing_ok:
            return None
        raise FileNotFoundError(f"{path} is missing (it should hold {what})") from None
    ending = f"; it should hold {what}" + (f". {remedy}" if remedy else "")
    try:
        # Decoded here, not by read_text: a UnicodeDecodeError of random
        # bytes would not name the file.
        value = json.loads(data.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise CorruptFileError(f"{path} is damaged: not valid JSON ({error}){ending}") from None
    if schema is not None:
        problem = check_schema(value, schema)
        if problem:
            raise CorruptFileError(f"{path} is damaged: {problem}{ending}")
    return value


def check_schema(value, schema, what="the file", where=""):
    """What is wrong with the shape of ``value`` (read from JSON), or None;
    ``what``: what to call ``value`` itself (a line of a ``.jsonl`` file is
    not "the file").

    A job's state file that is valid JSON can still be of the wrong shape
    (``{}``, ``[]``, ``{"latest": "abc"}``: edited by hand, or written by
    another program), and reading a field of it would end in a bare
    KeyError or TypeError far from the file. ``schema`` says the shape:

    - a type (``int``, ``str``, ``dict``...), or a tuple of alternatives
      (types, or the shapes below), where ``None`` allows null: ``int``
      takes no ``true`` and no ``2.0``, and ``float`` takes whole numbers
      too, as JSON writes them (``1``);
    - a dict ``{field: schema}``: an object with at least those fields
      (others may be there); a field written ``"name?"`` may be missing;
    - a list ``[schema]``: an array whose items all have that shape.

    >>> print(check_schema({"latest": "abc"}, {"latest": int, "best": int}))
    field 'latest' should be an int, not "abc"
    >>> print(check_schema({"latest": 2}, {"latest": int, "best": int}))
    field 'best' is missing
    >>> print(check_schema([], {"latest": int}))
    the file should be an object, not []
    >>> print(check_schema({"seed": [1, "x"]}, {"seed": (int, [int])}))
    field 'seed' should be an int or an array of ints, not [1, "x"]
    """
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            return _wrong(what, where, "an object", value)
        for key, inner in schema.items():
            name = key.removesuffix("?")
            if name not in value:
                if key.endswith("?"):
                    continue
                return f"field {where + name!r} is missing"
            problem = check_schema(value[name], inner, what, f"{where}{name}.")
            if problem:
                return problem
        return None
    if isinstance(schema, list):
        if not isinstance(value, list):
            return _wrong(what, where, "an array", value)
        for index, item in enumerate(value):
            problem = check_schema(item, schema[0], what, f"{where.removesuffix('.')}[{index}].")
            if problem:
                return problem
        return None
    types = schema if isinstance(schema, tuple) else (schema,)
    if value is None and None in types:
        return None
    for kind in types:
        if isinstance(kind, (list, dict)):  # an alternative with a shape of its own
            if check_schema(value, kind, what, where) is None:
                return None
            continue
        if kind is not None and isinstance(value, kind) and not (
                isinstance(value, bool) and kind is not bool):
            return None
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            return None
    names = " or ".join(_shape_name(kind) for kind in types)
    return _wrong(what, where, names, value)


_TYPE_NAMES = {int: "an int", float: "a number", str: "a string", bool: "true or false",
               dict: "an object", list: "an array"}


def _shape_name(schema):
    """How an error message calls a schema: "an int", "an array of ints"..."""
    if schema is None:
        return "null"
    if isinstance(schema, list):
        inner = _shape_name(schema[0])
        return f"an array of {inner.removeprefix('an ').removeprefix('a ')}s"
    if isinstance(schema, dict):
        return "an object"
    return _TYPE_NAMES.get(schema, schema.__name__)


def _wrong(what, where, expected, value):
    shown = json.dumps(value)
    shown = shown if len(shown) <= 40 else shown[:40] + "..."
    subject = f"field {where.removesuffix('.')!r}" if where else what
    return f"{subject} should be {expected}, not {shown}"


def read_npz(path, names=None):
    """The arrays ``names`` (default: all) of an ``.npz`` file, read now, as
    a dict. :class:`CorruptFileError` naming the file when it is not a whole
    npz archive (a truncated one has lost its zip directory) or lacks one of
    ``names``; FileNotFoundError naming it when it is missing."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing")
    try:
        with zipfile.ZipFile(path) as archive:
            if names is None:
                names = [n.removesuffix(".npy") for n in archive.namelist() if n.endswith(".npy")]
            return {name: _read_npy(archive, name) for name in names}
    except (zipfile.BadZipFile, EOFError, zlib.error, KeyError, ValueError, OSError) as error:
        raise CorruptFileError(f"{path} is damaged: not a whole .npz archive "
                               f"({type(error).__name__}: {error})") from None


# numpy parses an array's header with ast.literal_eval, and CPython 3.11's AST
# builder keeps one recursion count for all of an interpreter's threads: two
# threads parsing at once can fail with "SystemError: AST constructor recursion
# depth mismatch" (the data pipeline's readers did, hours into a notebook's run).
# So the headers are parsed one at a time, and the bytes read and inflated outside
# the lock, in parallel, as before.
_HEADER_LOCK = threading.Lock()
_HEADER_READERS = {(1, 0): np.lib.format.read_array_header_1_0,
                   (2, 0): np.lib.format.read_array_header_2_0}


def _read_npy(archive, name):
    """Array ``name`` of an open npz ``archive`` (a ZipFile), as ``np.load``
    reads it (no object arrays), into memory of its own."""
    member = archive.getinfo(f"{name}.npy")  # KeyError: no such array
    raw = np.empty(member.file_size, np.uint8)
    with archive.open(member) as stream:  # the CRC is checked as the end is read
        # In pieces, as numpy reads: the copies into raw let other threads run.
        done = 0
        while done < len(raw):
            piece = stream.read(min(1 << 18, len(raw) - done))
            if not piece:
                raise EOFError(f"{name}.npy ends early")
            raw[done:done + len(piece)] = np.frombuffer(piece, np.uint8)
            done += len(piece)
    head = io.BytesIO(raw[:1 << 16].tobytes())  # the header: at most 10,000 bytes in numpy
    with _HEADER_LOCK:
        version = np.lib.format.read_magic(head)
        if version not in _HEADER_READERS:
            raise ValueError(f"{name}.npy is in .npy format {version}, which mockgo does not write")
        shape, fortran_order, dtype = _HEADER_READERS[version](head)
    if dtype.hasobject:
        raise ValueError(f"{name}.npy holds Python objects, which mockgo does not write")
    size = math.prod(shape) * dtype.itemsize
    if len(raw) - head.tell() != size:
        raise EOFError(f"{name}.npy holds {len(raw) - head.tell()} bytes of data, not {size}")
    return raw[head.tell():].view(dtype).reshape(shape, order="F" if fortran_order else "C")


# -------------------------------------------------- work without a state file


class UnrecordedWorkError(ValueError):
    """A job's folder holds work (checkpoints, shards, models) but no state
    file to say what it is or how far it got: going on would start over and
    overwrite it, so the job refuses unless asked to restart."""


def list_work(folder, patterns, keep=()):
    """The files under ``folder`` matching the glob ``patterns`` (relative to
    it; ``**`` for any depth), as relative paths in the order of the
    patterns (so that an error lists the weightiest work first), each
    pattern's sorted, leaving out the
    temporaries of :func:`atomic_open` and :func:`atomic_path` (``.name.*.tmp...``,
    abandoned by a crash, never work) and the names in ``keep`` (files a job
    may leave before its state and can make again, e.g. a run's random
    initial model)."""
    folder = Path(folder)
    found = {}  # a dict: ordered, and a file matched by two patterns comes once
    for pattern in patterns:
        for path in sorted(folder.glob(pattern)):
            relative = path.relative_to(folder)
            if path.is_file() and not is_temporary(path) and str(relative) not in keep:
                found.setdefault(relative, None)
    return list(found)


# atomic_open's and atomic_path's temporaries: mkstemp's names, "." + the
# target's name + "." + 8 characters of its alphabet, then the suffix,
# which starts with ".tmp" (".tmp", ".tmp.npz", ".tmp.keras").
_TEMPORARY = re.compile(r"\.(?P<target>.+)\.[a-z0-9_]{8}\.tmp(\..+)?")


def is_temporary(path):
    """Whether ``path`` is named as the temporary file of :func:`atomic_open`
    or :func:`atomic_path` (``.shard-00003.npz.k2j4_x9a.tmp``)."""
    return _TEMPORARY.fullmatch(Path(path).name) is not None


def temporary_target(path):
    """The name of the file that the temporary ``path`` was to replace
    (``shard-00003.npz``), or None when ``path`` is no temporary."""
    found = _TEMPORARY.fullmatch(Path(path).name)
    return None if found is None else found["target"]


def refuse_unrecorded_work(folder, state_file, work, restart_hint):
    """For a job that found no readable ``state_file`` in ``folder``:
    :class:`UnrecordedWorkError` when ``work`` (from :func:`list_work`) is
    not empty, naming the folder, a few of the files and their number, and
    ``restart_hint`` (the argument or flag that starts over)."""
    if not work:
        return
    shown = ", ".join(str(path) for path in work[:4])
    if len(work) > 4:
        shown += f", ... ({len(work) - 4} more)"
    count = f"{len(work)} file{'s' if len(work) != 1 else ''}"
    raise UnrecordedWorkError(
        f"{folder} holds earlier work ({count}: {shown}) but no readable {Path(state_file).name} "
        f"to say what it is or how far it got, so going on would start over and overwrite it. "
        f"To delete it and start over, {restart_hint}; to keep it, use another folder")


def discard_work(folder, state_file, work):
    """Start a job over in ``folder``: delete ``state_file`` first, then the
    files ``work`` (relative paths, from :func:`list_work`). The state goes
    first so that an interruption half-way leaves work without a state,
    which the job refuses again, never a state that describes deleted work."""
    folder = Path(folder)
    Path(state_file).unlink(missing_ok=True)
    for path in work:
        (folder / path).unlink(missing_ok=True)


# ------------------------------------------------------------ one job a folder


class FolderBusyError(RuntimeError):
    """Another process holds the folder's lock: a job is writing there."""


LOCK_FILE = ".lock"


_held = {}  # folder -> how many blocks of this process hold its lock (any of its threads)


@contextlib.contextmanager
def folder_lock(folder, job):
    """Hold ``folder``'s lock (the file ``.lock`` in it, made if need be)
    while the block runs; :class:`FolderBusyError` at once, naming the folder
    and the process that holds it, if another process does. ``job`` says
    what is being done there (for that message). A process may take a lock
    it holds again (a restart inside the loop that holds it; the lock is
    the process's, its threads share it). The lock is
    the operating system's (``flock``), so it goes with the process that held
    it, even one killed: a crashed job never leaves the folder locked. Where
    there is no ``flock`` (Windows) the block runs without a lock."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    key = folder.resolve()
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks here
        fcntl = None
    if fcntl is None:
        yield
        return
    if _held.get(key):
        _held[key] += 1
        try:
            yield
        finally:
            _held[key] -= 1
        return
    path = folder / LOCK_FILE
    with open(path, "a+", encoding="utf-8") as file:
        try:
            fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            file.seek(0)
            holder = file.read().strip() or "another process"
            raise FolderBusyError(f"{folder} is in use: {holder} is writing there (its lock "
                                  f"{path} is held); wait for it to finish or stop it, or use "
                                  f"another folder") from None
        file.seek(0)
        file.truncate()
        file.write(f"process {os.getpid()} ({job}: {' '.join(sys.argv) or 'python'})\n")
        file.flush()
        _held[key] = 1
        try:
            yield
        finally:
            del _held[key]
            file.seek(0)
            file.truncate()
            fcntl.flock(file.fileno(), fcntl.LOCK_UN)


def holds_lock(folder):
    """Whether this process holds ``folder``'s lock (:func:`folder_lock`)."""
    return bool(_held.get(Path(folder).resolve()))


def remove_temporaries(folder, owned=None):
    """Delete the temporaries (:func:`is_temporary`) that writes killed in
    the middle left in ``folder`` and its subfolders, and return their
    paths (relative to ``folder``, sorted). A resumed job calls it, since
    nothing else ever would: :func:`atomic_open` removes its temporary on
    an exception, but a SIGKILL runs no cleanup.

    Only while this process holds ``folder``'s lock (:func:`folder_lock`;
    RuntimeError otherwise): a temporary is also the file that a living
    writer is filling, and the lock is what says that no other job of this
    folder is writing now. Jobs that write beside the lock holder without
    taking the lock (a Zero run's extra self-play jobs) keep their files
    with ``owned``: a function of a temporary's path relative to ``folder``
    that says whether it is the lock holder's to delete. Only files are
    deleted, never folders; on Windows (no lock) nothing is."""
    folder = Path(folder)
    try:
        import fcntl  # noqa: F401
    except ImportError:
        return []  # no lock: another process may be writing them
    if not holds_lock(folder):
        raise RuntimeError(f"remove_temporaries({folder}): this process does not hold the "
                           f"folder's lock, so a temporary there may be a living writer's file")
    removed = []
    for path in sorted(folder.rglob(".*")):
        relative = path.relative_to(folder)
        if is_temporary(path) and path.is_file() and not path.is_symlink() and (
                owned is None or owned(relative)):
            path.unlink(missing_ok=True)
            removed.append(str(relative))
    return removed


@contextlib.contextmanager
def job_folder(folder, job, owned=None):
    """How a resumable job enters its folder: it holds the folder's lock
    (:func:`folder_lock`, ``job`` saying what it does) while the block
    runs, and first deletes the temporaries that a kill left there
    (:func:`remove_temporaries`, with ``owned``). With ``folder`` None (a
    job that keeps its work in memory) the block just runs."""
    if folder is None:
        yield
        return
    with folder_lock(folder, job):
        remove_temporaries(folder, owned)
        yield
