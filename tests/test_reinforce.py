"""REINFORCE (mockgo.learn.reinforce): the sign of the update, the opponent
pool's bookkeeping, checkpoints and resume, the value baseline's planes, the
one-position-per-game value data and the value network's training, both
resumable. 5x5 boards, tiny nets: seconds."""

import dataclasses
import json
import warnings

import keras
import numpy as np
import pytest

from conftest import decided_and_open_planes
from mockgo import Board
from mockgo.data.files import is_temporary
from mockgo.go.board import BLACK, WHITE
from mockgo.go.features import get_encoder
from mockgo.learn import value
from mockgo.learn.policy_gradient import PolicyGradient
from mockgo.learn.reinforce import OpponentPool, Reinforce
from mockgo.learn.reinforce_config import ReinforceConfig
from mockgo.learn.value import add_colour_plane, fit_value_network, value_dataset
from mockgo.nets.inference import Predictor, masked_policy
from mockgo.nets.models import policy_network, value_network

N = 5


def tiny_policy(seed=0):
    keras.utils.set_random_seed(seed)
    return policy_network(N, 48, layers=2, filters=4)


def position():
    board = Board(N)
    for move in (12, 6, 8):
        board.play(move)
    return board


def probability(model, board, move):
    planes = get_encoder("alphago48", N).encode(board)
    p = masked_policy(Predictor(model).predict(planes), board.sensible_moves())
    return p[move]


@pytest.mark.parametrize("reward, wrapped", [(1.0, False), (-1.0, False), (1.0, True)])
def test_rewarded_moves_get_more_likely_and_punished_ones_less(reward, wrapped):
    model = tiny_policy()
    if wrapped:  # as mockgo.nets.io.save_for_play saves policies: a list of inputs
        model = keras.Model(model.inputs, model.outputs)
    board = position()
    move = int(np.flatnonzero(board.sensible_moves()[:-1])[3])
    before = probability(model, board, move)
    step = PolicyGradient(model, learning_rate=0.5)
    planes = get_encoder("alphago48", N).encode(board)[None].repeat(4, axis=0)
    masks = board.sensible_moves()[None].repeat(4, axis=0)
    for _ in range(3):
        step.update(planes, masks, np.full(4, move), np.full(4, reward), games=4)
    after = probability(model, board, move)
    assert (after > before + 0.01) if reward > 0 else (after < before - 0.01)


def test_update_is_the_same_in_chunks_and_with_packed_planes():
    board = position()
    planes = get_encoder("alphago48", N).encode(board)[None].repeat(5, axis=0)
    masks = board.sensible_moves()[None].repeat(5, axis=0)
    moves = np.flatnonzero(board.sensible_moves()[:-1])[:5]
    advantages = np.array([1.0, -1.0, 0.5, 1.0, -0.2])
    results = []
    for chunk, packed in ((512, False), (2, True)):
        model = tiny_policy()
        step = PolicyGradient(model, learning_rate=0.1, chunk=chunk)
        data = np.packbits(planes, axis=-1) if packed else planes
        step.update(data, masks, moves, advantages, games=2, num_planes=48 if packed else None)
        results.append(model.get_weights())
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_pool_starts_with_one_and_grows_every_k():
    pool = OpponentPool(every=3)
    pool.add(0, [np.zeros(2)])
    grown = []
    for iteration in range(1, 10):
        if pool.due(iteration):
            pool.add(iteration, [np.full(2, iteration)])
        grown.append(len(pool))
    assert grown == [1, 1, 2, 2, 2, 3, 3, 3, 4]
    assert pool.iterations == [0, 3, 6, 9]
    rng = np.random.default_rng(0)
    assert {pool.sample(rng).iteration for _ in range(200)} == {0, 3, 6, 9}


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    return tmp_path_factory.mktemp("rl")


CONFIG = ReinforceConfig(size=N, games=4, learning_rate=0.05, pool_every=2, eval_games=2,
                         eval_every=2, max_moves=30, seed=3)


def test_reinforce_run_pool_checkpoint_and_resume(run_folder):
    sl = tiny_policy()
    run = Reinforce(run_folder, sl, CONFIG)
    assert len(run.pool) == 1 and run.iteration == 0
    run.run(until=5, progress=False)
    assert run.pool.iterations == [0, 2, 4]
    history = run.history
    assert [h["pool_size"] for h in history] == [1, 2, 2, 3, 3]
    for h in history:  # opponents come from the pool as it was
        assert h["opponent"] in [i for i in (0, 2, 4) if i < h["iteration"]]
        assert 0 <= h["win_rate"] <= 1 and h["positions"] > 0
    assert [h["eval_win_rate"] is not None for h in history] == [False, True, False, True, False]
    # The learner moved away from the SL policy; the pool's first member is the SL policy.
    assert any(not np.allclose(a, b) for a, b in zip(run.learner.get_weights(), sl.get_weights()))
    for a, b in zip(run.pool.members[0].weights, sl.get_weights()):
        np.testing.assert_array_equal(a, b)
    state = json.loads((run_folder / "state.json").read_text())
    assert state["iteration"] == 5 and len(list((run_folder / "checkpoints").iterdir())) == 1
    # Resume: same state, and it carries on.
    again = Reinforce(run_folder, None, CONFIG)
    assert again.resumed and again.iteration == 5 and again.history == history
    assert again.pool.iterations == [0, 2, 4]
    for a, b in zip(again.learner.get_weights(), run.learner.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert again.rng.bit_generator.state == run.rng.bit_generator.state
    again.run(until=6, progress=False)
    assert again.iteration == 6 and len(again.pool) == 4
    with pytest.raises(ValueError, match="other settings"):
        Reinforce(run_folder, None, ReinforceConfig(size=N, games=8))
    with pytest.raises(ValueError, match="another policy"):
        Reinforce(run_folder, tiny_policy(seed=9), CONFIG)


def test_a_run_without_its_state_is_refused_and_damage_is_named(tmp_path):
    folder = tmp_path / "rl"
    config = dataclasses.replace(CONFIG, eval_every=0)
    Reinforce(folder, tiny_policy(), config).run(until=3, progress=False)
    learner = folder / "checkpoints" / "learner_00003.keras"
    assert learner.exists() and (folder / "pool" / "member_00002.keras").exists()
    state = (folder / "state.json").read_bytes()
    (folder / "state.json").write_bytes(state[:len(state) // 2])
    with pytest.raises(ValueError, match=rf"^{folder / 'state.json'} is damaged: not valid JSON "
                                         r".*; it should hold the REINFORCE run's progress\. To "
                                         r"delete the run's checkpoints and start over, pass "
                                         r"restart=True to Reinforce$"):
        Reinforce(folder, tiny_policy(), config)
    (folder / "state.json").unlink()
    with pytest.raises(ValueError) as error:
        Reinforce(folder, tiny_policy(), config)
    assert str(error.value).startswith(
        f"{folder} holds earlier work (2 files: checkpoints/learner_00003.keras, "
        f"pool/member_00002.keras) but no readable state.json")
    assert str(error.value).endswith("pass restart=True to Reinforce; to keep it, use another "
                                     "folder")
    assert learner.exists()  # the trained policy is still there
    (folder / "state.json").write_bytes(state)
    learner.write_bytes(learner.read_bytes()[:2000])
    with pytest.raises(ValueError, match=rf"^{learner} is not a Keras model: not a readable "):
        Reinforce(folder, tiny_policy(), config)
    # Asked for, a restart starts again from the SL policy.
    run = Reinforce(folder, tiny_policy(), config, restart=True)
    assert run.iteration == 0 and not run.resumed
    assert sorted(str(p.relative_to(folder)) for p in folder.rglob("*.keras")) == [
        "checkpoints/learner_00000.keras", "pool/member_00000.keras"]


def test_training_games_are_recorded_as_asked_once_each(tmp_path, monkeypatch):
    from mockgo.data.sgf_reader import final_board, load_sgf

    config = dataclasses.replace(CONFIG, eval_every=0)
    folder = tmp_path / "rl"
    run = Reinforce(folder, tiny_policy(), config, record_every=2)
    run.run(until=4, progress=False)
    files = run.recorded_games()
    # Iterations 2 and 4, all 4 games of each, named by the players, winner and date.
    assert [f.name[:17] for f in files] == [f"iter{i:05d}-game{g:03d}" for i in (2, 4)
                                            for g in range(4)]
    first = files[0]
    opponent = run.history[1]["opponent"]
    pool = "sl" if opponent == 0 else f"pool{opponent}"
    record = load_sgf(first)
    assert (record.black, record.white) == ("rl1", pool)
    assert first.name == f"iter00002-game000-rl1-vs-{pool}-{record.result}-{record.date}.sgf"
    assert "iteration 2, game 1 of 4" in record.game_comment
    assert len(record.moves) > 0 and final_board(record).move_number == len(record.moves)
    # Interrupted after writing iteration 5's games but before its checkpoint: the replay
    # of iteration 5 leaves each game once (here a stale file from an earlier date).
    stale = folder / "games" / "iter00005-game000-rl4-vs-sl-B+R-2020-01-01.sgf"
    stale.write_text(first.read_text())
    again = Reinforce(folder, None, config, record_every=1)  # the setting may change
    again.run(until=5, progress=False)
    fifth = [f for f in again.recorded_games() if f.name.startswith("iter00005")]
    assert len(fifth) == 4 and not stale.exists()
    # none: nothing more is written; the games are work that restart deletes.
    Reinforce(folder, None, config).run(until=6, progress=False)
    assert len(again.recorded_games()) == 12
    with pytest.raises(ValueError, match="record_every must be 0"):
        Reinforce(tmp_path / "other", tiny_policy(), config, record_every=-1)
    Reinforce(folder, tiny_policy(), config, restart=True)
    assert not list((folder / "games").glob("*.sgf"))


def test_value_baseline_is_subtracted(tmp_path):
    sl = tiny_policy()
    config = ReinforceConfig(size=N, games=2, learning_rate=0.0, pool_every=5, eval_every=0,
                             max_moves=20, seed=1)
    run = Reinforce(tmp_path, sl, config)
    run.step(baseline=None)
    keras.utils.set_random_seed(0)
    value = value_network(N, 49, layers=2, filters=4, hidden=8)
    _, _, _, z, _ = run._batch(run.last_games, None)
    packed, _, moves, advantages, halves = run._batch(run.last_games, value)
    assert halves.tolist() == [0] * len(halves)  # games 0 and 1: the first half
    planes = np.unpackbits(packed, axis=-1, count=48)
    movers = np.concatenate([g.colors[g.evaluated & (g.colors == c)]
                             for g, c in zip(run.last_games, (1, 2))])
    v = Predictor(value).predict(add_colour_plane(planes, movers))[:, 0]
    np.testing.assert_allclose(advantages, z - v, rtol=1e-5, atol=1e-6)


def test_colour_plane_makes_alphago49():
    board = position()
    for move in (0, 24):
        planes = add_colour_plane(get_encoder("alphago48", N).encode(board)[None], [board.to_play])
        assert (planes[0] == get_encoder("alphago49", N).encode(board)).all()
        board.play(move)


def test_value_dataset_keeps_one_position_per_game():
    sl = tiny_policy()
    data = value_dataset(sl, 6, N, max_step=10, batch=4, rng=0)
    planes, outcomes = data
    assert planes.shape == (6, N, N, 49) and planes.dtype == np.uint8
    assert set(np.unique(outcomes)) <= {-1.0, 0.0, 1.0}
    assert ((data.steps >= 1) & (data.steps <= 10)).all()
    # The colour plane says who moves after move U: black when U is even.
    black_to_play = (data.steps % 2 == 0)
    assert (planes[:, 0, 0, 48] == black_to_play).all() and BLACK == 1
    assert data.games_played == 6 + data.games_dropped
    assert (planes[:, :, :, 3] == 1).all()  # the plane of ones
    # A Generator gives the same data as the seed it draws; None gives some data.
    drawn = int(np.random.default_rng(7).integers(2**63))
    np.testing.assert_array_equal(
        value_dataset(sl, 3, N, max_step=10, batch=4, rng=np.random.default_rng(7)).planes,
        value_dataset(sl, 3, N, max_step=10, batch=4, rng=drawn).planes)
    assert len(value_dataset(sl, 2, N, max_step=10, batch=4, rng=None)) == 2


def test_positions_from_planes_and_their_rollouts():
    """An alphago49 row becomes its board again (stones, player to move),
    and rollouts judge a decided position exactly: black owns the whole
    board but for two eyes, so every random game ends with black winning,
    whoever moves and whatever the rules of the playouts (the positions:
    conftest's ``decided_and_open_planes``)."""
    both, board = decided_and_open_planes()
    planes = both[:1]
    again = value.position_from_planes(planes[0])
    np.testing.assert_array_equal(again.stones, board.stones)
    assert again.to_play == WHITE and again.komi == 7.5
    for heavy in (False, True):
        assert value.rollout_values(planes, rollouts=8, heavy=heavy).tolist() == [-1.0]
        assert value.rollout_values(planes, rollouts=8, heavy=heavy, komi=30.5).tolist() == [1.0]
    # A position still open: the mean of the rollouts' results, the same for the same seed.
    planes = both[1:]
    values = value.rollout_values(np.repeat(planes, 3, axis=0), rollouts=64, seed=3)
    assert len(set(values.tolist())) > 1 and (np.abs(values) < 1).all()  # each row its own games
    np.testing.assert_array_equal(values, value.rollout_values(np.repeat(planes, 3, axis=0),
                                                               rollouts=64, seed=3))


class Interrupted(Exception):
    pass


def interrupt_after(monkeypatch, target, name, calls):
    """Make ``target.name`` raise Interrupted after ``calls`` calls."""
    original, done = getattr(target, name), []

    def wrapper(*args, **kwargs):
        if len(done) == calls:
            raise Interrupted
        done.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(target, name, wrapper)


def test_value_dataset_resumes_from_its_folder_with_the_same_data(tmp_path, monkeypatch):
    sl = tiny_policy()
    whole = value_dataset(sl, 10, N, max_step=10, batch=4, rng=3)
    with monkeypatch.context() as patch:
        interrupt_after(patch, value, "_value_batch", 2)
        with pytest.raises(Interrupted):
            value_dataset(sl, 10, N, max_step=10, batch=4, rng=3, folder=tmp_path)
    assert sorted(p.name for p in tmp_path.glob("batch_*.npz")) == ["batch_00000.npz",
                                                                     "batch_00001.npz"]
    assert not [p for p in tmp_path.iterdir() if is_temporary(p)]  # none left behind
    resumed = value_dataset(sl, 10, N, max_step=10, batch=4, rng=3, folder=tmp_path)
    for field in ("planes", "outcomes", "steps"):
        np.testing.assert_array_equal(getattr(resumed, field), getattr(whole, field))
    assert resumed.games_played == whole.games_played
    # Done: a third call plays nothing.
    interrupt_after(monkeypatch, value, "_value_batch", 0)
    again = value_dataset(sl, 10, N, max_step=10, batch=4, rng=3, folder=tmp_path)
    np.testing.assert_array_equal(again.planes, whole.planes)
    with pytest.raises(ValueError, match=str(tmp_path)):
        value_dataset(sl, 10, N, max_step=12, batch=4, rng=3, folder=tmp_path)


def value_data(n=48, seed=0):
    rng = np.random.default_rng(seed)
    planes = rng.integers(0, 2, (n, N, N, 49)).astype(np.uint8)
    return planes, np.where(planes[:, 2, 2, 0] == 1, 1.0, -1.0).astype(np.float32)


def fresh_value_net():
    keras.utils.set_random_seed(0)
    return value_network(N, 49, layers=2, filters=4, hidden=8)


def test_value_fit_resumes_where_it_stopped(tmp_path, monkeypatch):
    x, z = value_data()
    options = dict(validation=value_data(16, 1), epochs=5, batch_size=16, patience=10)
    whole_net = fresh_value_net()
    whole = fit_value_network(whole_net, x, z, **options, checkpoint_dir=tmp_path / "a")
    assert len(whole["loss"]) == 5 and whole["loss"][-1] < whole["loss"][0]
    with monkeypatch.context() as patch:
        interrupt_after(patch, value._FitCheckpoint, "save", 2)
        with pytest.raises(Interrupted):
            fit_value_network(fresh_value_net(), x, z, **options, checkpoint_dir=tmp_path / "b")
    assert json.loads((tmp_path / "b" / "state.json").read_text())["state"]["epoch"] == 2
    resumed_net = fresh_value_net()
    resumed = fit_value_network(resumed_net, x, z, **options, checkpoint_dir=tmp_path / "b")
    np.testing.assert_allclose(resumed["loss"], whole["loss"], rtol=1e-4)
    np.testing.assert_allclose(resumed["val_loss"], whole["val_loss"], rtol=1e-4)
    for a, b in zip(resumed_net.get_weights(), whole_net.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError, match="other settings.*positions"):
        fit_value_network(fresh_value_net(), x[:40], z[:40], **options, checkpoint_dir=tmp_path / "b")


def test_value_fit_crash_between_weights_and_state_applies_no_epoch_twice(tmp_path,
                                                                         monkeypatch):
    x, z = value_data()
    options = dict(validation=value_data(16, 1), epochs=3, batch_size=16, patience=10)
    whole_net = fresh_value_net()
    whole = fit_value_network(whole_net, x, z, **options, checkpoint_dir=tmp_path / "a")
    folder = tmp_path / "b"
    real = value._FitCheckpoint._commit

    def crash_at_epoch_2(self, state):
        if state["epoch"] == 2:  # its weights are written already
            raise Interrupted
        real(self, state)

    with monkeypatch.context() as patch:
        patch.setattr(value._FitCheckpoint, "_commit", crash_at_epoch_2)
        with pytest.raises(Interrupted):
            fit_value_network(fresh_value_net(), x, z, **options, checkpoint_dir=folder)
    assert (folder / "model_00002.weights.h5").exists()
    assert json.loads((folder / "state.json").read_text())["state"]["epoch"] == 1
    resumed_net = fresh_value_net()
    resumed = fit_value_network(resumed_net, x, z, **options, checkpoint_dir=folder)
    np.testing.assert_allclose(resumed["loss"], whole["loss"], rtol=1e-4)
    for a, b in zip(resumed_net.get_weights(), whole_net.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    best = f"best_{int(np.argmin(whole['val_loss'])) + 1:05d}.weights.h5"
    assert sorted(p.name for p in folder.iterdir()) == [".lock", best, "model_00003.weights.h5",
                                                        "state.json"]
    # Weights without their state are refused; a damaged weights file is named.
    state = (folder / "state.json").read_bytes()
    (folder / "state.json").unlink()
    with pytest.raises(ValueError, match=rf"^{folder} holds earlier work \(2 files: "
                                         rf"model_00003\.weights\.h5, {best}\) but no readable "
                                         r"state\.json.*pass restart=True to fit_value_network"):
        fit_value_network(fresh_value_net(), x, z, **options, checkpoint_dir=folder)
    (folder / "state.json").write_bytes(state)
    weights = folder / "model_00003.weights.h5"
    weights.write_bytes(weights.read_bytes()[:3000])
    with pytest.raises(ValueError, match=rf"^{weights} is damaged: not readable weights"):
        fit_value_network(fresh_value_net(), x, z, **options, checkpoint_dir=folder)
    fresh = fit_value_network(fresh_value_net(), x, z, **options, checkpoint_dir=folder,
                              restart=True)
    np.testing.assert_allclose(fresh["loss"], whole["loss"], rtol=1e-4)
    # A weights file killed halfway leaves its temporary; the next call deletes it.
    stale = folder / ".model_00004.weights.h5.k2j4_x9a.tmp.weights.h5"
    stale.write_bytes(b"half")
    fit_value_network(fresh_value_net(), x, z, **options, checkpoint_dir=folder)
    assert not stale.exists() and (folder / "model_00003.weights.h5").exists()


def test_value_batches_without_their_record_are_refused(tmp_path):
    sl = tiny_policy()
    value_dataset(sl, 6, N, max_step=10, batch=4, rng=3, folder=tmp_path)
    record = (tmp_path / "value_data.json").read_bytes()
    (tmp_path / "value_data.json").unlink()
    with pytest.raises(ValueError, match=rf"^{tmp_path} holds earlier work \(2 files: "
                                         r"batch_00000\.npz, batch_00001\.npz\) but no "
                                         r"readable value_data\.json.*pass restart=True to "
                                         r"value_dataset"):
        value_dataset(sl, 6, N, max_step=12, batch=4, rng=3, folder=tmp_path)
    (tmp_path / "value_data.json").write_bytes(record[:10])
    with pytest.raises(ValueError, match=rf"^{tmp_path / 'value_data.json'} is damaged"):
        value_dataset(sl, 6, N, max_step=10, batch=4, rng=3, folder=tmp_path)
    (tmp_path / "value_data.json").write_bytes(record)
    batch = tmp_path / "batch_00001.npz"
    batch.write_bytes(batch.read_bytes()[:100])
    with pytest.raises(ValueError, match=rf"^{batch} is damaged: not a whole \.npz archive"):
        value_dataset(sl, 6, N, max_step=10, batch=4, rng=3, folder=tmp_path)
    data = value_dataset(sl, 6, N, max_step=12, batch=4, rng=3, folder=tmp_path, restart=True)
    assert len(data) == 6
    assert json.loads((tmp_path / "value_data.json").read_text())["max_step"] == 12


def test_value_fit_stops_early_and_keeps_the_best_epoch():
    x, z = value_data()
    val_x, val_z = value_data(16, 1)
    net = fresh_value_net()
    # A learning rate this large makes the validation error go up and down. With the
    # validation labels reversed the best epoch may be a network that gives every position
    # the same value, which fit_value_network warns about: not what this test is about.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        history = fit_value_network(net, x, z, validation=(val_x, -val_z), epochs=40,
                                    batch_size=16, learning_rate=0.05, patience=2)
    best = int(np.argmin(history["val_loss"]))
    assert len(history["val_loss"]) == best + 3  # stopped 2 epochs after the best
    kept = float(np.mean((net.predict(val_x, verbose=0)[:, 0] + val_z) ** 2))
    assert kept == pytest.approx(history["val_loss"][best], rel=1e-4)


def test_split_game_reads_a_game_back_from_its_archive(tmp_path):
    import tarfile

    from mockgo.data import sgf_writer
    from mockgo.data.dataset import DatasetSpec, build_dataset, split_game

    names = []
    for i in range(8):
        board = Board(9)
        for move in (10 + i, 40, 70 - i, 30):
            board.play(move)
        names.append(tmp_path / f"game-{i}.sgf")
        record = sgf_writer.record_from_board(board, black=f"b{i}", white="w")
        sgf_writer.save_sgf(record, names[-1])
    archive = tmp_path / "games.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name in names:
            tar.add(name, arcname=f"kgs/{name.name}")
    spec = DatasetSpec(encoder="simple2", board_size=9, min_rank=None,
                       validation_share=0.0, test_share=0.5)
    build_dataset([archive], tmp_path / "ds", spec, workers=1, progress=False)
    rows = [line.split("\t") for line in (tmp_path / "ds" / "games.tsv").read_text().splitlines()]
    tests = [source for _, split, source in rows if split == "test"]
    assert tests, "the hash split left no test game: change test_share"
    game = split_game(tmp_path / "ds", "test", len(tests) - 1)
    assert game.source == tests[-1]
    assert game.black == "b" + tests[-1].rsplit("-", 1)[1].removesuffix(".sgf")
    with pytest.raises(IndexError, match="test split"):
        split_game(tmp_path / "ds", "test", len(tests))


def _test_split_of(tmp_path, games):
    """A dataset in ``tmp_path / "ds"`` whose test split holds ``games``
    (``(board, result)`` pairs; game i's black player is named ``b<i>``), and
    the games' numbers in the split's order."""
    import tarfile

    from mockgo.data import sgf_writer
    from mockgo.data.dataset import DatasetSpec, build_dataset

    archive = tmp_path / "games.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for i, (board, result) in enumerate(games):
            name = tmp_path / f"game-{i}.sgf"
            sgf_writer.save_sgf(sgf_writer.record_from_board(board, black=f"b{i}", white="w",
                                                             result=result), name)
            tar.add(name, arcname=f"kgs/{name.name}")
    spec = DatasetSpec(encoder="simple2", board_size=9, min_rank=None,
                       validation_share=0.0, test_share=1.0)  # every game in the test split
    build_dataset([archive], tmp_path / "ds", spec, workers=1, progress=False)
    return tmp_path / "ds", [line.split("\t")[2].rsplit("-", 1)[1].removesuffix(".sgf")
                             for line in (tmp_path / "ds" / "games.tsv").read_text().splitlines()]


def test_the_game_to_follow_was_decided_on_the_board_and_reaches_the_late_game(tmp_path):
    from mockgo.learn.value import decided_game

    results = ["W+Time", "B+R", "B+R", "W+3.5", "W+Forfeit"]
    lengths = [12, 4, 12, 12, 12]
    boards = []
    for i, length in enumerate(lengths):
        boards.append(Board(9))
        for move in range(length):
            boards[-1].play(move * 3 + i % 2)
    ds, order = _test_split_of(tmp_path, list(zip(boards, results)))
    # Games 2 (resigned) and 3 (counted) qualify; not 0 (time), 1 (4 moves) or 4 (forfeit).
    first = next(i for i in order if i in ("2", "3"))
    assert decided_game(ds, "test", min_moves=10).black == f"b{first}"
    with pytest.raises(ValueError, match="none of the first 5 games of the test split"):
        decided_game(ds, "test", min_moves=13)
    before = order.index(first)  # the games ahead of it in the split, none of them decided
    with pytest.raises(ValueError, match=f"none of the first {before} games"):
        decided_game(ds, "test", min_moves=10, tries=before)


def test_the_game_to_follow_is_an_even_game_that_the_networks_komi_would_not_change(tmp_path):
    from mockgo.learn.value import decided_game

    # (komi, black's handicap stones, result): a handicap game, an even game without komi,
    # a counted game that komi 7.5 would turn (B+0.5 at 6.5 is W+0.5 at 7.5), and one it
    # would not (W+0.5 at 6.5).
    games = [(0.5, [20, 60], "B+R"), (0.5, [], "B+R"), (6.5, [], "B+0.5"), (6.5, [], "W+0.5")]
    played = []
    for i, (komi, handicap, result) in enumerate(games):
        board = Board(9, komi=komi)
        board.setup(black=handicap)
        for move in range(12):
            board.play(move * 3 + i % 2)
        played.append((board, result))
    ds, order = _test_split_of(tmp_path, played)
    assert decided_game(ds, "test", min_moves=10).black == "b3"
    assert decided_game(ds, "test", min_moves=10, komi=6.5).black in ("b2", "b3")
    with pytest.raises(ValueError, match="was an even game with a komi near 7.5"):
        decided_game(ds, "test", min_moves=10, tries=order.index("3"))


def test_value_fit_warns_when_the_network_has_died():
    x, z = value_data()
    net = fresh_value_net()
    layer = next(l for l in net.layers if l.name.startswith("conv_") and l.filters == 1)
    kernel, bias = layer.get_weights()
    layer.set_weights([np.zeros_like(kernel), bias - 10.0])  # ReLU(-10) = 0 everywhere
    with pytest.warns(RuntimeWarning, match="same value.*lower learning_rate"):
        fit_value_network(net, x, z, epochs=1, batch_size=16, learning_rate=1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        fit_value_network(fresh_value_net(), x, z, epochs=1, batch_size=16)


def test_halves_give_the_same_step_and_measure_the_gradients_spread():
    board = position()
    planes = get_encoder("alphago48", N).encode(board)[None].repeat(8, axis=0)
    masks = board.sensible_moves()[None].repeat(8, axis=0)
    moves = np.flatnonzero(board.sensible_moves()[:-1])[:8]
    advantages = np.array([1.0, -1, 0.5, 1, -0.2, 1, 1, -1])
    halves = np.array([0, 0, 1, 1, 0, 0, 1, 1])
    weights, updates = [], []
    for split in (None, halves):  # summing by halves takes the same step
        model = tiny_policy()
        step = PolicyGradient(model, learning_rate=0.1, chunk=3)
        updates.append(step.update(planes, masks, moves, advantages, games=4, halves=split))
        weights.append(model.get_weights())
    for a, b in zip(*weights):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert updates[0].gradient_variance is None
    assert updates[1].gradient_norm == pytest.approx(updates[0].gradient_norm, rel=1e-5)
    assert updates[1].gradient_variance > 0

    # The spread worked out by hand: a second half that repeats the first
    # gives g1 = g0, so |g0 - g1|^2 = 0; one that negates its advantages
    # gives g1 = -g0, so the step is 0 and |g0 - g1|^2 / n = 4 |g0|^2 / n.
    first = np.array([0, 1, 4, 5])
    twice = np.concatenate([first, first])
    split = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    step = PolicyGradient(tiny_policy(), learning_rate=0.0)
    g0 = step.update(planes[first], masks[first], moves[first], advantages[first], games=1)
    same = step.update(planes[twice], masks[twice], moves[twice], advantages[twice], games=4,
                       halves=split)
    opposite = step.update(planes[twice], masks[twice], moves[twice],
                           np.concatenate([advantages[first], -advantages[first]]), games=4,
                           halves=split)
    assert same.gradient_variance == pytest.approx(0.0, abs=1e-9)
    assert same.gradient_norm == pytest.approx(2 * g0.gradient_norm / 4, rel=1e-5)
    assert opposite.gradient_norm == pytest.approx(0.0, abs=1e-6)
    assert opposite.gradient_variance == pytest.approx(4 * g0.gradient_norm ** 2 / 4, rel=1e-4)


# ------------------------------------------------------ sparring partners


def tiny_partner(path, seed=1):
    """A sparring partner of another architecture and encoder than
    tiny_policy: AlphaGo Zero's residual dual network on agz17 planes."""
    from mockgo.nets.io import save_model
    from mockgo.nets.models import dual_network

    keras.utils.set_random_seed(seed)
    save_model(dual_network(N, 17, blocks=1, filters=6, value_hidden=8), path, encoder="agz17")
    return path


def partnered(*partners, share=0.5):
    return dataclasses.replace(CONFIG, eval_every=0, partners=partners, partner_share=share)


def test_a_partner_of_another_architecture_is_played_and_learned_from(tmp_path):
    from mockgo.data.sgf_reader import load_sgf

    partner = tiny_partner(tmp_path / "partner.keras")
    config = partnered(partner)
    sl = tiny_policy()
    run = Reinforce(tmp_path / "rl", sl, config, record_every=1)
    assert run.partners[0].player.encoder.name == "agz17"
    assert run.player.encoder.name == "alphago48"
    before = [w.copy() for w in run.learner.get_weights()]
    run.run(until=6, progress=False)
    against = [h["partner"] is not None for h in run.history]
    assert any(against) and not all(against)  # the seed draws both kinds
    for h in run.history:
        assert (h["partner"], h["opponent"] is None) in ((None, False), (str(partner), True))
        assert h["positions"] > 0 and np.isfinite(h["objective"])
    # The learner's update still works against the partner: one step alone moves the weights.
    first = against.index(True)
    alone = Reinforce(tmp_path / "alone", sl,
                      dataclasses.replace(config, partner_share=1.0), record_every=1)
    alone.step()
    assert alone.history[0]["partner"] == str(partner)
    assert any(not np.allclose(a, b) for a, b in zip(alone.learner.get_weights(), before))
    # The partner's games are recorded under its name, its source in the comment.
    game = sorted((tmp_path / "rl" / "games").glob(f"iter{first + 1:05d}-game000-*.sgf"))[0]
    record = load_sgf(game)
    assert record.white == "partner0" and record.black == f"rl{first}"
    assert f"against the sparring partner {partner} (partner0)" in record.game_comment


def test_a_resumed_run_keeps_its_partners_from_its_own_copies(tmp_path):
    partner = tiny_partner(tmp_path / "partner.keras")
    config = partnered(partner)
    run = Reinforce(tmp_path / "rl", tiny_policy(), config)
    run.run(until=3, progress=False)
    state = json.loads((tmp_path / "rl" / "state.json").read_text())
    assert state["partners"] == [{"source": str(partner), "file": "partners/partner_0.keras"}]
    assert state["config"]["partners"] == [str(partner)]
    weights = run.partners[0].player.model.get_weights()
    partner.unlink()  # the run plays its copy
    again = Reinforce(tmp_path / "rl", None, config)
    assert [p.source for p in again.partners] == [str(partner)]
    for a, b in zip(again.partners[0].player.model.get_weights(), weights):
        np.testing.assert_array_equal(a, b)
    again.run(until=6, progress=False)
    run.run(until=6, progress=False)  # the same games as the run that was not stopped
    assert again.history == [dict(h, seconds=g["seconds"]) for h, g in
                             zip(run.history, again.history)]
    with pytest.raises(ValueError, match="other settings.*partner_share"):
        Reinforce(tmp_path / "rl", None, dataclasses.replace(config, partner_share=0.25))


def test_a_notebook_whose_partner_changed_starts_its_run_beside_the_old_one(tmp_path):
    """Notebook 03's run folders (mockgo.notebook.reinforce_dir) are named
    by the partner: a full run begun with one partner is neither continued
    with another (its frozen config would refuse it) nor deleted."""
    from mockgo.notebook import reinforce_dir

    old, new = tiny_partner(tmp_path / "old.keras"), tiny_partner(tmp_path / "new.keras", seed=2)
    first = reinforce_dir(tmp_path, False, "partner", partner=str(old))
    Reinforce(first, tiny_policy(), partnered(old)).run(until=1, progress=False)
    second = reinforce_dir(tmp_path, False, "partner", partner=str(new))
    assert second != first and not Reinforce(second, tiny_policy(), partnered(new)).resumed
    assert json.loads((first / "state.json").read_text())["iteration"] == 1
    with pytest.raises(ValueError, match="other settings.*'partners'"):
        Reinforce(first, None, partnered(new))


def test_a_run_saved_before_partners_existed_resumes(tmp_path):
    Reinforce(tmp_path / "rl", tiny_policy(), dataclasses.replace(CONFIG, eval_every=0)).run(
        until=1, progress=False)
    state_file = tmp_path / "rl" / "state.json"
    state = json.loads(state_file.read_text())
    for key in ("partners", "partner_share"):
        del state["config"][key]
    del state["partners"]
    state_file.write_text(json.dumps(state))
    again = Reinforce(tmp_path / "rl", None, dataclasses.replace(CONFIG, eval_every=0))
    assert again.iteration == 1 and again.partners == []


def test_partners_are_shipped_to_workers_and_play_the_same_games(tmp_path):
    from mockgo.cluster import InProcess

    partner = tiny_partner(tmp_path / "partner.keras")
    config = partnered(partner, share=1.0)
    sl = tiny_policy()
    with InProcess() as executor:
        runs = [Reinforce(tmp_path / "here", sl, config),
                Reinforce(tmp_path / "there", sl, config, cluster=executor)]
        histories = [run.run(until=2, progress=False) for run in runs]
    for key in ("partner", "win_rate", "positions", "mean_length"):
        assert [h[key] for h in histories[1]] == [h[key] for h in histories[0]], key


def test_a_missing_or_unfit_partner_is_an_error_naming_it(tmp_path):
    missing = tmp_path / "nowhere" / "partner.keras"
    config = partnered(missing)
    with pytest.raises(FileNotFoundError, match=rf"sparring partner '{missing}': no such network "
                                                r"file, and no network of that name ships"):
        Reinforce(tmp_path / "rl", tiny_policy(), config)
    assert not (tmp_path / "rl").exists()  # checked before anything is written
    wrong_board = tmp_path / "nine.keras"
    from mockgo.nets.io import save_model

    save_model(policy_network(9, 48, layers=2, filters=2), wrong_board)
    with pytest.raises(ValueError, match=rf"sparring partner {wrong_board} plays 9x9, the run 5x5"):
        Reinforce(tmp_path / "rl", tiny_policy(),
                  dataclasses.replace(config, partners=[wrong_board]))
    critic = tmp_path / "value.keras"
    save_model(value_network(N, 49, layers=2, filters=2, hidden=4), critic)
    with pytest.raises(ValueError, match=rf"sparring partner {critic} is a value network"):
        Reinforce(tmp_path / "rl", tiny_policy(), dataclasses.replace(config, partners=[critic]))
    with pytest.raises(ValueError, match="partners and partner_share go together"):
        ReinforceConfig(size=N, partners=["sl-19"])
    with pytest.raises(ValueError, match="partner_share is a probability"):
        ReinforceConfig(size=N, partners=["sl-19"], partner_share=1.5)
    with pytest.raises(TypeError, match="partners is a list"):
        ReinforceConfig(size=N, partners="sl-19", partner_share=0.5)
    with pytest.raises(ValueError, match="sl-19.* plays 19x19, the run 5x5"):
        Reinforce(tmp_path / "rl", tiny_policy(), dataclasses.replace(config, partners=["sl-19"]))


def test_what_a_partner_changed_is_read_from_the_two_histories():
    from mockgo.learn.reinforce import describe_partner_effect, partner_effect

    def entry(partner, win, length, evaluation):
        return {"partner": partner, "win_rate": win, "mean_length": length,
                "eval_win_rate": evaluation}

    history = [entry("zero-9", 0.25, 60, None), entry(None, 0.75, 40, 0.5),
               entry("zero-9", 0.5, 80, 0.7), entry(None, 0.5, 50, None)]
    reference = [entry(None, 0.5, 45, 0.5), entry(None, 0.5, 45, 0.4)]
    effect = partner_effect(history, reference)
    assert effect == {"iterations": 4, "partner_iterations": 2, "win_partner": 0.375,
                      "win_pool": 0.625, "length_partner": 70, "length_pool": 45,
                      "eval_with": pytest.approx(0.6), "eval_without": pytest.approx(0.45)}
    assert describe_partner_effect(effect) == [
        "the learner met a sparring partner in 2 of 4 iterations, its pool in the others",
        "it won 38% of its games against the partner and 62% against its pool; the games lasted "
        "70 and 45 moves",
        "against the SL policy it won 60% of the evaluation games on average, 45% in the same run "
        "without the partner"]
    alone = partner_effect(history[:1], [])
    assert alone["win_pool"] is None and alone["eval_with"] is None
    assert "won - of the evaluation games" in describe_partner_effect(alone)[2]
