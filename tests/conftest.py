"""Fixtures shared by the test modules."""

import contextlib
import importlib
import os
import select
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mockgo.play.gtp_engine import find_gnugo

# JAX compiles every jitted function for each new model and input shape, and
# on a CPU a compile takes about a second (Keras' weight initialisers, a
# train step: measured, a Zero test under JAX spent 46 of its 61 s
# compiling). Its persistent cache keeps each compiled program under the key
# of the program itself, so the tests' many small models of one architecture
# (and the next run's) compile it once. The processes that run JAX (the
# learners' test's child, the JAX notebook's kernel) inherit the variables;
# `make clean` removes the folder.
os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build", "jax-cache"))
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")


@pytest.fixture(scope="session")
def gnugo_path():
    """The GnuGo binary, for the tests that use GnuGo as a rules oracle.

    Without GnuGo those tests are skipped, except on CI (``CI=true``), where
    .ci/run installs it: there a missing GnuGo is an error, not a skip, so
    the oracle tests cannot silently stop running.
    """
    path = find_gnugo()
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail("GnuGo is not installed, but CI=true: .ci/run should have installed "
                        "it (apt-get install gnugo); the rules-oracle tests cannot run",
                        pytrace=False)
        pytest.skip("GnuGo is not installed (apt-get install gnugo): "
                    "no rules oracle to compare against")
    return path


def dev_extra_module(name, what):
    """The module ``name``, which the dev extra installs, for tests of
    ``what``. Without it they are skipped, except on CI (``CI=true``),
    where the dev extra is installed: there a missing module is an error."""
    try:
        return importlib.import_module(name)
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{name} is not installed, but CI=true: the dev extra installs it "
                        f"(pip install -e '.[dev]'); the tests of {what} cannot run",
                        pytrace=False)
        pytest.skip(f"{name} is not installed (pip install -e '.[dev]'): no tests of {what}")


@pytest.fixture(scope="session")
def ray_module():
    """The ray module, for the tests that start a Ray cluster
    (:func:`dev_extra_module`)."""
    return dev_extra_module("ray", "a Ray cluster")


@pytest.fixture(scope="session")
def jax_module():
    """jax, a second Keras backend, for the Predictor's tests
    (:func:`dev_extra_module`)."""
    return dev_extra_module("jax", "a second Keras backend")


@pytest.fixture
def bounded():
    """The test ends within ten minutes (SIGALRM): for tests that wait on
    other processes, Ray's workers or a container (their waits return to
    Python at least once a minute)."""
    def give_up(signum, frame):
        raise TimeoutError("a test ran for more than 10 minutes")

    previous = signal.signal(signal.SIGALRM, give_up)
    signal.alarm(600)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


CLONE_NEWNET = 0x40000000  # <sched.h>: a network namespace of one's own


@pytest.fixture(scope="module")
def loopback_only():
    """The module's tests run in a network namespace of their own whose one
    interface is the loopback (a module that starts Ray asks for it): Ray (2.60) has its servers (gcs_server,
    raylet, workers) listen on every interface of the machine, and the
    servers that tests start must be reachable on 127.0.0.1 only. The
    namespace is the test process's own (unshare), so Ray's processes,
    started from it, inherit it; the machine's namespace is taken back after
    the module (setns). Without the privilege to make one (not root), the
    tests are skipped, or fail under CI=true."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    machine = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    try:
        if libc.unshare(CLONE_NEWNET) != 0:
            reason = (f"cannot make a network namespace of loopback only "
                      f"({os.strerror(ctypes.get_errno())}): Ray's servers would listen on "
                      f"every interface")
            if os.environ.get("CI") == "true":
                pytest.fail(f"{reason}, and CI=true: run the tests as root", pytrace=False)
            pytest.skip(reason)
        try:
            subprocess.run(["ip", "link", "set", "lo", "up"], check=True, timeout=30)
            yield
        finally:
            if libc.setns(machine, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "cannot go back to the machine's network")
    finally:
        os.close(machine)


@pytest.fixture
def another_process_holds():
    """``with another_process_holds(folder, job) as pid:`` a child process
    holds ``folder``'s lock (mockgo.data.files.folder_lock) for the block,
    then is killed (which frees the lock)."""
    @contextlib.contextmanager
    def hold(folder, job):
        holder = subprocess.Popen(
            [sys.executable, "-c",
             "import time; from mockgo.data.files import folder_lock\n"
             f"with folder_lock({str(folder)!r}, {job!r}):\n"
             "    print('held', flush=True); time.sleep(120)"],
            stdout=subprocess.PIPE, text=True)
        try:
            ready, _, _ = select.select([holder.stdout], [], [], 120)
            assert ready and holder.stdout.readline().strip() == "held"
            yield holder.pid
        finally:
            holder.kill()
            holder.wait(timeout=30)
            holder.stdout.close()
    return hold


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory):
    """mockgo's wheel, built once a session as ``python -m build`` builds it:
    the sdist first, then the wheel from the unpacked sdist (so the sdist
    must carry everything the wheel does). ``build`` fetches setuptools for
    its isolated environment, as ``pip install`` does. The tests that use it
    share one xdist group, so that it is built once."""
    dev_extra_module("build", "the wheel")
    out = tmp_path_factory.mktemp("dist")
    root = Path(__file__).resolve().parent.parent
    # Built from a copy of the checkout: the sdist lays its files out in a
    # folder beside the sources, and tests on the other xdist worker that
    # touch the checkout met it half-copied ("No such file or directory").
    source = tmp_path_factory.mktemp("source") / "mockgo"
    left_out = {".git", ".venv", "runs", "build", "dist", "matches", ".whl", ".kgs", ".gnugo",
                "mockgo.egg-info", "kgs"}  # kgs: data/kgs, the archives

    def ignore(folder, names):
        top = Path(folder) in (root, root / "data")
        return [n for n in names if n == "__pycache__" or (top and n in left_out)]

    shutil.copytree(root, source, ignore=ignore)
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(source)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (wheel,) = out.glob("mockgo-*.whl")
    return wheel


def decided_and_open_planes():
    """Two 5x5 positions as ``alphago49`` planes, for the tests of rollout
    judges: row 0 is decided (black owns the whole board but for two eyes,
    white to move: every game ends with black winning, whoever moves and
    whatever the rules of the playouts), row 1 is still open (four moves
    in). Returns ``(planes, decided_board)``."""
    from mockgo.go.board import WHITE, Board
    from mockgo.go.features import get_encoder

    decided = Board.from_diagram("""
        X X X X X
        X . X X X
        X X X X X
        X X X . X
        X X X X X""", to_play=WHITE)
    open_board = Board(5)
    for move in (12, 6, 8, 18):
        open_board.play(move)
    planes = np.zeros((2, 5, 5, 49), np.uint8)
    for row, board in enumerate((decided, open_board)):
        get_encoder("alphago49", 5).encode_into(board, planes[row])
    return planes, decided
