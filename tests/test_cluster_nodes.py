"""A Ray cluster of two nodes on the loopback interface plays a match
(issue 19): ``ray start --head`` and a second ``ray start --address`` on
127.0.0.1, in a network namespace of loopback only (``loopback_only``).

A module of its own, so that it runs after :mod:`test_cluster`'s local Ray
instance is shut down: a driver that joined this cluster beside it could not
reach its GCS within the test's time on a loaded machine.
"""

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest

pytestmark = pytest.mark.usefixtures("loopback_only", "bounded")


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _end(processes):
    """Stop the ``ray start --block`` processes and everything they started."""
    import psutil

    family = []
    for process in processes:
        try:
            family += [process.pid] + [child.pid for child in
                                       psutil.Process(process.pid).children(recursive=True)]
        except psutil.NoSuchProcess:
            pass
    for pid in family:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    _, alive = psutil.wait_procs([p for p in map(_process, family) if p], timeout=10)
    for process in alive:
        process.kill()
    psutil.wait_procs(alive, timeout=10)


def _process(pid):
    import psutil

    try:
        return psutil.Process(pid)
    except psutil.NoSuchProcess:
        return None


# Waits for the second node, then checks that two one-CPU workers go one to each node.
PLACEMENT = """
import sys, time, ray
from mockgo.cluster import RayExecutor
ray.init(address="127.0.0.1:{port}", log_to_driver=False)
deadline = time.monotonic() + 60
while sum(node["Alive"] for node in ray.nodes()) < 2:
    if time.monotonic() > deadline:
        sys.exit("the second node did not join")
    time.sleep(1)
with RayExecutor(workers=2, cpus_per_worker=1) as executor:
    sys.exit(0 if len(set(executor.nodes())) == 2 else "both workers on one node")
"""


def test_a_two_node_cluster_on_loopback_plays_a_match(tmp_path, gnugo_path, ray_module):
    """``ray start --head`` and a second ``ray start --address`` on 127.0.0.1,
    one CPU each; ``mockgo match --cluster ray`` with two one-CPU workers
    then has one on each node (each with its own GnuGo)."""
    ray_cli = os.path.join(os.path.dirname(sys.executable), "ray")
    mockgo_cli = os.path.join(os.path.dirname(sys.executable), "mockgo")
    # Ray 2.59+ authenticates by a token: one made for this cluster, not the user's.
    env = dict(os.environ, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(32))
    common = ["--num-cpus=1", "--object-store-memory=100000000", "--disable-usage-stats",
              "--node-ip-address=127.0.0.1", "--block"]
    # A short folder: Ray's sockets live in it, and socket paths are short.
    temp_dir = tempfile.mkdtemp(prefix="mockgo-ray-", dir="/tmp")
    logs = [open(tmp_path / "node.log", "w")]
    started = []
    try:
        # A loaded machine can take more than the 30 s Ray gives a node's
        # raylet to start (Ray's own constant): the node, head or not, then
        # gives up, and is started again.
        for attempt in range(3):
            port = _free_port()
            log_path = tmp_path / f"head-{attempt}.log"
            logs.append(open(log_path, "w"))
            head = subprocess.Popen(
                [ray_cli, "start", "--head", f"--port={port}", "--include-dashboard=false",
                 f"--temp-dir={temp_dir}", *common], env=env, start_new_session=True,
                stdout=logs[-1], stderr=subprocess.STDOUT)
            started.append(head)
            if _wait_for_start(head, log_path, 120):
                break
            _end([head])
        else:
            pytest.fail("the head node failed to start in three tries:\n"
                        + log_path.read_text()[-2000:], pytrace=False)
        for attempt in range(3):
            node = subprocess.Popen(
                [ray_cli, "start", f"--address=127.0.0.1:{port}", *common], env=env,
                start_new_session=True, stdout=logs[0], stderr=subprocess.STDOUT)
            started.append(node)
            placed = subprocess.run([sys.executable, "-c", PLACEMENT.format(port=port)],
                                    env=env, capture_output=True, text=True, timeout=180)
            if placed.returncode == 0:
                break
            _end([node])
        assert placed.returncode == 0, (placed.stdout + placed.stderr)[-2000:] + \
            (tmp_path / "node.log").read_text()[-2000:]
        out = tmp_path / "match"
        played = subprocess.run(
            [mockgo_cli, "match", "--black", "random", "--white", "gnugo:level=1", "--games",
             "4", "--size", "9", "--seed", "0", "--out", str(out), "--quiet", "--cluster",
             "ray", "--address", f"127.0.0.1:{port}", "--workers", "2",
             "--cpus-per-worker", "1"], env=env, capture_output=True, text=True, timeout=240)
        assert played.returncode == 0, played.stderr[-2000:]
        assert "4 games on 9x9" in played.stdout
        assert len(list(out.glob("game-*.sgf"))) == 4  # written by the driver
        assert len((out / "games.jsonl").read_text().splitlines()) == 4
    finally:
        _end(started)
        for log in logs:
            log.close()
        shutil.rmtree(temp_dir, ignore_errors=True)


def _wait_for_start(process, log_path, seconds):
    """True once ``ray start --block`` (``process``) has said in its log that
    its node runs; False if it ends first (a node that timed out starting)
    or after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        if "Ray runtime started." in log_path.read_text(errors="replace"):
            return True
        if process.poll() is not None or time.monotonic() >= deadline:
            return False
        time.sleep(0.5)
