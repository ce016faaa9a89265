"""AlphaGo's value network: its data, one position per game, and its training.

Silver et al. 2016, Methods, "Reinforcement learning of value networks".
Training on every position of each game overfits, because neighbouring
positions share one label; AlphaGo takes one position per game.

:func:`value_dataset`: for each game an integer U is drawn uniformly; moves
1 to U-1 are sampled from the SL policy, move U is a uniformly random legal
point, then the policy plays the game out; the position after move U is
kept, as its ``alphago49`` planes, with the game's outcome from the view of
the player to move there. Games are played many at a time by
:mod:`mockgo.play.runner`; batches are saved as they end, so an interrupted
run resumes.

:func:`fit_value_network` trains a :func:`mockgo.nets.models.value_network`
on them (mean squared error, optionally on the 8 symmetries of each
position, early stopping), checkpointing every epoch so that it resumes too;
:func:`value_curve` (along a game :func:`decided_game` picks) and
:func:`mse_by_phase` read what it learnt.
"""

import dataclasses
import json
import math
import time
import warnings
import zlib
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from mockgo.cluster import Executor, Recipe, make_executor
from mockgo.data import sgf_reader
from mockgo.data.dataset import split_game
from mockgo.data.files import (CorruptFileError, atomic_path, atomic_write_text,
                               check_same_settings, discard_work, job_folder, list_work, read_json,
                               read_npz, refuse_unrecorded_work)
from mockgo.go import symmetries
from mockgo.go.board import BLACK, WHITE, Board
from mockgo.go.features import ALPHAGO49, get_encoder
from mockgo.nets.architectures import build_network
from mockgo.nets.device import (building_in, resolve_precision, set_random_seed,
                                training_jit_compile)
from mockgo.nets.io import NetworkInfo
from mockgo.play.policy_player import portable_player
from mockgo.play.specs import as_player
from mockgo.play.runner import play_games
from mockgo.search.uct import score_value

__all__ = ["DeadNetworkWarning", "ValueData", "add_colour_plane", "build_value", "colours_to_move",
           "decided_game", "fit_value_network", "game_positions", "gives_one_value", "mse_by_phase",
           "position_from_planes", "predict_values", "rollout_values", "stones_from_planes",
           "value_curve", "value_dataset", "with_symmetries"]

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


def colours_to_move(planes49):
    """The colour to move in each row of ``alphago49`` planes (the inverse of
    :func:`add_colour_plane`: plane 48 is ones where black is to play)."""
    return np.where(np.asarray(planes49)[:, 0, 0, 48] == 1, BLACK, WHITE)

def value_dataset(policy, games, size, komi=7.5, max_step=None, rl_policy=None, batch=256,
                  rng=0, max_moves=None, folder=None, progress=False, restart=False,
                  cluster=None):
    """AlphaGo's value-network data: ``games`` positions, one per game.

    ``policy`` (a :class:`~mockgo.play.policy_player.PolicyPlayer`, a Keras model on
    ``alphago48`` planes, or any player) plays moves 1 to U-1; move U
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
    are an error (the policies themselves are not checked), and so are
    batches in a folder without a readable ``value_data.json``, unless
    ``restart=True``, which deletes the folder's batches and plays anew.

    ``cluster``: ``"ray"`` or a :class:`mockgo.cluster.Executor` plays the
    batches on workers (the policies travel as their networks' bytes; each
    batch comes back here to be saved). Batch k's size depends on how many
    positions the batches before it kept, so a batch goes out early only
    when its size is sure whatever they keep; the data are the same as
    played here.

    Returns :class:`ValueData` (it unpacks as ``planes, outcomes``).
    """

    # One job a folder; a resumed one first deletes a killed one's temporaries.
    with job_folder(folder, "playing value data"):
        if rng is None or isinstance(rng, np.random.Generator):
            rng = int(np.random.default_rng(rng).integers(2**63))
        max_step = int(round(1.25 * size * size)) if max_step is None else int(max_step)
        saved = _ValueBatches(folder, dict(games=games, size=size, komi=komi, max_step=max_step,
                                           batch=batch, seed=rng, max_moves=max_moves,
                                           rl_policy=rl_policy is not None), restart)
        bar = None
        if progress:
            bar = tqdm(total=games, desc=progress if isinstance(progress, str) else "value data")
        if cluster is None:
            games_here = _ValueGames(as_player(policy, temperature=1.0),
                                     None if rl_policy is None else as_player(rl_policy,
                                                                              temperature=1.0),
                                     size, komi, max_step, max_moves)
            parts = []  # per batch: planes, outcomes, steps, games played, seconds
            kept = 0
            while kept < games:
                k = len(parts)
                part = saved.load(k)
                if part is None:
                    part = games_here({"count": min(batch, games - kept), "seed": [rng, k]})
                    saved.save(k, part)
                parts.append(part)
                kept += len(part[1])
                if bar is not None:
                    bar.update(len(part[1]))
        else:
            parts = _value_batches_on(cluster, policy, rl_policy, games, size, komi, max_step,
                                      max_moves, batch, rng, saved, bar)
        if bar is not None:
            bar.close()
        played = sum(part[3] for part in parts)
        planes, outcomes, steps = (np.concatenate([part[i] for part in parts]) for i in range(3))
        return ValueData(planes, outcomes, steps, played, played - games, sum(p[4] for p in parts))


def _value_batches_on(cluster, policy, rl_policy, games, size, komi, max_step, max_moves, batch,
                      rng, saved, bar):
    """:func:`value_dataset`'s batches on an executor (:mod:`mockgo.cluster`).

    The batches played one after another would be: batch k of
    ``min(batch, games - K_k)`` games, K_k the positions batches 0..k-1
    kept, until K reaches ``games``. Each batch keeps at most its size, so
    while ``games`` less (the kept positions of the finished batches before
    k + the sizes of the others) is at least ``batch``, batch k is surely
    played, and in full: it goes out at once. Otherwise it waits for the
    batches before it. So the same batches are played, none in vain."""
    executor = make_executor(cluster)
    recipe = Recipe(_ValueGames, (portable_player(policy),
                                  None if rl_policy is None else portable_player(rl_policy),
                                  size, komi, max_step, max_moves))
    parts, sizes = {}, {}  # batch -> its part (finished), its size (sent)
    try:
        results = None
        while True:
            k = len(sizes)
            if all(j in parts for j in range(k)):
                left = games - sum(len(parts[j][1]) for j in range(k))
                if left <= 0:
                    break
                size_k = min(batch, left)
            else:
                bound = sum(len(parts[j][1]) if j in parts else sizes[j] for j in range(k))
                size_k = batch if games - bound >= batch else None
            in_flight = len(sizes) - len(parts)
            if size_k is not None and in_flight < 2 * executor.workers:
                sizes[k] = size_k
                part = saved.load(k)
                if part is not None:  # saved by an earlier run
                    parts[k] = part
                    if bar is not None:
                        bar.update(len(part[1]))
                else:
                    executor.submit(recipe, ("value", rng, k), {"count": size_k,
                                                                "seed": [rng, k]})
                continue
            if results is None:
                results = executor.results()
            (_, _, j), part = next(results)
            saved.save(j, part)
            parts[j] = part
            if bar is not None:
                bar.update(len(part[1]))
            if len(parts) == len(sizes):
                results = None  # the generator ends when nothing is left: start anew
    finally:
        if not isinstance(cluster, Executor):  # made here
            executor.close()
    return [parts[k] for k in range(len(sizes))]


class _ValueGames:
    """Plays :func:`value_dataset`'s batches (here, or as a worker's session):
    a task is ``{"count", "seed"}``; returns the planes, outcomes and U of
    the games that reached their move U, ``count`` and the seconds taken."""

    def __init__(self, policy, rl_policy, size, komi, max_step, max_moves):
        self.policy = _side(policy)
        self.after = self.policy if rl_policy is None else _side(rl_policy)
        self.size, self.komi, self.max_step, self.max_moves = size, komi, max_step, max_moves
        self.encoder = get_encoder(ALPHAGO49, size)

    def __call__(self, task):
        return _value_batch(self.policy, self.after, task["count"], self.size, self.komi,
                            self.max_step, self.max_moves, np.random.default_rng(task["seed"]),
                            self.encoder)


def _side(player):
    """A player from what a worker gets (a spec, a recipe) or a player."""
    return player.make() if hasattr(player, "make") else as_player(player, temperature=1.0)


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
    for None); ``value_data.json``, written before the first batch, records
    the arguments they were played with."""

    WORK = ("batch_*.npz",)
    RESTART = "pass restart=True to value_dataset"

    def __init__(self, folder, arguments, restart=False):
        self.folder = None if folder is None else Path(folder)
        if self.folder is None:
            return
        path = self.folder / "value_data.json"
        stored = None
        if restart:
            discard_work(self.folder, path, list_work(self.folder, self.WORK))
        else:
            stored = read_json(path, "the arguments of the value data's games", missing_ok=True,
                               schema=dict, remedy=f"To delete the batches and play them "
                                                   f"again, {self.RESTART}")
        if stored is None:
            refuse_unrecorded_work(self.folder, path, list_work(self.folder, self.WORK),
                                   self.RESTART)
            self.folder.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, json.dumps(arguments, indent=1))
        else:
            check_same_settings(self.folder, "value data", stored, arguments)

    def _path(self, k):
        return self.folder / f"batch_{k:05d}.npz"

    def load(self, k):
        if self.folder is None or not self._path(k).exists():
            return None
        saved = read_npz(self._path(k))  # a damaged batch is named
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


def position_from_planes(planes, komi=7.5):
    """The position of one ``alphago49`` row as a :class:`~mockgo.go.board.Board`:
    its stones as set-up stones and the player to move from plane 48. The
    planes keep no history, so the board has no ko and no last move."""
    planes = np.asarray(planes)
    stones = stones_from_planes(planes)
    board = Board(planes.shape[0], komi=komi)
    board.setup(black=np.flatnonzero(stones == BLACK), white=np.flatnonzero(stones == WHITE))
    board.to_play = BLACK if planes[0, 0, 48] == 1 else WHITE
    return board


def rollout_values(planes, rollouts=16, heavy=False, komi=7.5, seed=0):
    """AlphaGo's other judge of a position: the mean result, for the player
    to move, of ``rollouts`` random games played from it to the end
    (:meth:`mockgo.go.board.Board.random_playout`, compiled: uniform over the
    sensible moves, or with ``heavy`` MoGo's rules first; scored by area with
    ``komi``), for each ``alphago49`` row of ``planes`` (-1 to +1, as
    :func:`predict_values`). Silver et al. 2016 (Figure 2b) compared their
    rollouts' accuracy with the value network's, move by move."""
    generator = np.array([np.random.default_rng(seed).integers(1, 2**63)], np.uint64)
    values = np.zeros(len(planes))
    for i, row in enumerate(planes):
        board = position_from_planes(row, komi)
        values[i] = np.mean([score_value(board.random_playout(generator, heavy=heavy).score, board)
                             for _ in range(rollouts)])
    return values


def game_positions(games):
    """Every position of some runner games (the way KGS data sets are
    made: each position labelled with its game's result), as ``(planes
    alphago49, outcomes for the player to move, game index)``."""

    planes, outcomes, ids = [], [], []
    for i, game in enumerate(games):
        rows = np.arange(game.length)
        encoder = get_encoder(ALPHAGO49, game.size)
        planes.append(game.planes_at(rows, encoder))
        outcomes.append([game.outcome(c) for c in game.colors])
        ids.append(np.full(game.length, i))
    return (np.concatenate(planes), np.concatenate(outcomes).astype(np.float32),
            np.concatenate(ids))



# ------------------------------------------------------ value-net training


def with_symmetries(planes, outcomes):
    """The data and its 7 images under the symmetries of the square
    (:mod:`mockgo.go.symmetries`): 8 times the positions, same outcomes."""

    planes = np.asarray(planes)
    return (np.concatenate([symmetries.apply_to_planes(s, planes) for s in symmetries.SYMMETRIES]),
            np.tile(np.asarray(outcomes, np.float32), len(symmetries.SYMMETRIES)))


def build_value(layers, filters, board_size=19, planes=49, precision="auto", seed=0, hidden=256,
                encoder=None, name="value_network"):
    """A new, uncompiled :func:`mockgo.nets.models.value_network` of
    ``layers`` convolutions of ``filters`` filters and ``hidden`` units,
    built under ``precision`` (``"auto"``, ``"float32"`` or
    ``"mixed_bfloat16"``, as :func:`mockgo.learn.supervised.build_policy`
    builds a policy), with its weights drawn from ``seed``. Given an
    ``encoder``, the network records what it reads (``mockgo_info``), as a
    file saved from it will."""
    precision = resolve_precision(precision)
    set_random_seed(seed)
    with building_in(precision):
        model = build_network("value_network", board_size=board_size, planes=planes,
                              layers=layers, filters=filters, hidden=hidden, name=name)
    if encoder is not None:
        model.mockgo_info = NetworkInfo("value", encoder, board_size)
    return model


def fit_value_network(model, planes, outcomes, validation=None, epochs=10, batch_size=64,
                      learning_rate=1e-3, symmetries=False, patience=None, seed=0,
                      checkpoint_dir=None, progress=False, restart=False):
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
    is the same as without the interruption); weights there without a
    readable ``state.json`` are an error unless ``restart=True``, which
    deletes them and trains anew. ``progress``: a tqdm bar over
    the epochs (True, or its description). Returns the history, a dict of
    lists (``loss``, and ``val_loss`` with validation data). Warns
    (RuntimeWarning) when the trained network gives the same value to every
    position, as it does when a ReLU layer has died."""
    import keras  # the backend: imported only when a network is used

    from mockgo.data.pipeline import ArrayBatches  # imports Keras

    if patience is not None and validation is None:
        raise ValueError("early stopping (patience) needs validation data")
    if symmetries:
        planes, outcomes = with_symmetries(planes, outcomes)
    x, y = np.asarray(planes), np.asarray(outcomes, np.float32)
    if validation is not None:
        validation = (np.asarray(validation[0]), np.asarray(validation[1], np.float32))
    model.compile(optimizer=keras.optimizers.Adam(learning_rate), loss="mse",
                  jit_compile=training_jit_compile(model, len(y) * epochs))
    with job_folder(checkpoint_dir, "training a value network"):
        checkpoint = _FitCheckpoint(checkpoint_dir, dict(
            positions=len(y), shape=list(x.shape), outcomes_crc=zlib.crc32(y.tobytes()),
            validation=None if validation is None else len(validation[1]), epochs=epochs,
            batch_size=batch_size, learning_rate=learning_rate, patience=patience, seed=seed))
        state = checkpoint.restore(model, {"epoch": 0, "history": {}, "best": None,
                                           "best_epoch": 0, "stopped": False}, restart)
        bar = None
        if progress:
            bar = tqdm(total=epochs, initial=state["epoch"], leave=False,
                       desc=progress if isinstance(progress, str) else "epochs")
        while state["epoch"] < epochs and not state["stopped"]:
            # The epoch's order from the seed and the epoch alone, drawn here: a
            # backend's own shuffle can depend on what the model did before (on
            # JAX, the first fit of a model draws seeds before it shuffles), and a
            # resumed run must see the same batches as one that was not stopped.
            order = np.random.default_rng([seed, state["epoch"]]).permutation(len(y))
            logs = model.fit(ArrayBatches(x, y, order, batch_size), epochs=1, verbose=0,
                             validation_data=validation, shuffle=False).history
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
            if state["stopped"]:  # ends at 100%, not frozen at 9 of 30 epochs
                bar.total = state["epoch"]
                bar.set_postfix_str(f"stopped early: best epoch {state['best_epoch']}, "
                                    f"val_loss {state['best']:.3f}")
            bar.close()
        if patience is not None:
            checkpoint.restore_best(model)
    if gives_one_value(model, x):
        warnings.warn(f"{model.name} gives every position the same value: a ReLU layer that "
                      f"outputs 0 everywhere (a one-filter convolution can die so)? Train it "
                      f"again from another seed, or with a lower learning_rate (this one: "
                      f"{learning_rate:g})", DeadNetworkWarning, stacklevel=2)
    return state["history"]


class DeadNetworkWarning(RuntimeWarning):
    """A value network died in its training: it gives every position the
    same value (:func:`gives_one_value`). Its own category, so that a caller
    that trains such a network again itself can silence this advice alone."""


def gives_one_value(model, planes, sample=256):
    """Whether ``model`` gives the first ``sample`` rows of ``planes`` the
    same value (within 1e-6): a dead network. When every unit of a ReLU layer
    outputs 0 on every input (the value network's one-filter 1x1 convolution
    is the layer most at risk), no gradient reaches the layers below it and
    the network says only its bias, the mean outcome, however long it
    trains; a network trained anew from another seed usually lives. Fewer
    than 2 rows say nothing: False."""
    if len(planes) < 2:
        return False
    return bool(np.ptp(predict_values(model, planes[:sample])) < 1e-6)


class _FitCheckpoint:
    """:func:`fit_value_network`'s saved state in a folder (or in memory,
    for None): ``model_00003.weights.h5`` after epoch 3 (Keras saves the
    optimiser's state with the weights of a compiled model),
    ``best_00002.weights.h5`` (the best epoch's weights) and ``state.json``
    naming both. ``state.json`` is the commit point: it is written before
    the first epoch, and after each epoch once its weights files are whole,
    and the older files go after it, so a crash between the two leaves a
    state and weights that agree, and the epoch is done again, not twice."""

    STATE = "state.json"
    # What a training writes besides its state; model.weights.h5 and
    # best.weights.h5: the fixed names of an earlier mockgo.
    WORK = ("model*.weights.h5", "best*.weights.h5")
    RESTART = "pass restart=True to fit_value_network"
    # The shape of state.json (mockgo.data.files.check_schema), checked when
    # it is read; "files" is missing in the states of an earlier mockgo.
    SCHEMA = {"arguments": dict,
              "state": {"epoch": int, "history": dict, "best": (float, None), "best_epoch": int,
                        "stopped": bool},
              "files?": {"weights": (str, None), "best_weights": (str, None)}}

    def __init__(self, folder, arguments):
        self.folder = None if folder is None else Path(folder)
        self.arguments = arguments
        self.best = None  # in memory, without a folder
        self.files = {"weights": "model.weights.h5", "best_weights": "best.weights.h5"}

    def restore(self, model, initial, restart=False):
        """The saved state, with ``model``'s weights and optimiser set from
        it; or ``initial``, saved now when there is a folder."""
        if self.folder is None:
            return initial
        path = self.folder / self.STATE
        saved = None
        if restart:
            discard_work(self.folder, path, list_work(self.folder, self.WORK))
        else:
            saved = read_json(path, "the value network's training progress", missing_ok=True,
                              schema=self.SCHEMA,
                              remedy=f"To delete its weights and train anew, {self.RESTART}")
        if saved is None:
            refuse_unrecorded_work(self.folder, path, list_work(self.folder, self.WORK),
                                   self.RESTART)
            self.files = {"weights": None, "best_weights": None}
            self._commit(initial)
            return initial
        check_same_settings(self.folder, "a training", saved["arguments"], self.arguments)
        self.files.update(saved.get("files", {}))
        if saved["state"]["epoch"] > 0:
            # Built first, the optimiser gets its saved state from the weights file too.
            model.optimizer.build(model.trainable_variables)
            _load_weights(model, self.folder / self.files["weights"])
        return saved["state"]

    def _commit(self, state):
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.folder / self.STATE, json.dumps(
            {"arguments": self.arguments, "state": state, "files": self.files}, indent=1))
        for old in list_work(self.folder, self.WORK):
            if str(old) not in self.files.values():
                (self.folder / old).unlink(missing_ok=True)

    def save(self, model, state, best_weights):
        if self.folder is None:
            if best_weights:
                self.best = model.get_weights()
            return
        files = dict(self.files, weights=f"model_{state['epoch']:05d}.weights.h5")
        if best_weights:
            files["best_weights"] = f"best_{state['epoch']:05d}.weights.h5"
            with atomic_path(self.folder / files["best_weights"],
                             suffix=".tmp.weights.h5") as temporary:
                model.save_weights(temporary)
        with atomic_path(self.folder / files["weights"], suffix=".tmp.weights.h5") as temporary:
            model.save_weights(temporary)
        self.files = files
        self._commit(state)

    def restore_best(self, model):
        if self.folder is None:
            if self.best is not None:
                model.set_weights(self.best)
        elif self.files["best_weights"] and (self.folder / self.files["best_weights"]).exists():
            _load_weights(model, self.folder / self.files["best_weights"])


def _load_weights(model, path):
    """``model.load_weights``, with a missing or damaged file named as such."""
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing (its folder's state.json names it)")
    try:
        model.load_weights(path)
    except (OSError, ValueError) as error:  # h5py: "Unable to open file (truncated file...)"
        raise CorruptFileError(f"{path} is damaged: not readable weights ({error})") from None


def value_curve(value_model, record):
    """The value network's view of a whole game: for the position before
    each move and the final one, the predicted probability that black wins,
    ``(1 + v) / 2`` with v turned to black's view. ``record``: a
    :class:`mockgo.data.sgf_reader.GameRecord` (a KGS game) or a
    :class:`mockgo.play.runner.PlayedGame`."""
    from mockgo.nets.inference import Predictor  # TensorFlow: imported only when a network is used

    if not isinstance(record, sgf_reader.GameRecord):
        record = record.record()
    encoder = get_encoder(ALPHAGO49, record.size)
    planes, movers = [], []
    board = None
    for board, _, _ in sgf_reader.replay(record):
        planes.append(encoder.encode(board))
        movers.append(board.to_play)
    final = sgf_reader.final_board(record) if board is None else board
    planes.append(encoder.encode(final))
    movers.append(final.to_play)
    values = Predictor(value_model).predict(np.stack(planes))[:, 0]
    black_view = np.where(np.array(movers) == BLACK, values, -values)
    return (1 + black_view) / 2


def decided_game(dataset_folder, split="test", min_moves=250, tries=200, komi=7.5):
    """A game of a KGS data set's ``split`` worth following with
    :func:`value_curve`: the first (in the split's order) that the position on
    the board decided, counted to the end or resigned (not lost on time or by
    forfeit, where the result says nothing about the position), that has
    at least ``min_moves`` moves, so that it reaches the late game, where a
    value network trained on one position per game judges best, and whose
    result the network's ``komi`` would not change: an even game (no
    handicap stones) with a komi within 2 points of ``komi``, and, when it
    was counted, won by more than the difference. (Most games of the older
    KGS archives are handicap games with a komi of 0.5: a value network
    that counts with 7.5 and has never seen a handicap stone judges those by
    other rules than their players'.) Looks at the split's first ``tries``
    games (each read again from its archive,
    :func:`mockgo.data.dataset.split_game`) and returns a
    :class:`mockgo.data.sgf_reader.GameRecord`; ValueError when none of them
    qualifies."""
    looked = 0
    for index in range(tries):
        try:
            game = split_game(dataset_folder, split, index)
        except IndexError:  # the split has fewer games
            break
        looked += 1
        even = game.handicap == 0 and not game.setup_black and not game.setup_white
        if (game.result_reason in ("score", "resign") and len(game.moves) >= min_moves and even
                and abs(game.komi - komi) <= 2 and _same_winner(game, komi)):
            return game
    raise ValueError(f"none of the first {looked} games of the {split} split of {dataset_folder} "
                     f"was an even game with a komi near {komi:g}, counted or resigned after "
                     f"{min_moves} moves or more")


def _same_winner(game, komi):
    """Whether a counted game would have had the same result with ``komi``
    (a resigned one: assumed so)."""
    if game.result_reason != "score" or game.margin is None:
        return True
    black_lead = {BLACK: game.margin, WHITE: -game.margin}.get(game.winner, 0.0)
    return np.sign(black_lead + game.komi - komi) == np.sign(black_lead)


def predict_values(model, planes):
    """The value a value network, or a dual network's value head, gives each
    of ``planes`` (for the player to move, -1 to +1), as a 1-D array."""
    from mockgo.nets.inference import Predictor  # TensorFlow: imported only when a network is used

    outputs = Predictor(model).predict(planes)
    values = outputs[1] if isinstance(outputs, tuple) else outputs
    return np.asarray(values, np.float64).reshape(-1)


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


