"""Crash consistency: each long job, killed with SIGKILL at a
random moment and started again, ends with the same products
as a run that was never killed (tests/crash_harness.py says how); and a
SIGKILL in the middle of an atomic write leaves the old file or the new
one, never a mix. ``benchmarks/crash_consistency.py`` does the same with
ten kills a job, each resumed run killed again."""

import random
import signal
import subprocess
import sys
import time

import pytest

import crash_harness as harness

KILLS = 1  # benchmarks/crash_consistency.py kills each job 10 times; one kill keeps make test short


def check(outcome):
    # The differences are the message: which file, which epoch, which array.
    assert outcome.identical, f"{outcome.job} after {outcome.kills} kills: {outcome.differences}"
    assert outcome.resumed == outcome.kills  # every kill was followed by a run that resumed


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    return tmp_path_factory.mktemp("crash-inputs")


@pytest.mark.slow
def test_a_dataset_build_killed_and_resumed_writes_the_same_shards(inputs, tmp_path):
    check(harness.crash_test(harness.dataset_job(inputs), tmp_path, kills=KILLS))


@pytest.mark.slow
def test_sl_training_killed_and_resumed_logs_the_same_epochs(inputs, tmp_path):
    check(harness.crash_test(harness.training_job(inputs, epochs=4, steps=2), tmp_path,
                             kills=KILLS))


@pytest.mark.slow
def test_value_data_killed_and_resumed_are_the_same_arrays(inputs, tmp_path):
    check(harness.crash_test(harness.value_job(inputs, games=12), tmp_path, kills=KILLS))


@pytest.mark.slow
def test_a_match_killed_and_resumed_plays_the_same_games(inputs, tmp_path):
    check(harness.crash_test(harness.match_job(inputs), tmp_path, kills=KILLS))


@pytest.mark.slow
def test_value_training_killed_and_resumed_ends_with_the_same_weights(inputs, tmp_path):
    check(harness.crash_test(harness.value_training_job(inputs, epochs=4), tmp_path,
                             kills=KILLS))


@pytest.mark.slow
def test_reinforce_killed_and_resumed_plays_the_same_games_and_weights(inputs, tmp_path):
    check(harness.crash_test(harness.reinforce_job(inputs, iterations=4), tmp_path, kills=KILLS))


@pytest.mark.slow
def test_a_zero_generation_killed_and_resumed_is_the_same_generation(inputs, tmp_path):
    check(harness.crash_test(harness.zero_job(inputs, games=4), tmp_path, kills=KILLS))


# ------------------------------------------------------------- atomic writes

# A writer that replaces target with 8 MB of one repeated byte per
# generation (its first argument), through atomic_open, in 64 kB writes;
# the target then holds one generation whole, which is easy to check.
WRITER = """
import sys
from mockgo.data.files import atomic_open
target, fill = sys.argv[1], sys.argv[2].encode()
with atomic_open(target) as file:
    print("writing", flush=True)
    for _ in range(128):
        file.write(fill * 65536)
"""
SIZE = 128 * 65536


def test_a_sigkill_during_an_atomic_write_leaves_the_old_file_or_the_new(tmp_path):
    target = tmp_path / "big.bin"
    target.write_bytes(b"a" * SIZE)
    rng = random.Random(36)
    old, seen = b"a", set()
    for round_ in range(12):
        new = b"bc"[round_ % 2: round_ % 2 + 1]
        process = subprocess.Popen([sys.executable, "-c", WRITER, str(target), new.decode()],
                                   stdout=subprocess.PIPE, cwd=harness.REPO,
                                   env=harness._environment(), start_new_session=True)
        process.stdout.readline()  # "writing": the temporary file is open
        time.sleep(rng.uniform(0, 0.05))
        try:
            process.send_signal(signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()
        process.stdout.close()
        content = target.read_bytes()
        assert content in (old * SIZE, new * SIZE), (
            f"round {round_}: the target is neither the old file nor the new one "
            f"({len(content)} bytes, starting {content[:8]!r})")
        seen.add((process.returncode == -signal.SIGKILL, content[:1] == new))
        old = content[:1]
    # Both kinds of outcome happened: a kill in the middle (old content
    # kept) and, usually, a write that finished first (new content).
    assert (True, False) in seen
