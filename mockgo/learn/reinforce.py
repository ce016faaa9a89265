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

with plain SGD (:class:`~mockgo.learn.policy_gradient.PolicyGradient`, a
step compiled by the Keras backend: TensorFlow or JAX), p_rho being the network's softmax over the sensible
moves. The baseline b is zero on the first pass and the value network on the
second (AlphaGo: "in a second pass ... the value network v(s) as a
baseline"): b(s) = v(s) on the ``alphago49`` planes of the same position (the
48 planes the policy saw plus the colour to play).

:class:`Reinforce` runs it in a folder: every iteration ends with an atomic
checkpoint (the current policy as ``checkpoints/learner_NNNNN.keras``, the
pool's members as ``pool/member_NNNNN.keras``, the sparring partners' copies
as ``partners/partner_K.keras``, and ``state.json``, written last, naming
them, with the random generator's state and the history), so a
run that is stopped resumes where it was, with the same games. A folder with
checkpoints or pool members of a later iteration than 0 but no readable
``state.json`` (deleted, or damaged) is refused, naming what it holds,
unless ``restart=True`` asks to delete them and start again.

Sparring partners
-----------------
Besides its own earlier versions, the learner may meet fixed networks of any
architecture and encoder (the Mock AlphaGo REINFORCE notebook trains a 4 x
128 policy against a 13 x 192 *sparring partner*): ``partners`` in the
config names them, ``.keras`` files or networks that ship with mockgo
(``sl-19``, ``zero-9``: :mod:`mockgo.pretrained`; a dual network plays
its policy head), and ``partner_share`` is the probability that an
iteration's games are against one of them (drawn uniformly) rather than
against the pool. A partner plays its own encoder's planes; only the
learner's moves are replayed for the update, so the update is the same
whoever the opponent is. A new run copies each partner into its folder, and
a resumed run plays the copies: a partner file changed or deleted later does
not change the run.

Recorded games: as the Mock AlphaGo notebook does, the training games can be
kept as SGF (``record_every``: every iteration's with 1, every Nth
iteration's with N, none with 0, the default) in ``games/``, one file per
game named by the iteration, the game, the two players, the winner and the
date (``iter00012-game003-pool10-vs-rl11-W+R-2026-11-23.sgf``: in iteration
12 the learner, with its weights after 11 updates, played white and beat the
pool's member of iteration 10 by resignation; ``sl`` is the pool's first
member, the SL policy; ``partnerK`` the K-th sparring partner); the root
comment says the same in words. They are written before the iteration's checkpoint, and an iteration
that is played again after an interruption first deletes whatever files of
it are there, so a resumed run records each game once. The setting only
records: it may change between sittings.

The value network it uses as the second pass's baseline comes from
:mod:`mockgo.learn.value` (notebook 02).
"""

import dataclasses
import datetime
import json
import time
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from mockgo import pretrained
from mockgo.cluster import make_executor
from mockgo.data.files import (atomic_write_text, check_same_settings, discard_work, job_folder,
                               list_work, read_json, refuse_unrecorded_work)
from mockgo.data.sgf_writer import save_sgf
from mockgo.go.board import BLACK, WHITE
from mockgo.go.features import ALPHAGO48, ALPHAGO49, get_encoder
from mockgo.learn.policy_gradient import PolicyGradient
from mockgo.learn.value import add_colour_plane
from mockgo.nets.io import load_model, mark_trained_here, read_info, save_model
from mockgo.play.match import match
from mockgo.play.policy_player import PolicyPlayer, portable_player

__all__ = ["OpponentPool", "Partner", "Reinforce", "describe_partner_effect", "partner_effect",
           "partner_file"]

# What a run writes besides its state.json; of it, iteration 0's files are
# copies of the SL policy, made again by a new run.
WORK = ("checkpoints/learner_*.keras", "pool/member_*.keras", "partners/partner_*.keras",
        "games/iter*.sgf")
REMADE = {"checkpoints/learner_00000.keras", "pool/member_00000.keras"}
RESTART = "pass restart=True to Reinforce"
# The shape of state.json (mockgo.data.files.check_schema; _checkpoint writes
# it), checked when a run resumes: a damaged one is an error naming the
# field, not a KeyError half-way through loading the pool.
STATE_SCHEMA = {"config": dict, "iteration": int, "learner": str,
                "pool": [{"iteration": int, "file": str}],
                "partners?": [{"source": str, "file": str}], "rng": dict, "history": list}
# Settings added since runs were first saved, with the value an older run's
# state.json means by leaving them out (so that such a run still resumes).
LATER_SETTINGS = {"partners": [], "partner_share": 0.0}


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


# --------------------------------------------------------------- the run


@dataclasses.dataclass
class Partner:
    """A sparring partner: where it came from (``source``: a file or a
    shipped name), its copy in the run folder (``file``, relative to it)
    and the player that plays it."""

    source: str
    file: str
    player: object


def partner_file(source, size):
    """The ``.keras`` file of the sparring partner ``source`` (a shipped
    network's name, else a file), checked to be a policy or dual network
    for ``size`` x ``size`` without loading it. FileNotFoundError naming it
    when it is neither a file nor a shipped name; ValueError naming the file
    when it is a value network or for another board."""
    if source in pretrained.names():
        file = pretrained.checked_path(source)
    else:
        file = Path(source)
        if not file.is_file():
            raise FileNotFoundError(
                f"sparring partner {source!r}: no such network file, and no network of that "
                f"name ships with mockgo (shipped: {', '.join(pretrained.names())})")
    info = read_info(file)
    if info is not None and info.kind not in ("policy", "dual"):
        raise ValueError(f"sparring partner {file} is a {info.kind} network: a partner plays "
                         f"moves, so it is a policy or dual network")
    if info is not None and info.board_size != size:
        raise ValueError(f"sparring partner {file} plays {info.board_size}x{info.board_size}, "
                         f"the run {size}x{size}")
    return file


class Reinforce:
    """A REINFORCE run in ``folder`` (module docstring), started from
    ``sl_policy`` or resumed from the folder's checkpoint (which must have
    started from the same ``sl_policy``, if one is given);
    ``restart=True`` deletes the run's ``state.json`` (first), learner
    checkpoints and pool members, and starts again. A folder holding
    checkpoints but no readable ``state.json`` is an error without it.

    >>> from mockgo.learn.reinforce_config import ReinforceConfig
    >>> run = Reinforce("runs/rl", sl_model, ReinforceConfig(size=9, games=16))
    >>> run.run(until=10, baseline=None)       # the first pass
    >>> run.run(until=20, baseline=value_net)  # the second pass
    >>> run.history[-1]["eval_win_rate"]

    ``cluster``: ``"ray"`` or a :class:`mockgo.cluster.Executor` plays each
    iteration's games (and the evaluation's) on its workers, the current
    policy and the opponent shipped to them as their networks' bytes; the
    update, the pool and the checkpoints stay here. :meth:`close` lets the
    workers go.

    ``history`` has one dict per iteration: ``iteration``, ``opponent``
    (the pool member's iteration, or None against a sparring partner),
    ``partner`` (the partner's source, or None; older runs' entries lack
    it), ``win_rate`` (against the opponent), ``eval_win_rate``
    (against the SL policy, or None), ``pool_size``, ``baseline``,
    ``positions``, ``mean_length``, ``mean_abs_advantage``, ``objective``,
    ``gradient_norm`` and ``gradient_variance``
    (:class:`~mockgo.learn.policy_gradient.Update`; older runs' entries lack
    these two), ``seconds``.
    """

    def __init__(self, folder, sl_policy, config, restart=False, record_every=0, cluster=None):
        import keras  # TensorFlow: imported only when a network is used

        import mockgo.nets.models  # noqa: F401  (registers the custom layers before loading)

        self.cluster = cluster
        self._executor = None
        self.folder = Path(folder)
        self.config = config
        if record_every < 0:
            raise ValueError(f"record_every must be 0 (none), 1 (all) or N (every Nth "
                             f"iteration's games), not {record_every}")
        self.record_every = int(record_every)
        state_file = self.folder / "state.json"
        state = None
        if restart:
            discard_work(self.folder, state_file, list_work(self.folder, WORK))
        else:
            state = read_json(state_file, "the REINFORCE run's progress", missing_ok=True,
                              schema=STATE_SCHEMA,
                              remedy=f"To delete the run's checkpoints and start over, {RESTART}")
        if state is None:
            remade = REMADE | {f"partners/partner_{i}.keras" for i in range(len(config.partners))}
            refuse_unrecorded_work(self.folder, state_file,
                                   list_work(self.folder, WORK, keep=remade), RESTART)
            # Checked before anything is written: a mistyped partner leaves no folder behind.
            partner_files = [partner_file(source, config.size) for source in config.partners]
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "pool").mkdir(exist_ok=True)
        (self.folder / "checkpoints").mkdir(exist_ok=True)
        self.pool = OpponentPool(config.pool_every)
        if state is not None:
            check_same_settings(self.folder, "a run", {**LATER_SETTINGS, **state["config"]},
                                config.to_json())
            self.iteration = state["iteration"]
            self.history = state["history"]
            self.rng = np.random.default_rng()
            self.rng.bit_generator.state = state["rng"]
            # Trained on here: its next file says where (mockgo.nets.io.trained_by).
            self.learner = mark_trained_here(load_model(self.folder / state["learner"]))
            for member in state["pool"]:
                model = load_model(self.folder / member["file"])
                self.pool.add(member["iteration"], model.get_weights(), member["file"])
            self.partners = [self._partner(p["source"], p["file"])
                             for p in state.get("partners", [])]
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
            save_model(sl_policy, self.folder / file, encoder=config.encoder)
            self.pool.add(0, sl_policy.get_weights(), file)
            self.partners = []
            for i, (source, network) in enumerate(zip(config.partners, partner_files)):
                copy = f"partners/partner_{i}.keras"
                (self.folder / "partners").mkdir(exist_ok=True)
                save_model(load_model(network), self.folder / copy)
                self.partners.append(self._partner(source, copy))
            self.resumed = False
            self._checkpoint()
        # The SL policy, for evaluation: the pool's first member.
        self.sl = keras.models.clone_model(self.learner)
        self.sl.set_weights(self.pool.members[0].weights)
        self.opponent = keras.models.clone_model(self.learner)
        self.opponent.set_weights(self.pool.members[0].weights)
        self.gradient = PolicyGradient(self.learner, config.learning_rate, config.temperature,
                                       config.chunk)
        self.player = PolicyPlayer(self.learner, config.encoder, config.temperature,
                                    name="rl", keep_planes=True)
        self.evaluator = self.player.with_temperature(config.temperature, keep_planes=False)
        self.opponent_player = PolicyPlayer(self.opponent, config.encoder, config.temperature,
                                             name="pool")
        self.sl_player = PolicyPlayer(self.sl, config.encoder, config.temperature, name="sl")
        self._value = {}  # id(model) -> Predictor
        self.last_games = []

    def _partner(self, source, file):
        """A :class:`Partner` from its copy in the run folder, playing with
        the encoder its file records."""
        model = load_model(self.folder / file)
        index = file.removeprefix("partners/partner_").removesuffix(".keras")
        player = PolicyPlayer(model, None, self.config.temperature, name=f"partner{index}")
        return Partner(source, file, player)

    # ------------------------------------------------------------ running

    def run(self, until, baseline=None, progress=True):
        """Iterate until ``until`` iterations are done (none if already
        there); ``baseline``: None (zero) or a value network. Returns the
        history. The run holds its folder's lock meanwhile, and first
        deletes the temporaries that a killed run left there
        (:func:`mockgo.data.files.job_folder`)."""
        iterations = range(self.iteration + 1, until + 1)
        bar = None
        if progress and len(iterations):
            # the whole run's count, resumed or not: "100/100", not "81/81"
            bar = tqdm(total=until, initial=self.iteration, desc="REINFORCE", leave=True)
        with job_folder(self.folder, "a REINFORCE run"):
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
        partner = member = None
        # The draw only when there are partners: a run without them plays the
        # same games as before they existed.
        if self.partners and self.rng.random() < config.partner_share:
            partner = self.partners[int(self.rng.integers(len(self.partners)))]
            opponent = partner.player
        else:
            member = self.pool.sample(self.rng)
            self.opponent.set_weights(member.weights)
            opponent = self.opponent_player
        played = self._match(self.player, opponent, config.games, self._seed())
        self.last_games = played.games
        if self.record_every and iteration % self.record_every == 0:
            self._record_games(iteration, member, partner, played.games)
        packed, masks, moves, advantages, halves = self._batch(played.games, baseline)
        update = self.gradient.update(packed, masks, moves, advantages, config.games,
                                      num_planes=self.player.encoder.num_planes, halves=halves)
        if self.pool.due(iteration):
            file = f"pool/member_{iteration:05d}.keras"
            save_model(self.learner, self.folder / file, encoder=self.config.encoder)
            self.pool.add(iteration, self.learner.get_weights(), file)
        eval_win_rate = None
        if config.eval_every and iteration % config.eval_every == 0 and config.eval_games:
            evaluation = self._match(self.evaluator, self.sl_player, config.eval_games,
                                     self._seed())
            eval_win_rate = evaluation.win_rate
        record = {
            "iteration": iteration,
            "opponent": None if member is None else member.iteration,
            "partner": None if partner is None else partner.source,
            "win_rate": played.win_rate,
            "eval_win_rate": eval_win_rate,
            "pool_size": len(self.pool),
            "baseline": "zero" if baseline is None else "value",
            "positions": int(len(moves)),
            "mean_length": float(np.mean([g.length for g in played.games])),
            "mean_abs_advantage": float(np.mean(np.abs(advantages))) if len(moves) else 0.0,
            "objective": update.objective,
            "gradient_norm": update.gradient_norm,
            "gradient_variance": update.gradient_variance,
            "seconds": round(time.perf_counter() - began, 2),
        }
        self.iteration = iteration
        self.history.append(record)
        self._checkpoint()
        return record

    def _match(self, a, b, games, seed):
        """A match of the iteration, here in lockstep or, with a cluster,
        shared out among its workers (the two networks shipped to them)."""
        config = self.config
        if self.cluster is None:
            return match(a, b, games, config.size, komi=config.komi, seed=seed,
                         max_moves=config.max_moves)
        if self._executor is None:
            self._executor = make_executor(self.cluster)
        return match(portable_player(a), portable_player(b), games, config.size,
                     komi=config.komi, seed=seed, max_moves=config.max_moves,
                     cluster=self._executor, workers=None,
                     games_per_task=-(-games // self._executor.workers))

    def close(self):
        """Let go of the cluster's workers (a ``cluster="ray"`` made here)."""
        if self._executor is not None and self._executor is not self.cluster:
            self._executor.close()
        self._executor = None

    def _seed(self):
        """A match's seed, from the run's generator (saved with every
        checkpoint, so a resumed run plays the same games)."""
        return int(self.rng.integers(2**63))

    def _batch(self, games, baseline):
        """The current policy's moves of the games, as arrays for the update,
        and the half of the games each comes from (games 0, 1, 4, 5, ... and
        2, 3, 6, 7, ...: the learner is black in half of each half)."""
        packed, masks, moves, outcomes, movers, halves = [], [], [], [], [], []
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
            halves.append(np.full(len(rows), (i // 2) % 2, np.int8))
        if not packed:
            size = self.config.size
            empty = np.zeros((0, size, size, (self.player.encoder.num_planes + 7) // 8), np.uint8)
            return empty, np.zeros((0, size * size + 1), bool), np.zeros(0, np.int32), \
                np.zeros(0, np.float32), np.zeros(0, np.int8)
        packed, masks, moves = np.concatenate(packed), np.concatenate(masks), np.concatenate(moves)
        z, movers, halves = np.concatenate(outcomes), np.concatenate(movers), np.concatenate(halves)
        if baseline is not None:
            z = z - self._baseline(baseline, packed, movers, games)
        return packed, masks, moves, z, halves

    def _baseline(self, value_model, packed, movers, games):
        """v(s) for the current policy's positions, on their alphago49 planes."""
        from mockgo.nets.inference import \
            Predictor  # TensorFlow: imported only when a network is used

        predictor = self._value.get(id(value_model))
        if predictor is None:
            predictor = self._value[id(value_model)] = Predictor(value_model, batch_size=512)
        name = self.player.encoder.name
        values = []
        if name == ALPHAGO48:
            for start in range(0, len(packed), 512):
                planes = np.unpackbits(packed[start:start + 512], axis=-1, count=48)
                values.append(predictor.predict(add_colour_plane(planes, movers[start:start + 512])))
        else:  # re-encode the positions
            encoder = get_encoder(ALPHAGO49, self.config.size)
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
        save_model(self.learner, self.folder / learner, encoder=self.config.encoder)
        state = {
            "config": dataclasses.asdict(self.config),
            "iteration": self.iteration,
            "learner": learner,
            "pool": [{"iteration": m.iteration, "file": m.file} for m in self.pool.members],
            "partners": [{"source": p.source, "file": p.file} for p in self.partners],
            "rng": self.rng.bit_generator.state,
            "history": self.history,
        }
        atomic_write_text(self.folder / "state.json", json.dumps(state, indent=1))
        for old in (self.folder / "checkpoints").glob("learner_*.keras"):
            if old.name != Path(learner).name:
                old.unlink(missing_ok=True)

    def _record_games(self, iteration, member, partner, games):
        """The iteration's games as SGF in ``games/`` (module docstring),
        against the pool's ``member`` or the sparring ``partner``."""
        folder = self.folder / "games"
        folder.mkdir(exist_ok=True)
        for stale in folder.glob(f"iter{iteration:05d}-*.sgf"):  # an interrupted earlier try
            stale.unlink()
        # Each named by its weights: after iteration - 1 updates, and the pool member's.
        learner = f"rl{iteration - 1}"
        if partner is not None:
            pool = partner.player.name
            against = f"the sparring partner {partner.source}"
        else:
            pool = "sl" if member.iteration == 0 else f"pool{member.iteration}"
            against = (f"the pool's member of iteration {member.iteration}"
                       f"{' (the SL policy)' if member.iteration == 0 else ''}")
        date = datetime.date.today().isoformat()
        for i, game in enumerate(games):
            black, white = (learner, pool) if i % 2 == 0 else (pool, learner)
            record = game.record(black=black, white=white, date=date)
            record.game_comment = (
                f"mockgo REINFORCE, iteration {iteration}, game {i + 1} of {len(games)}: the "
                f"learner ({learner}: its weights after {iteration - 1} updates) as "
                f"{'black' if i % 2 == 0 else 'white'} against {against} ({pool}); "
                f"{game.result}.")
            save_sgf(record, folder / f"iter{iteration:05d}-game{i:03d}-{black}-vs-{white}-"
                                      f"{game.result}-{date}.sgf")

    def recorded_games(self):
        """The recorded training games' files (``games/``), in order."""
        return sorted((self.folder / "games").glob("iter*.sgf"))

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



# ------------------------------------------------- what a partner changes


def partner_effect(history, reference):
    """What sparring partners changed in a run, from the histories of two
    runs alike in every setting and seed but the partners: ``history``
    (with them) and ``reference`` (without). Returns a dict: the iterations
    against a partner and in all (``partner_iterations``, ``iterations``);
    the learner's mean win rate and game length against the partners and
    against its pool in the same run (``win_partner``, ``win_pool``,
    ``length_partner``, ``length_pool``: None where there were no such
    iterations); and the mean win rate against the SL policy over the
    evaluations, with and without partners (``eval_with``,
    ``eval_without``: None without evaluations)."""
    def mean(values):
        values = [v for v in values if v is not None]
        return float(np.mean(values)) if values else None

    met = [h for h in history if h.get("partner") is not None]
    pool = [h for h in history if h.get("partner") is None]
    return {
        "iterations": len(history),
        "partner_iterations": len(met),
        "win_partner": mean(h["win_rate"] for h in met),
        "win_pool": mean(h["win_rate"] for h in pool),
        "length_partner": mean(h["mean_length"] for h in met),
        "length_pool": mean(h["mean_length"] for h in pool),
        "eval_with": mean(h["eval_win_rate"] for h in history),
        "eval_without": mean(h["eval_win_rate"] for h in reference),
    }


def describe_partner_effect(effect):
    """:func:`partner_effect`'s figures in sentences, for a notebook."""
    def rate(value):
        return "-" if value is None else f"{value:.0%}"

    def moves(value):
        return "-" if value is None else f"{value:.0f}"

    return [
        f"the learner met a sparring partner in {effect['partner_iterations']} of "
        f"{effect['iterations']} iterations, its pool in the others",
        f"it won {rate(effect['win_partner'])} of its games against the partner and "
        f"{rate(effect['win_pool'])} against its pool; the games lasted "
        f"{moves(effect['length_partner'])} and {moves(effect['length_pool'])} moves",
        f"against the SL policy it won {rate(effect['eval_with'])} of the evaluation games on "
        f"average, {rate(effect['eval_without'])} in the same run without the partner",
    ]
