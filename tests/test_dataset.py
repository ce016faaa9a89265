"""Training datasets: building shards from SGF files (filters, splits,
resuming), and reading them back with shuffling and symmetry augmentation."""

import itertools
import json
import random

import numpy as np
import pytest

from mockgo import Board
from mockgo.data import archives, sgf_reader, sgf_writer
from mockgo.data.files import FolderBusyError
from mockgo.data.dataset import (DatasetSpec, batches, build_dataset, load_split, packed_batches,
                                 rank_value, read_manifest, split_of, summary_line)
from mockgo.go.symmetries import symmetry_tables


def packed_batch(folder, split, **options):
    """The first batch of the packed pipeline, unpacked and turned as the
    compiled training step does it (mockgo.nets.packed.UnpackPlanes)."""
    import keras

    from mockgo.data.pipeline import PackedBatches
    from mockgo.nets.packed import UnpackPlanes

    data = PackedBatches(folder, split, **options)
    (packed, syms), labels = data[0]
    num_planes = next(batches(folder, split, **options))[0].shape[-1]
    x = UnpackPlanes(num_planes, data.size)(keras.ops.convert_to_tensor(packed),
                                            keras.ops.convert_to_tensor(syms))
    return keras.ops.convert_to_numpy(x), labels


def random_game(size, seed, black_rank="6d", white_rank="7d", moves=40):
    rng = random.Random(seed)
    board = Board(size, komi=6.5)
    while board.move_number < moves and not board.is_over:
        choices = np.flatnonzero(board.sensible_moves()[:-1])
        board.play(int(rng.choice(choices)) if len(choices) else board.pass_index)
    record = sgf_writer.record_from_board(board, black="b", white="w")
    record.black_rank, record.white_rank = black_rank, white_rank
    return record


@pytest.fixture(scope="module")
def sgf_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sgf")
    for i in range(24):
        sgf_writer.save_sgf(random_game(9, i), folder / f"game-{i:02d}.sgf")
    sgf_writer.save_sgf(random_game(13, 99), folder / "big-board.sgf")
    sgf_writer.save_sgf(random_game(9, 98, black_rank="2k"), folder / "weak.sgf")
    (folder / "broken.sgf").write_text("(;GM[1]SZ[9];B[ee];W[")
    return folder


SPEC = DatasetSpec(encoder="simple2", board_size=9, min_rank="5d",
                   validation_share=0.2, test_share=0.2)


def test_split_is_a_stable_function_of_the_file_name():
    assert split_of("a/b/2003-01-01-1.sgf") == split_of("other.tar.gz:x/2003-01-01-1.sgf")
    names = [f"{i}.sgf" for i in range(4000)]
    shares = {s: sum(split_of(n, 0.1, 0.05) == s for n in names) / 4000
              for s in ("train", "validation", "test")}
    assert abs(shares["validation"] - 0.1) < 0.02 and abs(shares["test"] - 0.05) < 0.02


def test_rank_values():
    assert rank_value("30k") < rank_value("1k") < rank_value("1d") < rank_value("9d") < rank_value("1p")
    assert rank_value("6d*") == 6 and rank_value(None) is None and rank_value("?") is None


def test_build_keeps_and_skips_with_reasons(sgf_folder, tmp_path):
    manifest = build_dataset([sgf_folder], tmp_path / "ds", SPEC, workers=2, shard_size=300,
                             checkpoint_games=10, progress=False)
    assert manifest["complete"] and manifest["games_kept"] == 24
    assert manifest["skipped"] == {"board size 13": 1, "rank below minimum or unknown": 1,
                                   "does not parse": 1}
    assert "24 games kept" in summary_line(manifest) and "3 skipped" in summary_line(manifest)
    games = [line.split("\t") for line in (tmp_path / "ds" / "games.tsv").read_text().splitlines()]
    assert len(games) == 24
    split_by_id = {int(game_id): split for game_id, split, _ in games}
    total = 0
    for split in ("train", "validation", "test"):
        planes, moves, outcomes = load_split(tmp_path / "ds", split)
        assert planes.shape[1:] == (9, 9, 2) and planes.dtype == np.uint8
        assert len(moves) == manifest["positions"][split]
        total += len(moves)
        assert set(np.unique(outcomes)) <= {-1, 0, 1}
        # Every position of a game sits in that game's split.
        for name, _ in manifest["shards"][split]:
            with np.load(tmp_path / "ds" / name) as shard:
                assert {split_by_id[int(g)] for g in shard["game_ids"]} == {split}
    assert total == sum(40 for _ in range(24))  # 40 moves a game, none illegal


def test_positions_and_labels_are_the_games(sgf_folder, tmp_path):
    build_dataset([sgf_folder / "game-00.sgf"], tmp_path / "one", SPEC, workers=1, progress=False)
    record = sgf_reader.load_sgf(sgf_folder / "game-00.sgf")
    manifest = json.loads((tmp_path / "one" / "dataset.json").read_text())
    split = next(s for s in manifest["positions"] if manifest["positions"][s])
    planes, moves, outcomes = load_split(tmp_path / "one", split)
    expected_moves = [m for _, m in record.moves]
    assert moves.tolist() == expected_moves
    for (board, color, move), x, outcome in zip(sgf_reader.replay(record), planes, outcomes):
        assert np.array_equal(x[..., 0].reshape(-1), board.stones == color)
        assert outcome == (1 if color == record.winner else -1)


def test_an_interrupted_build_resumes_to_the_same_dataset(sgf_folder, tmp_path, monkeypatch):
    build_dataset([sgf_folder], tmp_path / "whole", SPEC, workers=1, shard_size=200,
                  checkpoint_games=5, progress=False)
    real_sources = archives.sgf_sources

    def interrupted(path):
        for count, item in enumerate(real_sources(path)):
            if count == 13:
                raise KeyboardInterrupt
            yield item

    monkeypatch.setattr(archives, "sgf_sources", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build_dataset([sgf_folder], tmp_path / "resumed", SPEC, workers=1, shard_size=200,
                      checkpoint_games=5, progress=False)
    partial = json.loads((tmp_path / "resumed" / "dataset.json").read_text())
    assert not partial["complete"] and partial["games_looked_at"] == 10
    monkeypatch.setattr(archives, "sgf_sources", real_sources)
    resumed = build_dataset([sgf_folder], tmp_path / "resumed", SPEC, workers=1, shard_size=200,
                            checkpoint_games=5, progress=False)
    whole = json.loads((tmp_path / "whole" / "dataset.json").read_text())
    for key in ("games_kept", "positions", "skipped", "games_looked_at"):
        assert resumed[key] == whole[key]
    assert ((tmp_path / "resumed" / "games.tsv").read_text()
            == (tmp_path / "whole" / "games.tsv").read_text())
    for split in ("train", "validation", "test"):
        a, b = load_split(tmp_path / "whole", split), load_split(tmp_path / "resumed", split)
        assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_a_folder_with_another_build_is_refused(sgf_folder, tmp_path):
    build_dataset([sgf_folder / "game-01.sgf"], tmp_path / "ds", SPEC, workers=1, progress=False)
    other = DatasetSpec(encoder="agz17", board_size=9)
    with pytest.raises(ValueError, match="other settings"):
        build_dataset([sgf_folder / "game-01.sgf"], tmp_path / "ds", other, workers=1, progress=False)


def test_a_dataset_is_reused_when_its_sources_are_found_under_another_path(sgf_folder,
                                                                           tmp_path):
    """A moved checkout (or another mirror) has the same archives under
    another path: the finished dataset is reused, not refused; other files
    are refused."""
    built = build_dataset([sgf_folder / "game-01.sgf"], tmp_path / "ds", SPEC, workers=1,
                          progress=False)
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    (moved / "game-01.sgf").write_bytes((sgf_folder / "game-01.sgf").read_bytes())
    again = build_dataset([moved / "game-01.sgf"], tmp_path / "ds", SPEC, workers=1,
                          progress=False)
    assert again["games_kept"] == built["games_kept"]
    with pytest.raises(ValueError, match="other settings.*sources"):
        build_dataset([sgf_folder / "game-02.sgf"], tmp_path / "ds", SPEC, workers=1,
                      progress=False)


def test_symmetry_tables_move_planes_and_moves_together():
    size = 5
    gather, move_maps = symmetry_tables(size)
    rng = np.random.default_rng(0)
    planes = rng.integers(0, 2, (size, size, 3)).astype(np.uint8)
    images = set()
    for s in range(8):
        moved = planes.reshape(size * size, 3)[gather[s]].reshape(size, size, 3)
        images.add(moved.tobytes())
        for move in range(size * size):
            one_hot = np.zeros(size * size, np.uint8)
            one_hot[move] = 1
            assert one_hot[gather[s]].argmax() == move_maps[s][move]
        assert move_maps[s][size * size] == size * size
    assert len(images) == 8  # eight different images of a random board


def test_batches_shuffle_augment_and_drop_passes(sgf_folder, tmp_path):
    build_dataset([sgf_folder], tmp_path / "ds", SPEC, workers=1, progress=False)
    seen = 0
    for x, moves in batches(tmp_path / "ds", "train", batch_size=32, seed=1):
        assert x.shape[1:] == (9, 9, 2) and x.dtype == np.uint8 and moves.dtype == np.int32
        assert (moves < 81).all()  # passes left out
        # The point played is empty in the (transformed) position.
        rows = np.arange(len(moves))
        assert not x.reshape(len(moves), 81, 2)[rows, moves].any()
        seen += len(moves)
    planes, moves, _ = load_split(tmp_path / "ds", "train")
    assert seen == int((moves < 81).sum())
    values = next(batches(tmp_path / "ds", "train", batch_size=8, target="value"))[1]
    assert values.dtype == np.float32 and set(np.unique(values)) <= {-1.0, 0.0, 1.0}


@pytest.mark.parametrize("target", ["policy", "value"])
@pytest.mark.parametrize("repeat", [False, True])
def test_the_packed_pipeline_gives_the_batches_of_the_numpy_decoder(sgf_folder, tmp_path,
                                                                     target, repeat):
    build_dataset([sgf_folder], tmp_path / "ds", SPEC, workers=1, progress=False)
    options = dict(batch_size=16, seed=3, target=target)
    x, y = packed_batch(tmp_path / "ds", "train", repeat=repeat, **options)
    assert x.shape == (16, 9, 9, 2) and x.dtype == np.uint8
    assert y.dtype == (np.int32 if target == "policy" else np.float32)
    # Unpacked and turned in the model's first layer, the same positions and
    # labels as numpy's decoder gives.
    expected_x, expected_y = next(batches(tmp_path / "ds", "train", **options))
    np.testing.assert_array_equal(x, expected_x)
    np.testing.assert_array_equal(y, expected_y)


def test_an_endless_split_gives_whole_batches_only(sgf_folder, tmp_path):
    # A batch of another size makes a compiled training step compile again:
    # a repeating split carries the rows left at the end of a group (or a
    # pass over the split) into the next batches instead.
    build_dataset([sgf_folder], tmp_path / "ds", SPEC, workers=1, progress=False)
    _, moves, _ = load_split(tmp_path / "ds", "train")
    per_pass = int((moves < 81).sum())
    assert per_pass % 24  # the test needs a remainder
    endless = batches(tmp_path / "ds", "train", batch_size=24, seed=2, repeat=True,
                      shards_in_memory=1)
    sizes = [len(next(endless)[1]) for _ in range(3 * per_pass // 24)]
    assert set(sizes) == {24}
    once = [len(y) for _, y in batches(tmp_path / "ds", "train", batch_size=24, seed=2)]
    assert sum(once) == per_pass and once[-1] < 24


def test_a_pass_over_several_groups_of_shards_is_as_many_batches_as_the_pipeline_counts(
        sgf_folder, tmp_path):
    # Scoring a split reads it once, one group of shards after another. The
    # rows left at the end of a group go into the next group's batches, so
    # the pass is ceil(positions / batch) batches, the count PackedBatches
    # gives Keras: one batch per shard's remainder more, and evaluate() ran
    # out of batches (JAX: "generator raised StopIteration").
    from mockgo.data.pipeline import PackedBatches  # Keras: only this test needs it

    build_dataset([sgf_folder], tmp_path / "ds", SPEC, workers=1, shard_size=64,
                  progress=False)
    _, moves, _ = load_split(tmp_path / "ds", "train")
    per_pass = int((moves < 81).sum())
    shards = read_manifest(tmp_path / "ds")["shards"]["train"]
    assert len(shards) >= 4 and per_pass % 24  # several groups, and a remainder
    once = [len(y) for _, y in batches(tmp_path / "ds", "train", batch_size=24, shuffle=False,
                                       augment=False, shards_in_memory=1)]
    assert once[:-1] == [24] * (len(once) - 1) and sum(once) == per_pass
    pipeline = PackedBatches(tmp_path / "ds", "train", 24, shuffle=False, augment=False,
                             shards_in_memory=1)
    assert pipeline.num_batches == len(once) == -(-per_pass // 24)
    read = [len(pipeline[i][1]) for i in range(pipeline.num_batches)]
    assert read == once


def test_a_shuffled_pass_takes_every_position_once(sgf_folder, tmp_path):
    # Positions are picked by index from a group (passes left out by index,
    # the rows carried from the last group first): nothing is lost or taken twice.
    build_dataset([sgf_folder], tmp_path / "ds", SPEC, workers=1, shard_size=64,
                  progress=False)
    planes, moves, outcomes = load_split(tmp_path / "ds", "train")
    for include_pass in (False, True):
        keep = np.ones(len(moves), bool) if include_pass else moves < 81
        rows = [row.tobytes() for row in np.packbits(planes[keep], axis=-1)]  # as shards pack them
        expected = sorted(zip(rows, moves[keep].tolist(), outcomes[keep].tolist()))
        seen = []
        for packed, (labels, values), _ in packed_batches(
                tmp_path / "ds", "train", batch_size=24, shuffle=True, augment=False, seed=5,
                include_pass=include_pass, target="dual", shards_in_memory=2, repeat=False):
            seen += zip([row.tobytes() for row in packed], labels.tolist(), values.tolist())
        assert len(seen) == len(expected) and sorted(seen) == expected, include_pass


def test_groups_read_ahead_by_threads_give_the_same_batches(sgf_folder, tmp_path):
    # Two passes and more of an endless split, and one pass of a finite one:
    # the rows carried between groups and passes land where they did.
    build_dataset([sgf_folder], tmp_path / "ds", SPEC, workers=1, shard_size=64,
                  progress=False)
    _, moves, _ = load_split(tmp_path / "ds", "train")
    per_pass = int((moves < 81).sum()) // 24
    for repeat, count in ((True, 2 * per_pass + 3), (False, None)):
        runs = []
        for readers in (1, 3):
            made = packed_batches(tmp_path / "ds", "train", batch_size=24, shuffle=True,
                                  augment=True, seed=7, include_pass=False, target="dual",
                                  shards_in_memory=2, repeat=repeat, readers=readers)
            runs.append([(packed.tobytes(), labels[0].tolist(), labels[1].tolist(), syms.tolist())
                         for packed, labels, syms in itertools.islice(made, count)])
            made.close()  # stops its readers
        assert len(runs[0]) == len(runs[1]) > 3 and runs[0] == runs[1], repeat


def test_dual_batches_carry_the_move_and_the_outcome_turned_together(sgf_folder, tmp_path):
    build_dataset([sgf_folder], tmp_path / "ds", SPEC, workers=1, progress=False)
    options = dict(batch_size=16, seed=3, include_pass=True)
    x, (moves, outcomes) = next(batches(tmp_path / "ds", "train", target="dual", **options))
    # The same rows, symmetries and move labels as the policy batches; the
    # value batches' outcomes.
    policy_x, policy_moves = next(batches(tmp_path / "ds", "train", target="policy", **options))
    _, values = next(batches(tmp_path / "ds", "train", target="value", **options))
    np.testing.assert_array_equal(x, policy_x)
    np.testing.assert_array_equal(moves, policy_moves)
    np.testing.assert_array_equal(outcomes, values)
    tx, (tmoves, toutcomes) = packed_batch(tmp_path / "ds", "train", target="dual", **options)
    np.testing.assert_array_equal(tx, x)
    np.testing.assert_array_equal(tmoves, moves)
    np.testing.assert_array_equal(toutcomes, outcomes)
    with pytest.raises(ValueError, match="target"):
        next(batches(tmp_path / "ds", "train", target="both"))


def test_missing_dataset_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="build it first"):
        next(batches(tmp_path / "nothing", "train"))


def test_symmetry_tables_agree_with_the_symmetries_module():
    from mockgo.go import symmetries
    size = 4
    gather, move_maps = symmetry_tables(size)
    planes = np.random.default_rng(1).integers(0, 9, (size, size, 2))
    for s in symmetries.SYMMETRIES:
        expected = symmetries.apply_to_planes(s, planes)
        assert np.array_equal(planes.reshape(-1, 2)[gather[s]].reshape(planes.shape), expected)
        assert move_maps[s].tolist() == [symmetries.apply_to_moves(s, m, size) for m in range(17)]


def test_shards_without_a_manifest_are_refused_unless_restarted(sgf_folder, tmp_path):
    folder = tmp_path / "ds"
    build_dataset([sgf_folder], folder, SPEC, workers=1, shard_size=200, progress=False)
    shards = sorted(p.name for p in folder.glob("*.npz"))
    (folder / "dataset.json").unlink()
    with pytest.raises(ValueError) as error:
        build_dataset([sgf_folder], folder, SPEC, workers=1, shard_size=200, progress=False)
    message = str(error.value)
    assert message.startswith(f"{folder} holds earlier work ({len(shards) + 1} files: "
                              f"{shards[0]}, {shards[1]}, ")
    assert "no readable dataset.json" in message and "pass restart=True to build_dataset" in message
    assert sorted(p.name for p in folder.glob("*.npz")) == shards  # nothing deleted
    manifest = build_dataset([sgf_folder], folder, SPEC, workers=1, shard_size=200,
                             progress=False, restart=True)
    assert manifest["complete"] and manifest["games_kept"] == 24


def test_damaged_manifest_and_shard_are_named(sgf_folder, tmp_path):
    folder = tmp_path / "ds"
    build_dataset([sgf_folder], folder, SPEC, workers=1, progress=False)
    manifest = (folder / "dataset.json").read_text()
    shard = folder / json.loads(manifest)["shards"]["train"][0][0]
    (folder / "dataset.json").write_text(manifest[:len(manifest) // 2])
    with pytest.raises(ValueError, match=rf"^{folder / 'dataset.json'} is damaged: not valid "
                                         r"JSON .*To delete the shards and build the dataset "
                                         r"again, pass restart=True to build_dataset$"):
        build_dataset([sgf_folder], folder, SPEC, workers=1, progress=False)
    with pytest.raises(ValueError, match=rf"^{folder / 'dataset.json'} is damaged"):
        load_split(folder, "train")
    (folder / "dataset.json").write_text(manifest)
    data = shard.read_bytes()
    shard.write_bytes(data[:len(data) // 2])
    for read in (lambda: load_split(folder, "train"),
                 lambda: next(batches(folder, "train", shuffle=False))):
        with pytest.raises(ValueError, match=rf"^{shard} is damaged: not a whole \.npz archive"):
            read()


def test_a_finished_dataset_with_a_shard_missing_is_refused_naming_it(sgf_folder, tmp_path):
    # As when two builds wrote into one folder at once: the manifest says
    # finished, a shard it lists is gone. Refused at once, not mid-training.
    folder = tmp_path / "ds"
    build_dataset([sgf_folder], folder, SPEC, workers=1, shard_size=200, progress=False)
    gone = json.loads((folder / "dataset.json").read_text())["shards"]["train"][0][0]
    (folder / gone).unlink()
    with pytest.raises(FileNotFoundError, match=rf"the dataset in {folder} lists 1 shard\(s\) "
                                                rf"that are not there: {gone}; pass restart=True"):
        build_dataset([sgf_folder], folder, SPEC, workers=1, shard_size=200, progress=False)
    manifest = build_dataset([sgf_folder], folder, SPEC, workers=1, shard_size=200,
                             progress=False, restart=True)
    assert manifest["complete"] and (folder / gone).is_file()


def test_a_second_build_in_the_same_folder_is_refused(sgf_folder, tmp_path,
                                                      another_process_holds):
    folder = tmp_path / "ds"
    with another_process_holds(folder, "building a dataset"):
        with pytest.raises(FolderBusyError, match=rf"{folder} is in use: process"):
            build_dataset([sgf_folder], folder, SPEC, workers=1, progress=False)
    assert not (folder / "dataset.json").exists()  # nothing written
    build_dataset([sgf_folder], folder, SPEC, workers=1, progress=False)  # free again
    assert (folder / "dataset.json").exists()


def test_a_missing_source_is_an_error_naming_it(tmp_path):
    missing = tmp_path / "data" / "kgs" / "KGS-2001-19-1-.tar.gz"
    with pytest.raises(FileNotFoundError, match=f"no such SGF file, folder or archive: "
                                                f"{missing} \\(a source of the dataset in "):
        build_dataset([missing], tmp_path / "ds", SPEC, workers=1, progress=False)
    assert not (tmp_path / "ds").exists()


def test_a_finished_dataset_without_games_is_an_error(sgf_folder, tmp_path):
    # As a build from a missing archive ended before sources were checked.
    folder = tmp_path / "ds"
    with pytest.raises(ValueError, match=rf"^the dataset in {folder} holds no games \(0 games "
                                         r"kept .*1 skipped: 1 rank below minimum"):
        build_dataset([sgf_folder / "weak.sgf"], folder, SPEC, workers=1, progress=False)
    with pytest.raises(ValueError, match="build it again with restart=True"):  # and not reused
        build_dataset([sgf_folder / "weak.sgf"], folder, SPEC, workers=1, progress=False)


def test_worker_processes_build_the_same_shards_byte_for_byte(sgf_folder, tmp_path):
    # The pool encodes games out of order; the main process writes them in
    # the sources' order, so the number of workers changes nothing on disk.
    one = build_dataset([sgf_folder], tmp_path / "one", SPEC, workers=1, shard_size=64,
                        progress=False)
    two = build_dataset([sgf_folder], tmp_path / "two", SPEC, workers=2, shard_size=64,
                        progress=False)
    assert one == two
    files = sorted(p.name for p in (tmp_path / "one").iterdir() if p.name != ".lock")
    assert len([f for f in files if f.endswith(".npz")]) >= 3
    assert files == sorted(p.name for p in (tmp_path / "two").iterdir() if p.name != ".lock")
    for name in files:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name


def test_a_closed_endless_split_stops_its_thread(sgf_folder, tmp_path):
    # Each training epoch reads a split of its own; the thread that makes its
    # batches ahead holds a group of shards, so it must end with the epoch.
    import threading

    from mockgo.data.pipeline import PackedBatches

    build_dataset([sgf_folder], tmp_path / "ds", SPEC, workers=1, progress=False)

    def fillers():
        return [t for t in threading.enumerate() if t.name == "PackedBatches" and t.is_alive()]

    before = len(fillers())
    data = PackedBatches(tmp_path / "ds", "train", 8, repeat=True, prefetch=2)
    first = data[0]
    assert len(fillers()) == before + 1
    data.close()
    for _ in range(50):
        if len(fillers()) == before:
            break
        threading.Event().wait(0.1)
    assert len(fillers()) == before
    # Taking the first batch again starts the split over, the same batches.
    again = data[0]
    np.testing.assert_array_equal(again[0][0], first[0][0])
    data.close()
