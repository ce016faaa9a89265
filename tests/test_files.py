"""mockgo.data.files: atomic writes, the resumable-folder settings check, one job a
folder."""

import numpy as np
import pytest

from mockgo.data.files import (CorruptFileError, FolderBusyError, UnrecordedWorkError,
                               atomic_open, atomic_path, atomic_write_text, check_same_settings,
                               discard_work, folder_lock, is_temporary, list_work, read_json,
                               read_npz, refuse_unrecorded_work, remove_temporaries,
                               temporary_target)


def test_atomic_write_replaces_the_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "state.json"
    target.write_text("old")
    atomic_write_text(target, "new")
    assert target.read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]
    assert target.stat().st_mode & 0o777 == 0o644


def test_a_failed_write_keeps_the_old_file(tmp_path):
    target = tmp_path / "games.tsv"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_open(target, "w") as file:
            file.write("half of the new")
            raise RuntimeError("crash")
    assert target.read_text() == "old"
    with pytest.raises(RuntimeError):
        with atomic_path(target, suffix=".tmp.npz") as temporary:
            temporary.write_text("half")
            raise RuntimeError("crash")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["games.tsv"]


def test_atomic_path_makes_the_folder_and_renames_over_the_target(tmp_path):
    target = tmp_path / "models" / "000001.keras"
    with atomic_path(target, suffix=".tmp.keras") as temporary:
        assert temporary.parent == target.parent and temporary.name.endswith(".keras")
        temporary.write_bytes(b"weights")
    assert target.read_bytes() == b"weights"


def test_other_settings_are_refused_naming_the_folder_and_each_difference(tmp_path):
    stored = {"games": 800, "size": 9, "komi": 7.5}
    check_same_settings(tmp_path, "value data", stored, dict(stored))
    with pytest.raises(ValueError) as error:
        check_same_settings(tmp_path, "value data", stored, {"games": 900, "size": 9, "seed": 1})
    message = str(error.value)
    assert str(tmp_path) in message and "value data made with other settings" in message
    for difference in ("'games': (800, 900)", "'komi': (7.5, None)", "'seed': (None, 1)"):
        assert difference in message
    assert "'size'" not in message


def test_damaged_json_is_named(tmp_path):
    path = tmp_path / "state.json"
    path.write_text('{"epoch": 3, "sett')  # cut short
    with pytest.raises(CorruptFileError) as error:
        read_json(path, "the run's progress", remedy="pass restart=True to start over")
    message = str(error.value)
    assert message.startswith(f"{path} is damaged: not valid JSON")
    assert "the run's progress" in message and "pass restart=True" in message
    assert read_json(tmp_path / "missing.json", "x", missing_ok=True) is None
    with pytest.raises(FileNotFoundError, match="missing.json is missing"):
        read_json(tmp_path / "missing.json", "x")
    path.write_text('{"epoch": 3}')
    assert read_json(path, "x") == {"epoch": 3}


def test_a_truncated_npz_is_named(tmp_path):
    path = tmp_path / "train-00003.npz"
    np.savez(path, moves=np.arange(100), planes=np.zeros((100, 9), np.uint8))
    assert read_npz(path, ["moves"])["moves"].tolist() == list(range(100))
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2])
    with pytest.raises(CorruptFileError, match=r"train-00003.npz is damaged: not a whole .npz"):
        read_npz(path)
    np.savez(path, moves=np.arange(3))
    with pytest.raises(CorruptFileError, match="train-00003.npz"):
        read_npz(path, ["planes"])
    with pytest.raises(FileNotFoundError, match="train-00009.npz is missing"):
        read_npz(tmp_path / "train-00009.npz")


def test_npz_arrays_read_back_as_numpy_reads_them(tmp_path):
    arrays = dict(planes=np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4),
                  fortran=np.asfortranarray(np.arange(12.0).reshape(3, 4)),
                  played=np.array(7), seconds=np.float64(1.5), empty=np.zeros((0, 5), np.int16),
                  moves=np.arange(-3, 3, dtype=np.int64))
    for save in (np.savez, np.savez_compressed):
        save(tmp_path / "a.npz", **arrays)
        read = read_npz(tmp_path / "a.npz")
        assert list(read) == list(arrays)
        for name, array in arrays.items():
            assert read[name].dtype == array.dtype and read[name].shape == np.shape(array)
            assert np.array_equal(read[name], array), name
        read["planes"][0, 0, 0] = 99  # an array of its own, writable
    np.savez(tmp_path / "b.npz", objects=np.array([{}], dtype=object))
    with pytest.raises(CorruptFileError, match="b.npz is damaged.*Python objects"):
        read_npz(tmp_path / "b.npz")


def test_npz_headers_are_parsed_one_thread_at_a_time(tmp_path, monkeypatch):
    """numpy parses a header with ast.literal_eval, which CPython 3.11 cannot
    run in two threads at once: read_npz holds its lock while it does."""
    from mockgo.data import files

    real, held = files._HEADER_READERS[(1, 0)], []

    def parse(stream):
        held.append(files._HEADER_LOCK.locked())
        return real(stream)

    monkeypatch.setitem(files._HEADER_READERS, (1, 0), parse)
    np.savez(tmp_path / "a.npz", x=np.arange(3), y=np.ones(2))
    read_npz(tmp_path / "a.npz")
    assert held == [True, True]


def test_work_without_state_is_refused_then_discarded_on_request(tmp_path):
    for name in ("models/000000.keras", "models/000001.keras", "models/000002.keras",
                 "data/a/b.npz", "log.csv", "models/.000003.keras.x1y2_9ab.tmp.keras"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("work")
    work = list_work(tmp_path, ["models/*.keras", "data/**/*.npz", "log.csv", "nothing*"],
                     keep={"models/000000.keras"})
    assert [str(p) for p in work] == ["models/000001.keras", "models/000002.keras",
                                      "data/a/b.npz", "log.csv"]
    with pytest.raises(UnrecordedWorkError) as error:
        refuse_unrecorded_work(tmp_path, tmp_path / "state.json", work, "pass restart=True")
    assert str(error.value) == (
        f"{tmp_path} holds earlier work (4 files: models/000001.keras, models/000002.keras, "
        f"data/a/b.npz, log.csv) but no readable state.json to say what it is or how far it got, "
        f"so going on would start over and overwrite it. To delete it and start over, "
        f"pass restart=True; to keep it, use another folder")
    more = work + [f"x{i}" for i in range(3)]
    with pytest.raises(UnrecordedWorkError, match=r"7 files: .*data/a/b.npz, log.csv, \.\.\. "
                                                  r"\(3 more\)"):
        refuse_unrecorded_work(tmp_path, tmp_path / "state.json", more, "pass restart=True")
    refuse_unrecorded_work(tmp_path, tmp_path / "state.json", [], "pass restart=True")
    (tmp_path / "state.json").write_text("{")
    discard_work(tmp_path, tmp_path / "state.json", work)
    assert not (tmp_path / "state.json").exists()
    assert (tmp_path / "models/000000.keras").exists()
    assert list_work(tmp_path, ["models/*.keras", "data/**/*.npz", "log.csv"],
                     keep={"models/000000.keras"}) == []


def test_one_job_a_folder_and_a_killed_job_leaves_it_free(tmp_path, another_process_holds):
    """A second holder is refused at once, naming the folder and the first
    holder's process; the lock goes with a killed process."""
    folder = tmp_path / "run"
    with another_process_holds(folder, "a test job") as pid:
        with pytest.raises(FolderBusyError, match=rf"{folder} is in use: process "
                                                  rf"{pid} \(a test job"):
            with folder_lock(folder, "a second job"):
                pass
    with folder_lock(folder, "after the kill"):
        with folder_lock(folder, "nested"):  # the holder may take it again
            pass
        assert "after the kill" in (folder / ".lock").read_text()  # still held
    assert (folder / ".lock").read_text() == ""  # the holder's line goes with its lock


# A writer killed in the middle of atomic_open: it prints the temporary's
# name once the file is open, then waits to be killed.
KILLED_WRITER = """
import sys, time
from mockgo.data.files import atomic_open
with atomic_open(sys.argv[1]) as file:
    file.write(b"half of the new")
    file.flush()
    print("open", flush=True)
    time.sleep(60)
"""


def test_a_killed_write_leaves_a_temporary_that_the_lock_holder_removes(tmp_path):
    import signal
    import subprocess
    import sys

    folder = tmp_path / "run"
    target = folder / "data" / "shard-00003.npz"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"old")
    writer = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(target)],
                              stdout=subprocess.PIPE, text=True)
    assert writer.stdout.readline().strip() == "open"
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    writer.stdout.close()
    [temporary] = [path for path in target.parent.iterdir() if path != target]
    # The kill ran no cleanup: the temporary is there, the target untouched.
    assert temporary.read_bytes() == b"half of the new" and target.read_bytes() == b"old"
    assert is_temporary(temporary) and temporary_target(temporary) == "shard-00003.npz"
    # Files that only look alike stay: a job's own hidden files, other names.
    keep = [folder / ".lock", folder / ".hidden.tmp", folder / "notes.tmp",
            folder / "data" / ".shard.npz.tmp", folder / ".shard.npz.ABCDEFGH.tmp"]
    for path in keep[1:]:
        path.write_text("mine")
    with pytest.raises(RuntimeError, match="does not hold the folder's lock"):
        remove_temporaries(folder)
    assert temporary.exists()
    with folder_lock(folder, "resuming"):
        assert remove_temporaries(folder) == [f"data/{temporary.name}"]
    assert not temporary.exists() and target.read_bytes() == b"old"
    assert all(path.exists() for path in keep)


def test_remove_temporaries_keeps_the_files_that_are_not_the_holders(tmp_path):
    folder = tmp_path / "run"
    for relative in ("models/.000001.keras.abcd_123.tmp.keras",
                     "data/.extra-b0000.npz.zz99zz99.tmp", "data/.gen000001-b0000.npz.a1b2c3d4.tmp"):
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text("x")
    with folder_lock(folder, "the loop"):
        removed = remove_temporaries(folder, owned=lambda path: not temporary_target(path)
                                     .startswith("extra"))
    assert removed == ["data/.gen000001-b0000.npz.a1b2c3d4.tmp",
                       "models/.000001.keras.abcd_123.tmp.keras"]
    assert (folder / "data/.extra-b0000.npz.zz99zz99.tmp").exists()


def test_atomic_path_wants_a_suffix_that_marks_a_temporary(tmp_path):
    with pytest.raises(ValueError, match=r"should start with '\.tmp'"):
        with atomic_path(tmp_path / "model.keras", suffix=".keras"):
            pass
    with atomic_path(tmp_path / "model.weights.h5", suffix=".tmp.weights.h5") as temporary:
        assert is_temporary(temporary) and temporary_target(temporary) == "model.weights.h5"
        temporary.write_text("w")
    assert (tmp_path / "model.weights.h5").read_text() == "w"
