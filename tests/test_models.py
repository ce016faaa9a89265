"""The network builders of mockgo.nets.models and the Predictor of mockgo.nets.inference.

Small sizes throughout (the paper-sized policy net is built, never run), so
the module takes seconds on two cores.
"""

import keras
import numpy as np
import pytest

from mockgo import Board
from mockgo.nets.inference import Predictor, masked_policy
from mockgo.nets.models import (dual_network, imago_conv_network, imago_dense_network, logits_model,
                                minigo_tower, policy_network, value_network)

N = 5  # board size for the small nets

BUILDERS = {
    "policy": lambda: policy_network(N, 48, layers=3, filters=8),
    "policy_pass": lambda: policy_network(N, 48, layers=3, filters=8, include_pass=True),
    "value": lambda: value_network(N, 49, layers=3, filters=8, hidden=16),
    "dual": lambda: dual_network(N, 17, blocks=2, filters=8, l2=1e-4),
    "imago_dense": lambda: imago_dense_network(),
    "imago_conv": lambda: imago_conv_network(),
}


@pytest.fixture(scope="module")
def built():
    keras.utils.set_random_seed(0)
    return {name: build() for name, build in BUILDERS.items()}


def random_planes(model, batch, seed=0):
    shape = model.input_shape[1:]
    return np.random.default_rng(seed).integers(0, 2, (batch, *shape), dtype=np.uint8)


def as_list(outputs):
    return list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]


# ------------------------------------------------------------------ shapes


@pytest.mark.parametrize("name, moves", [
    ("policy", N * N), ("policy_pass", N * N + 1), ("imago_dense", 82), ("imago_conv", 82),
])
def test_policies_are_probabilities_over_the_moves(built, name, moves):
    model = built[name]
    assert model.input.dtype == "uint8"
    policy = np.asarray(model(random_planes(model, 4), training=False))
    assert policy.shape == (4, moves)
    assert (policy >= 0).all()
    np.testing.assert_allclose(policy.sum(axis=1), 1.0, atol=1e-5)


def test_value_network_outputs_one_value_in_range(built):
    model = built["value"]
    value = np.asarray(model(random_planes(model, 4), training=False))
    assert value.shape == (4, 1)
    assert (np.abs(value) <= 1).all()


def test_dual_network_outputs_policy_with_pass_and_value(built):
    model = built["dual"]
    assert model.output_names == ["policy", "value"]
    policy, value = (np.asarray(t) for t in model(random_planes(model, 3), training=False))
    assert policy.shape == (3, N * N + 1) and value.shape == (3, 1)
    np.testing.assert_allclose(policy.sum(axis=1), 1.0, atol=1e-5)
    assert (np.abs(value) <= 1).all()


def test_float_and_uint8_planes_give_the_same_output(built):
    model = built["imago_conv"]
    planes = random_planes(model, 2)
    as_uint8 = np.asarray(model(planes, training=False))
    float_model = imago_conv_network(input_dtype="float32")
    float_model.set_weights(model.get_weights())
    np.testing.assert_allclose(
        np.asarray(float_model(planes.astype(np.float32), training=False)), as_uint8, atol=1e-6)


def test_logits_model_gives_the_softmax_input(built):
    for name in ("policy", "policy_pass", "dual", "imago_dense"):
        model = built[name]
        planes = random_planes(model, 2)
        logits = np.asarray(logits_model(model)(planes, training=False), dtype=np.float64)
        policy = np.asarray(as_list(model(planes, training=False))[0])
        expected = np.exp(logits - logits.max(axis=1, keepdims=True))
        expected /= expected.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(policy, expected, atol=1e-5)


def test_dual_value_hidden_defaults_to_64_on_9x9_and_256_on_19x19():
    assert dual_network(9, blocks=0, filters=4).get_layer("value_hidden").units == 64
    assert dual_network(19, blocks=0, filters=4).get_layer("value_hidden").units == 256
    assert dual_network(13, blocks=0, filters=4).get_layer("value_hidden").units == 64
    small = dual_network(9, blocks=0, filters=4, value_hidden=32)
    assert small.get_layer("value_hidden").units == 32


# -------------------------------------------------------- parameter counts


def alphago_policy_params(n, planes, layers, k, first_kernel=5):
    """By hand: first conv (weights + bias), (layers-2) 3x3 convs, the 1x1
    conv without bias, and a bias per point."""
    first = first_kernel * first_kernel * planes * k + k
    middle = (layers - 2) * (3 * 3 * k * k + k)
    return first + middle + k + n * n


def dual_params(n, planes, blocks, f, hidden):
    """By hand: convs have no bias; a batch norm has 4 numbers per channel
    (gamma, beta, moving mean and variance)."""
    conv_bn = lambda kernel, cin, cout: kernel * kernel * cin * cout + 4 * cout  # noqa: E731
    trunk = conv_bn(3, planes, f) + blocks * 2 * conv_bn(3, f, f)
    policy = conv_bn(1, f, 2) + (2 * n * n) * (n * n + 1) + (n * n + 1)
    value = conv_bn(1, f, 1) + (n * n) * hidden + hidden + hidden + 1
    return trunk + policy + value


def test_the_papers_policy_network_has_the_expected_parameter_count():
    model = policy_network(layers=13, filters=192)  # built, never run
    assert len([layer for layer in model.layers if isinstance(layer, keras.layers.Conv2D)]) == 13
    assert model.output_shape == (None, 361)
    assert model.count_params() == alphago_policy_params(19, 48, 13, 192) == 3_882_793


def test_parameter_counts_follow_the_sizes():
    assert policy_network(N, 48, 3, 8).count_params() == alphago_policy_params(N, 48, 3, 8)
    assert policy_network(N, 48, 4, 8).count_params() == alphago_policy_params(N, 48, 4, 8)
    assert policy_network(N, 48, 3, 16).count_params() == alphago_policy_params(N, 48, 3, 16)
    with_pass = policy_network(N, 48, 3, 8, include_pass=True).count_params()
    assert with_pass == alphago_policy_params(N, 48, 3, 8) + N * N * 8 + 1

    trunk = alphago_policy_params(N, 49, 3, 8) - (8 + N * N)
    value_head = (8 + 1) + (N * N * 16 + 16) + (16 + 1)
    assert value_network(N, 49, 3, 8, hidden=16).count_params() == trunk + value_head
    assert value_network(N, 49, 4, 8, hidden=16).count_params() > trunk + value_head

    for blocks, filters in [(0, 8), (1, 8), (2, 8), (2, 16)]:
        model = dual_network(N, 17, blocks, filters, value_hidden=16)
        assert model.count_params() == dual_params(N, 17, blocks, filters, 16)

    # Imago's: the two dense layers act on each point's planes (2 -> 81 -> 81),
    # then flatten (81 points x 81) and dense to the 82 moves.
    dense = (2 * 81 + 81) + (81 * 81 + 81) + (81 * 81 * 82 + 82)
    assert imago_dense_network().count_params() == dense
    conv = (9 * 2 * 32 + 32) + (9 * 32 * 64 + 64) + (3 * 3 * 64 * 82 + 82)
    assert imago_conv_network().count_params() == conv


def test_l2_adds_one_penalty_per_convolution_and_dense_layer(built):
    blocks = 2
    assert len(built["dual"].losses) == (1 + 2 * blocks + 2) + 3
    assert all(float(loss) > 0 for loss in built["dual"].losses)
    assert dual_network(N, 17, blocks=1, filters=4).losses == []


# ----------------------------------------------------------- save and load


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_saved_model_loads_with_identical_predictions(built, name, tmp_path):
    model = built[name]
    planes = random_planes(model, 3, seed=1)
    path = tmp_path / "m.keras"
    model.save(path)
    loaded = keras.models.load_model(path)
    assert loaded.count_params() == model.count_params()
    assert loaded.input.dtype == "uint8"
    for before, after in zip(as_list(model(planes, training=False)),
                             as_list(loaded(planes, training=False))):
        np.testing.assert_array_equal(np.asarray(before), np.asarray(after))


# -------------------------------------------------------------- Predictor


def test_predictor_matches_model_predict(built):
    policy_model = built["policy"]
    planes = random_planes(policy_model, 11, seed=2)
    predictor = Predictor(policy_model, batch_size=4)  # 3 chunks
    expected = policy_model.predict(planes, verbose=0)
    np.testing.assert_allclose(predictor.predict(planes), expected, atol=1e-6)

    dual = built["dual"]
    planes = random_planes(dual, 9, seed=3)
    policy, value = Predictor(dual, batch_size=4).predict(planes)
    expected_policy, expected_value = dual.predict(planes, verbose=0)
    assert policy.shape == (9, N * N + 1) and value.shape == (9,)
    np.testing.assert_allclose(policy, expected_policy, atol=1e-6)
    np.testing.assert_allclose(value, expected_value[:, 0], atol=1e-6)


def test_predictor_takes_one_position_and_empty_batches(built):
    dual = built["dual"]
    predictor = Predictor(dual)
    planes = random_planes(dual, 2, seed=4)
    policy, value = predictor.predict(planes[0])
    assert policy.shape == (N * N + 1,) and np.ndim(value) == 0
    batch_policy, batch_value = predictor.predict(planes)
    np.testing.assert_allclose(policy, batch_policy[0], atol=1e-6)
    empty_policy, empty_value = predictor.predict(planes[:0])
    assert empty_policy.shape == (0, N * N + 1) and empty_value.shape == (0,)
    with pytest.raises(ValueError):
        predictor.predict(np.zeros((1, N, N, 3), np.uint8))


def test_predictor_traces_once_for_all_batch_sizes(built):
    predictor = Predictor(built["dual"], batch_size=8)
    planes = random_planes(built["dual"], 20, seed=5)
    for batch in (1, 3, 8, 5, 20, 2, 1):
        policy, _ = predictor.predict(planes[:batch])
        assert len(policy) == batch
    assert predictor.tracing_count == 1
    assert predictor.traces == 1


def test_policy_and_value_masks_the_policy(built):
    dual = built["dual"]
    board = Board(N)
    board.play(0)
    board.play(1)
    legal = board.legal_moves()
    planes = random_planes(dual, 1, seed=6)
    policy, value = Predictor(dual).policy_and_value(planes, legal[np.newaxis])
    assert policy.shape == (1, N * N + 1) and value.shape == (1,)
    assert (policy[0, ~legal] == 0).all() and (policy[0, legal] > 0).all()
    np.testing.assert_allclose(policy.sum(axis=1), 1.0, atol=1e-12)
    with pytest.raises(ValueError):
        Predictor(built["policy"]).policy_and_value(random_planes(built["policy"], 1), legal)


# ----------------------------------------------------------- masked_policy


def test_masked_policy_zeros_illegal_moves_and_renormalises():
    rng = np.random.default_rng(7)
    probabilities = rng.dirichlet(np.ones(10), size=6).astype(np.float32)
    legal = rng.random((6, 10)) < 0.5
    legal[:, -1] = True  # pass
    out = masked_policy(probabilities, legal)
    assert out.dtype == np.float64
    assert (out[~legal] == 0).all()
    np.testing.assert_allclose(out.sum(axis=1), 1.0, atol=1e-12)
    expected = np.where(legal, probabilities, 0)
    np.testing.assert_allclose(out, expected / expected.sum(axis=1, keepdims=True), rtol=1e-6)
    rng.choice(10, p=out[0])  # float64 rows are accepted by Generator.choice
    np.testing.assert_allclose(masked_policy(probabilities[0], legal[0]), out[0])


def test_masked_policy_with_no_legal_mass_is_uniform_over_legal_moves():
    probabilities = np.array([[0.0, 0.0, 1.0, 0.0]])
    legal = np.array([[True, True, False, True]])
    np.testing.assert_allclose(masked_policy(probabilities, legal), [[1 / 3, 1 / 3, 0, 1 / 3]])


def test_masked_policy_without_a_pass_output():
    # A 2x2 board: 4 points in the policy, 5 moves in the masks.
    probabilities = np.array([[0.1, 0.2, 0.3, 0.4]] * 3)
    legal = np.array([
        [True, False, True, False, True],    # some points legal: pass gets 0
        [False, False, False, False, True],  # all illegal but pass: pass gets 1
        [True, True, False, False, True],    # no mass on legal points: uniform over them
    ])
    probabilities[2] = [0.0, 0.0, 0.5, 0.5]
    out = masked_policy(probabilities, legal)
    assert out.shape == (3, 5)
    np.testing.assert_allclose(out[0], [0.25, 0, 0.75, 0, 0])
    np.testing.assert_allclose(out[1], [0, 0, 0, 0, 1])
    np.testing.assert_allclose(out[2], [0.5, 0.5, 0, 0, 0])


def test_masked_policy_only_pass_legal_with_a_pass_output():
    probabilities = np.array([[0.5, 0.5, 0.0]])
    out = masked_policy(probabilities, np.array([[False, False, True]]))
    np.testing.assert_allclose(out, [[0, 0, 1]])


def test_masked_policy_rejects_bad_input():
    with pytest.raises(ValueError):
        masked_policy(np.ones((1, 4)) / 4, np.zeros((1, 4), bool))  # no legal move
    with pytest.raises(ValueError):
        masked_policy(np.ones((1, 4)) / 4, np.ones((1, 7), bool))  # widths do not fit
    with pytest.raises(ValueError):
        masked_policy(np.ones((2, 4)) / 4, np.ones((3, 4), bool))  # rows do not match


def test_the_tower_takes_minigos_sizes_for_the_board():
    # MiniGo's dual_net.py: trunk_layers = go.N; conv_width and fc_width 256
    # on 19x19, 32 and 64 on smaller boards.
    assert minigo_tower(19) == (19, 256, 256)
    assert minigo_tower(9) == (9, 32, 64)
    assert minigo_tower(13) == (13, 32, 64)
    nine = dual_network(9)
    residual = [layer for layer in nine.layers if layer.name.endswith("_add")]
    assert len(residual) == 9
    assert nine.get_layer("init_conv").filters == 32
    assert nine.get_layer("value_hidden").units == 64
    assert dual_network(9, blocks=2).get_layer("res2_conv1").filters == 32


_OTHER_BACKEND = """
import json, sys
import numpy as np
from mockgo import pretrained
from mockgo.nets.inference import Predictor

planes = np.load(sys.argv[1])
out, counts = {}, {}
for name, batch_size in (("zero-9", 256), ("sl-19", 16)):
    predictor = Predictor(pretrained.load(name), batch_size=batch_size)
    x = planes[name]
    for count in (37, 5, 37):  # 37: one chunk padded to 64, or 16 + 16 + 5 (padded to 8)
        result = predictor.predict(x[:count])
    result = result if isinstance(result, tuple) else (result,)
    for k, array in enumerate(result):
        out[f"{name}-{k}"] = array
    counts[name] = predictor.tracing_count
np.savez(sys.argv[2], **out)
print(json.dumps({"backend": predictor.backend, "counts": counts,
                  "tensorflow_imported": "tensorflow" in sys.modules}))
"""


def test_predictor_under_the_jax_backend_gives_tensorflows_outputs(jax_module, tmp_path):
    # A machine whose GPU TensorFlow does not reach can still play (the
    # inference module's docstring): the Predictor then calls the backend's
    # compiled predict on chunks padded to powers of two.
    import json
    import os
    import subprocess
    import sys

    from mockgo import pretrained

    rng = np.random.default_rng(0)
    planes = {}
    for name in ("zero-9", "sl-19"):
        shape = Predictor(pretrained.load(name)).input_shape
        planes[name] = (rng.random((37, *shape)) < 0.3).astype(np.uint8)
    np.savez(tmp_path / "planes.npz", **planes)
    env = dict(os.environ, KERAS_BACKEND="jax", JAX_PLATFORMS="cpu")
    run = subprocess.run([sys.executable, "-c", _OTHER_BACKEND, str(tmp_path / "planes.npz"),
                          str(tmp_path / "out.npz")], env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["backend"] == "jax"
    assert not report["tensorflow_imported"]
    # zero-9: batches of 37 and 5 compile for 64 and 8; sl-19 (batch_size 16):
    # chunks of 16 and 5, compiled for 16 and 8.
    assert report["counts"] == {"zero-9": 2, "sl-19": 2}
    theirs = np.load(tmp_path / "out.npz")
    for name in ("zero-9", "sl-19"):
        ours = Predictor(pretrained.load(name)).predict(planes[name])
        ours = ours if isinstance(ours, tuple) else (ours,)
        for k, array in enumerate(ours):
            assert theirs[f"{name}-{k}"].shape == array.shape
            np.testing.assert_allclose(theirs[f"{name}-{k}"], array, atol=1e-4)
