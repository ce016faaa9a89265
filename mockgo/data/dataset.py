"""Training datasets: from folders and archives of SGF games to shards on disk,
and the batches read back from them for training (:mod:`mockgo.data.pipeline`
feeds them to Keras).

A dataset is a folder:

- ``dataset.json``: what was built (encoder, board size, filters, split
  shares), how far the build got, the shards of each split, and the counts of
  games kept and skipped and why. Rewritten atomically at every checkpoint.
- ``games.tsv``: game id, split and source (file or ``archive:member``) of
  every game kept.
- ``{split}-{n:05d}.npz``: shards of positions. ``planes`` holds the feature
  planes bit-packed along the plane axis (``np.packbits``: a 48-plane
  position on 19x19 takes 2.2 kB instead of 17 kB), ``moves`` the move
  played (flat index, ``size * size`` for pass), ``outcomes`` the game's
  result from the mover's view (+1 won, -1 lost, 0 unknown or a draw) and
  ``game_ids`` the game each position comes from.

Games go to train, validation or test by a hash of their file name, so a game
never has positions in two splits and a rebuild splits the same way. Building
streams: memory holds a window of games and one shard per split, however many
games go in, and the work of replaying and encoding is shared by worker
processes. An interrupted build resumes from its last checkpoint.

``dataset.json`` is written before the first shard, so shards never lie in a
folder without it; a folder that holds shards or ``games.tsv`` but no
readable ``dataset.json`` (deleted, or damaged) is refused, naming what it
holds, unless ``build_dataset(..., restart=True)`` asks to delete them and
build again. A source that does not exist is an error naming it, not a
skipped game, and a finished dataset without a single game is an error too.
So is an archive that breaks before its end (cut short by a download that
stopped, or damaged): read up to the break, the first 200 kB of a KGS
archive of 2,298 games made a dataset of 535 that said it was complete.
``build_dataset(..., keep_going=True)`` builds from what can be read
instead, with a warning, and the dataset is not marked complete: its
``dataset.json`` lists the broken archives under ``broken``.
"""

import dataclasses
import hashlib
import json
import multiprocessing
import os
import re
import warnings
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from mockgo.data import archives, sgf_reader
from mockgo.data.files import (CorruptFileError, atomic_open, atomic_write_text,
                               check_same_settings, discard_work, job_folder, list_work,
                               read_json, read_npz, refuse_unrecorded_work)
from mockgo.go.symmetries import symmetry_tables
from mockgo.go.board import BLACK, WHITE
from mockgo.go.features import ALPHAGO48, get_encoder

SPLITS = ("train", "validation", "test")
TARGETS = ("policy", "value", "dual")  # the labels of a batch: the move, the outcome, or both
FORMAT_VERSION = 1
MANIFEST = "dataset.json"
# What a build writes besides its manifest: the shards and the list of games.
WORK = ("*-[0-9][0-9][0-9][0-9][0-9].npz", "games.tsv")
RESTART = "pass restart=True to build_dataset"
# The shape of dataset.json (mockgo.data.files.check_schema): what the code
# below reads of it, checked when it is read, so that a manifest edited by
# hand or written by something else is an error naming the file and the
# field, not a KeyError in the middle of a build or a training run.
MANIFEST_SCHEMA = {
    "format": int, "spec": {"encoder": str, "board_size": int}, "sources": [str],
    "max_games": (int, None), "complete": bool, "games_looked_at": int, "games_kept": int,
    "games_tsv_bytes": int, "positions": {split: int for split in SPLITS},
    # each shard as [file name, positions]
    "shards": {split: [[(str, int)]] for split in SPLITS},
    "skipped": dict, "kept": dict,
    "broken?": [str],  # the archives a keep_going build could not read to the end
}


# --------------------------------------------------------------- the spec


@dataclasses.dataclass
class DatasetSpec:
    """What a dataset holds; a build resumes only into a folder with the same spec."""

    encoder: str = ALPHAGO48
    board_size: int = 19
    min_rank: str | None = None  # both players at least this strong, e.g. "6d"
    max_handicap: int | None = None  # None: any handicap
    validation_share: float = 0.05
    test_share: float = 0.05


def split_of(source, validation_share=0.05, test_share=0.05):
    """The split of a game, from a hash of its file name alone (not the
    archive it sits in), so that it stays put when archives are re-packed."""
    name = source.rsplit(":", 1)[-1].replace("\\", "/").rsplit("/", 1)[-1]
    bucket = int.from_bytes(hashlib.sha1(name.encode()).digest()[:8], "big") / 2**64
    if bucket < test_share:
        return "test"
    if bucket < test_share + validation_share:
        return "validation"
    return "train"


_RANK = re.compile(r"^\s*(\d+)\s*([kdp])", re.IGNORECASE)


def rank_value(rank):
    """A KGS rank as a number: 30k is -29, 1k is 0, 1d is 1, 9d is 9, and
    professional ranks (1p...) rank above 9d. None when there is no rank."""
    match = _RANK.match(rank or "")
    if not match:
        return None
    number, kind = int(match.group(1)), match.group(2).lower()
    return {"k": 1 - number, "d": number, "p": 9 + number}[kind]


def _rejection(record, spec):
    """Why a game is left out of the dataset, or None to keep it."""
    if record.size != spec.board_size:
        return f"board size {record.size}"
    if spec.max_handicap is not None and record.handicap > spec.max_handicap:
        return "handicap"
    if spec.min_rank is not None:
        floor = rank_value(spec.min_rank)
        for rank in (record.black_rank, record.white_rank):
            value = rank_value(rank)
            if value is None or value < floor:
                return "rank below minimum or unknown"
    if not record.moves:
        return "no moves"
    return None


# -------------------------------------------------- encoding one game (workers)


_worker_state = {}


def _init_worker(spec_fields):
    spec = DatasetSpec(**spec_fields)
    _worker_state["spec"] = spec
    _worker_state["encoder"] = get_encoder(spec.encoder, spec.board_size)
    warnings.simplefilter("ignore", sgf_reader.SGFWarning)  # counted, not printed


def encode_game(record, encoder):
    """The positions of one game: (packed planes, moves, outcomes). Stops
    before a move that the rules forbid, keeping the positions before it."""
    # One array for the whole game, filled in place: no per-position
    # allocation, and packbits reads it directly (planes are 0 or 1).
    planes = np.empty((len(record.moves),) + encoder.shape, np.uint8)
    moves = []
    movers = []
    for board, color, move in sgf_reader.replay(record):
        encoder.encode_into(board, planes[len(moves)])
        moves.append(move)
        movers.append(color)
    movers = np.array(movers, np.int8)
    if record.winner in (BLACK, WHITE):
        outcomes = np.where(movers == record.winner, 1, -1).astype(np.int8)
    else:
        outcomes = np.zeros(len(movers), np.int8)
    packed = np.packbits(planes[:len(moves)], axis=-1)
    return packed, np.array(moves, np.int16), outcomes


def _work(item):
    """One game, in a worker: read, filter, replay, encode."""
    source, data = item
    spec, encoder = _worker_state["spec"], _worker_state["encoder"]
    if isinstance(data, Exception):
        return source, "unreadable file", None
    try:
        record = sgf_reader.read_sgf(data, source)
    except sgf_reader.SGFError as error:
        return source, error.reason, None
    except Exception as error:  # one strange file must not end a long build
        return source, f"unexpected error: {type(error).__name__}", None
    reason = _rejection(record, spec)
    if reason:
        return source, reason, None
    packed, moves, outcomes = encode_game(record, encoder)
    if not len(moves):
        return source, "illegal first move", None
    note = "kept, stopped at an illegal move" if record.problem else "kept"
    return source, note, (packed, moves, outcomes)


# ----------------------------------------------------------- the builder


class _ShardWriter:
    """Collects positions of one split and writes them as shards."""

    def __init__(self, folder, split, shard_size, first_index):
        self.folder, self.split, self.shard_size = folder, split, shard_size
        self.index = first_index
        self.parts = []
        self.count = 0
        self.written = []  # (file name, positions) of shards written

    def add(self, packed, moves, outcomes, game_id):
        self.parts.append((packed, moves, outcomes, np.full(len(moves), game_id, np.int32)))
        self.count += len(moves)
        if self.count >= self.shard_size:
            self.flush()

    def flush(self):
        if not self.parts:
            return
        arrays = [np.concatenate(column) for column in zip(*self.parts)]
        name = f"{self.split}-{self.index:05d}.npz"
        with atomic_open(self.folder / name) as file:
            np.savez(file, planes=arrays[0], moves=arrays[1], outcomes=arrays[2],
                     game_ids=arrays[3])
        self.written.append((name, len(arrays[1])))
        self.index += 1
        self.parts, self.count = [], 0


def _sgf_items(sources, skip, broken=None):
    """(source, bytes) of every SGF file under ``sources``, in a fixed order,
    after the first ``skip`` (those a resumed build has done already).

    An archive that breaks before its end raises
    :class:`~mockgo.data.archives.BrokenArchiveError`, after its files
    before the break; given ``broken`` (a list: keep going), its message is
    added there, a warning is issued, and the next source follows. The
    break itself is no item, so a resumed build counts the same items."""
    seen = 0
    for path in map(Path, sources):
        try:
            for item in archives.sgf_sources(path):
                seen += 1
                if seen > skip:
                    yield item
        except archives.BrokenArchiveError as error:
            if broken is None:
                raise
            broken.append(str(error))
            warnings.warn(f"{error}. Going on without the rest of it (keep_going=True): the "
                          f"dataset will not be marked complete", IncompleteDatasetWarning,
                          stacklevel=2)
        except (OSError, EOFError) as error:
            seen += 1
            if seen > skip:
                yield str(path), error


def _expected_games(sources):
    """Games in KGS archives, from their names (``KGS-2003-19-7582-``), for
    the progress bar; None when a source is not such an archive."""
    total = 0
    for path in map(Path, sources):
        match = re.search(r"-19-(\d+)-\.(tar\.gz|tar\.bz2|zip)$", path.name)
        if not match:
            return None
        total += int(match.group(1))
    return total


class IncompleteDatasetWarning(UserWarning):
    """A dataset built without part of its sources (``keep_going=True``
    past a broken archive). Not an SGFWarning: those are counted and
    silenced in long builds, and this one must be seen."""


def build_dataset(sources, folder, spec=None, workers=2, shard_size=8192,
                  checkpoint_games=2000, max_games=None, progress=True, restart=False,
                  keep_going=False):
    """Build (or finish building) a dataset in ``folder`` from SGF files,
    folders of them and archives. Returns the manifest (a dict, also saved
    as ``dataset.json``); ``str(summary_line(manifest))`` reads well.

    ``max_games`` stops after that many SGF files were looked at (for quick
    runs). A folder holding an unfinished build with the same spec and
    sources resumes at its last checkpoint; a finished one is left as it is.
    ``restart=True`` deletes what the folder holds of a build (its
    ``dataset.json`` first, then the shards and ``games.tsv``) and builds
    anew: the way to reuse a folder whose ``dataset.json`` is missing or
    damaged, which is an error otherwise (module docstring).

    An archive that breaks before its end (cut short, damaged) raises
    :class:`~mockgo.data.archives.BrokenArchiveError` naming it; the build
    stops there, its last checkpoint kept, and resumes once the archive is
    whole again (fetched again under the same name). With ``keep_going``
    it goes on without the rest of that archive, with an
    :class:`IncompleteDatasetWarning`: the dataset is usable but not marked
    complete, and lists the broken archives under ``broken`` (building it
    again warns again; to read a fetched archive in full, restart).

    FileNotFoundError naming a source that does not exist (before anything
    is written); ValueError when the dataset ends up with no game at all;
    :class:`mockgo.data.files.FolderBusyError` when another build is
    writing in ``folder`` (a build holds the folder's lock while it runs).
    """
    spec = spec or DatasetSpec()
    folder = Path(folder)
    sources = [str(s) for s in ([sources] if isinstance(sources, (str, os.PathLike)) else sources)]
    if not (folder / MANIFEST).exists():
        _check_sources(folder, sources)  # before anything is written, the folder included
    # One build a folder; a resumed build first deletes a killed one's temporaries.
    with job_folder(folder, "building a dataset"):
        return _build(folder, spec, sources, workers, shard_size, checkpoint_games, max_games,
                      progress, restart, keep_going)


def _build(folder, spec, sources, workers, shard_size, checkpoint_games, max_games, progress,
           restart, keep_going=False):
    """:func:`build_dataset`'s work, with the folder's lock held."""
    manifest = _load_or_start(folder, spec, sources, max_games, restart)
    if manifest["complete"]:
        _check_not_empty(folder, manifest)
        return manifest

    writers = {split: _ShardWriter(folder, split, shard_size, len(manifest["shards"][split]))
               for split in SPLITS}
    skipped = Counter(manifest["skipped"])
    kept_notes = Counter(manifest["kept"])
    games_file = open(folder / "games.tsv", "a", encoding="utf-8")
    done = manifest["games_looked_at"]
    limit = None if max_games is None else max(0, max_games - done)
    broken = [] if keep_going else None  # the broken archives' messages, when kept going
    items = _sgf_items(sources, done, broken)
    total = _expected_games(sources) if max_games is None else max_games
    bar = _progress_bar(progress, total, done)

    def checkpoint(complete=False):
        for writer in writers.values():
            writer.flush()
            manifest["shards"][writer.split] += [list(entry) for entry in writer.written]
            writer.written = []
        games_file.flush()
        os.fsync(games_file.fileno())
        manifest.update(games_looked_at=done, skipped=dict(skipped), kept=dict(kept_notes),
                        games_tsv_bytes=games_file.tell(), complete=complete,
                        broken=list(broken) if broken else manifest.get("broken", []))
        atomic_write_text(folder / MANIFEST, json.dumps(manifest, indent=1))

    # spawn, not fork: the caller (a notebook) may have TensorFlow threads running.
    context = multiprocessing.get_context("spawn")
    try:
        with context.Pool(workers, _init_worker, (dataclasses.asdict(spec),)) as pool:
            while limit is None or limit > 0:
                window = _take(items, checkpoint_games if limit is None else min(limit, checkpoint_games))
                if not window:
                    break
                for source, note, result in pool.imap(_work, window, chunksize=8):
                    done += 1
                    bar.update(1)
                    if result is None:
                        skipped[note] += 1
                        continue
                    kept_notes[note] += 1
                    game_id = manifest["games_kept"]
                    manifest["games_kept"] += 1
                    split = split_of(source, spec.validation_share, spec.test_share)
                    writers[split].add(*result, game_id)
                    manifest["positions"][split] += len(result[1])
                    games_file.write(f"{game_id}\t{split}\t{source}\n")
                if limit is not None:
                    limit -= len(window)
                checkpoint()
        # Every source read to its end, or a broken one skipped: then the
        # dataset is what could be read, not the whole of its sources.
        manifest["broken"] = list(broken or [])
        checkpoint(complete=not broken)
    finally:
        bar.close()
        games_file.close()
    _check_not_empty(folder, manifest)
    return manifest


def _check_sources(folder, sources):
    """FileNotFoundError naming the sources that do not exist: a build must
    not record a missing archive as one unreadable game and finish empty."""
    missing = [source for source in sources if not Path(source).exists()]
    if missing:
        raise FileNotFoundError(f"no such SGF file, folder or archive: {', '.join(missing)} "
                                f"(a source of the dataset in {folder}; fetch or make it first)")


def _check_not_empty(folder, manifest):
    """ValueError for a finished dataset without a game: every later run
    would fail on it, far from the cause, which its skip counts tell."""
    if manifest["games_kept"] == 0:
        raise ValueError(f"the dataset in {folder} holds no games ({summary_line(manifest)}; "
                         f"sources: {', '.join(manifest['sources'])}); check the sources and "
                         f"build it again with restart=True")


def _take(iterator, count):
    window = []
    for item in iterator:
        window.append(item)
        if len(window) >= count:
            break
    return window


def _load_or_start(folder, spec, sources, max_games, restart):
    """The manifest to build on: the folder's (checked against these
    settings, and the work after its last checkpoint undone), or a fresh one,
    written before any shard (module docstring)."""
    path = folder / MANIFEST
    fresh = {
        "format": FORMAT_VERSION, "spec": dataclasses.asdict(spec),
        "sources": sources, "max_games": max_games, "complete": False,
        "games_looked_at": 0, "games_kept": 0, "games_tsv_bytes": 0,
        "positions": {split: 0 for split in SPLITS},
        "shards": {split: [] for split in SPLITS},
        "skipped": {}, "kept": {}, "broken": [],
    }
    manifest = None
    if restart:
        discard_work(folder, path, list_work(folder, WORK))
    else:
        manifest = read_json(path, "the dataset's settings and the shards built so far",
                             missing_ok=True, schema=MANIFEST_SCHEMA,
                             remedy=f"To delete the shards and build the dataset again, "
                                    f"{RESTART}")
    if manifest is None:
        refuse_unrecorded_work(folder, path, list_work(folder, WORK), RESTART)
        _check_sources(folder, sources)
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(fresh, indent=1))
        return fresh
    settings = ("format", "spec", "sources", "max_games")
    # Sources are compared by file name: the same archives found under
    # another path (a moved checkout, another mirror) are the same data.
    stored = {key: manifest.get(key) for key in settings}
    given = {key: fresh[key] for key in settings}
    for both in (stored, given):
        both["sources"] = [Path(source).name for source in both["sources"] or []]
    check_same_settings(folder, "a dataset", stored, given)
    # Every shard the manifest lists must be there: a folder two builds wrote
    # into at once, or one partly deleted, would otherwise pass as finished
    # and fail in the middle of a training run, far from the cause.
    missing = [name for split in SPLITS for name, _ in manifest["shards"][split]
               if not (folder / name).is_file()]
    if missing:
        raise FileNotFoundError(f"the dataset in {folder} lists {len(missing)} shard(s) that are "
                                f"not there: {', '.join(missing[:5])}"
                                f"{' ...' if len(missing) > 5 else ''}; {RESTART}")
    if manifest["complete"]:
        return manifest
    _check_sources(folder, sources)
    # Shards written after the last checkpoint, and games listed after it,
    # belong to work that is done again now.
    listed = {name for split in SPLITS for name, _ in manifest["shards"][split]}
    for shard in folder.glob(WORK[0]):
        if shard.name not in listed:
            shard.unlink()
    games = folder / "games.tsv"
    size = games.stat().st_size if games.exists() else 0
    if size < manifest["games_tsv_bytes"]:
        raise CorruptFileError(f"{games} holds {size} bytes, fewer than the "
                               f"{manifest['games_tsv_bytes']} that {path} records: it was cut "
                               f"short or deleted; to build the dataset again, {RESTART}")
    if games.exists():
        with open(games, "r+b") as file:
            file.truncate(manifest["games_tsv_bytes"])
    return manifest


def _progress_bar(enabled, total, initial):
    if not enabled:
        return _Silent()
    return tqdm(total=total, initial=initial, unit="game", desc="building dataset", smoothing=0.05)


class _Silent:
    def update(self, n):
        pass

    def close(self):
        pass


def summary_line(manifest):
    """Games and positions kept and skipped, and why, in one line."""
    kept = manifest["games_kept"]
    positions = ", ".join(f"{manifest['positions'][s]:,} {s}" for s in SPLITS)
    line = f"{kept:,} games kept ({positions} positions)"
    skipped = manifest["skipped"]
    if skipped:
        reasons = ", ".join(f"{n:,} {why}" for why, n in sorted(skipped.items(), key=lambda x: -x[1]))
        line += f"; {sum(skipped.values()):,} skipped: {reasons}"
    partial = manifest["kept"].get("kept, stopped at an illegal move", 0)
    if partial:
        line += f"; {partial:,} kept up to an illegal move"
    broken = manifest.get("broken")
    if broken:
        line += (f"; NOT COMPLETE: {len(broken)} archive{'s' if len(broken) > 1 else ''} broke "
                 f"before the end ({'; '.join(broken)})")
    return line


# ------------------------------------------------------------- reading back


def read_manifest(folder):
    """The dataset's ``dataset.json``; FileNotFoundError, or
    :class:`~mockgo.data.files.CorruptFileError` naming it when damaged."""
    path = Path(folder) / MANIFEST
    if not path.exists():
        raise FileNotFoundError(f"no dataset in {folder}: {path} is missing (build it first)")
    return read_json(path, "the dataset's settings and the list of its shards",
                     schema=MANIFEST_SCHEMA)


def load_shard(path, num_planes):
    """One shard as (planes uint8 (n, N, N, num_planes), moves, outcomes, game_ids);
    :class:`~mockgo.data.files.CorruptFileError` naming a damaged one."""
    shard = read_npz(path, ["planes", "moves", "outcomes", "game_ids"])
    planes = np.unpackbits(shard["planes"], axis=-1, count=num_planes)
    return planes, shard["moves"], shard["outcomes"], shard["game_ids"]


def load_split(folder, split, max_positions=None):
    """A whole split in memory, as numpy arrays: (planes, moves, outcomes)."""
    manifest = read_manifest(folder)
    num_planes = get_encoder(manifest["spec"]["encoder"], manifest["spec"]["board_size"]).num_planes
    parts, total = [], 0
    for name, _ in manifest["shards"][split]:
        planes, moves, outcomes, _ = load_shard(Path(folder) / name, num_planes)
        parts.append((planes, moves, outcomes))
        total += len(moves)
        if max_positions is not None and total >= max_positions:
            break
    if not parts:
        raise ValueError(f"the {split} split of {folder} is empty")
    planes, moves, outcomes = (np.concatenate(column) for column in zip(*parts))
    return planes[:max_positions], moves[:max_positions], outcomes[:max_positions]


def packed_batches(folder, split, batch_size, shuffle, augment, seed, include_pass, target,
                   shards_in_memory, repeat, readers=1):
    """The batches of a split as they travel to a training step: batches of
    ``(packed planes, labels, symmetries)``, the planes still bit-packed
    (``np.packbits`` along the plane axis, as in the shards), the labels not
    yet moved by the symmetries (``symmetries`` is None without ``augment``).

    Shards are kept packed in memory (a group of 4 shards of 8,192 19x19
    positions is 70 MB packed, 570 MB unpacked) and only the rows of each
    batch are unpacked, by the caller: no pause to unpack a whole group, and
    an eighth of the memory traffic. :func:`batches` unpacks them with numpy;
    :class:`mockgo.data.pipeline.PackedBatches` sends them packed to the
    compiled training step, which unpacks them (:mod:`mockgo.nets.packed`).

    ``readers`` > 1: the next group of a pass is read while this one's
    batches are made, its shards by that many threads side by side
    (reading, checking and copying them was two thirds of this generator's
    time: ``benchmarks/pipeline.py``). The batches are the same.
    """
    manifest = read_manifest(folder)
    size = manifest["spec"]["board_size"]
    names = [name for name, _ in manifest["shards"][split]]
    if not names:
        raise ValueError(f"the {split} split of {folder} is empty")
    rng = np.random.default_rng(seed)
    room = batch_size - 1  # before a group's rows: those the group before left over
    pool = ThreadPoolExecutor(readers, "shard-reader") if readers > 1 else None
    ahead = ThreadPoolExecutor(1, "group-reader") if readers > 1 else None
    carried = None  # the rows of a group left over when its batches did not come out even
    try:
        while True:
            order = list(rng.permutation(len(names)) if shuffle else range(len(names)))
            groups = [[Path(folder) / names[i] for i in order[start:start + shards_in_memory]]
                      for start in range(0, len(order), shards_in_memory)]
            coming = None
            for g, group in enumerate(groups):
                last_group = g == len(groups) - 1
                packed, moves, outcomes = (coming.result() if coming is not None
                                           else _read_group(group, room, pool))
                coming = None if ahead is None or last_group else ahead.submit(
                    _read_group, groups[g + 1], room, pool)
                # The rows carried from the last group come first, into the room left for them.
                first = room
                if carried is not None:
                    first = room - len(carried[1])
                    for column, rows in zip((packed, moves, outcomes), carried):
                        column[first:room] = rows
                    carried = None
                packed, moves, outcomes = packed[first:], moves[first:], outcomes[first:]
                # The rows a batch may take; passes are left out by index, not by
                # copying the group without them.
                index = (np.arange(len(moves)) if include_pass
                         else np.flatnonzero(moves != size * size))
                if shuffle:
                    rng.shuffle(index)
                for first in range(0, len(index), batch_size):
                    chosen = index[first:first + batch_size]
                    if len(chosen) < batch_size and (repeat or not last_group):
                        # Whole batches only, but for the last of a single pass:
                        # the rows left go into the next group's batches. A batch
                        # of another size would make a compiled step (JAX, XLA)
                        # compile again, for seconds, at the end of every group:
                        # measured on a GPU, the 13 x 192 network then trained at
                        # 0.07 of its speed. So a pass is ceil(positions / batch)
                        # batches, whatever the grouping (PackedBatches counts on it).
                        carried = (packed[chosen], moves[chosen], outcomes[chosen])
                        break
                    syms = rng.integers(0, 8, len(chosen)) if augment else None
                    if target == "policy":
                        labels = moves[chosen].astype(np.int32)
                    elif target == "value":
                        labels = outcomes[chosen].astype(np.float32)
                    else:  # "dual": both
                        labels = (moves[chosen].astype(np.int32),
                                  outcomes[chosen].astype(np.float32))
                    yield packed[chosen], labels, syms
            if not repeat:
                return
    finally:  # the generator closed: no more groups read ahead
        for executor in (ahead, pool):
            if executor is not None:
                executor.shutdown(wait=False, cancel_futures=True)


def _read_group(paths, room, pool):
    """The planes, moves and outcomes of the shards at ``paths``, one after
    the other in one array each, after ``room`` rows left free; the shards
    read by ``pool``'s threads (None: here)."""
    def read(path):
        return read_npz(path, ["planes", "moves", "outcomes"])

    shards = list(pool.map(read, paths)) if pool is not None else [read(p) for p in paths]
    total = room + sum(len(shard["moves"]) for shard in shards)
    columns = []
    for name in ("planes", "moves", "outcomes"):
        column = np.empty((total, *shards[0][name].shape[1:]), shards[0][name].dtype)
        np.concatenate([shard[name] for shard in shards], out=column[room:])
        columns.append(column)
    return columns


def turn_labels(labels, syms, move_maps, target):
    """The labels of a batch after each position was turned by its symmetry:
    moves move (``move_maps[sym, move]``), outcomes stay."""
    if target == "policy":
        return move_maps[syms, labels].astype(np.int32)
    if target == "dual":
        return move_maps[syms, labels[0]].astype(np.int32), labels[1]
    return labels


def batches(folder, split, batch_size=256, shuffle=True, augment=True, seed=0,
            include_pass=False, target="policy", shards_in_memory=4, repeat=False):
    """Batches of (planes, labels) as numpy arrays, read shard by shard.

    ``shuffle`` mixes positions across ``shards_in_memory`` shards at a time
    (and the order of shards); ``augment`` applies a random symmetry of the
    square to each position and its move. ``target`` is "policy" (labels:
    the move played), "value" (labels: the outcome from the mover's view)
    or "dual" (labels: both, ``(moves, outcomes)``, for a policy-and-value
    network).
    Without ``include_pass`` positions where the player passed are left out.
    """
    if target not in TARGETS:
        raise ValueError(f"target is one of {TARGETS}, not {target!r}")
    manifest = read_manifest(folder)
    size = manifest["spec"]["board_size"]
    num_planes = get_encoder(manifest["spec"]["encoder"], size).num_planes
    gather, move_maps = symmetry_tables(size)
    for packed, labels, syms in packed_batches(folder, split, batch_size, shuffle, augment, seed,
                                                include_pass, target, shards_in_memory, repeat):
        x = np.unpackbits(packed, axis=-1, count=num_planes)
        if syms is not None:
            n = len(packed)
            flat = x.reshape(n, size * size, num_planes)
            x = np.take_along_axis(flat, gather[syms][:, :, None], axis=1).reshape(x.shape)
            labels = turn_labels(labels, syms, move_maps, target)
        yield x, labels


def split_game(dataset_folder, split="test", index=0):
    """The ``index``-th game of a split of a KGS data set
    (:func:`mockgo.data.dataset.build_dataset`), read again from its archive, as
    a :class:`mockgo.data.sgf_reader.GameRecord`."""
    lines = (Path(dataset_folder) / "games.tsv").read_text(encoding="utf-8").splitlines()
    sources = [line.split("\t")[2] for line in lines if line.split("\t")[1] == split]
    if index >= len(sources):
        raise IndexError(f"the {split} split of {dataset_folder} has {len(sources)} games")
    source = sources[index]
    archive = source.rsplit(":", 1)[0] if ":" in source and not Path(source).exists() else source
    for name, data in archives.sgf_sources(Path(archive)):
        if name == source:  # only this one is parsed
            return sgf_reader.read_sgf(data, source)
    raise FileNotFoundError(f"{source} is no longer in {archive}")
