"""mockgo.cluster: tasks on worker processes and on Ray (issue 19).

The module runs in a network namespace whose one interface is the loopback
(Ray's servers listen on every interface: :func:`loopback_only`). The Ray
tests share one local Ray instance (2 CPUs, a small object store, no
dashboard), started by a module fixture and shut down after the last test
(the two-node cluster is :mod:`test_cluster_nodes`'s). Without Ray they are
skipped, except on CI (``CI=true``), where the dev extra installs it.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from mockgo.cluster import InProcess, Processes, Recipe
from mockgo.data.files import read_npz
from mockgo.play.match import match
from mockgo.zero.config import ZeroConfig
from mockgo.zero.layout import RunLayout
from mockgo.zero.run import bootstrap
from mockgo.zero.selfplay import selfplay_job

pytestmark = pytest.mark.usefixtures("loopback_only", "bounded")


@pytest.fixture(scope="module")
def local_ray(loopback_only, ray_module):
    """One local Ray instance for the module's tests, shut down after them,
    in a folder of its own (a short path: Ray's sockets live there),
    removed afterwards."""
    ray = ray_module
    temp_dir = tempfile.mkdtemp(prefix="mockgo-ray-", dir="/tmp")
    try:
        # Two GPUs as Ray counts them (a logical resource: no GPU is needed).
        ray.init(num_cpus=2, num_gpus=2, object_store_memory=200 * 1024**2,
                 include_dashboard=False, log_to_driver=False, _temp_dir=temp_dir)
        try:
            yield ray
        finally:
            ray.shutdown()
    finally:
        shutil.rmtree(temp_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def ray_workers(local_ray):
    """Two Ray workers (one CPU and half a GPU each, after the trainer's
    GPU), kept for the module's tests."""
    from mockgo.cluster import RayExecutor

    with RayExecutor(workers=2, gpus_per_worker=0.5, trainer_gpus=1) as executor:
        yield executor


class Square:
    """A session that counts the tasks it has run (sessions are kept)."""

    def __init__(self, offset):
        self.offset = offset
        self.calls = 0

    def __call__(self, task):
        self.calls += 1
        return task * task + self.offset, self.calls, os.getpid()


def test_executors_deliver_each_key_once_and_keep_sessions():
    recipe = Recipe(Square, (1,))
    with InProcess() as executor:
        results = dict(executor.map(recipe, {k: k for k in range(5)}))
        assert {k: r[0] for k, r in results.items()} == {k: k * k + 1 for k in range(5)}
        assert sorted(r[1] for r in results.values()) == [1, 2, 3, 4, 5]  # one session
        assert dict(executor.map(recipe, {3: 3})) == {3: (10, 6, os.getpid())}  # a new task
    with Processes(2) as executor:
        results = dict(executor.map(recipe, {k: k for k in range(6)}))
        assert {k: r[0] for k, r in results.items()} == {k: k * k + 1 for k in range(6)}
        # Each worker process made the session once and kept it.
        by_pid = {}
        for _, calls, pid in results.values():
            by_pid.setdefault(pid, []).append(calls)
        assert all(sorted(calls) == list(range(1, len(calls) + 1)) for calls in by_pid.values())


class Sleeper:
    """A session whose task takes longer than any test waits."""

    def __init__(self):
        pass

    def __call__(self, task):
        Path(task).touch()  # the task has begun
        time.sleep(600)


def test_ctrl_c_stops_worker_processes_without_waiting_for_their_tasks(tmp_path):
    # Ctrl-C (SIGINT to the whole process group, as a terminal or `timeout`
    # sends it) ends the workers' tasks with KeyboardInterrupt; closing the
    # executor must not then wait for answers that will never come.
    script = tmp_path / "interrupted.py"
    script.write_text(
        "import signal, sys\n"
        # Under pytest-xdist this process would inherit SIGINT ignored, as
        # its worker has it; a terminal's Python has Ctrl-C's default handler.
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        f"sys.path.insert(0, {str(os.path.dirname(__file__))!r})\n"
        "from mockgo.cluster import Processes, Recipe\n"
        "from test_cluster import Sleeper\n"
        "if __name__ == '__main__':\n"
        "    try:\n"
        "        with Processes(2) as executor:\n"
        "            print('started', flush=True)\n"
        f"            dict(executor.map(Recipe(Sleeper), {{0: {str(tmp_path / 'began-0')!r}, "
        f"1: {str(tmp_path / 'began-1')!r}}}))\n"
        "    except KeyboardInterrupt:\n"
        "        print('interrupted', flush=True)\n")
    process = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        assert process.stdout.readline().strip() == "started"
        deadline = time.monotonic() + 240  # workers start slowly on a busy machine
        while not all((tmp_path / f"began-{k}").exists() for k in (0, 1)):
            assert time.monotonic() < deadline, "the workers never began their tasks"
            time.sleep(0.2)
        os.killpg(process.pid, signal.SIGINT)  # both workers are in their tasks
        out, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert "interrupted" in out


class ThreadVariables:
    """A session that reports the thread-pool sizes its worker was given."""

    def __init__(self):
        pass

    def __call__(self, task):
        from mockgo.cluster import THREAD_VARIABLES

        return {name: os.environ.get(name) for name in THREAD_VARIABLES}


def test_worker_processes_share_out_the_cores():
    # Else every worker's TensorFlow starts a thread per core.
    with Processes(2, threads_per_worker=3) as executor:
        results = dict(executor.map(Recipe(ThreadVariables), {k: k for k in range(2)}))
    assert all(set(found.values()) == {"3"} for found in results.values())
    assert Processes(2).threads_per_worker == max(1, (os.cpu_count() or 1) // 2)


def test_zero_generation_through_worker_processes_gives_the_in_process_examples(tmp_path):
    """The Zero loop's ``--workers 2`` on one machine: self-play batches in
    two worker processes, the same examples as played here."""
    config = ZeroConfig.for_test(board_size=7, games_per_generation=8, games_in_parallel=4,
                                 readouts=8, eval_games=2, epochs=1)
    here = bootstrap(tmp_path / "here", config)
    here.selfplay(progress=False)
    with Processes(2) as workers:
        there = bootstrap(tmp_path / "there", config, cluster=workers)
        there.selfplay(progress=False)
    mine, theirs = _examples(tmp_path / "here", "gen000001"), _examples(tmp_path / "there",
                                                                        "gen000001")
    assert sorted(mine) == sorted(theirs) and len(mine) == 4
    for name, arrays in mine.items():
        for key, value in arrays.items():
            assert np.array_equal(value, theirs[name][key]), (name, key)


def test_match_on_worker_processes_replays_the_in_process_match(tmp_path):
    one = match("random:seed=1", "random", games=4, size=7, seed=3)
    two = match("random:seed=1", "random", games=4, size=7, seed=3, workers=2,
                games_per_task=2, out_dir=tmp_path / "m")
    assert [g.board.history for g in two.games] == [g.board.history for g in one.games]
    assert len(list((tmp_path / "m").glob("*.sgf"))) == 4  # saved by the driver
    assert len((tmp_path / "m" / "games.jsonl").read_text().splitlines()) == 4


def test_no_ray_without_a_cluster():
    code = ("import sys, mockgo.cluster, mockgo.arena.matches, mockgo.zero.cli, "
            "mockgo.learn.value, mockgo.learn.reinforce; "
            "sys.exit('ray' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], timeout=120).returncode == 0


def _examples(base_dir, job):
    layout = RunLayout(base_dir)
    found = {}
    for holdout in (False, True):
        for path in layout.examples("000000", job, holdout):
            found[(holdout, path.name)] = read_npz(path)
    return found


def test_zero_generation_through_ray_gives_the_in_process_examples(ray_workers, tmp_path):
    config = ZeroConfig.for_test(board_size=7, games_per_generation=8, games_in_parallel=4,
                                 readouts=8, eval_games=2, epochs=1)
    here = bootstrap(tmp_path / "here", config)
    here.selfplay(progress=False)
    there = bootstrap(tmp_path / "there", config, cluster=ray_workers)
    record = there.next_generation(progress=False)  # self-play, train, evaluate: via Ray
    assert record["evaluate"]["games"] == 2
    assert record["selfplay"]["workers"] == 2 and record["selfplay"]["job_games_per_hour"] > 0
    rates = there.strength("random", 2, models=[1], progress=False)  # a match against random
    assert set(rates) == {1} and 0 <= rates[1] <= 1
    assert len(list(RunLayout(tmp_path / "there").evaluation_sgf_dir("000001", "000000")
                    .glob("*.sgf"))) == 2
    mine, theirs = _examples(tmp_path / "here", "gen000001"), _examples(tmp_path / "there",
                                                                        "gen000001")
    assert sorted(mine) == sorted(theirs) and len(mine) == 4  # two batches, each with holdout
    for name, arrays in mine.items():
        for key, value in arrays.items():
            assert np.array_equal(value, theirs[name][key]), (name, key)
    for kind in ("clean", "full"):
        assert ([p.read_text() for p in here.selfplay_sgfs(1, kind)]
                == [p.read_text() for p in there.selfplay_sgfs(1, kind)])


def test_a_killed_worker_loses_and_doubles_no_game(ray_workers, tmp_path):
    config = ZeroConfig.for_test(board_size=7, games_per_generation=12, games_in_parallel=2,
                                 readouts=8)
    run = bootstrap(tmp_path / "run", config)
    killed = []
    before = ray_workers.pids()

    def kill_one(event, info):
        if event == "selfplay_batch" and not killed:
            # The executor has handed both workers their next batch already.
            os.kill(before[0], signal.SIGKILL)
            killed.append(before[0])

    summary = selfplay_job(tmp_path / "run", run.model_path(0), 12, config, job="extra",
                           progress=False, callback=kill_one, executor=ray_workers)
    after = ray_workers.pids()
    assert killed and after[0] != before[0]  # Ray restarted the worker
    assert summary["complete"] and summary["games"] == 12
    layout = RunLayout(tmp_path / "run")
    progress = json.loads(layout.job_progress("000000", "extra").read_text())
    assert sorted(map(int, progress["batches"])) == list(range(6))
    numbers = []
    for holdout in (False, True):
        for path in layout.examples("000000", "extra", holdout):
            numbers += np.unique(read_npz(path)["game"]).tolist()
    assert sorted(numbers) == list(range(12))  # every game once
    assert len(layout.sgfs("000000", "extra")) == 12


def test_value_data_and_reinforce_through_ray_play_the_same_games(ray_workers, tmp_path):
    """Notebook 02's value data and notebook 03's REINFORCE iterations with
    cluster=: the same data and games as played here (5x5, tiny nets)."""
    import keras

    from mockgo.learn.reinforce import Reinforce
    from mockgo.learn.reinforce_config import ReinforceConfig
    from mockgo.learn.value import value_dataset
    from mockgo.nets.models import policy_network

    keras.utils.set_random_seed(0)
    sl = policy_network(5, 48, layers=2, filters=4)
    here = value_dataset(sl, 10, 5, max_step=10, batch=2, rng=3)
    there = value_dataset(sl, 10, 5, max_step=10, batch=2, rng=3, cluster=ray_workers,
                          folder=tmp_path / "value")
    for field in ("planes", "outcomes", "steps"):
        np.testing.assert_array_equal(getattr(there, field), getattr(here, field))
    assert there.games_played == here.games_played
    assert len(list((tmp_path / "value").glob("batch_*.npz"))) >= 5
    config = ReinforceConfig(size=5, games=4, learning_rate=0.05, pool_every=1, eval_games=2,
                             eval_every=1, max_moves=30, seed=3)
    runs = [Reinforce(tmp_path / "rl-here", sl, config),
            Reinforce(tmp_path / "rl-there", sl, config, cluster=ray_workers)]
    histories = [run.run(until=2, progress=False) for run in runs]
    for key in ("opponent", "win_rate", "eval_win_rate", "positions", "mean_length"):
        assert [h[key] for h in histories[1]] == [h[key] for h in histories[0]], key
    for a, b in zip(runs[0].learner.get_weights(), runs[1].learner.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_the_trainer_and_the_workers_ask_ray_for_gpus(ray_workers):
    """The trainer's GPU first, on this node; the workers share the other."""
    assert len(ray_workers.trainer_gpu_ids) == 1
    (first,), (second,) = ray_workers.gpu_ids()
    assert first == second != ray_workers.trainer_gpu_ids[0]
