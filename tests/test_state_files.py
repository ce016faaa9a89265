"""State files of the wrong shape: every long job names the file and the field.

A job's state file can be valid JSON and still not be what the job wrote
(``{}``, ``[]``, ``{"latest": "abc"}``: edited by hand, written by another
program, or another file copied over it), or not be text at all. Each
loader checks it against its schema (:func:`mockgo.data.files.check_schema`)
and raises :class:`~mockgo.data.files.CorruptFileError` naming the file and
the field, before it uses any of it, and deletes nothing. These tests write
such files and call each loader; none trains or plays anything.
"""

import json
import os
import re

import pytest

from mockgo.data.files import CorruptFileError, check_schema, read_json

WRONG_SHAPES = [
    ("{}", "field '{field}' is missing"),
    ("[]", "the file should be an object, not []"),
    ("null", "the file should be an object, not null"),
]
RANDOM_BYTES = bytes(range(0xa9, 0xff)) * 4


def expect_damaged(path, call, *fragments):
    """``call()`` raises CorruptFileError naming ``path`` and each of
    ``fragments``; the file is still there, unchanged."""
    before = path.read_bytes()
    with pytest.raises(CorruptFileError) as caught:
        call()
    message = str(caught.value)
    assert message.startswith(f"{path} is damaged: "), message
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    assert path.read_bytes() == before
    return message


# ------------------------------------------------------------- the loader


def test_read_json_checks_the_schema_and_names_file_and_field(tmp_path):
    path = tmp_path / "state.json"
    schema = {"latest": int, "best": int, "note?": (str, None)}
    cases = {
        "{}": "field 'latest' is missing",
        "[]": "the file should be an object, not []",
        '{"latest": 2}': "field 'best' is missing",
        '{"latest": "abc", "best": 0}': "field 'latest' should be an int, not \"abc\"",
        '{"latest": true, "best": 0}': "field 'latest' should be an int, not true",
        '{"latest": 2.0, "best": 0}': "field 'latest' should be an int, not 2.0",
        '{"latest": 2, "best": 0, "note": 5}': "field 'note' should be a string or null, not 5",
    }
    for text, problem in cases.items():
        path.write_text(text)
        message = expect_damaged(path, lambda: read_json(path, "the run's progress", schema=schema,
                                                         remedy="Delete it."), problem)
        assert message.endswith("; it should hold the run's progress. Delete it.")
    path.write_text('{"latest": 2, "best": 1, "note": null, "more": []}')
    assert read_json(path, "x", schema=schema)["latest"] == 2


def test_random_bytes_are_named_not_a_bare_decode_error(tmp_path):
    path = tmp_path / "state.json"
    path.write_bytes(RANDOM_BYTES)
    message = expect_damaged(path, lambda: read_json(path, "the run's progress"),
                             "not valid JSON", "'utf-8' codec can't decode byte 0xa9")
    assert "it should hold the run's progress" in message


def test_nested_fields_and_arrays_are_named_by_their_path():
    schema = {"shards": {"train": [[(str, int)]]}, "pool": [{"file": str}]}
    assert check_schema({"shards": {"train": [["a.npz", 5]]}, "pool": []}, schema) is None
    assert (check_schema({"shards": {"train": [["a.npz", 5], "b"]}, "pool": []}, schema)
            == "field 'shards.train[1]' should be an array, not \"b\"")
    assert (check_schema({"shards": {"train": []}, "pool": [{"file": 3}]}, schema)
            == "field 'pool[0].file' should be a string, not 3")
    assert check_schema({"x": 1}, {"x": float}) is None  # JSON writes 1.0 as 1 at times


# ------------------------------------------------------------ every job


def test_dataset_manifest(tmp_path):
    from mockgo.data.dataset import DatasetSpec, build_dataset, read_manifest

    games = tmp_path / "games"
    games.mkdir()
    (games / "a.sgf").write_text("(;GM[1]SZ[9]KM[7]RE[B+R];B[ee];W[cc];B[gg])")
    spec = DatasetSpec(encoder="simple2", board_size=9)
    folder = tmp_path / "ds"
    folder.mkdir()
    path = folder / "dataset.json"
    for text, problem in WRONG_SHAPES + [('{"format": "1"}', "field 'format' should be an int")]:
        path.write_text(text)
        expect_damaged(path, lambda: read_manifest(folder), problem.format(field="format"))
        expect_damaged(path, lambda: build_dataset([games], folder, spec, workers=1,
                                                   progress=False),
                       problem.format(field="format"), "pass restart=True to build_dataset")
    manifest = build_dataset([games], tmp_path / "good", spec, workers=1, progress=False)
    manifest["shards"]["train"] = [["train-00000.npz", "many"], 3]
    path.write_text(json.dumps(manifest))
    expect_damaged(path, lambda: read_manifest(folder),
                   "field 'shards.train[1]' should be an array, not 3")


def test_supervised_training_state(tmp_path):
    from mockgo.learn.supervised import read_state

    path = tmp_path / "state.json"
    for text, problem in WRONG_SHAPES + [('{"epoch": "2", "settings": {}}', "field 'epoch'")]:
        path.write_text(text)
        expect_damaged(path, lambda: read_state(tmp_path), problem.format(field="epoch"),
                       "pass restart=True to train_policy")
    path.write_text('{"epoch": 2, "settings": {"epochs": 3, "batch_size": 4}}')
    expect_damaged(path, lambda: read_state(tmp_path),
                   "field 'settings.steps_per_epoch' is missing")
    path.write_bytes(RANDOM_BYTES)
    expect_damaged(path, lambda: read_state(tmp_path), "not valid JSON")


def test_value_data_and_value_training_state(tmp_path):
    from mockgo.learn.value import _FitCheckpoint, _ValueBatches

    data = tmp_path / "value_data.json"
    for text in ("[]", "3", '"abc"'):
        data.write_text(text)
        expect_damaged(data, lambda: _ValueBatches(tmp_path, {"games": 6}),
                       "the file should be an object", "pass restart=True to value_dataset")
    path = tmp_path / "state.json"
    checkpoint = _FitCheckpoint(tmp_path, {"epochs": 3})
    for text, problem in WRONG_SHAPES + [
            ('{"arguments": {}, "state": {"epoch": 1, "history": {}, "best": "low", '
             '"best_epoch": 1, "stopped": false}}',
             "field 'state.best' should be a number or null"),
            ('{"arguments": {}, "state": {"epoch": 1, "history": {}, "best": null, '
             '"best_epoch": 1, "stopped": false}, "files": {"weights": 3, "best_weights": null}}',
             "field 'files.weights' should be a string or null, not 3")]:
        path.write_text(text)
        expect_damaged(path, lambda: checkpoint.restore(None, {}),
                       problem.format(field="arguments"), "pass restart=True to fit_value_network")


def test_reinforce_state(tmp_path):
    from mockgo.learn.reinforce import Reinforce
    from mockgo.learn.reinforce_config import ReinforceConfig

    path = tmp_path / "state.json"
    for text, problem in WRONG_SHAPES + [
            ('{"config": {}, "iteration": 3, "learner": "l.keras", "rng": {}, "history": [], '
             '"pool": [{"iteration": 0}]}', "field 'pool[0].file' is missing")]:
        path.write_text(text)
        expect_damaged(path, lambda: Reinforce(tmp_path, None, ReinforceConfig(size=5)),
                       problem.format(field="config"), "pass restart=True to Reinforce")


def test_zero_run_files(tmp_path):
    from mockgo.zero.config import ZeroConfig
    from mockgo.zero.layout import RunLayout, read_config, read_state, write_json
    from mockgo.zero.run import bootstrap

    config = ZeroConfig.for_test()
    layout = RunLayout(tmp_path)
    write_json(layout.config, config.to_dict())
    for text, problem in WRONG_SHAPES + [
            ('{"format": 1, "latest": 2}', "field 'best' is missing"),
            ('{"format": 1, "latest": "abc", "best": 0, "generations": {}}',
             "field 'latest' should be an int, not \"abc\""),
            ('{"format": 1, "latest": 1, "best": 2, "generations": {}}',
             "its best model (2) is not one of generations 0 to its latest (1)")]:
        layout.state.write_text(text)
        expect_damaged(layout.state, lambda: bootstrap(tmp_path, config),
                       problem.format(field="format"), "mockgo zero --restart")
        expect_damaged(layout.state, lambda: read_state(layout.state))
    layout.state.write_bytes(RANDOM_BYTES)
    expect_damaged(layout.state, lambda: bootstrap(tmp_path, config), "not valid JSON")
    for text, problem in [("[]", "the file should be an object"),
                          ('{"board_size": 9, "colour": 1}', "not a ZeroConfig (unknown config "
                                                             "fields: ['colour'])")]:
        layout.config.write_text(text)
        expect_damaged(layout.config, lambda: bootstrap(tmp_path, config), problem)
        expect_damaged(layout.config, lambda: read_config(layout.config), problem)
    progress = layout.job_progress("000000", "gen000001")
    progress.parent.mkdir(parents=True)
    progress.write_text('{"games": 4, "games_in_parallel": 2, "batches": []}')
    expect_damaged(progress, lambda: layout.finished_examples("000000", "gen000001"),
                   "field 'batches' should be an object, not []")


def test_match_folder(tmp_path):
    from mockgo.play.match_folder import open_folder

    settings = {"spec_a": "random", "spec_b": "random", "size": 5, "komi": 7.5,
                "max_moves": 50, "seed": 0, "scorer": "tromp-taylor"}
    path = tmp_path / "match.json"
    for text in ("[]", "2"):
        path.write_text(text)
        expect_damaged(path, lambda: open_folder(tmp_path, settings),
                       "the file should be an object")
    path.write_text(json.dumps(settings))
    log = tmp_path / "games.jsonl"
    entry = {"index": 0, "names": ["random", "random"], "reason": "score", "resigned": None,
             "forfeited_by": None, "note": None, "dead": [], "seconds": 1.5,
             "sgf": "00000.sgf", "result": "B+3"}
    for change, problem in [({"index": "0"}, "field 'index' should be an int"),
                            ({"names": "random"}, "field 'names' should be an array"),
                            ({"dead": None}, "field 'dead' should be an array, not null")]:
        log.write_text(json.dumps(dict(entry, **change)) + "\n" + json.dumps(entry) + "\n")
        with pytest.raises(ValueError, match=rf"^{re.escape(str(log))}: line 1 is not a "
                                             rf"finished game's entry: {re.escape(problem)}"):
            open_folder(tmp_path, settings)
    log.write_text("[1, 2]\n")
    with pytest.raises(ValueError, match="line 1 is not a finished game's entry: the entry "
                                         "should be an object"):
        open_folder(tmp_path, settings)
    assert sorted(os.listdir(tmp_path)) == ["games.jsonl", "match.json"]  # nothing deleted
