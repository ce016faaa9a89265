"""SGF files by the thousand: the ``.sgf`` files of folders and the members
of archives (``.tar.gz``, ``.tar.bz2``, ``.zip``...), read in memory.

:func:`sgf_sources` gives the bytes of each file, for callers that parse in
worker processes (:mod:`mockgo.data.dataset`); :func:`iter_sgf_files` reads
them into :class:`~mockgo.data.sgf_reader.GameRecord` objects, skipping
the files that cannot be read with a warning, so that one bad file cannot
stop a long job. An archive cut short or damaged raises
:class:`BrokenArchiveError` after the files read before the break: a cut
archive must not pass for a smaller whole one.
"""

import collections
import dataclasses
import gzip
import os
import tarfile
import warnings
import zipfile
import zlib
from pathlib import Path

from mockgo.data.sgf_reader import SGFError, SGFWarning, read_sgf

#: The archives whose SGF files are read (the other files are skipped).
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar.bz2", ".tar", ".zip")


class BrokenArchiveError(OSError):
    """An archive that breaks before its end: cut short (a download or a
    copy that stopped) or damaged. Raised by :func:`sgf_sources` after the
    ``members`` SGF files read before the break, so that a job reading it
    can tell "all of the archive" from "the part before the break": a cut
    archive must not pass for a smaller whole one."""

    def __init__(self, path, members, error):
        self.path, self.members, self.error = str(path), members, error
        super().__init__(f"{path} is cut short or damaged: it broke after {members:,} SGF "
                         f"files ({type(error).__name__}: {error}); fetch it again")

    def __reduce__(self):  # so it can cross a multiprocessing pool
        return BrokenArchiveError, (self.path, self.members, self.error)



# ------------------------------------------------------ reading many files


@dataclasses.dataclass
class LoadSummary:
    """What :func:`iter_sgf_files` read and what it skipped, and why."""

    games: int = 0
    skipped: collections.Counter = dataclasses.field(default_factory=collections.Counter)

    def __str__(self):
        line = f"{self.games} games read, {sum(self.skipped.values())} skipped"
        if self.skipped:
            reasons = ", ".join(f"{count} {reason}" for reason, count in
                                sorted(self.skipped.items(), key=lambda item: (-item[1], item[0])))
            line += f" ({reasons})"
        return line


def iter_sgf_files(paths, summary=None, keep_going=False):
    """The games of many SGF files, one :class:`~mockgo.data.sgf_reader.GameRecord` at a time.

    ``paths`` (one path or a list) may name ``.sgf`` files, folders (all
    ``*.sgf`` below them, sorted by path) and archives (``.tar.gz``,
    ``.tar.bz2``, ``.zip``...; read in memory, members in the order the
    archive stores them). A file that cannot be read is skipped with an
    SGFWarning naming it (``archive.tar.gz:member.sgf`` for members) and
    the reason, and counted in ``summary`` (a :class:`LoadSummary`, pass
    one in to see it). Games are yielded as read; nothing is replayed.

    An archive that breaks before its end (cut short, damaged) raises
    :class:`BrokenArchiveError` naming it, after the games before the
    break: read to the break and no further, a cut archive would pass for
    a smaller whole one. ``keep_going=True`` skips it instead, with an
    SGFWarning, counted as an "unreadable file or archive".
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    summary = LoadSummary() if summary is None else summary
    for path in map(Path, paths):
        try:
            for source, data in sgf_sources(path):
                if isinstance(data, OSError):  # one file of a folder
                    _skip(summary, source, "unreadable file or archive", str(data))
                    continue
                record = _read_or_skip(data, source, summary)
                if record is not None:
                    summary.games += 1
                    yield record
        except BrokenArchiveError as error:
            if not keep_going:
                raise
            _skip(summary, str(path), "unreadable file or archive", str(error))
        except OSError as error:
            # A missing file: the games read so far stay.
            _skip(summary, str(path), "unreadable file or archive", str(error))


def _read_or_skip(data, source, summary):
    try:
        return read_sgf(data, source)
    except SGFError as error:
        _skip(summary, source, error.reason, str(error).removeprefix(f"{source}: "))
    except Exception as error:  # a bug must not end a day-long job either
        _skip(summary, source, "unexpected error", repr(error))
    return None


def _skip(summary, source, reason, detail):
    summary.skipped[reason] += 1
    warnings.warn(f"{source}: skipped: {detail}", SGFWarning, stacklevel=3)


def sgf_sources(path):
    """``(source name, bytes)`` for each SGF file that ``path`` (an ``.sgf``
    file, a folder or an archive) stands for, in :func:`iter_sgf_files`'s
    order, for callers that parse in worker processes.

    A file of a folder that cannot be read comes as ``(source, OSError)``;
    a missing path raises OSError, and an archive that cannot be read (or
    breaks halfway) :class:`BrokenArchiveError` (an OSError), after the
    members read before the break.
    """
    name = path.name.lower()
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix.lower() == ".sgf" and p.is_file())
        for file in files:
            yield str(file), _read_bytes(file)
    elif name.endswith(".zip"):
        yield from _zip_members(path)
    elif name.endswith(ARCHIVE_SUFFIXES):
        yield from _tar_members(path)
    elif name.endswith(".sgf"):
        yield str(path), path.read_bytes()
    elif not path.exists():
        raise FileNotFoundError(f"no such file or folder: {path}")
    else:
        raise OSError(f"not an SGF file, a folder or an archive: {path}")


def _read_bytes(file):
    """The bytes of a file, or the OSError that reading it raised: one
    unreadable file must not end the reading of its folder."""
    try:
        return file.read_bytes()
    except OSError as error:
        return error


# What a damaged archive raises, besides OSError, in tarfile, gzip, bz2, zipfile.
_ARCHIVE_ERRORS = (tarfile.TarError, zipfile.BadZipFile, EOFError, zlib.error,
                   gzip.BadGzipFile)


def _tar_members(path):
    # Streaming mode ("r|*") reads the archive once, front to back, which is
    # all a .tar.gz allows cheaply; the members are never written to disk.
    # A .tar.gz cut short ends in EOFError from gzip (the stream has no end
    # marker) or a ReadError from tarfile: BrokenArchiveError either way.
    members = 0
    try:
        with tarfile.open(path, "r|*") as archive:
            for member in archive:
                if member.isfile() and member.name.lower().endswith(".sgf"):
                    data = archive.extractfile(member).read()
                    if len(data) != member.size:  # a plain .tar cut inside a member
                        raise tarfile.ReadError(f"{member.name} is cut short")
                    members += 1
                    yield f"{path}:{member.name}", data
    except _ARCHIVE_ERRORS as error:
        raise BrokenArchiveError(path, members, error) from error


def _zip_members(path):
    members = 0
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if not info.is_dir() and info.filename.lower().endswith(".sgf"):
                    data = archive.read(info)
                    members += 1
                    yield f"{path}:{info.filename}", data
    except _ARCHIVE_ERRORS as error:
        raise BrokenArchiveError(path, members, error) from error
