"""Supervised training (fit on dataset shards, checkpoints, resuming) and the
evaluation of policy networks against the uniform and heuristic baselines."""

import csv
import json
import math
import random
import shutil

import keras
import numpy as np
import pytest

from mockgo import Board
from mockgo.arena.evaluation import (by_move_number, evaluate_sgf, evaluate_split, expected_hits,
                                     near_miss, uniform_accuracy)
from mockgo.data import sgf_reader, sgf_writer
from mockgo.data.dataset import DatasetSpec, build_dataset, load_split
from mockgo.go.board import BLACK, WHITE
from mockgo.learn import supervised as training
from mockgo.learn.value import fit_value_network
from mockgo.nets.device import (XLA_MIN_MULTIPLY_ADDS, compute_device, multiply_adds,
                                training_jit_compile)
from mockgo.nets.io import NetworkInfo, load_model, save_for_play, save_model
from mockgo.nets.models import (dual_network, imago_conv_network, imago_dense_network,
                                policy_network, value_network)
from mockgo.play.specs import make_player


def random_game(size, seed, moves):
    rng = random.Random(seed)
    board = Board(size, komi=6.5)
    while board.move_number < moves:
        choices = np.flatnonzero(board.sensible_moves()[:-1])
        board.play(int(rng.choice(choices)))
    return sgf_writer.record_from_board(board, black="b", white="w")


def tiny_policy(size=9, planes=2, seed=0, layers=3, filters=32):
    keras.utils.set_random_seed(seed)
    return policy_network(board_size=size, planes=planes, layers=layers, filters=filters,
                          first_kernel=3)


def constant_policy(size, planes, bias):
    """A policy network that ignores the position: its convolutions are
    zero, so its logits are its point biases alone, ``bias`` (``{point:
    logit}``, 0 elsewhere)."""
    model = policy_network(board_size=size, planes=planes, layers=2, filters=4)
    logits = np.zeros(size * size, np.float32)
    for point, logit in bias.items():
        logits[point] = logit
    model.set_weights([np.zeros_like(w) for w in model.get_weights()[:-1]] + [logits])
    return model


@pytest.fixture(scope="module")
def one_game_dataset(tmp_path_factory):
    """64 positions of one random 9x9 game, all in the train split."""
    folder = tmp_path_factory.mktemp("one-game")
    sgf_writer.save_sgf(random_game(9, 7, 64), folder / "game.sgf")
    spec = DatasetSpec(encoder="simple2", board_size=9, validation_share=0.0, test_share=0.0)
    build_dataset([folder / "game.sgf"], folder / "ds", spec, workers=1, progress=False)
    return folder / "ds"


@pytest.fixture(scope="module")
def games_folder(tmp_path_factory):
    """Random 9x9 games of 45 moves (no passes) as SGF files."""
    folder = tmp_path_factory.mktemp("games")
    for i in range(6):
        sgf_writer.save_sgf(random_game(9, 100 + i, 45), folder / f"game-{i}.sgf")
    return folder


# ------------------------------------------------------------------ training


def test_a_tiny_net_overfits_64_positions(one_game_dataset, tmp_path):
    planes, moves, _ = load_split(one_game_dataset, "train")
    assert len(moves) == 64 and (moves < 81).all()
    # Four 3x3 layers see 9x9 around each point: with three (7x7) a few
    # positions of this game look alike where their moves are, and a net
    # stalls near 92% on either backend, whatever its width or learning rate.
    model = tiny_policy(layers=4)
    history = training.train_policy(model, one_game_dataset, tmp_path / "run", epochs=8,
                                    batch_size=64, learning_rate=0.01, steps_per_epoch=40,
                                    schedule="constant", optimizer="adam", augment=False,
                                    progress=False)
    assert history["epoch"] == list(range(8))
    predicted = model.predict(planes, verbose=0).argmax(axis=1)
    assert (predicted == moves).mean() >= 0.95
    assert history["top1"][-1] >= 0.95 and history["top5"][-1] >= history["top1"][-1]


@pytest.mark.parametrize("build", [imago_dense_network, imago_conv_network],
                         ids=["imago-dense", "imago-conv"])
def test_imagos_networks_learn_9x9_games_and_play_from_their_file(build, one_game_dataset,
                                                                  tmp_path):
    # Notebook 01's first networks: 82 outputs (pass last) trained on simple2
    # planes; saved for play, the file records its encoder and board size,
    # so the spec needs no options.
    planes, moves, _ = load_split(one_game_dataset, "train")
    keras.utils.set_random_seed(0)
    model = build()
    history = training.train_policy(model, one_game_dataset, tmp_path / "run", epochs=6,
                                    batch_size=64, learning_rate=0.003, steps_per_epoch=30,
                                    schedule="constant", augment=False, progress=False)
    assert model.output_shape == (None, 82)
    predicted = model.predict(planes, verbose=0).argmax(axis=1)
    assert (predicted == moves).mean() >= 0.9 and history["top1"][-1] >= 0.9
    save_for_play(model, tmp_path / "imago.keras")
    player = make_player(f"policy:path={tmp_path / 'imago.keras'}")
    assert player.encoder.name == "simple2" and player.size == 9
    board = Board(9)
    assert player.select_move(board) == int(predicted[0])


def test_a_dual_network_learns_the_moves_and_the_result_of_a_game_and_resumes(one_game_dataset,
                                                                             tmp_path):
    # AlphaGo Zero's supervised experiment in miniature: one network, the
    # policy on the move played (passes included), the value on the result.
    planes, moves, outcomes = load_split(one_game_dataset, "train")
    keras.utils.set_random_seed(0)
    model = dual_network(9, 2, blocks=1, filters=16)
    # 640 steps: enough for the batch norms' moving averages (what predict uses) to settle.
    options = dict(batch_size=64, learning_rate=0.003, steps_per_epoch=80, schedule="constant",
                   augment=False, progress=False, value_weight=1.0)
    with pytest.raises(KeyboardInterrupt):
        training.train_policy(model, one_game_dataset, tmp_path / "run", epochs=8,
                              callbacks=[InterruptAfterFirstEpoch()], **options)
    model = dual_network(9, 2, blocks=1, filters=16)
    history = training.train_policy(model, one_game_dataset, tmp_path / "run", epochs=8,
                                    **options)
    assert history["epoch"] == list(range(8))
    assert history["policy_top1"][-1] >= 0.9
    policy, value = model.predict(planes, verbose=0)
    assert (policy.argmax(axis=1) == moves).mean() >= 0.9
    assert np.mean((value[:, 0] - outcomes) ** 2) < 0.2  # a constant guess scores 1
    assert load_model(tmp_path / "run" / "checkpoint_00008.keras").mockgo_info.kind == "dual"
    with pytest.raises(ValueError, match="value_weight"):
        training.train_policy(model, one_game_dataset, tmp_path / "run", epochs=9,
                              **dict(options, value_weight=0.01))


class InterruptAfterFirstEpoch(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        raise KeyboardInterrupt


class RecordEpochs(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.epochs = []

    def on_epoch_begin(self, epoch, logs=None):
        self.epochs.append(epoch)


def logged_epochs(run):
    with open(run / "log.csv", newline="") as file:
        return [int(row["epoch"]) for row in csv.DictReader(file)]


def test_an_interrupted_run_resumes_at_the_next_epoch(one_game_dataset, tmp_path):
    run = tmp_path / "run"
    options = dict(epochs=3, batch_size=16, learning_rate=0.01, steps_per_epoch=4,
                   optimizer="sgd", progress=False)
    with pytest.raises(KeyboardInterrupt):
        training.train_policy(tiny_policy(seed=1), one_game_dataset, run,
                              callbacks=[InterruptAfterFirstEpoch()], **options)
    assert json.loads((run / "state.json").read_text())["epoch"] == 1
    assert logged_epochs(run) == [0]
    assert json.loads((run / "state.json").read_text())["checkpoint"] == "checkpoint_00001.keras"
    saved = keras.models.load_model(run / "checkpoint_00001.keras").get_weights()
    # An epoch logged but never checkpointed (a crash between the two) is dropped.
    columns = (run / "log.csv").read_text().splitlines()[0].split(",")
    with open(run / "log.csv", "a") as file:
        file.write("1," + ",".join(["0.5"] * (len(columns) - 1)) + "\n")

    fresh = tiny_policy(seed=2)  # other initial weights: resuming must replace them
    recorder = RecordEpochs()

    class CheckRestored(keras.callbacks.Callback):
        def on_train_begin(self, logs=None):  # each epoch is a fit: the first one's
            if not hasattr(self, "weights"):
                self.weights = self.model.get_weights()

    check = CheckRestored()
    history = training.train_policy(fresh, one_game_dataset, run, callbacks=[recorder, check],
                                    **options)
    assert recorder.epochs == [1, 2]
    assert all(np.array_equal(a, b) for a, b in zip(check.weights, saved))
    assert int(fresh.optimizer.iterations) == 3 * 4  # the optimizer's state came back too
    assert logged_epochs(run) == [0, 1, 2] and history["epoch"] == [0, 1, 2]
    assert json.loads((run / "state.json").read_text())["epoch"] == 3
    # Each epoch's wall-clock time is logged, so sessions add up to a training time.
    assert len(history["seconds"]) == 3 and all(s > 0 for s in history["seconds"])
    assert training.run_summary(run).startswith("3 of 3 epochs, 192 positions, ")
    assert "untimed" not in training.run_summary(run)
    # Done: a third call trains nothing and returns the same history.
    again = training.train_policy(tiny_policy(seed=3), one_game_dataset, run, **options)
    assert again == history


def test_checkpoints_leave_no_temporary_files(one_game_dataset, tmp_path, monkeypatch):
    run = tmp_path / "run"
    training.train_policy(tiny_policy(), one_game_dataset, run, epochs=2, batch_size=32,
                          learning_rate=0.01, steps_per_epoch=2, progress=False)
    names = [".lock", "checkpoint_00002.keras", "log.csv", "state.json"]  # .lock: the run's
    assert sorted(p.name for p in run.iterdir()) == names
    before = (run / "checkpoint_00002.keras").read_bytes()

    model = tiny_policy()

    def broken_save(path, *args, **kwargs):
        with open(path, "wb") as file:
            file.write(b"half a file")
        raise OSError("disk full")

    monkeypatch.setattr(model, "save", broken_save)
    with pytest.raises(OSError, match="disk full"):
        save_model(model, run / "checkpoint_00002.keras")
    assert (run / "checkpoint_00002.keras").read_bytes() == before
    assert sorted(p.name for p in run.iterdir()) == names
    # A write killed halfway leaves its temporary (no cleanup runs on SIGKILL):
    # the run's next call deletes it, and nothing else.
    (run / ".checkpoint_00003.keras.k2j4_x9a.tmp.keras").write_bytes(b"half a file")
    training.train_policy(tiny_policy(), one_game_dataset, run, epochs=2, batch_size=32,
                          learning_rate=0.01, steps_per_epoch=2, progress=False)
    assert sorted(p.name for p in run.iterdir()) == names


def test_another_network_in_the_run_folder_is_refused(one_game_dataset, tmp_path):
    run = tmp_path / "run"
    options = dict(batch_size=16, learning_rate=0.01, steps_per_epoch=1, progress=False)
    training.train_policy(tiny_policy(), one_game_dataset, run, epochs=1, **options)
    with pytest.raises(ValueError, match="another network"):
        training.train_policy(tiny_policy(filters=8), one_game_dataset, run, epochs=2, **options)


SHORT = dict(batch_size=16, learning_rate=0.01, steps_per_epoch=2, optimizer="sgd",
             progress=False)


def test_a_crash_between_checkpoint_and_state_applies_no_epoch_twice(one_game_dataset, tmp_path,
                                                                     monkeypatch):
    run = tmp_path / "run"
    real = training._write_state

    def crash_at_epoch_2(run_dir, state):
        if state["epoch"] == 2:  # the checkpoint of epoch 2 is on disk already
            raise KeyboardInterrupt
        real(run_dir, state)

    monkeypatch.setattr(training, "_write_state", crash_at_epoch_2)
    with pytest.raises(KeyboardInterrupt):
        training.train_policy(tiny_policy(), one_game_dataset, run, epochs=3, **SHORT)
    assert (run / "checkpoint_00002.keras").exists()
    assert json.loads((run / "state.json").read_text())["epoch"] == 1
    monkeypatch.setattr(training, "_write_state", real)
    model, recorder = tiny_policy(), RecordEpochs()
    history = training.train_policy(model, one_game_dataset, run, epochs=3,
                                    callbacks=[recorder], **SHORT)
    assert recorder.epochs == [1, 2]  # epoch 1 again, from the checkpoint of epoch 0's end
    assert int(model.optimizer.iterations) == 3 * 2  # 3 epochs of 2 steps, none twice
    assert history["epoch"] == logged_epochs(run) == [0, 1, 2]
    assert sorted(p.name for p in run.glob("*.keras")) == ["checkpoint_00003.keras"]


def test_the_progress_heads_each_epoch_with_the_runs_count(one_game_dataset, tmp_path, capsys):
    # Each epoch is a fit of its own: Keras alone would head them "Epoch 2/2",
    # "Epoch 3/3", and the first not at all.
    options = dict(SHORT, progress="epoch")
    training.train_policy(tiny_policy(), one_game_dataset, tmp_path / "run", epochs=2, **options)
    headers = [line for line in capsys.readouterr().out.splitlines() if line.startswith("Epoch")]
    assert headers == ["Epoch 1/2", "Epoch 2/2"]
    training.train_policy(tiny_policy(), one_game_dataset, tmp_path / "run", epochs=4, **options)
    headers = [line for line in capsys.readouterr().out.splitlines() if line.startswith("Epoch")]
    assert headers == ["Epoch 3/4", "Epoch 4/4"]  # resumed: from the epoch it stopped at


def test_work_without_a_state_is_refused_unless_restarted(one_game_dataset, tmp_path):
    run = tmp_path / "run"
    training.train_policy(tiny_policy(), one_game_dataset, run, epochs=2, **SHORT)
    (run / "state.json").unlink()
    with pytest.raises(ValueError) as error:
        training.train_policy(tiny_policy(), one_game_dataset, run, epochs=3, **SHORT)
    message = str(error.value)
    assert message.startswith(f"{run} holds earlier work (2 files: checkpoint_00002.keras, "
                              f"log.csv) but no readable state.json")
    assert "pass restart=True to train_policy" in message
    assert logged_epochs(run) == [0, 1] and (run / "checkpoint_00002.keras").exists()
    # Asked for, a restart deletes the work and trains from the first epoch.
    history = training.train_policy(tiny_policy(), one_game_dataset, run, epochs=1,
                                    restart=True, **SHORT)
    assert history["epoch"] == logged_epochs(run) == [0]
    assert sorted(p.name for p in run.iterdir()) == [".lock", "checkpoint_00001.keras",
                                                     "log.csv", "state.json"]


def test_damaged_state_and_checkpoint_are_named(one_game_dataset, tmp_path):
    run = tmp_path / "run"
    training.train_policy(tiny_policy(), one_game_dataset, run, epochs=1, **SHORT)
    state = (run / "state.json").read_bytes()
    (run / "state.json").write_bytes(state[:len(state) // 2])
    with pytest.raises(ValueError, match=rf"^{run / 'state.json'} is damaged: not valid JSON "
                                         r"\(.*\); it should hold the training run's settings "
                                         r"and progress. To delete the run's work and start "
                                         r"over, pass restart=True to train_policy$"):
        training.train_policy(tiny_policy(), one_game_dataset, run, epochs=2, **SHORT)
    (run / "state.json").write_bytes(state)
    checkpoint = run / "checkpoint_00001.keras"
    checkpoint.write_bytes(checkpoint.read_bytes()[:1000])
    with pytest.raises(ValueError, match=rf"^{checkpoint} is not a Keras model: not a readable "
                                         r"\.keras archive"):
        training.train_policy(tiny_policy(), one_game_dataset, run, epochs=2, **SHORT)


def test_resuming_with_other_settings_is_refused(one_game_dataset, games_folder, tmp_path):
    run = tmp_path / "run"
    training.train_policy(tiny_policy(), one_game_dataset, run, epochs=1, **SHORT)
    for change, difference in ((dict(batch_size=8), "'batch_size': (16, 8)"),
                               (dict(schedule="step"), "'schedule': ('cosine', 'step')"),
                               (dict(learning_rate=0.1), "'learning_rate': (0.01, 0.1)")):
        with pytest.raises(ValueError, match="made with other settings") as error:
            training.train_policy(tiny_policy(), one_game_dataset, run, epochs=2,
                                  **{**SHORT, **change})
        assert difference in str(error.value) and str(run) in str(error.value)
    other = tmp_path / "other-ds"
    spec = DatasetSpec(encoder="simple2", board_size=9, validation_share=0.0, test_share=0.0)
    build_dataset([games_folder / "game-0.sgf"], other, spec, workers=1, progress=False)
    with pytest.raises(ValueError, match="made with other settings.*'dataset': "):
        training.train_policy(tiny_policy(), other, run, epochs=2, **SHORT)
    # More epochs are not another setting: they train further, also from the
    # same dataset in another folder (a moved checkout).
    moved = tmp_path / "moved" / "dataset"
    shutil.copytree(one_game_dataset, moved)
    history = training.train_policy(tiny_policy(), moved, run, epochs=2, **SHORT)
    assert history["epoch"] == [0, 1]


def test_learning_rate_schedules():
    assert training.learning_rate_at(0, 0.1, 10, "cosine") == pytest.approx(0.1)
    assert training.learning_rate_at(5, 0.1, 10, "cosine") == pytest.approx(0.05)
    rates = [training.learning_rate_at(e, 0.1, 8, "step") for e in range(8)]
    assert rates == pytest.approx([0.1] * 4 + [0.01] * 2 + [0.001] * 2)
    assert training.learning_rate_at(7, 0.1, 8, "constant") == 0.1
    with pytest.raises(ValueError):
        training.learning_rate_at(0, 0.1, 8, "linear")


def test_mixed_precision_policy_is_saved_as_float32(tmp_path):
    model = training.build_policy(2, 4, board_size=5, planes=2, precision="mixed_bfloat16", seed=0)
    assert model.get_layer("conv_1").compute_dtype == "bfloat16"
    assert model.get_layer("policy").compute_dtype == "float32"
    path = save_for_play(model, tmp_path / "policy.keras")
    loaded = load_model(path)
    assert {layer.compute_dtype for layer in loaded.layers} == {"float32"}
    # Mixed precision keeps float32 weights: they are saved as they are...
    saved = loaded.get_weights()
    assert len(saved) == len(model.get_weights())
    for ours, theirs in zip(saved, model.get_weights()):
        assert ours.dtype == np.float32
        np.testing.assert_array_equal(ours, theirs)
    # ...and the loaded network computes what the same weights give in
    # float32, to float32 rounding (bfloat16 would be off by about 0.5%).
    reference = training.build_policy(2, 4, board_size=5, planes=2, precision="float32")
    reference.set_weights(model.get_weights())
    x = np.random.default_rng(0).integers(0, 2, (16, 5, 5, 2)).astype(np.uint8)
    float32 = reference.predict(x, verbose=0)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), float32, rtol=1e-5)
    # The bfloat16 original agrees to bfloat16's precision: log-probabilities
    # within 0.05 (at most 0.009 apart over 20 seeds of weights).
    np.testing.assert_allclose(np.log(model.predict(x, verbose=0)), np.log(float32), atol=0.05)
    assert loaded.mockgo_info == NetworkInfo("policy", "simple2", 5)


def test_training_compiles_with_xla_in_float32_and_leaves_mixed_precision_to_keras(tmp_path):
    # Keras' "auto" turns XLA off where TensorFlow sees only a CPU; in float32
    # XLA trained faster there on a CPU without AVX-512 (benchmarks/train.py
    # --against-graph), slower on one with it (benchmarks/xla_fit.py).
    avx2, avx512 = tmp_path / "avx2", tmp_path / "avx512"
    avx2.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma\n")
    avx512.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma avx512f avx512_bf16\n")
    inputs = keras.Input((1,))
    keras_choice = keras.Model(inputs, keras.layers.Dense(1)(inputs)).jit_compile
    float32 = training.build_policy(2, 4, board_size=5, planes=2, precision="float32", seed=0)
    training.compile_policy(float32)
    choice = training_jit_compile(float32)  # this machine's
    assert float32.jit_compile == (keras_choice if choice == "auto" else choice)
    if compute_device() == "CPU":
        assert training_jit_compile(float32, cpuinfo=avx512) == "auto"
    assert training_jit_compile(float32, cpuinfo=avx2) is True
    mixed = training.build_policy(2, 4, board_size=5, planes=2, precision="mixed_bfloat16", seed=0)
    training.compile_policy(mixed)
    assert mixed.jit_compile == keras_choice
    training.compile_policy(float32, jit_compile=False)
    assert float32.jit_compile is False
    # A small fit is left to Keras: XLA's compile would cost more than it saves.
    per_position = multiply_adds(float32)
    # This policy's layers with weights are convolutions that keep the 25 points.
    assert per_position == sum(25 * math.prod(layer.kernel.shape) for layer in float32.layers
                               if isinstance(layer, keras.layers.Conv2D))
    enough = math.ceil(XLA_MIN_MULTIPLY_ADDS / per_position)
    assert training_jit_compile(float32, enough, cpuinfo=avx2) is True
    assert training_jit_compile(float32, enough - 1, cpuinfo=avx2) == "auto"
    assert training_jit_compile(float32, cpuinfo=avx2) is True  # positions unknown: a long fit
    # The value learner chooses alike, by the positions it trains on.
    value = value_network(5, 49, layers=2, filters=4, hidden=8)
    rng = np.random.default_rng(0)
    fit_value_network(value, rng.integers(0, 2, (8, 5, 5, 49)).astype(np.float32),
                      rng.choice([-1.0, 1.0], 8), epochs=1)
    assert value.jit_compile == keras_choice


# ---------------------------------------------------------------- evaluation


def test_uniform_baseline_is_exact():
    counts = np.array([1, 2, 4, 10])
    assert uniform_accuracy(counts, 1).mean() == pytest.approx((1 + 1 / 2 + 1 / 4 + 1 / 10) / 4)
    assert uniform_accuracy(counts, 5).mean() == pytest.approx((1 + 1 + 1 + 5 / 10) / 4)
    # A scorer that ties every point is the uniform baseline.
    legal = np.zeros((4, 12), bool)
    for row, n in enumerate(counts):
        legal[row, :n] = True
    moves = np.zeros(4, int)
    for k in (1, 5):
        np.testing.assert_allclose(expected_hits(np.zeros((4, 12)), legal, moves, k),
                                   uniform_accuracy(counts, k))
    # Ties below the move do not count; ties with it share the places left.
    scores = np.array([[3.0, 5, 5, 5, 3, 3, 1]])
    assert expected_hits(scores, np.ones((1, 7), bool), np.array([0]), 5)[0] == pytest.approx(2 / 3)
    # Probabilities one float32 rounding apart (equal logits, rounded
    # differently) tie; a real difference, however small a share, does not.
    p = np.float32(1 / 44)
    nudged = np.array([[p, np.nextafter(p, np.float32(1)), np.nextafter(p, np.float32(0)), 0.5]],
                      np.float32)
    assert expected_hits(nudged, np.ones((1, 4), bool), np.array([0]), 1)[0] == 0
    assert expected_hits(nudged, np.ones((1, 4), bool), np.array([1]), 2)[0] == pytest.approx(1 / 3)
    apart = np.array([[p, p * 1.001, 0.5]], np.float32)
    assert expected_hits(apart, np.ones((1, 3), bool), np.array([0]), 2)[0] == 0


def test_hand_made_game_scores_exactly(tmp_path):
    # . . . . .    Black captures the white stone in atari at C5 (move 1),
    # . X O X .    then white plays E1 (move 2).
    # . . X . .
    # . . . . .
    # . . . . .
    record = sgf_reader.GameRecord(size=5, komi=0.5, setup_black=[6, 8, 12], setup_white=[7],
                                   to_play=BLACK, moves=[(BLACK, 2), (WHITE, 24)], result="B+R")
    sgf_writer.save_sgf(record, tmp_path / "hand.sgf")
    model = policy_network(board_size=5, planes=48, layers=2, filters=4)
    result = evaluate_sgf(model, tmp_path, progress=False)
    assert result.games == 1
    uniform = result.scores["uniform"]
    # 21 legal points for black (25 less 4 stones); 20 for white after the
    # capture (25 less 4 black stones, and the captured point is suicide).
    assert uniform.positions == 2
    assert uniform.top1 == pytest.approx((1 / 21 + 1 / 20) / 2)
    assert uniform.top5 == pytest.approx((5 / 21 + 5 / 20) / 2)
    heuristic = result.scores["heuristic"]
    # The capture is the heuristic's only first choice; E1 (2 liberties, not
    # next to C5) is beaten by many points with more liberties.
    assert heuristic.top1 == pytest.approx(0.5) and heuristic.top5 == pytest.approx(0.5)
    # A network that ignores the position and always prefers C5: the
    # capture is its unique first choice (top-1 and top-5 hits); for white,
    # C5 is taken and E1 ties with the other 19 legal points: 1/20 and 5/20.
    c5, e1 = 2, 24
    model_scores = evaluate_sgf(constant_policy(5, 48, {c5: 3.0}), tmp_path,
                                progress=False).scores["model"]
    assert model_scores.positions == 2
    assert model_scores.top1 == pytest.approx((1 + 1 / 20) / 2)
    assert model_scores.top5 == pytest.approx((1 + 5 / 20) / 2)
    # Preferring E1: for black, E1 is above C5, which ties with the 19
    # other points (no top-1 hit, 4/20 of a top-5 hit); for white, a hit.
    model_scores = evaluate_sgf(constant_policy(5, 48, {e1: 3.0}), tmp_path,
                                progress=False).scores["model"]
    assert model_scores.top1 == pytest.approx((0 + 1) / 2)
    assert model_scores.top5 == pytest.approx((4 / 20 + 1) / 2)


def test_a_near_miss_is_the_first_move_the_network_ranks_below_first_but_in_its_top():
    # A network that always prefers A1, then B1, then E5 (the rest tie).
    # Move 0: black plays its favourite A1 (agreement, skipped); move 1:
    # A1 is taken, white plays E5, its second choice after B1: the near miss.
    # Move 2: black's C3 ties with 20 other points below B1, not in the top 5.
    record = sgf_reader.GameRecord(size=5, komi=0.5, moves=[(BLACK, 0), (WHITE, 24), (BLACK, 12)],
                                   result="B+R")
    model = constant_policy(5, 48, {0: 5.0, 1: 4.0, 24: 3.0})
    board, played, p = near_miss(model, [record], first_move=0)
    assert (board.move_number, played, int(p.argmax())) == (1, 24, 1)
    assert p[0] == 0 and p.sum() == pytest.approx(1)  # A1 is occupied: masked out
    with pytest.raises(ValueError, match="top 1 but not first"):
        near_miss(model, [record], first_move=0, top=1)
    with pytest.raises(ValueError, match="from move 2"):
        near_miss(model, [record], first_move=2)


def test_evaluation_of_an_sgf_folder_and_buckets(games_folder, tmp_path):
    # A network that gives every point the same probability ties every
    # legal point: it is the uniform baseline, exactly, bucket by bucket.
    result = evaluate_sgf(constant_policy(9, 48, {}), games_folder, batch_size=50,
                          bucket_size=20, progress=False)
    assert result.games == 6
    ours, uniform = result.scores["model"], result.scores["uniform"]
    assert (ours.top1, ours.top5) == pytest.approx((uniform.top1, uniform.top5))
    np.testing.assert_allclose([(b.top1, b.top5) for b in ours.by_move],
                               [(b.top1, b.top5) for b in uniform.by_move], rtol=1e-9)
    assert 0 < uniform.top1 < uniform.top5 < 1
    for scores in result.scores.values():
        assert scores.positions == 6 * 45
        assert 0 <= scores.top1 <= scores.top5 <= 1
        assert [(b.first, b.last, b.positions) for b in scores.by_move] == [
            (0, 19, 6 * 20), (20, 39, 6 * 20), (40, 59, 6 * 5)]
        # The buckets' accuracies average back to the whole.
        weighted = sum(b.top1 * b.positions for b in scores.by_move) / scores.positions
        assert weighted == pytest.approx(scores.top1)
    buckets = by_move_number(np.array([0, 5, 19, 20, 61]), np.ones(5), np.ones(5), 20)
    assert [(b.label, b.positions) for b in buckets] == [("0-19", 3), ("20-39", 1), ("60-79", 1)]


def test_evaluation_of_a_dataset_split(games_folder, tmp_path):
    spec = DatasetSpec(encoder="alphago48", board_size=9, validation_share=0.3, test_share=0.3)
    manifest = build_dataset([games_folder], tmp_path / "ds", spec, workers=1, progress=False)
    model = tiny_policy(planes=48, layers=2, filters=8)
    result = evaluate_split(model, tmp_path / "ds", "test", progress=False)
    assert result.scores["model"].positions == manifest["positions"]["test"]


def test_the_evaluate_command(games_folder, tmp_path, capsys):
    from mockgo import cli

    model = tiny_policy(planes=48, layers=2, filters=8)
    save_for_play(model, tmp_path / "policy.keras", encoder="alphago48")
    argv = ["evaluate", str(tmp_path / "policy.keras"), str(games_folder), "--quiet",
            "--by-move", "20", "--json", str(tmp_path / "scores.json")]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "(6 games)" in out and "heuristic" in out and "40-59" in out
    scores = json.loads((tmp_path / "scores.json").read_text())
    expected = evaluate_sgf(model, games_folder, progress=False)
    assert scores["games"] == 6
    assert scores["scores"]["model"]["top1"] == pytest.approx(expected.scores["model"].top1)
    assert scores["scores"]["uniform"]["positions"] == 6 * 45

    # Bad input: a clear message naming what is wrong; exit status 2 for a
    # name on the command line that names nothing, 1 for a file that is wrong.
    for bad, status, message in [
        (["evaluate", str(tmp_path / "missing.keras"), str(games_folder)], 2,
         "missing.keras is neither a model file"),
        (["evaluate", str(tmp_path / "policy.keras"), str(tmp_path / "nowhere")], 2, "nowhere"),
        (["evaluate", str(tmp_path / "policy.keras"), str(games_folder), "--encoder", "simple2"],
         1, "trained on alphago48 planes, not simple2"),
        (["evaluate", str(tmp_path / "scores.json"), str(games_folder)], 1,
         "is not a Keras model"),
    ]:
        assert cli.main(bad) == status
        assert message in capsys.readouterr().err
