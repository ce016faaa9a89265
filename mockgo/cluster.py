"""Where the games are played: in this process, in worker processes on this
machine, or on a Ray cluster (https://www.ray.io) of many machines.

Self-play, matches and the game generation of notebooks 02 and 03 are made
of independent *tasks* (a batch of self-play games, a few match games, a
batch of value-data games), each named by a key that says what it is
(``("000003", "gen000004", 7)``: generation 4's batch 7, played by model 3)
and carrying its own seeds. An :class:`Executor` runs tasks and hands each
result back to the caller, the *driver*, once per task, in the order they
finish; the driver alone writes files (atomically), so a run folder lives on
the driver's machine only, and a task that runs twice (a worker died, Ray
retried it) gives the same result, of which a second copy is dropped::

    with make_executor("ray", address="10.0.0.1:6379") as executor:
        recipe = Recipe(SelfPlayWorker, (config, ShippedModel.from_path(model_path)))
        for key, result in executor.map(recipe, tasks):   # tasks: {key: task}
            write(key, result)

What a worker keeps between tasks (networks with their compiled graphs, a
GnuGo process) is a *session*, made in the worker from a :class:`Recipe`: a
picklable ``factory(*args, **kwargs)``, called once per worker and kept
while tasks keep naming the same recipe (a changed model makes a new one);
the session is a callable ``session(task) -> result``, with an optional
``close()``. Networks travel inside recipes as :class:`ShippedModel`, the
bytes of their ``.keras`` file, loaded once per worker: workers on other
machines need no shared folder.

The executors (:func:`make_executor`):

- :class:`InProcess`: the tasks one after another in this process;
- :class:`Processes`: ``workers`` processes on this machine
  (``multiprocessing``, spawn context), one task at a time each;
- :class:`RayExecutor`: ``workers`` Ray actors, on whichever machines of the
  cluster have room (``cpus_per_worker`` and ``gpus_per_worker`` are what
  each asks Ray for). An actor whose process dies is restarted by Ray and
  its task run again (``max_retries`` times, then the task goes to another
  actor). Ray is imported only here, and only for ``cluster="ray"``: it is an
  optional dependency (``pip install -e '.[cluster]'``).
"""

import collections
import dataclasses
import hashlib
import multiprocessing
import multiprocessing.util
import os
import pickle
import queue
import signal
import tempfile
import warnings
from pathlib import Path

from mockgo.nets.io import load_model, save_model

__all__ = ["CLUSTERS", "Executor", "InProcess", "Processes", "RayExecutor", "Recipe",
           "ShippedModel", "add_cluster_options", "executor_from_args", "make_executor",
           "share_one_gpu"]

#: The clusters ``--cluster`` can name.
CLUSTERS = ("ray",)
# The sessions a worker keeps (a Zero evaluation needs two models' at once).
KEEP_SESSIONS = 2


# ------------------------------------------------------------ what travels


class ShippedModel:
    """A Keras model travelling to workers: its ``.keras`` file's bytes and
    their SHA-256 (``digest``), by which two shipments are equal. ``load()``
    in a worker loads it once (the last few loaded are kept)."""

    _loaded = collections.OrderedDict()  # digest -> Keras model, in this process

    def __init__(self, data, name):
        self.data = bytes(data)
        self.name = name
        self.digest = hashlib.sha256(self.data).hexdigest()

    @classmethod
    def from_path(cls, path):
        path = Path(path)
        return cls(path.read_bytes(), path.stem)

    @classmethod
    def from_model(cls, model, encoder=None):
        """A model in memory (saved with its encoder, as :func:`mockgo.nets.io.save_model`)."""
        with tempfile.TemporaryDirectory() as folder:
            path = save_model(model, Path(folder) / f"{model.name}.keras", encoder=encoder)
            return cls(path.read_bytes(), model.name)

    def load(self):
        """The Keras model (uncompiled), loaded in this process at most once."""
        model = self._loaded.pop(self.digest, None)
        if model is None:
            with tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / f"{self.name}.keras"
                path.write_bytes(self.data)
                model = load_model(path)
        self._loaded[self.digest] = model
        while len(self._loaded) > 2 * KEEP_SESSIONS:
            self._loaded.popitem(last=False)
        return model

    def __eq__(self, other):
        return isinstance(other, ShippedModel) and other.digest == self.digest

    def __hash__(self):
        return hash(self.digest)

    def __repr__(self):
        return f"ShippedModel({self.name!r}, {len(self.data)} bytes, {self.digest[:12]})"


@dataclasses.dataclass(frozen=True, eq=False)
class Recipe:
    """How a worker makes a session: ``factory(*args, **kwargs)``, with any
    :class:`ShippedModel` among the arguments loaded first. ``factory`` must
    be importable by name (a module-level function or class of mockgo) and
    the arguments picklable. ``key`` identifies it: equal recipes share a
    session in a worker. ``name``: what the made object is called (a match
    records a player made so under this name)."""

    factory: object
    args: tuple = ()
    kwargs: dict = dataclasses.field(default_factory=dict)
    name: str | None = None  # what it makes, for tables and files (a player's name)
    key: str = dataclasses.field(init=False)

    def __post_init__(self):
        digest = hashlib.sha256()
        digest.update(f"{self.factory.__module__}.{self.factory.__qualname__}".encode())
        digest.update(pickle.dumps((self.args, sorted(self.kwargs.items()), self.name)))
        object.__setattr__(self, "key", digest.hexdigest())

    def make(self):
        def resolve(value):
            return value.load() if isinstance(value, ShippedModel) else value
        return self.factory(*map(resolve, self.args),
                            **{name: resolve(value) for name, value in self.kwargs.items()})

    def __eq__(self, other):
        return isinstance(other, Recipe) and other.key == self.key

    def __hash__(self):
        return hash(self.key)

    def __repr__(self):
        return f"Recipe({self.factory.__qualname__}, {self.key[:12]})"


class _Sessions:
    """A worker's sessions by recipe (the last :data:`KEEP_SESSIONS` used)."""

    def __init__(self):
        self.made = collections.OrderedDict()

    def run(self, recipe, task):
        session = self.made.pop(recipe.key, None)
        if session is None:
            session = recipe.make()
        self.made[recipe.key] = session
        while len(self.made) > KEEP_SESSIONS:
            _close(self.made.popitem(last=False)[1])
        return session(task)

    def close(self):
        while self.made:
            _close(self.made.popitem()[1])


def _close(session):
    close = getattr(session, "close", None)
    if close is not None:
        try:
            close()
        except Exception:  # a session's engine that has died already
            pass


# ---------------------------------------------------------------- executors


class Executor:
    """Runs tasks; results come back to the caller once per task submitted
    (module docstring). ``submit`` queues a task, ``results()`` yields
    ``(key, result)`` pairs as tasks finish until none is left, ``map`` does
    both. A result for a key that is not waiting for one (a task that ran
    twice) is dropped. A task that raises makes ``results()`` raise (the
    other tasks are abandoned). Use as a context manager, or call
    ``close()``."""

    name = "executor"
    workers = 1
    trainer_gpu_ids = ()  # the GPUs reserved for training (a RayExecutor's); none here

    def __init__(self):
        self._waiting = collections.Counter()  # key -> results still to deliver

    def submit(self, recipe, key, task):
        self._waiting[key] += 1
        self._submit(recipe, key, task)

    def _submit(self, recipe, key, task):
        raise NotImplementedError

    def _finished(self):
        """Yield ``(key, result)`` of each finished task (duplicates possible)."""
        raise NotImplementedError

    def results(self):
        try:
            for key, result in self._finished():
                if not self._waiting[key]:
                    continue  # a task that ran twice: its first result was the one kept
                self._waiting[key] -= 1
                yield key, result
        except BaseException:
            self._waiting.clear()  # the executor has abandoned the other tasks
            raise

    def map(self, recipe, tasks):
        """Submit ``tasks`` (a dict key -> task, or ``(key, task)`` pairs), all
        with ``recipe``; yield ``(key, result)`` as they finish."""
        items = tasks.items() if isinstance(tasks, dict) else tasks
        for key, task in items:
            self.submit(recipe, key, task)
        return self.results()

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __repr__(self):
        return f"<{self.name}: {self.workers} worker{'s' if self.workers != 1 else ''}>"


class InProcess(Executor):
    """The tasks one after another in this process (sessions kept between
    calls, as a worker keeps them)."""

    name = "in-process"

    def __init__(self):
        super().__init__()
        self._sessions = _Sessions()
        self._queue = collections.deque()

    def _submit(self, recipe, key, task):
        self._queue.append((recipe, key, task))

    def _finished(self):
        while self._queue:
            recipe, key, task = self._queue.popleft()
            try:
                result = self._sessions.run(recipe, task)
            except BaseException:
                self._queue.clear()
                raise
            yield key, result

    def close(self):
        self._queue.clear()
        self._sessions.close()


_PROCESS_SESSIONS = None  # a worker process's sessions (Processes)


def _close_process_sessions():
    global _PROCESS_SESSIONS
    if _PROCESS_SESSIONS is not None:
        _PROCESS_SESSIONS.close()
        _PROCESS_SESSIONS = None


def _run_in_process(recipe, key, task):
    global _PROCESS_SESSIONS
    if _PROCESS_SESSIONS is None:
        _PROCESS_SESSIONS = _Sessions()
        # Closed (engines such as GnuGo quit) when the pool's worker exits.
        multiprocessing.util.Finalize(None, _close_process_sessions, exitpriority=10)
    return key, _PROCESS_SESSIONS.run(recipe, task)


# The variables TensorFlow (and the OpenMP and BLAS libraries beside it) read
# for the size of their thread pools, when they start their first operation.
THREAD_VARIABLES = ("TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS", "OMP_NUM_THREADS",
                    "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def local_workers(workers):
    """How many processes on this machine ``workers`` asks for: a number
    as given, None (or 0) one per core."""
    return workers or os.cpu_count() or 1


def cores_per_worker(workers):
    """This machine's cores shared out among ``workers`` processes, at
    least one each."""
    return max(1, (os.cpu_count() or 1) // max(1, int(workers)))


def limit_threads(threads):
    """Make this process's TensorFlow compute with ``threads`` threads (set
    before its first operation: a worker's initializer)."""
    for name in THREAD_VARIABLES:
        os.environ[name] = str(threads)


def share_one_gpu():
    """Let this process and the worker processes it starts share one GPU
    under JAX: each takes the GPU's memory as it needs it, where by default
    XLA takes three quarters of the card as a process starts and the second
    process fails. Call it before JAX first uses the GPU (before a network
    loads); a setting given in the environment wins. Workers started later
    inherit it: :class:`Processes` calls it as it starts them, which covers
    the workers but comes too late for a parent that has used the GPU
    already (it keeps its three quarters). So every ``mockgo`` command calls
    it before it runs (:func:`mockgo.cli.main`), and so does a notebook's
    :func:`mockgo.notebook.start`; a script of one's own whose parent runs
    networks too calls it first."""
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")


def _start_worker(threads):
    """A worker process's initializer: ``threads`` threads for TensorFlow
    (:func:`limit_threads`), and Ctrl-C left to the driver. A terminal's
    Ctrl-C reaches every process of its group; the driver stops the workers
    itself (:meth:`Processes.close`), where a worker ended in the middle of
    its task would never answer."""
    limit_threads(threads)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class Processes(Executor):
    """``workers`` processes on this machine (``multiprocessing``, spawn
    context: no inherited TensorFlow state), started on the first task.

    Each computes with ``threads_per_worker`` threads (default: this
    machine's cores shared out, at least one each), so that workers do not
    oversubscribe the cores: by default TensorFlow in every process would
    start a thread per core. Self-play gains from it (docs/benchmarks.md:
    1.64 times the games an hour on 2 cores): with one thread each, two
    workers on two cores each run their own tree search while the other's
    network call runs, where one process leaves a core idle during its
    search."""

    name = "processes"

    def __init__(self, workers, threads_per_worker=None):
        super().__init__()
        self.workers = max(1, int(workers))
        self.threads_per_worker = threads_per_worker or cores_per_worker(self.workers)
        self._pool = None
        self._done = queue.Queue()
        self._pending = 0

    def _submit(self, recipe, key, task):
        if self._pool is None:
            share_one_gpu()  # the workers inherit this process's environment
            self._pool = multiprocessing.get_context("spawn").Pool(
                self.workers, initializer=_start_worker, initargs=(self.threads_per_worker,))
        self._pending += 1
        self._pool.apply_async(_run_in_process, (recipe, key, task), callback=self._done.put,
                               error_callback=lambda error: self._done.put(_Failed(error)))

    def _finished(self):
        while self._pending:
            item = self._done.get()
            self._pending -= 1
            if isinstance(item, _Failed):
                self._abandon()
                raise item.error
            yield item

    def _abandon(self):
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None
        self._pending = 0

    def close(self):
        if self._pending:
            # Closed with tasks still out (an error, or Ctrl-C): a graceful
            # join would wait for them, so the workers are stopped.
            self._abandon()
        if self._pool is not None:
            self._pool.close()
            self._pool.join()  # the workers' sessions close as they exit
            self._pool = None


@dataclasses.dataclass
class _Failed:
    error: BaseException


class _RayWorker:
    """A Ray actor's state: its sessions (made as tasks name them)."""

    def __init__(self):
        self.sessions = _Sessions()

    def pid(self):
        return os.getpid()

    def node(self):
        import ray
        return ray.get_runtime_context().get_node_id()

    def gpu_ids(self):
        import ray
        return [str(gpu) for gpu in ray.get_gpu_ids()]

    def run(self, recipe, key, task):
        return key, self.sessions.run(recipe, task)

    def close(self):
        self.sessions.close()


class _Reservation:
    """An actor that does nothing but hold resources (the trainer's GPUs)."""

    def gpu_ids(self):
        import ray
        return [str(gpu) for gpu in ray.get_gpu_ids()]


class RayExecutor(Executor):
    """``workers`` Ray actors (default: as many as the cluster's CPUs allow,
    ``cpus_per_worker`` each), each running one task at a time; the next
    task goes to the first actor that is free.

    ``address``: a running cluster's head (``ray start --head``; ``"auto"``
    finds one on this machine); None: the cluster ``RAY_ADDRESS`` names
    (Ray's own convention), else a Ray instance started here, with
    ``init_options`` for ``ray.init`` (e.g. ``num_cpus``,
    ``object_store_memory``). ``close()`` disconnects, and stops a Ray
    instance started here. When this process is
    already connected to Ray (``ray.init`` called before), that connection is
    used and left open. ``gpus_per_worker``: what each actor asks Ray for
    (a fraction shares a GPU). ``trainer_gpus``: GPUs of this machine that
    the driver's training asks Ray for first, so that no worker takes them;
    ``trainer_gpu_ids`` are the ones Ray gave (this process should use only
    those: ``mockgo zero`` sets ``CUDA_VISIBLE_DEVICES`` to them before
    TensorFlow starts). An actor that dies is restarted and its task run
    again up to ``max_retries`` times; after that the task goes to a new
    actor, ``max_retries`` more times, and then the run fails."""

    name = "ray"

    def __init__(self, address=None, workers=None, cpus_per_worker=1, gpus_per_worker=0,
                 trainer_gpus=0, max_retries=3, **init_options):
        super().__init__()
        try:
            import ray
        except ImportError:
            raise RuntimeError("cluster='ray' needs Ray: pip install -e '.[cluster]' "
                               "(or pip install ray)") from None
        self._ray = ray
        self._owner = False
        if not ray.is_initialized():
            options = dict(log_to_driver=False)
            if address is None and not os.environ.get("RAY_ADDRESS"):  # one of our own
                options.update(dict(include_dashboard=False), **init_options)
            ray.init(address=address, **options)
            self._owner = True
        self.cpus_per_worker = cpus_per_worker
        self.gpus_per_worker = gpus_per_worker
        self.max_retries = max_retries
        self.actors = []
        self._reservation, self.trainer_gpu_ids = None, []
        if trainer_gpus:
            self._reserve(trainer_gpus)
        if workers is None:
            cpus = ray.cluster_resources().get("CPU", 1)
            workers = max(1, int(cpus // max(cpus_per_worker, 1e-9)))
        self.workers = int(workers)
        self._actor_class = ray.remote(_RayWorker).options(
            num_cpus=cpus_per_worker, num_gpus=gpus_per_worker, max_restarts=max_retries,
            max_task_retries=max_retries)
        # An actor gets tasks once it has started: one that Ray cannot place
        # (a node that never came up, a full cluster) holds none back.
        self._starting = {}  # its first call's object ref -> actor
        self._idle = collections.deque()
        self.actors = [self._start() for _ in range(self.workers)]
        self._queue = collections.deque()  # (recipe key, key, task, attempts)
        self._running = {}  # object ref -> (actor, recipe key, key, task, attempts)
        self._recipes = collections.OrderedDict()  # recipe key -> object ref (ray.put once)

    def _reserve(self, gpus):
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        ray = self._ray
        here = ray.get_runtime_context().get_node_id()
        self._reservation = ray.remote(_Reservation).options(
            num_cpus=0, num_gpus=gpus,
            scheduling_strategy=NodeAffinitySchedulingStrategy(here, soft=False)).remote()
        try:
            self.trainer_gpu_ids = ray.get(self._reservation.gpu_ids.remote(), timeout=60)
        except ray.exceptions.GetTimeoutError:
            message = (f"the trainer asked Ray for {gpus:g} GPU(s) of this machine, and in a "
                       f"minute Ray had none to give (the cluster has "
                       f"{ray.cluster_resources().get('GPU', 0):g} GPU(s) in all; ray status "
                       f"shows which are taken)")
            self.close()
            raise RuntimeError(message) from None

    def _submit(self, recipe, key, task):
        if recipe.key not in self._recipes:
            self._recipes[recipe.key] = self._ray.put(recipe)
        self._recipes.move_to_end(recipe.key)
        self._queue.append((recipe.key, key, task, 0))
        self._dispatch()

    def _start(self):
        actor = self._actor_class.remote()
        self._starting[actor.pid.remote()] = actor
        return actor

    def _dispatch(self):
        while self._idle and self._queue:
            actor = self._idle.popleft()
            recipe_key, key, task, attempts = self._queue.popleft()
            ref = actor.run.remote(self._recipes[recipe_key], key, task)
            self._running[ref] = (actor, recipe_key, key, task, attempts)

    def _finished(self):
        ray = self._ray
        waited = 0.0
        while self._running or self._queue:
            self._dispatch()
            waiting_for = list(self._running) + (list(self._starting) if self._queue else [])
            ready, _ = ray.wait(waiting_for, num_returns=1, timeout=60)
            if not ready:
                waited += 60
                if not self._running:
                    warnings.warn(f"Ray has started none of the {self.workers} workers in "
                                  f"{waited:.0f} s: the cluster has "
                                  f"{ray.cluster_resources().get('CPU', 0):g} CPUs, each "
                                  f"worker asks for {self.cpus_per_worker:g} (ray status)",
                                  RuntimeWarning, stacklevel=2)
                continue
            ref = ready[0]
            if ref in self._starting:
                actor = self._starting.pop(ref)
                try:
                    ray.get(ref)
                    self._idle.append(actor)
                except ray.exceptions.RayActorError:
                    self.actors[self.actors.index(actor)] = self._start()
                continue
            actor, recipe_key, key, task, attempts = self._running.pop(ref)
            try:
                result = ray.get(ref)
            except ray.exceptions.RayActorError:
                # Restarted max_retries times already: a new actor takes the task.
                if attempts >= self.max_retries:
                    self._abandon()
                    raise
                self.actors[self.actors.index(actor)] = self._start()
                self._queue.appendleft((recipe_key, key, task, attempts + 1))
                continue
            except BaseException:
                self._abandon()
                raise
            self._idle.append(actor)
            self._dispatch()  # the workers go on while the driver writes this result
            self._trim_recipes()
            yield result

    def _trim_recipes(self):
        waiting = {item[0] for item in self._queue} | {item[1] for item in self._running.values()}
        for recipe_key in list(self._recipes)[:-KEEP_SESSIONS]:
            if recipe_key not in waiting:
                del self._recipes[recipe_key]

    def _abandon(self):
        for ref in self._running:
            try:
                self._ray.cancel(ref)
            except Exception:  # finished meanwhile, or its actor is gone
                pass
        self._running.clear()
        self._queue.clear()
        busy = set(self._starting.values())
        self._idle = collections.deque(actor for actor in self.actors if actor not in busy)

    def pids(self):
        """The actors' process ids (tests kill one)."""
        return self._ray.get([actor.pid.remote() for actor in self.actors])

    def gpu_ids(self):
        """The GPUs Ray gave each actor."""
        return self._ray.get([actor.gpu_ids.remote() for actor in self.actors])

    def nodes(self):
        """The id of the node each actor runs on."""
        return self._ray.get([actor.node.remote() for actor in self.actors])

    def close(self):
        ray = self._ray
        if self.actors:
            try:
                ray.get([actor.close.remote() for actor in self.actors], timeout=30)
            except Exception:  # an actor that is gone
                pass
            for actor in self.actors:
                ray.kill(actor)
            self.actors = []
        if self._reservation is not None:
            ray.kill(self._reservation)
            self._reservation = None
        self._recipes.clear()
        if self._owner and ray.is_initialized():
            ray.shutdown()
        self._owner = False


def make_executor(cluster=None, workers=1, address=None, cpus_per_worker=1, gpus_per_worker=0,
                  trainer_gpus=0, **init_options):
    """The executor a command line or notebook asks for: ``cluster=None``
    runs on this machine, in this process (``workers`` 1) or in ``workers``
    processes (None: one per core); ``cluster="ray"``: a
    :class:`RayExecutor` (``workers`` None: as many as the cluster's CPUs
    allow). An :class:`Executor` given as ``cluster`` is returned as is."""
    if isinstance(cluster, Executor):
        return cluster
    if cluster is None:
        workers = local_workers(workers)
        return InProcess() if workers <= 1 else Processes(workers)
    if cluster != "ray":
        raise ValueError(f"unknown cluster {cluster!r}: {', '.join(CLUSTERS)} (or None: this "
                         f"machine)")
    return RayExecutor(address=address, workers=workers, cpus_per_worker=cpus_per_worker,
                       gpus_per_worker=gpus_per_worker, trainer_gpus=trainer_gpus,
                       **init_options)


# ------------------------------------------------------------ command line


def add_cluster_options(parser, trainer=False):
    """``--cluster``, ``--address``, ``--cpus-per-worker``,
    ``--gpus-per-worker`` and, with ``trainer``, ``--trainer-gpus``
    (``--workers`` is the command's own)."""
    group = parser.add_argument_group("cluster (Ray: pip install -e '.[cluster]')")
    group.add_argument("--cluster", choices=CLUSTERS,
                       help="play the games on Ray workers (default: this machine)")
    group.add_argument("--address",
                       help="with --cluster ray: the head of a running cluster (HOST:PORT of "
                            "ray start --head, or auto); default: start Ray on this machine")
    group.add_argument("--cpus-per-worker", type=float, default=1,
                       help="with --cluster ray: CPUs each worker asks Ray for (default 1)")
    group.add_argument("--gpus-per-worker", type=float, default=0,
                       help="with --cluster ray: GPUs each worker asks Ray for (default 0; "
                            "0.25 shares a GPU between four)")
    if trainer:
        group.add_argument("--trainer-gpus", type=float, default=0,
                           help="with --cluster ray: GPUs of this machine that training asks "
                                "Ray for, so that no worker takes them (default 0: training "
                                "uses what TensorFlow finds)")
    return group


def executor_from_args(args, workers=None):
    """The executor of ``--cluster`` and its options, or None without
    ``--cluster`` (the command then runs as it always did)."""
    trainer_gpus = getattr(args, "trainer_gpus", 0)
    if getattr(args, "cluster", None) is None:
        given = {"address": args.address, "cpus-per-worker": args.cpus_per_worker != 1,
                 "gpus-per-worker": args.gpus_per_worker, "trainer-gpus": trainer_gpus}
        for option, value in given.items():
            if value:
                raise ValueError(f"--{option} needs --cluster ray")
        return None
    return make_executor(args.cluster, workers=workers, address=args.address,
                         cpus_per_worker=args.cpus_per_worker,
                         gpus_per_worker=args.gpus_per_worker, trainer_gpus=trainer_gpus)

