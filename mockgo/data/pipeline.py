"""Feeding a dataset to ``model.fit`` on any Keras backend, fast enough for a GPU.

:class:`PackedBatches` is a ``keras.utils.PyDataset`` of a dataset's split
(:mod:`mockgo.data.dataset`): each batch is ``((packed planes, symmetries),
labels)``, the planes still bit-packed as the shards hold them and a
random symmetry of the square drawn for each position (0, the identity,
without ``augment``). The moves among the labels are already turned by that
symmetry; the planes are unpacked and turned inside the compiled step, by
the model :func:`mockgo.nets.packed.packed_input_model` wraps around the
network. So the host only picks rows and looks up moves, an eighth of the
bytes of unpacked planes travel to the device, and nothing here imports a
particular backend: the same code trains on TensorFlow and on JAX.

A training split repeats without end (``repeat=True``: ``fit`` is given
``steps_per_epoch``), its batches made ahead by a thread of its own while
the device computes, so that a GPU is not kept waiting
(``benchmarks/train.py`` measures the pipeline's positions per second against
the compiled step's on one batch held in memory). A validation split is
finite: the same batches, in the same order, every epoch.
"""

import math
import queue
import threading
from pathlib import Path

import keras
import numpy as np

from mockgo.data.dataset import TARGETS, packed_batches, read_manifest, turn_labels
from mockgo.data.files import read_npz
from mockgo.go.symmetries import symmetry_tables

__all__ = ["ArrayBatches", "HeldBatches", "PackedBatches"]


class PackedBatches(keras.utils.PyDataset):
    """The batches of one split of the dataset in ``folder`` (module
    docstring), as ``((packed, symmetries), labels)``.

    ``target``: ``"policy"`` (labels: the move played), ``"value"`` (the
    outcome for the mover) or ``"dual"`` (both). ``shuffle`` mixes positions
    across ``shards_in_memory`` shards at a time and the order of shards;
    ``augment`` draws a symmetry per position; ``include_pass`` keeps the
    positions where the player passed. ``seed`` fixes the order and the
    symmetries. ``repeat=True`` makes an endless split, prepared
    ``prefetch`` batches ahead by a thread; otherwise ``num_batches`` is
    ``steps`` (or the whole split) and every epoch reads the same batches.
    ``readers``: threads that read the next group of shards while this
    one's batches are made (1: none; the batches are the same).
    """

    def __init__(self, folder, split, batch_size, shuffle=True, augment=True, seed=0,
                 include_pass=False, target="policy", shards_in_memory=4, repeat=False,
                 steps=None, prefetch=8, readers=4):
        super().__init__()
        if target not in TARGETS:
            raise ValueError(f"target is one of {TARGETS}, not {target!r}")
        manifest = read_manifest(folder)
        self.size = manifest["spec"]["board_size"]
        self._move_maps = symmetry_tables(self.size)[1]
        self._options = dict(folder=folder, split=split, batch_size=batch_size, shuffle=shuffle,
                             augment=augment, seed=seed, include_pass=include_pass, target=target,
                             shards_in_memory=shards_in_memory, repeat=repeat, readers=readers)
        self.target, self.repeat = target, repeat
        self._steps = steps
        if not repeat and steps is None:
            # Every batch of a pass is whole but the last (packed_batches).
            size, positions = self.size, 0
            for name, count in manifest["shards"][split]:
                if not include_pass:  # counted from the moves alone
                    moves = read_npz(Path(folder) / name, ["moves"])["moves"]
                    count = int((moves != size * size).sum())
                positions += count
            self._steps = math.ceil(positions / batch_size)
        self._prefetch = prefetch
        self._iterator = None
        self._queue = self._stop = None
        self._next = 0

    @property
    def num_batches(self):
        return None if self.repeat else self._steps

    def _batches(self):
        for packed, labels, syms in packed_batches(**self._options):
            if syms is None:
                syms = np.zeros(len(packed), np.int64)
            else:
                labels = turn_labels(labels, syms, self._move_maps, self.target)
            yield (packed, syms.astype(np.int32)), labels

    def _start_thread(self):
        """A daemon thread that keeps ``prefetch`` batches ready (the one
        before it stopped first)."""
        self.close()
        batches, ready, stop = self._batches(), queue.Queue(self._prefetch), threading.Event()

        def put(item):
            """Whether ``item`` went into the queue before the split was closed."""
            while not stop.is_set():
                try:
                    ready.put(item, timeout=0.1)
                    return True
                except queue.Full:
                    continue
            return False

        def fill():
            try:
                for batch in batches:
                    if not put(batch):
                        return
            except BaseException as error:  # raised again where the batch is taken
                put(error)  # (not waiting for ever on a full queue nobody reads)

        self._queue, self._stop = ready, stop
        threading.Thread(target=fill, daemon=True, name="PackedBatches").start()

    def close(self):
        """Stop the thread that makes batches ahead, if any: it holds a group
        of shards in memory (70 MB of 19x19 positions), and the next one read
        ahead, until it ends. Taking a batch again starts a new one."""
        if self._stop is not None:
            self._stop.set()
            self._stop = self._queue = None

    def __getitem__(self, index):
        # Batches come in order, one after the other (fit asks for 0, 1, 2,
        # ...; index 0 again starts the split over, as each epoch of a
        # finite split and a backend's look at the first batches do).
        if self.repeat:
            if self._queue is None or index == 0 and self._next != 0:
                self._start_thread()
            self._next = index + 1
            batch = self._queue.get()
            if isinstance(batch, BaseException):
                raise batch
            return batch
        if index == 0 or self._iterator is None or index != self._next:
            self._iterator = self._batches()
            for _ in range(index):
                next(self._iterator)
        self._next = index + 1
        return next(self._iterator)


class ArrayBatches(keras.utils.PyDataset):
    """Batches of arrays held in memory, ``(x[rows], y[rows])``, the rows
    taken ``batch_size`` at a time in the given ``order`` (a permutation
    drawn by the caller, so that an epoch's order depends on its seed
    alone, whatever the backend), without copying the arrays."""

    def __init__(self, x, y, order, batch_size):
        super().__init__()
        self.x, self.y, self.order, self.batch_size = x, y, np.asarray(order), int(batch_size)

    @property
    def num_batches(self):
        return math.ceil(len(self.order) / self.batch_size)

    def __getitem__(self, index):
        # Sorted within the batch: the same batch, read in memory order.
        rows = np.sort(self.order[index * self.batch_size:(index + 1) * self.batch_size])
        return self.x[rows], self.y[rows]


class HeldBatches(keras.utils.PyDataset):
    """Batches made beforehand, served round and round: ``count`` of them
    (None: without end). What a training step is timed on alone, with no
    pipeline before it (:func:`mockgo.learn.trainers.step_rate`,
    ``benchmarks/train.py``)."""

    def __init__(self, batches, count=None):
        super().__init__()
        self.batches, self.count = list(batches), count

    @property
    def num_batches(self):
        return self.count

    def __getitem__(self, index):
        return self.batches[index % len(self.batches)]
