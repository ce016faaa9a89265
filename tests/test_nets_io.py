"""mockgo.nets.io: saved networks record their kind, encoder and board size;
files saved before that still load, with a warning; bad files are named."""

import json
import warnings
import zipfile

import keras
import numpy as np
import pytest

from mockgo.data.files import CorruptFileError
from mockgo.go.features import AGZ17, ALPHAGO48, ALPHAGO49, SIMPLE2
from mockgo.nets.device import compute_device
from mockgo.nets.inference import network_input
from mockgo.nets.architectures import ARCHITECTURES, build_network
from mockgo.nets.io import (INFO_MEMBER, KINDS, NetworkInfo, kind_of, load_model, model_info,
                            read_info, save_for_play, save_model)
from mockgo.nets.models import dual_network, policy_network, value_network


def tiny_policy(planes=48, size=5):
    keras.utils.set_random_seed(0)
    return policy_network(size, planes, layers=2, filters=4)


def test_saving_records_what_the_network_reads_and_loading_gives_it_back(tmp_path):
    path = save_model(tiny_policy(), tmp_path / "policy.keras", encoder=ALPHAGO48)
    assert read_info(path) == NetworkInfo("policy", ALPHAGO48, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no guessing for a file that records its encoder
        loaded = load_model(path)
    assert model_info(loaded) == NetworkInfo("policy", ALPHAGO48, 5)
    predictor, encoder = network_input(path)
    assert encoder.name == ALPHAGO48 and encoder.size == 5
    # The record travels with the model: saving it again needs no encoder.
    again = save_model(loaded, tmp_path / "again.keras")
    assert read_info(again) == read_info(path)


@pytest.mark.parametrize("build, kind, encoder", [
    (lambda: value_network(5, 49, layers=2, filters=4, hidden=8), "value", ALPHAGO49),
    (lambda: dual_network(5, planes=17, blocks=1, filters=4), "dual", AGZ17),
    (lambda: policy_network(5, 2, layers=2, filters=4), "policy", SIMPLE2),
])
def test_kind_and_encoder_of_every_network(tmp_path, build, kind, encoder):
    path = save_model(build(), tmp_path / "net.keras", encoder=encoder)
    assert load_model(path).mockgo_info == NetworkInfo(kind, encoder, 5)


def test_a_file_without_a_record_loads_with_a_warning(tmp_path):
    path = tmp_path / "old.keras"
    tiny_policy().save(path)  # plain Keras: what mockgo saved before it recorded encoders
    assert read_info(path) is None
    with pytest.warns(UserWarning, match=r"old\.keras records no encoder.*alphago48"):
        model = load_model(path)
    assert model.mockgo_info == NetworkInfo("policy", ALPHAGO48, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_model(path, encoder=ALPHAGO48).mockgo_info.encoder == ALPHAGO48
    with pytest.raises(ValueError, match="makes 2 planes but the model takes 48"):
        load_model(path, encoder=SIMPLE2)


def test_wrong_or_unknown_encoders_are_refused(tmp_path):
    path = save_model(tiny_policy(), tmp_path / "policy.keras", encoder=ALPHAGO48)
    with pytest.raises(ValueError, match="trained on alphago48 planes, not alphago49"):
        load_model(path, encoder=ALPHAGO49)
    with pytest.raises(ValueError, match="makes 2 planes but the model takes 48"):
        save_model(tiny_policy(), tmp_path / "x.keras", encoder=SIMPLE2)
    with pytest.raises(ValueError, match="cannot tell the encoder of a model with 5 planes"):
        save_model(tiny_policy(planes=5), tmp_path / "y.keras")
    assert not (tmp_path / "x.keras").exists() and not (tmp_path / "y.keras").exists()


def test_bad_files_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="no model file .*missing.keras"):
        load_model(tmp_path / "missing.keras")
    text = tmp_path / "notes.keras"
    text.write_text("not a zip archive")
    with pytest.raises(ValueError, match="notes.keras is not a Keras model"):
        load_model(text)
    path = save_model(tiny_policy(), tmp_path / "policy.keras", encoder=ALPHAGO48)
    damaged = tmp_path / "damaged.keras"
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(damaged, "w") as target:
        for item in source.namelist():
            data = b"{not json" if item == INFO_MEMBER else source.read(item)
            target.writestr(item, data)
    with pytest.raises(ValueError, match=f"damaged.keras: its {INFO_MEMBER} is damaged"):
        load_model(damaged)
    record = json.loads(zipfile.ZipFile(path).read(INFO_MEMBER))
    assert record == {"format": 1, "kind": "policy", "encoder": ALPHAGO48, "board_size": 5,
                      "trained_by": {"device": compute_device(), "precision": "float32",
                                     "backend": keras.backend.backend()}}


def test_save_for_play_keeps_the_record_and_drops_the_optimiser(tmp_path):
    model = tiny_policy()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    x = np.zeros((4, 5, 5, 48), np.uint8)
    model.fit(x, np.zeros(4, np.int32), epochs=1, verbose=0)
    path = save_for_play(model, tmp_path / "play.keras", encoder=ALPHAGO48)
    loaded = load_model(path)
    assert loaded.mockgo_info == NetworkInfo("policy", ALPHAGO48, 5)
    assert getattr(loaded, "optimizer", None) is None
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0),
                               rtol=1e-6)


def test_a_truncated_keras_file_is_named_as_damaged(tmp_path):
    # Keras alone says "File not found" of it, although the file is there.
    path = save_model(tiny_policy(), tmp_path / "checkpoint.keras", encoder=ALPHAGO48)
    data = path.read_bytes()
    path.write_bytes(data[:len(data) * 2 // 3])
    with pytest.raises(CorruptFileError) as error:
        load_model(path)
    assert str(error.value).startswith(f"{path} is not a Keras model: not a readable .keras "
                                       f"archive (a zip file; this one is damaged or cut short")


def test_a_saved_network_records_the_device_precision_and_backend_that_trained_it(tmp_path):
    from mockgo.learn.supervised import build_policy
    from mockgo.nets.io import mark_trained_here, read_trained_by

    net = build_policy(2, 4, board_size=5, planes=48, precision="mixed_bfloat16")
    path = save_for_play(net, tmp_path / "policy.keras", encoder=ALPHAGO48)
    # Saved for play in float32, but trained in mixed bfloat16: the record says so.
    expected = {"device": compute_device(), "precision": "mixed_bfloat16",
                "backend": keras.backend.backend()}
    assert read_trained_by(path) == expected
    # Loaded and saved again (as pretrained.ship does), it keeps what it recorded.
    loaded = load_model(path)
    assert loaded.mockgo_trained_by == expected
    assert read_trained_by(save_model(loaded, tmp_path / "again.keras")) == expected
    # Trained further here (as a resumed Zero or REINFORCE run does), it says so.
    elsewhere = dict(expected, device="GPU (somewhere else)")
    loaded.mockgo_trained_by = elsewhere
    assert read_trained_by(save_model(loaded, tmp_path / "kept.keras")) == elsewhere
    mark_trained_here(loaded)
    assert read_trained_by(save_model(loaded, tmp_path / "here.keras")) == dict(
        expected, precision="float32")  # the file it was loaded from computes in float32
    # A plain Keras file records nothing, and saving it does not make it up.
    plain = tmp_path / "plain.keras"
    tiny_policy().save(plain)
    assert read_trained_by(plain) is None
    with pytest.warns(UserWarning, match="records no encoder"):
        old = load_model(plain)
    assert read_trained_by(save_model(old, tmp_path / "old-again.keras")) is None


# ------------------------------------------------------------ architectures by name

TINY_SIZES = {  # each architecture at a size that builds in a moment
    "policy_network": dict(board_size=5, planes=48, layers=2, filters=4),
    "value_network": dict(board_size=5, planes=49, layers=2, filters=4, hidden=8),
    "dual_network": dict(board_size=5, planes=17, blocks=1, filters=4),
    "imago_dense_network": dict(board_size=5, planes=2, hidden=8),
    "imago_conv_network": dict(board_size=5, planes=2, filters=(4, 4)),
}


def test_every_architecture_is_built_by_name_and_its_kind_matches_its_heads():
    assert set(TINY_SIZES) == set(ARCHITECTURES)
    assert {a.kind for a in ARCHITECTURES.values()} <= set(KINDS)
    for name, architecture in ARCHITECTURES.items():
        model = build_network(name, **TINY_SIZES[name])
        assert model.mockgo_architecture == name and kind_of(model) == architecture.kind
        del model.mockgo_architecture  # what is guessed from the outputs agrees
        assert kind_of(model) == architecture.kind, name
    with pytest.raises(ValueError, match="unknown architecture 'resnet'; known: policy_network"):
        build_network("resnet")


def test_a_file_records_its_architecture_and_its_kind_is_read_from_the_table(tmp_path):
    model = build_network("value_network", **TINY_SIZES["value_network"])
    path = save_for_play(model, tmp_path / "value.keras", encoder=ALPHAGO49)
    record = json.loads(zipfile.ZipFile(path).read(INFO_MEMBER))
    assert record["architecture"] == "value_network" and record["kind"] == "value"
    loaded = load_model(path)
    assert loaded.mockgo_architecture == "value_network" and kind_of(loaded) == "value"

    def rewritten(name, **changes):  # the same file, its record changed
        target = tmp_path / name
        with zipfile.ZipFile(path) as source, zipfile.ZipFile(target, "w") as copy:
            for item in source.namelist():
                data = source.read(item)
                if item == INFO_MEMBER:
                    data = json.dumps({key: value for key, value in {**record, **changes}.items()
                                       if value is not None})
                copy.writestr(item, data)
        return target

    # The table decides over a recorded kind; an old file (no name) is read
    # by its kind, and so is a name this mockgo does not know.
    assert read_info(rewritten("named.keras", kind="policy")).kind == "value"
    assert read_info(rewritten("old.keras", architecture=None, kind="value")).kind == "value"
    assert read_info(rewritten("new.keras", architecture="transformer")).kind == "value"
    old = load_model(tmp_path / "old.keras")
    assert not hasattr(old, "mockgo_architecture") and kind_of(old) == "value"
