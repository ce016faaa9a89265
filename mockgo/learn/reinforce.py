"""AlphaGo's second and third stages: the RL policy network (REINFORCE
against a pool of earlier versions) and the data of the value network.

Silver et al. 2016, "Mastering the game of Go with deep neural networks and
tree search", Methods, "Reinforcement learning of policy networks" and
"Reinforcement learning of value networks". Games are played many at a time
by :mod:`mockgo.play.runner`.

REINFORCE
---------
Each iteration plays a mini-batch of ``n`` games between the current policy
p_rho and an opponent p_rho- sampled uniformly from a *pool* of earlier
versions (:class:`OpponentPool`: it starts with the SL policy, and the current
policy joins it every ``K`` iterations; randomising the opponent keeps the
policy from overfitting to one of them). The current policy is black in half
of the games. Both sample their moves (temperature 1) from the sensible moves.
At the end, z_t = +1 for the winner's moves and -1 for the loser's, and the
current policy's moves are replayed for the update, gradient *ascent* on

    (1/n) * sum_i sum_t (z_t^i - b(s_t^i)) * log p_rho(a_t^i | s_t^i)

with plain SGD (:class:`PolicyGradient`, a ``tf.GradientTape`` step compiled
with ``tf.function``), p_rho being the network's softmax over the sensible
moves. The baseline b is zero on the first pass and the value network on the
second (AlphaGo: "in a second pass ... the value network v(s) as a
baseline"): b(s) = v(s) on the ``alphago49`` planes of the same position (the
48 planes the policy saw plus the colour to play).

:class:`Reinforce` runs it in a folder: every iteration ends with an atomic
checkpoint (the current policy as ``checkpoints/learner_NNNNN.keras``, the
pool's members as ``pool/member_NNNNN.keras``, and ``state.json``, written
last, naming them, with the random generator's state and the history), so a
run that is stopped resumes where it was, with the same games.

Value data
----------
:func:`value_dataset`: AlphaGo's recipe against overfitting, one position per
game. For each game an integer U is drawn uniformly; moves 1 to U-1 are
sampled from the SL policy, move U is a uniformly random legal point, then
the policy plays the game out; the position after move U is kept, as its
``alphago49`` planes, with the game's outcome from the view of the player to
move there.

Where the notebooks keep things (one path per mode, ``quick`` or ``full``):
:func:`value_path` (notebook 02's value network, read by 03),
:func:`rl_policy_path`, :func:`reinforce_dir` (notebook 03), and
:func:`sl_policy_path` (notebook 01's policy, from
``mockgo.learn.supervised.policy_path``).
"""

import dataclasses
import json
import math
import time
import warnings
import zlib
from pathlib import Path

import numpy as np

from mockgo.go.board import BLACK, WHITE
from mockgo.data.files import atomic_path, atomic_write_text, check_same_settings
from mockgo.play.runner import NetworkPolicy, play_games, play_match
from mockgo.learn.supervised import load_model

__all__ = [
    "LoadedModel",
    "OpponentPool",
    "PolicyGradient",
    "Reinforce",
    "ReinforceConfig",
    "ValueData",
    "add_colour_plane",
    "fit_value_network",
    "game_positions",
    "kgs_archive",
    "kgs_game",
    "load_sl_policy",
    "load_value_network",
    "mse_by_phase",
    "reinforce_dir",
    "rl_policy_path",
    "save_model",
    "sl_policy_path",
    "standin_policy",
    "standin_value_network",
    "stones_from_planes",
    "value_curve",
    "value_dataset",
    "value_path",
    "with_symmetries",
]


def _mode(quick):
    return "quick" if quick else "full"


def value_path(repo_root, quick):
    """Where notebook 02 saves its value network (and 03 reads it):
    ``runs/02_value_net/{quick,full}/value.keras``."""
    return Path(repo_root) / "runs" / "02_value_net" / _mode(quick) / "value.keras"


def reinforce_dir(repo_root, quick):
    """Notebook 03's REINFORCE run folder: ``runs/03_policy_gradient/{quick,full}/run``."""
    return Path(repo_root) / "runs" / "03_policy_gradient" / _mode(quick) / "run"


def rl_policy_path(repo_root, quick):
    """Where notebook 03 saves the RL policy: ``runs/03_policy_gradient/{quick,full}/rl_policy.keras``."""
    return Path(repo_root) / "runs" / "03_policy_gradient" / _mode(quick) / "rl_policy.keras"


def sl_policy_path(repo_root, quick):
    """Where notebook 01 saves its SL policy (``mockgo.learn.supervised.policy_path``)."""
    from mockgo.learn.supervised import policy_path

    return Path(policy_path(repo_root, quick))


def save_model(model, path):
    """Save a model atomically: ``mockgo.learn.supervised.save_model_atomically``."""
    from mockgo.learn.supervised import save_model_atomically

    return save_model_atomically(model, path)


# ------------------------------------------------- models, and stand-ins


@dataclasses.dataclass
class LoadedModel:
    """A model and where it came from: ``note`` says it in a sentence,
    ``stand_in`` is True when the saved model was missing and a small one
    was built instead."""

    model: object
    note: str
    stand_in: bool
    path: Path | None = None


def standin_policy(size, seed=0):
    """What the notebooks use when notebook 01's policy is missing (or is
    for another board size): notebook 01's quick-mode network
    (``mockgo.learn.supervised.build_policy(training.QUICK, size)``: 3 convolutions
    of 16 filters on ``alphago48``), *untrained*, its weights drawn from
    ``seed`` (so every notebook builds the same one), as float32. Its moves
    are close to uniform over the sensible points. Re-seeds Python, NumPy
    and Keras (``keras.utils.set_random_seed``)."""
    from mockgo.learn import supervised as training

    model = training.build_policy(training.QUICK, board_size=size, planes=48, seed=seed)
    return training.as_float32(model)


def load_sl_policy(repo_root, quick, size, seed=0, stand_in=True):
    """Notebook 01's SL policy for boards of ``size``, or a stand-in.

    The policy at :func:`sl_policy_path` is used when it exists and plays
    ``size`` x ``size``; otherwise :func:`standin_policy` (the note says
    why), or, with ``stand_in=False`` (full mode: hours of work must not
    start from an untrained net), FileNotFoundError. Returns a
    :class:`LoadedModel`."""
    from mockgo.learn.supervised import QUICK, load_policy

    path = sl_policy_path(repo_root, quick)
    loaded, why = _load_if_it_fits(path, load_policy, size, "01", "policy", "plays")
    if loaded is not None:
        return loaded
    if not stand_in:
        raise FileNotFoundError(why)
    model = standin_policy(size, seed)
    return LoadedModel(model, f"{why}: using a stand-in, notebook 01's quick-mode network "
                              f"({QUICK.layers} x {QUICK.filters} filters) for {size}x{size}, "
                              f"untrained, seed {seed}", True, None)


def _load_if_it_fits(path, load, size, notebook, model_name, verb):
    """(LoadedModel, None) when the model notebook ``notebook`` saved at
    ``path`` is for boards of ``size``; else (None, why not), for the
    caller's stand-in note."""
    what = f"notebook {notebook}'s {model_name}"
    if not path.exists():
        return None, f"{what} is missing ({path} does not exist; run notebook {notebook} first)"
    model = load(path)
    board = model.input_shape[1]
    if board == size:
        return LoadedModel(model, f"{what}, from {path}", False, path), None
    return None, f"{what} at {path} {verb} {board}x{board}"


def standin_value_network(policy, size, games=300, epochs=8, seed=0, progress=False):
    """What notebook 03 uses when notebook 02's value network is missing: a
    small ``value_network(size, 49, layers=3, filters=16, hidden=64)``
    trained as notebook 02 trains it (:func:`fit_value_network` with the 8
    symmetries and early stopping) on :func:`value_dataset` of ``games``
    games of ``policy``."""
    import keras

    from mockgo.nets.models import value_network

    data = value_dataset(policy, games, size, rng=seed, progress=progress)
    keras.utils.set_random_seed(seed)
    model = value_network(size, 49, layers=3, filters=16, hidden=64, name="standin_value")
    split = int(0.9 * len(data))
    fit_value_network(model, data.planes[:split], data.outcomes[:split],
                      validation=(data.planes[split:], data.outcomes[split:]), epochs=epochs,
                      symmetries=True, patience=2, seed=seed)
    return model


def load_value_network(repo_root, quick, policy, size, seed=0, progress=False, stand_in=True):
    """Notebook 02's value network (:func:`value_path`) if it exists and
    fits ``size``, else :func:`standin_value_network` of ``policy`` (or,
    with ``stand_in=False``, FileNotFoundError). Returns a
    :class:`LoadedModel`."""
    path = value_path(repo_root, quick)
    loaded, why = _load_if_it_fits(path, load_model, size, "02", "value network", "is for")
    if loaded is not None:
        return loaded
    if not stand_in:
        raise FileNotFoundError(why)
    model = standin_value_network(policy, size, seed=seed, progress=progress)
    return LoadedModel(model, f"{why}: using a stand-in, a small value net trained here on 300 "
                              f"games of one position each (value_dataset)", True, None)


# ------------------------------------------------------------ value data


@dataclasses.dataclass
class ValueData:
    """One position per game: ``planes`` (alphago49, uint8), ``outcomes``
    (+1 / -1 / 0 for the player to move), ``steps`` (U: the position is the
    one after move U), the games played and dropped (ended before U), and
    the seconds it took to play them (over all sessions, for a resumed one)."""

    planes: np.ndarray
    outcomes: np.ndarray
    steps: np.ndarray
    games_played: int = 0
    games_dropped: int = 0
    seconds: float = 0.0

    def __len__(self):
        return len(self.outcomes)

    def __iter__(self):  # planes, outcomes = value_dataset(...)
        return iter((self.planes, self.outcomes))


def add_colour_plane(planes48, to_play):
    """``alphago49`` planes from ``alphago48`` ones: the 48 planes and a
    plane of ones where black is to play (``to_play``: one colour per row)."""
    planes48 = np.asarray(planes48)
    colour = (np.asarray(to_play) == BLACK).astype(np.uint8)
    colour = np.broadcast_to(colour[:, None, None, None], (*planes48.shape[:3], 1))
    return np.concatenate([planes48, colour], axis=-1)


def value_dataset(policy, games, size, komi=7.5, max_step=None, rl_policy=None, batch=256,
                  rng=0, max_moves=None, folder=None, progress=False):
    """AlphaGo's value-network data: ``games`` positions, one per game.

    ``policy`` (a :class:`~mockgo.play.runner.NetworkPolicy`, a Keras model on
    ``alphago48`` planes, or any batch player) plays moves 1 to U-1; move U
    is uniform over the legal points (pass only when there is none); then
    ``rl_policy`` (default: ``policy``) plays both sides to the end. U is
    uniform on 1..``max_step`` (default ``1.25 * size * size``, about the
    length of a game; AlphaGo drew it from 1..450 on 19x19). Games that end
    before move U are dropped and replaced. Games are played ``batch`` at a
    time, batch k with a generator seeded by (``rng``, k); ``rng``: an int
    seed, or a Generator or None, from which one is drawn (so that a run
    given a folder resumes only with an int).

    ``folder``: each batch's positions are saved there as it ends
    (``batch_NNNNN.npz``, atomically), and a call with the same arguments
    loads them and plays only the rest, so that an interrupted run loses
    at most one batch and gives the same data as one that was not. The
    folder's ``value_data.json`` records the arguments; other arguments
    are an error (the policies themselves are not checked).

    Returns :class:`ValueData` (it unpacks as ``planes, outcomes``).
    """
    from mockgo.go.features import get_encoder
    from mockgo.play.runner import as_batch_player

    if rng is None or isinstance(rng, np.random.Generator):
        rng = int(np.random.default_rng(rng).integers(2**63))
    policy = as_batch_player(policy)
    after = policy if rl_policy is None else as_batch_player(rl_policy)
    max_step = int(round(1.25 * size * size)) if max_step is None else int(max_step)
    encoder = get_encoder("alphago49", size)
    saved = _ValueBatches(folder, dict(games=games, size=size, komi=komi, max_step=max_step,
                                       batch=batch, seed=rng, max_moves=max_moves,
                                       rl_policy=rl_policy is not None))
    parts = []  # per batch: planes, outcomes, steps, games played, seconds
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=games, desc=progress if isinstance(progress, str) else "value data")
    kept = 0
    while kept < games:
        k = len(parts)
        part = saved.load(k)
        if part is None:
            part = _value_batch(policy, after, min(batch, games - kept), size, komi, max_step,
                                max_moves, np.random.default_rng([rng, k]), encoder)
            saved.save(k, part)
        parts.append(part)
        kept += len(part[1])
        if bar is not None:
            bar.update(len(part[1]))
    if bar is not None:
        bar.close()
    played = sum(part[3] for part in parts)
    planes, outcomes, steps = (np.concatenate([part[i] for part in parts]) for i in range(3))
    return ValueData(planes, outcomes, steps, played, played - games, sum(p[4] for p in parts))


def _value_batch(policy, after, count, size, komi, max_step, max_moves, rng, encoder):
    """``count`` games of :func:`value_dataset`: the planes, outcomes and U of
    those that reached their move U, ``count`` and the seconds taken."""
    start = time.perf_counter()
    at = rng.integers(1, max_step + 1, count)
    # Moves 1..U: the policy, then the random move U; stop there.
    first = play_games(policy, policy, count, size, komi=komi, rng=rng, random_move_at=at,
                       max_moves=at)
    boards = [g.board for g, u in zip(first, at) if g.board.move_number == u]
    planes = np.zeros((len(boards), *encoder.shape), np.uint8)
    for i, board in enumerate(boards):
        encoder.encode_into(board, planes[i])
    steps = np.array([b.move_number for b in boards], np.int32)
    movers = [b.to_play for b in boards]
    # ...then to the end.
    final = play_games(after, after, len(boards), size, komi=komi, rng=rng, boards=boards,
                       max_moves=max_moves) if boards else []
    outcomes = np.array([g.outcome(c) for g, c in zip(final, movers)], np.float32)
    return planes, outcomes, steps, count, time.perf_counter() - start


class _ValueBatches:
    """The batches of :func:`value_dataset` saved in a folder (or nowhere,
    for None)."""

    def __init__(self, folder, arguments):
        self.folder = None if folder is None else Path(folder)
        if self.folder is None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / "value_data.json"
        if path.exists():
            check_same_settings(self.folder, "value data", json.loads(path.read_text()),
                                arguments)
        else:
            atomic_write_text(path, json.dumps(arguments, indent=1))

    def _path(self, k):
        return self.folder / f"batch_{k:05d}.npz"

    def load(self, k):
        if self.folder is None or not self._path(k).exists():
            return None
        with np.load(self._path(k)) as saved:
            return (saved["planes"], saved["outcomes"], saved["steps"], int(saved["played"]),
                    float(saved["seconds"]))

    def save(self, k, part):
        if self.folder is None:
            return
        with atomic_path(self._path(k), suffix=".tmp.npz") as temporary:
            np.savez(temporary, **dict(zip(("planes", "outcomes", "steps", "played", "seconds"),
                                           part)))


def stones_from_planes(planes):
    """The stones (EMPTY, BLACK, WHITE per point, flat) of one position's
    ``alphago49`` planes, for drawing (``plotting.draw_board(None, stones=...)``)."""
    planes = np.asarray(planes)
    black_to_play = planes[0, 0, 48] == 1
    player, opponent = planes[..., 0].reshape(-1), planes[..., 1].reshape(-1)
    black, white = (player, opponent) if black_to_play else (opponent, player)
    return (black * BLACK + white * WHITE).astype(np.int8)


def game_positions(games):
    """Every position of some runner games (the way KGS data sets are
    made: each position labelled with its game's result), as ``(planes
    alphago49, outcomes for the player to move, game index)``."""
    from mockgo.go.features import get_encoder

    planes, outcomes, ids = [], [], []
    for i, game in enumerate(games):
        rows = np.arange(game.length)
        encoder = get_encoder("alphago49", game.size)
        planes.append(game.planes_at(rows, encoder))
        outcomes.append([game.outcome(c) for c in game.colors])
        ids.append(np.full(game.length, i))
    return (np.concatenate(planes), np.concatenate(outcomes).astype(np.float32),
            np.concatenate(ids))


def kgs_archive(repo_root, download=True):
    """The oldest KGS archive in ``data/kgs/`` (the one ``bash data/download.sh
    --archives 1`` fetches, and notebook 01's quick mode trains on); with
    ``download``, fetched when there is none. None when there is none and it
    could not be fetched."""
    import subprocess

    from mockgo.learn.supervised import QUICK, kgs_archives

    for attempt in range(2):
        try:
            return kgs_archives(repo_root, QUICK)[0]
        except FileNotFoundError:
            if attempt or not download:
                return None
            subprocess.run(["bash", str(Path(repo_root) / "data" / "download.sh"),
                            *QUICK.download_args.split()], check=False)


def kgs_game(dataset_folder, split="test", index=0):
    """The ``index``-th game of a split of a KGS data set
    (:func:`mockgo.data.dataset.build_dataset`), read again from its archive, as
    a :class:`mockgo.data.records.GameRecord`."""
    from mockgo.data import records

    lines = (Path(dataset_folder) / "games.tsv").read_text(encoding="utf-8").splitlines()
    sources = [line.split("\t")[2] for line in lines if line.split("\t")[1] == split]
    if index >= len(sources):
        raise IndexError(f"the {split} split of {dataset_folder} has {len(sources)} games")
    source = sources[index]
    archive = source.rsplit(":", 1)[0] if ":" in source and not Path(source).exists() else source
    for name, data in records.sgf_sources(Path(archive)):
        if name == source:  # only this one is parsed
            return records.read_sgf(data, source)
    raise FileNotFoundError(f"{source} is no longer in {archive}")


# ------------------------------------------------------ value-net training


def with_symmetries(planes, outcomes):
    """The data and its 7 images under the symmetries of the square
    (:mod:`mockgo.go.symmetries`): 8 times the positions, same outcomes."""
    from mockgo.go import symmetries

    planes = np.asarray(planes)
    return (np.concatenate([symmetries.apply_to_planes(s, planes) for s in symmetries.SYMMETRIES]),
            np.tile(np.asarray(outcomes, np.float32), len(symmetries.SYMMETRIES)))


def fit_value_network(model, planes, outcomes, validation=None, epochs=10, batch_size=64,
                      learning_rate=1e-3, symmetries=False, patience=None, seed=0,
                      checkpoint_dir=None, progress=False):
    """Train a value network (:func:`mockgo.nets.models.value_network`) to
    predict ``outcomes`` (+1 / -1 for the player to move) from ``planes``,
    by mean squared error with Adam; ``validation``: ``(planes, outcomes)``
    measured after every epoch. ``symmetries``: train on the 8 images of
    each position (:func:`with_symmetries`). ``patience``: stop when the
    validation error has not improved for that many epochs, and keep the
    weights of the best epoch (as Keras' ``EarlyStopping`` with
    ``restore_best_weights``). ``checkpoint_dir``: after every epoch the
    weights, the optimiser's state and the history are saved there, and a
    call with the same data and arguments goes on from the last epoch saved
    (each epoch's shuffle is seeded by ``seed`` and the epoch, so the result
    is the same as without the interruption). ``progress``: a tqdm bar over
    the epochs (True, or its description). Returns the history, a dict of
    lists (``loss``, and ``val_loss`` with validation data). Warns
    (RuntimeWarning) when the trained network gives the same value to every
    position, as it does when a ReLU layer has died."""
    import keras

    if patience is not None and validation is None:
        raise ValueError("early stopping (patience) needs validation data")
    if symmetries:
        planes, outcomes = with_symmetries(planes, outcomes)
    x, y = np.asarray(planes), np.asarray(outcomes, np.float32)
    if validation is not None:
        validation = (np.asarray(validation[0]), np.asarray(validation[1], np.float32))
    model.compile(optimizer=keras.optimizers.Adam(learning_rate), loss="mse")
    checkpoint = _FitCheckpoint(checkpoint_dir, dict(
        positions=len(y), shape=list(x.shape), outcomes_crc=zlib.crc32(y.tobytes()),
        validation=None if validation is None else len(validation[1]), epochs=epochs,
        batch_size=batch_size, learning_rate=learning_rate, patience=patience, seed=seed))
    state = checkpoint.restore(model) or {"epoch": 0, "history": {}, "best": None,
                                          "best_epoch": 0, "stopped": False}
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=epochs, initial=state["epoch"], leave=False,
                   desc=progress if isinstance(progress, str) else "epochs")
    while state["epoch"] < epochs and not state["stopped"]:
        keras.utils.set_random_seed(seed * 100_003 + state["epoch"])
        logs = model.fit(x, y, epochs=1, batch_size=batch_size, shuffle=True, verbose=0,
                         validation_data=validation).history
        for name, values in logs.items():
            state["history"].setdefault(name, []).append(float(values[-1]))
        state["epoch"] += 1
        best_weights = False
        if patience is not None:
            error = state["history"]["val_loss"][-1]
            if state["best"] is None or error < state["best"]:
                state["best"], state["best_epoch"], best_weights = error, state["epoch"], True
            state["stopped"] = state["epoch"] - state["best_epoch"] >= patience
        checkpoint.save(model, state, best_weights)
        if bar is not None:
            bar.update(1)
            bar.set_postfix({k: f"{v[-1]:.3f}" for k, v in state["history"].items()})
    if bar is not None:
        bar.close()
    if patience is not None:
        checkpoint.restore_best(model)
    sample = model.predict(x[:256], verbose=0)
    if np.ptp(sample) < 1e-6:
        warnings.warn(f"{model.name} gives every position the same value {float(sample[0, 0]):+.3f}: "
                      f"a ReLU layer that outputs 0 everywhere (a one-filter convolution can "
                      f"die so)? Train it again with a lower learning_rate "
                      f"(this one: {learning_rate:g})", RuntimeWarning, stacklevel=2)
    return state["history"]


class _FitCheckpoint:
    """:func:`fit_value_network`'s saved state in a folder (or in memory,
    for None): ``model.weights.h5`` after the last epoch (Keras saves the
    optimiser's state with the weights of a compiled model),
    ``best.weights.h5`` (the best epoch's weights) and ``state.json``,
    written last, naming the epoch."""

    def __init__(self, folder, arguments):
        self.folder = None if folder is None else Path(folder)
        self.arguments = arguments
        self.best = None  # in memory, without a folder

    def restore(self, model):
        """The saved state, with ``model``'s weights and optimiser set from
        it; None when nothing is saved."""
        if self.folder is None or not (self.folder / "state.json").exists():
            return None
        saved = json.loads((self.folder / "state.json").read_text())
        check_same_settings(self.folder, "a training", saved["arguments"], self.arguments)
        # Built first, the optimiser gets its saved state from the weights file too.
        model.optimizer.build(model.trainable_variables)
        model.load_weights(self.folder / "model.weights.h5")
        return saved["state"]

    def save(self, model, state, best_weights):
        if self.folder is None:
            if best_weights:
                self.best = model.get_weights()
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        if best_weights:
            with atomic_path(self.folder / "best.weights.h5", suffix=".weights.h5") as temporary:
                model.save_weights(temporary)
        with atomic_path(self.folder / "model.weights.h5", suffix=".weights.h5") as temporary:
            model.save_weights(temporary)
        atomic_write_text(self.folder / "state.json",
                          json.dumps({"arguments": self.arguments, "state": state}, indent=1))

    def restore_best(self, model):
        if self.folder is None:
            if self.best is not None:
                model.set_weights(self.best)
        elif (self.folder / "best.weights.h5").exists():
            model.load_weights(self.folder / "best.weights.h5")


def value_curve(value_model, record):
    """The value network's view of a whole game: for the position before
    each move and the final one, the predicted probability that black wins,
    ``(1 + v) / 2`` with v turned to black's view. ``record``: a
    :class:`mockgo.data.records.GameRecord` (a KGS game) or a
    :class:`mockgo.play.runner.PlayedGame`."""
    from mockgo.data import records
    from mockgo.go.features import get_encoder
    from mockgo.nets.inference import Predictor

    if not isinstance(record, records.GameRecord):
        record = record.record()
    encoder = get_encoder("alphago49", record.size)
    planes, movers = [], []
    board = None
    for board, _, _ in records.replay(record):
        planes.append(encoder.encode(board))
        movers.append(board.to_play)
    final = records.final_board(record) if board is None else board
    planes.append(encoder.encode(final))
    movers.append(final.to_play)
    values = Predictor(value_model).predict(np.stack(planes))[:, 0]
    black_view = np.where(np.array(movers) == BLACK, values, -values)
    return (1 + black_view) / 2


def mse_by_phase(predictions, outcomes, steps, edges, constant=None, movers=None):
    """Mean squared error of ``predictions`` against ``outcomes`` in bins
    of the move number (``steps``; bin i is ``edges[i] <= step < edges[i+1]``),
    and of a constant guess beside it: ``constant`` is a number, or a dict
    ``{BLACK: c, WHITE: c}`` of one constant per colour to move (then
    ``movers`` gives the colour of each row). Returns a dict of arrays:
    ``count``, ``network``, ``constant``."""
    predictions = np.asarray(predictions, np.float64).reshape(-1)
    outcomes = np.asarray(outcomes, np.float64)
    steps = np.asarray(steps)
    if isinstance(constant, dict):
        guess = np.where(np.asarray(movers) == BLACK, constant[BLACK], constant[WHITE])
    else:
        guess = np.full(len(outcomes), 0.0 if constant is None else constant)
    count, network, fixed = [], [], []
    for low, high in zip(edges[:-1], edges[1:]):
        sel = (steps >= low) & (steps < high)
        count.append(int(sel.sum()))
        network.append(np.mean((predictions[sel] - outcomes[sel]) ** 2) if sel.any() else math.nan)
        fixed.append(np.mean((guess[sel] - outcomes[sel]) ** 2) if sel.any() else math.nan)
    return {"count": np.array(count), "network": np.array(network), "constant": np.array(fixed)}


# ------------------------------------------------------------------- pool


@dataclasses.dataclass
class PoolMember:
    iteration: int  # the iteration after which it joined (0: the SL policy)
    weights: list
    file: str | None = None  # relative to the run folder


class OpponentPool:
    """Earlier versions of the policy, as weight snapshots in memory.

    It starts with one member (the SL policy, iteration 0); the current
    policy joins after every ``every``-th iteration (:meth:`due`). Opponents
    are sampled uniformly (:meth:`sample`)."""

    def __init__(self, every):
        if not isinstance(every, int) or every < 1:
            raise ValueError(f"the pool takes a new member every K >= 1 iterations, got {every!r}")
        self.every = every
        self.members = []

    def __len__(self):
        return len(self.members)

    def add(self, iteration, weights, file=None):
        member = PoolMember(int(iteration), [np.array(w, copy=True) for w in weights], file)
        self.members.append(member)
        return member

    def due(self, iteration):
        """Whether the current policy joins after ``iteration``."""
        return iteration > 0 and iteration % self.every == 0

    def sample(self, rng):
        """A member, uniformly at random."""
        if not self.members:
            raise ValueError("the pool is empty")
        return self.members[int(rng.integers(len(self.members)))]

    @property
    def iterations(self):
        return [m.iteration for m in self.members]


# ---------------------------------------------------------- the update


class PolicyGradient:
    """The REINFORCE update of a policy network, plain SGD.

    ``update(planes, masks, moves, advantages, games)`` takes the
    positions a policy moved in, the sensible moves there (N*N + 1 masks,
    pass last, as the runner records them), the moves it chose and
    ``z - b`` for each, and does one step of gradient ascent on
    ``(1/games) * sum(advantages * log p(move | position))``, where p is the
    network's softmax (of its logits over ``temperature``) restricted to the
    sensible moves. Positions are processed ``chunk`` at a time, their
    gradients summed, then applied once. The gradient step is a
    ``tf.GradientTape`` inside a ``tf.function`` with an input signature
    (traced once).
    """

    def __init__(self, model, learning_rate, temperature=1.0, chunk=512):
        import keras
        import tensorflow as tf

        from mockgo.nets.models import logits_model

        if temperature <= 0:
            raise ValueError("REINFORCE needs a sampling temperature > 0")
        self.model = model
        self.logits = logits_model(model)
        self.temperature = float(temperature)
        self.chunk = int(chunk)
        self.variables = model.trainable_variables
        self.optimizer = keras.optimizers.SGD(learning_rate)
        self.optimizer.build(self.variables)
        self.num_moves = self.logits.output_shape[-1]  # N*N, or N*N + 1 with a pass output
        input_shape = tuple(model.inputs[0].shape[1:])
        temperature = self.temperature
        logits_net = self.logits
        variables = self.variables

        def gradients(planes, masks, moves, weights):
            with tf.GradientTape() as tape:
                logits = logits_net(planes, training=True) / temperature
                logits = tf.where(masks, logits, tf.constant(-1e9, logits.dtype))
                log_p = tf.nn.log_softmax(logits)
                chosen = tf.gather(log_p, moves, batch_dims=1)
                objective = tf.reduce_sum(weights * chosen)
            return tape.gradient(objective, variables), objective

        # autograph=False: straight-line code, nothing for AutoGraph to convert.
        self._gradients = tf.function(gradients, autograph=False, input_signature=[
            tf.TensorSpec((None, *input_shape), tf.as_dtype(model.inputs[0].dtype)),
            tf.TensorSpec((None, self.num_moves), tf.bool),
            tf.TensorSpec((None,), tf.int32),
            tf.TensorSpec((None,), tf.float32),
        ])

        def apply(grads, scale):
            self.optimizer.apply_gradients([(-g * scale, v) for g, v in zip(grads, variables)])

        self._apply = tf.function(apply, autograph=False)

    @property
    def learning_rate(self):
        return float(self.optimizer.learning_rate.numpy())

    def update(self, planes, masks, moves, advantages, games, num_planes=None):
        """One step (class docstring). ``planes`` may be bit-packed along the
        plane axis (as :class:`~mockgo.play.runner.PlayedGame` keeps them): then
        pass ``num_planes``. Returns the objective (before the step)."""
        import tensorflow as tf

        masks = np.asarray(masks, bool)[:, :self.num_moves]
        moves = np.asarray(moves, np.int32)
        weights = np.asarray(advantages, np.float32)
        if len(moves) == 0:
            return 0.0
        if moves.max() >= self.num_moves:
            raise ValueError("a move outside the policy's outputs (a pass, for a policy "
                             "without a pass output)")
        total, objective = None, 0.0
        for start in range(0, len(moves), self.chunk):
            part = slice(start, start + self.chunk)
            chunk = planes[part]
            if num_planes is not None:
                chunk = np.unpackbits(chunk, axis=-1, count=num_planes)
            grads, value = self._gradients(tf.constant(chunk), tf.constant(masks[part]),
                                           tf.constant(moves[part]), tf.constant(weights[part]))
            total = list(grads) if total is None else [t + g for t, g in zip(total, grads)]
            objective += float(value)
        self._apply(total, tf.constant(1.0 / games, tf.float32))
        return objective / games


# --------------------------------------------------------------- the run


@dataclasses.dataclass
class ReinforceConfig:
    """The settings of a REINFORCE run (kept in its state.json; a run
    resumes only with the same ones).

    ``games``: n, the games of a mini-batch (AlphaGo: 128); ``pool_every``:
    K, iterations between additions to the pool (AlphaGo: 500);
    ``learning_rate``: alpha (AlphaGo: 0.001); ``eval_games`` against the
    SL policy every ``eval_every`` iterations (0: never)."""

    size: int = 19
    encoder: str = "alphago48"
    games: int = 128
    learning_rate: float = 0.001
    pool_every: int = 10
    temperature: float = 1.0
    eval_games: int = 64
    eval_every: int = 1
    komi: float = 7.5
    max_moves: int | None = None
    seed: int = 0
    chunk: int = 512


class Reinforce:
    """A REINFORCE run in ``folder`` (module docstring), started from
    ``sl_policy`` or resumed from the folder's checkpoint (which must have
    started from the same ``sl_policy``, if one is given);
    ``restart=True`` deletes the folder first.

    >>> run = Reinforce("runs/rl", sl_model, ReinforceConfig(size=9, games=16))
    >>> run.run(until=10, baseline=None)       # the first pass
    >>> run.run(until=20, baseline=value_net)  # the second pass
    >>> run.history[-1]["eval_win_rate"]

    ``history`` has one dict per iteration: ``iteration``, ``opponent``
    (the pool member's iteration), ``win_rate`` (against it), ``eval_win_rate``
    (against the SL policy, or None), ``pool_size``, ``baseline``,
    ``positions``, ``mean_length``, ``objective``, ``seconds``.
    """

    def __init__(self, folder, sl_policy, config, restart=False):
        import shutil

        import keras

        import mockgo.nets.models  # noqa: F401

        self.folder = Path(folder)
        self.config = config
        if restart and self.folder.exists():
            shutil.rmtree(self.folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "pool").mkdir(exist_ok=True)
        (self.folder / "checkpoints").mkdir(exist_ok=True)
        state_file = self.folder / "state.json"
        self.pool = OpponentPool(config.pool_every)
        if state_file.exists():
            state = json.loads(state_file.read_text())
            check_same_settings(self.folder, "a run", state["config"], dataclasses.asdict(config))
            self.iteration = state["iteration"]
            self.history = state["history"]
            self.rng = np.random.default_rng()
            self.rng.bit_generator.state = state["rng"]
            self.learner = load_model(self.folder / state["learner"])
            for member in state["pool"]:
                model = load_model(self.folder / member["file"])
                self.pool.add(member["iteration"], model.get_weights(), member["file"])
            if sl_policy is not None and not all(
                    np.array_equal(a, b) for a, b in
                    zip(sl_policy.get_weights(), self.pool.members[0].weights)):
                raise ValueError(f"{self.folder} holds a run that started from another policy; "
                                 f"choose another folder, delete it, or pass restart=True")
            self.resumed = True
        else:
            if sl_policy.input_shape[1] != config.size:
                raise ValueError(f"the policy plays {sl_policy.input_shape[1]}x"
                                 f"{sl_policy.input_shape[1]}, the config says {config.size}")
            self.iteration = 0
            self.history = []
            self.rng = np.random.default_rng(config.seed)
            self.learner = keras.models.clone_model(sl_policy)
            self.learner.set_weights(sl_policy.get_weights())
            file = "pool/member_00000.keras"
            save_model(sl_policy, self.folder / file)
            self.pool.add(0, sl_policy.get_weights(), file)
            self.resumed = False
            self._checkpoint()
        # The SL policy, for evaluation: the pool's first member.
        self.sl = keras.models.clone_model(self.learner)
        self.sl.set_weights(self.pool.members[0].weights)
        self.opponent = keras.models.clone_model(self.learner)
        self.opponent.set_weights(self.pool.members[0].weights)
        self.gradient = PolicyGradient(self.learner, config.learning_rate, config.temperature,
                                       config.chunk)
        self.player = NetworkPolicy(self.learner, config.encoder, config.temperature,
                                    name="rl", keep_planes=True)
        self.evaluator = self.player.with_temperature(config.temperature, keep_planes=False)
        self.opponent_player = NetworkPolicy(self.opponent, config.encoder, config.temperature,
                                             name="pool")
        self.sl_player = NetworkPolicy(self.sl, config.encoder, config.temperature, name="sl")
        self._value = {}  # id(model) -> Predictor
        self.last_games = []

    # ------------------------------------------------------------ running

    def run(self, until, baseline=None, progress=True):
        """Iterate until ``until`` iterations are done (none if already
        there); ``baseline``: None (zero) or a value network. Returns the
        history."""
        iterations = range(self.iteration + 1, until + 1)
        bar = None
        if progress and len(iterations):
            from tqdm.auto import tqdm

            bar = tqdm(iterations, desc="REINFORCE", leave=True)
        for _ in iterations:
            record = self.step(baseline)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(win=f"{record['win_rate']:.2f}", pool=record["pool_size"])
        if bar is not None:
            bar.close()
        return self.history

    def step(self, baseline=None):
        """One iteration: games against a sampled opponent, the update, the
        pool, the evaluation, the checkpoint. Returns its history entry."""
        config = self.config
        began = time.perf_counter()
        iteration = self.iteration + 1
        member = self.pool.sample(self.rng)
        self.opponent.set_weights(member.weights)
        match = play_match(self.player, self.opponent_player, config.games, config.size,
                           komi=config.komi, rng=self.rng, max_moves=config.max_moves)
        self.last_games = match.games
        packed, masks, moves, advantages = self._batch(match.games, baseline)
        objective = self.gradient.update(packed, masks, moves, advantages, config.games,
                                         num_planes=self.player.encoder.num_planes)
        if self.pool.due(iteration):
            file = f"pool/member_{iteration:05d}.keras"
            save_model(self.learner, self.folder / file)
            self.pool.add(iteration, self.learner.get_weights(), file)
        eval_win_rate = None
        if config.eval_every and iteration % config.eval_every == 0 and config.eval_games:
            evaluation = play_match(self.evaluator, self.sl_player, config.eval_games,
                                    config.size, komi=config.komi, rng=self.rng,
                                    max_moves=config.max_moves)
            eval_win_rate = evaluation.win_rate
        record = {
            "iteration": iteration,
            "opponent": member.iteration,
            "win_rate": match.win_rate,
            "eval_win_rate": eval_win_rate,
            "pool_size": len(self.pool),
            "baseline": "zero" if baseline is None else "value",
            "positions": int(len(moves)),
            "mean_length": float(np.mean([g.length for g in match.games])),
            "mean_abs_advantage": float(np.mean(np.abs(advantages))) if len(moves) else 0.0,
            "objective": float(objective),
            "seconds": round(time.perf_counter() - began, 2),
        }
        self.iteration = iteration
        self.history.append(record)
        self._checkpoint()
        return record

    def _batch(self, games, baseline):
        """The current policy's moves of the games, as arrays for the update."""
        packed, masks, moves, outcomes, movers = [], [], [], [], []
        for i, game in enumerate(games):
            color = BLACK if i % 2 == 0 else WHITE
            rows = np.flatnonzero(game.evaluated & (game.colors == color))
            if not len(rows):
                continue
            packed.append(game.planes[game.plane_rows[rows]])
            masks.append(game.masks[rows])
            moves.append(game.moves[rows])
            outcomes.append(np.full(len(rows), game.outcome(color), np.float32))
            movers.append(game.colors[rows])
        if not packed:
            size = self.config.size
            empty = np.zeros((0, size, size, (self.player.encoder.num_planes + 7) // 8), np.uint8)
            return empty, np.zeros((0, size * size + 1), bool), np.zeros(0, np.int32), \
                np.zeros(0, np.float32)
        packed, masks, moves = np.concatenate(packed), np.concatenate(masks), np.concatenate(moves)
        z, movers = np.concatenate(outcomes), np.concatenate(movers)
        if baseline is None:
            return packed, masks, moves, z
        return packed, masks, moves, z - self._baseline(baseline, packed, movers, games)

    def _baseline(self, value_model, packed, movers, games):
        """v(s) for the current policy's positions, on their alphago49 planes."""
        from mockgo.go.features import get_encoder
        from mockgo.nets.inference import Predictor

        predictor = self._value.get(id(value_model))
        if predictor is None:
            predictor = self._value[id(value_model)] = Predictor(value_model, batch_size=512)
        name = self.player.encoder.name
        values = []
        if name == "alphago48":
            for start in range(0, len(packed), 512):
                planes = np.unpackbits(packed[start:start + 512], axis=-1, count=48)
                values.append(predictor.predict(add_colour_plane(planes, movers[start:start + 512])))
        else:  # re-encode the positions
            encoder = get_encoder("alphago49", self.config.size)
            for i, game in enumerate(games):
                color = BLACK if i % 2 == 0 else WHITE
                rows = np.flatnonzero(game.evaluated & (game.colors == color))
                if len(rows):
                    values.append(predictor.predict(game.planes_at(rows, encoder)))
        return np.concatenate(values)[:, 0].astype(np.float32)

    # ------------------------------------------------------ checkpoints

    def _checkpoint(self):
        """The learner, then state.json naming it (the commit point), then
        the older learner files go."""
        learner = f"checkpoints/learner_{self.iteration:05d}.keras"
        save_model(self.learner, self.folder / learner)
        state = {
            "config": dataclasses.asdict(self.config),
            "iteration": self.iteration,
            "learner": learner,
            "pool": [{"iteration": m.iteration, "file": m.file} for m in self.pool.members],
            "rng": self.rng.bit_generator.state,
            "history": self.history,
        }
        atomic_write_text(self.folder / "state.json", json.dumps(state, indent=1))
        for old in (self.folder / "checkpoints").glob("learner_*.keras"):
            if old.name != Path(learner).name:
                old.unlink(missing_ok=True)

    def save_games(self, folder, count=4):
        """The last iteration's first ``count`` games as SGF files in
        ``folder``; returns their paths."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        paths = []
        for i, game in enumerate(self.last_games[:count]):
            path = folder / f"iteration_{self.iteration:05d}_game_{i}.sgf"
            game.save_sgf(path, black="rl" if i % 2 == 0 else "pool",
                          white="pool" if i % 2 == 0 else "rl")
            paths.append(path)
        return paths
