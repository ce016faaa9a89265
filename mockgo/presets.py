"""Each tutorial notebook's settings in quick and in full mode: the one
place where both modes are declared, with the measurements behind the full
ones. Notebooks 01 and 02 have a third, full mode on a GPU: AlphaGo's network
sizes, those of ``mockgo recipe``'s ``gpu`` preset (:mod:`mockgo.learn.recipe`),
picked when the device the networks compute on
(:func:`mockgo.nets.device.compute_device`) is a GPU.
:func:`mockgo.notebook.start` picks a notebook's preset by its mode::

    from mockgo.presets import preset
    P = preset("02_value_net", quick=True)
"""

import dataclasses

from mockgo.learn.recipe_config import PRESETS as RECIPE_PRESETS
from mockgo.learn.reinforce_config import ReinforceConfig
from mockgo.zero.config import ZeroConfig

__all__ = ["ArenaPreset", "NOTEBOOKS", "ReinforcePreset", "SupervisedPreset", "ValuePreset",
           "ZeroPreset", "preset", "preset_name"]

# -------------------------------------------------- 01: supervised learning


@dataclasses.dataclass(frozen=True)
class SupervisedPreset:
    """Notebook 01 in one mode: which data, which network, how long to train."""

    mode: str
    archives: int | None  # KGS archives to fetch, oldest first (None: all)
    max_games: int | None  # games read into the dataset (None: all)
    layers: int
    filters: int
    batch_size: int
    epochs: int
    steps_per_epoch: int | None  # None: the whole train split each epoch
    validation_steps: int | None  # None: the whole validation split
    optimizer: str
    learning_rate: float
    schedule: str
    precision: str = "auto"  # "auto", "float32" or "mixed_bfloat16"
    workers: int = 2  # processes building the dataset
    test_games: int | None = None  # held-out games scored (None: the whole test split)
    match_games: int = 4  # games against the random player
    gnugo_games: int = 0  # games against GnuGo (0: none; each 19x19 game takes GnuGo seconds)
    gnugo_level: int = 1
    # The first networks: Imago's two small 9x9 networks on GnuGo's games.
    small_games: int | None = None  # games of data/gnugo9's archive (None: all 3,000)
    small_epochs: int = 4
    small_steps_per_epoch: int | None = None  # None: the whole train split each epoch
    # The exercise "a network on fewer planes": batches of the quick network's
    # size that its two networks train on, side by side.
    exercise_steps: int = 1000

    @property
    def download_args(self):
        """The arguments of ``data/download.sh`` that fetch this mode's archives."""
        return "" if self.archives is None else f"--archives {self.archives}"


# Quick: one archive (2,298 games from 2001), 300 of its games (~20 test games),
# a 3-layer, 16-filter network trained for 3 short epochs of 120 batches of 64
# with Adam: far from a good player (measured 24% top-1 on its test games), but
# every cell runs, the whole notebook in about a minute on 2 cores. The
# exercise on fewer planes trains its two networks for 60 batches: about 5 s
# here, enough to part them (measured 13.1% top-1 on the 12 planes of the
# board and its history, 19.4% on all 48); full mode, where a learner runs
# it, trains them for 1,000.
_SUPERVISED_QUICK = SupervisedPreset(mode="quick", archives=1, max_games=300, layers=3, filters=16,
    batch_size=64, epochs=3, steps_per_epoch=120, validation_steps=20,
                 optimizer="adam", learning_rate=0.003, schedule="cosine",
                 small_games=1000, small_epochs=2, small_steps_per_epoch=150, exercise_steps=60)

# Full: all ten archives of the mirror (28,559 games, about 5.5 million
# positions, 11 GB of shards), the default 6 x 64 network, Adam at 1e-3 with
# a cosine decay, 10 "epochs" of 2,000 batches of 128 (256,000 positions,
# about 10 minutes each: a checkpoint and a log row each), 2.56 million
# positions in all. The reasoning, from measurements on this project's 2-core
# CPU (avx512_bf16; other jobs were running, load average 3 to 8):
# - speed: fit of the 6 x 64 network, batch 128, ran at 206 positions/s in
#   float32 and 426 in mixed bfloat16 (load ~3), so 3 hours are about 4.6
#   million positions; 10 epochs take about 1.7 hours at 430 positions/s,
#   which leaves room, inside one 3-hour sitting, for the dataset build (or
#   its check), scoring the whole test split and the games against random;
# - accuracy: with Adam at a constant 1e-3 on one archive (388,907 training
#   positions), validation top-1 after each 25,600 positions was 24.9, 30.1,
#   33.3, 33.9, 35.5, 36.1, 37.0, 37.8% (5,120 validation positions): about
#   +4 points per doubling of the positions seen, so 40% comes within the
#   first half million positions, a wide margin inside the budget (the
#   paper's 13 x 192 network reached 57%, a larger net would need more time);
# - SGD with momentum 0.9 at 0.05 diverged on the same data (loss 11.8 in
#   the first epoch, then stuck at ln 361): Adam is the safer default here;
# - the dataset build ran at 34 games/s on 2 workers (one archive), about
#   14 minutes for all 28,559 games (95 games/s, 5 minutes, when quiet).
# Measured, the whole full-mode run executed in docs/notebooks/ (test suites
# shared the 2 cores for most of it): the dataset in 16 minutes, 10 epochs in
# 1.35 hours (about 350 s an epoch, 730 positions/s in mixed bfloat16, when
# nothing else ran; an earlier run on another 2-core machine reached 1,450),
# validation top-1 38.1% after the first epoch, 44.2% after the tenth; on the
# 1,428 test games (279,843 positions) top-1 44.3%, top-5 75.4%; 20 of 20
# games won against the random player, 20 of 40 against GnuGo level 1 (4
# minutes).
_SUPERVISED_FULL = SupervisedPreset(mode="full", archives=None, max_games=None, layers=6, filters=64,
                batch_size=128, epochs=10, steps_per_epoch=2000, validation_steps=100,
                optimizer="adam", learning_rate=0.001, schedule="cosine",
                test_games=None, match_games=20, gnugo_games=40)


def _supervised_gpu():
    # Full mode on a GPU: the SL network of `mockgo recipe --preset gpu`
    # (AlphaGo's 13 x 192, batch 1024, Adam at 1e-3 on a cosine schedule,
    # mixed bfloat16 where the device computes it) on the same data. The
    # recipe sizes its epochs from the step rate it measures; a notebook's
    # preset is fixed: 12 epochs of 1,100 batches, 13.5 million positions
    # (2.6 passes over the mirror), about the 12 epochs of 1,118 batches that
    # trained sl-19-13x192 (243 s at 57,252 positions/s on an H200). The
    # dataset is built by one process per core of such a machine (16).
    # Measured, the whole notebook on one H200 with 16 cores (JAX; GnuGo not
    # installed there, so without its games; benchmarks/gpu_notebook.sh):
    # 436 s, of which the dataset 59 s, the 12 epochs 245 s (19.6 s an
    # epoch after the first's compile, 57,500 positions/s), the test split
    # 53 s; top-1 49.7%, top-5 81.6% on the 1,428 test games.
    gpu = RECIPE_PRESETS["gpu"]
    return dataclasses.replace(_SUPERVISED_FULL, mode="gpu", layers=gpu.layers,
                               filters=gpu.filters, batch_size=gpu.batch_size,
                               learning_rate=gpu.learning_rate, epochs=gpu.epochs,
                               steps_per_epoch=1100, validation_steps=gpu.validation_steps,
                               precision=gpu.precision, workers=16)



# ----------------------------------------------------- 02: value network


@dataclasses.dataclass(frozen=True)
class ValuePreset:
    """Notebook 02 in one mode. ``kgs_*``: the first experiment, every
    position of KGS games (games, positions, epochs, the network's
    ``value_network`` options), and AlphaGo Zero's dual network on the same
    positions (``dual_net``: ``dual_network`` options); then ``games`` games of the SL policy on a
    ``size`` board, one position each, for a network of ``net`` trained
    ``epochs`` epochs at ``learning_rate`` (Adam)."""

    kgs_games: int
    kgs_positions: int
    kgs_epochs: int
    kgs_net: dict
    dual_net: dict  # AlphaGo Zero's dual network on the same KGS positions (dual_network)
    size: int
    games: int
    epochs: int
    net: dict
    learning_rate: float


# Quick: a smoke run of about a minute: small data, tiny nets, a 9x9 board.
# Three epochs on the KGS positions: the value network has memorised them by
# then (measured: training MSE 0.035 after the third epoch, the best test MSE
# 0.85), and each epoch of the two dual networks costs about 2 s.
_VALUE_QUICK = ValuePreset(kgs_games=40, kgs_positions=3000, kgs_epochs=3,
                           kgs_net=dict(layers=2, filters=8, hidden=64),
                           dual_net=dict(blocks=1, filters=16, value_hidden=64), size=9, games=500,
                           epochs=15, net=dict(layers=3, filters=16, hidden=64),
                           learning_rate=1e-3)
# Full: hours on a 2-core CPU; stopped, it resumes (the games and each training
# are saved in the run folder as they go). Adam at 1e-3 killed these nets'
# one-filter 1x1 ReLU layer within an epoch (every output 0, so the prediction
# was a constant and the loss stuck at 0.96); at 1e-4 they learn. Measured
# in the executed copy (docs/notebooks/02_value_net.ipynb, 2 cores, nothing
# else running): 8,000 games (and 380 that ended before their move U) in 50
# minutes; test MSE by phase 0.99 / 0.86 / 0.28 against the constant's 0.99 /
# 0.99 / 0.99.
_VALUE_FULL = ValuePreset(kgs_games=1000, kgs_positions=100_000, kgs_epochs=10,
                          kgs_net=dict(layers=6, filters=64, hidden=256),
                          dual_net=dict(blocks=3, filters=64, value_hidden=256), size=19,
                          games=8000,
                          epochs=30, net=dict(layers=6, filters=64, hidden=256),
                          learning_rate=1e-4)


def _value_gpu():
    # Full mode on a GPU: the value stage of `mockgo recipe --preset gpu`,
    # AlphaGo's 13 x 192 value network on one position from each of 200,000
    # games of the SL policy (the recipe's figures; not yet run in this
    # notebook, which plays the games in its own process unless CLUSTER
    # spreads them), trained for the recipe's 10 epochs; the KGS experiment
    # as in full mode.
    gpu = RECIPE_PRESETS["gpu"]
    return dataclasses.replace(_VALUE_FULL, games=gpu.value_games, epochs=gpu.value_epochs,
                               net=dict(layers=gpu.value_layers, filters=gpu.value_filters,
                                        hidden=256))


# ---------------------------------------------------- 03: policy gradient


@dataclasses.dataclass(frozen=True)
class ReinforcePreset:
    """Notebook 03 in one mode: the REINFORCE runs'
    :class:`~mockgo.learn.reinforce_config.ReinforceConfig`, the iterations of each
    of the two runs from the SL policy (the value network as baseline, then
    baseline zero, with the same seeds), the games of the final match
    against the SL policy, and which iterations' training games are
    recorded (``record_every``); and the third run, baseline zero as the
    second, but meeting the sparring ``partner`` (a network file or a
    shipped name) in a share ``partner_share`` of its iterations."""

    config: object
    iterations: int
    final_games: int
    record_every: int = 10  # the training games of every Nth iteration kept as SGF
    partner: str = "zero-9"
    partner_share: float = 0.5

    @property
    def size(self):
        return self.config.size

    @property
    def partner_config(self):
        """The run's config with the sparring partner."""
        return dataclasses.replace(self.config, partners=(self.partner,),
                                   partner_share=self.partner_share)


def _reinforce_presets():
    # Quick: a smoke run of about a minute on 9x9 with tiny nets, each run 6
    # iterations of 16 games. The learning rate is 0.03 so that six updates
    # from the untrained stand-in make a policy that beats it by a wide
    # margin in the final check's 64 games, whatever the backend's
    # initial weights (Keras draws other ones on JAX than on TensorFlow
    # from the same seed). Measured with the value baseline, the RL policy
    # against the SL policy in matches of 64 games with seeds 2024, 1 and 2:
    # at 0.01, 33, 40, 48 wins on TensorFlow and 26, 34, 36 on JAX (the
    # evaluations during training are draws of the same random generator,
    # so each result hangs on which 96 games the run happened to learn
    # from); at 0.03, 48, 45, 52 on TensorFlow and 51, 47, 52 on JAX (32
    # games an iteration at 0.01: 34, 37, 42 and 39, 45, 42).
    # The sparring partner: zero-9, notebook 04's Zero network (a residual
    # tower of 4 blocks of 32 filters on AlphaGo Zero's 17 planes, its
    # policy head played), the one 9x9 network that ships: another
    # architecture and encoder than the learner's.
    quick = ReinforcePreset(ReinforceConfig(size=9, games=16, learning_rate=0.03, pool_every=2,
                                            eval_games=32, eval_every=1, seed=0),
                            iterations=6, final_games=64, record_every=1, partner="zero-9")
    # Full: 19x19 with notebook 01's policy (6 x 64), 64 games an iteration
    # (about 430 moves each). An iteration took a median of 71 s with the
    # value baseline (its network's calls included) and 60 s with baseline
    # zero on a 2-core machine with AVX-512, alone, in runs of 100 iterations.
    # AlphaGo ran 10,000 iterations of 128 games. A stopped run
    # resumes only from its own folder, which a new machine lacks, so the
    # notebook's three runs take 10 iterations each
    # (an evaluation against the SL policy, and a new pool member, every 5th):
    # the whole notebook in one sitting. The value-baseline run taken to 100
    # iterations is rl-19, which ships (its card has the command).
    # The sparring partner at 19x19: sl-19-13x192, AlphaGo's SL policy at its
    # published size (13 x 192, 3.9 million weights to the learner's 225,001),
    # another architecture than the learner's and a stronger player (28 of 40
    # against GnuGo level 10 greedy, sl-19 14). The 13 x 192 costs more a move:
    # in the executed copy (2 cores with AVX-512) the partner's run took 206 to
    # 253 s in its iterations against the partner and 52 to 80 s in the others,
    # 24 minutes for its 10, and baseline zero's run 10 minutes, both with
    # nothing else running; the value-baseline run, beside the test suite, 60 to
    # 200 s an iteration. The three runs' iterations: 54 minutes. Until it
    # shipped the partner was rl-19, the learner's own 6 x 64 (docs/results.md
    # has that run too). Each partner's run has a folder of its own
    # (notebook.reinforce_dir), so a full run begun with one partner leaves that
    # folder as it is and starts the other's.
    full = ReinforcePreset(ReinforceConfig(size=19, games=64, learning_rate=0.001,
                                           pool_every=5, eval_games=64, eval_every=5, seed=0),
                           iterations=10, final_games=400, record_every=5,
                           partner="sl-19-13x192")
    return quick, full


# ------------------------------------------------------------ 04: Zero


@dataclasses.dataclass(frozen=True)
class ZeroPreset:
    """Notebook 04 in one mode: the run's
    :class:`~mockgo.zero.config.ZeroConfig` (KataGo's changes on), the
    generations to make, and the games of each match (the equal-cost
    matches and the Elo ladder, whose rungs are every ``chain_every``-th
    generation); the comparison run with the plain AlphaGo Zero settings
    (``plain``, its ``plain_generations``), both with a strength curve
    against GnuGo; and the tic-tac-toe warm-up's settings (changes to
    :class:`mockgo.zero.tictactoe.WarmUp`), checked by a search of
    ``warmup_readouts`` a move."""

    config: object
    generations: int
    match_games: int
    plain: object = None
    plain_generations: int = 0
    chain_every: int = 1
    warmup: dict = dataclasses.field(default_factory=dict)
    # 128: the warm-up's training is not bit-identical from one CPU to another (oneDNN's
    # kernels): at 64 readouts a search over one machine's network kept 2 losing moves
    # of 4,520 where an earlier machine's kept none; over the same network, 128 and 256
    # readouts kept none.
    warmup_readouts: int = 128
    # The generations rated against fixed players of notebook 05's 9x9 ladder
    # (mockgo.arena.generations): every ``anchored_every``-th and the last, each
    # playing ``anchored_games`` games against each of ``anchors``. GnuGo level 1
    # is stronger than every generation: without an anchor above them, the
    # generations that win every game are rated by the fit's virtual draw alone.
    anchors: tuple = ("random", "uct:playouts=1000", "gnugo:level=1")
    anchored_every: int = 10
    anchored_games: int = 40

    def without_gnugo(self):
        """The same preset with no strength curve and no GnuGo anchor (for a
        machine without GnuGo, which plays the curve's matches)."""
        return dataclasses.replace(
            self, config=dataclasses.replace(self.config, strength_every=0),
            plain=dataclasses.replace(self.plain, strength_every=0),
            anchors=tuple(a for a in self.anchors if not a.startswith("gnugo")))


def _zero_presets():
    # Quick: a 2-block, 16-filter network, 16 games a generation, 16 readouts a
    # move, KataGo's set on, 2 generations; a strength match of 2 games against
    # GnuGo level 1 after every generation; one generation of the plain
    # settings beside it, as small (4 evaluation games); matches of 4 games at
    # 8 readouts a move (games in lockstep cost about what their longest one
    # does: the readouts, not the games, set a match's time), every generation
    # a rung of the Elo ladder. Each thing is shown once, on a few games: the
    # notebook's test runs quick mode.
    small = ZeroConfig(blocks=2, filters=16, games_per_generation=16, games_in_parallel=16,
                       readouts=16, parallel_readouts=4, holdout_share=0.125, window=3, epochs=2,
                       batch_size=64, eval_games=4, eval_readouts=8, strength_every=1,
                       strength_games=2)
    quick = ZeroPreset(dataclasses.replace(small, evaluate=False).with_katago(),
                       generations=2, match_games=4, plain=small, plain_generations=1,
                       chain_every=1,
                       # the warm-up: 4 generations of 48 games, checked at 32 readouts
                       warmup=dict(generations=4, games=48), warmup_readouts=32,
                       # generations 0 and 2, 2 games against the random player only
                       # (a game against uct:playouts=1000 takes seconds)
                       anchors=("random",), anchored_every=2, anchored_games=2)
    # Full: stop any time, run the notebook again to go on. ZeroConfig's
    # defaults (those of `mockgo zero`: 4 x 32, 256 games a generation, 64
    # readouts) with KataGo's changes (`mockgo zero --katago`) and without
    # evaluation matches (as AlphaZero; KataGo kept a light gate): every new network plays the
    # next self-play at once; 10 games against GnuGo level 1 every 5
    # generations. Beside it, the plain AlphaGo Zero settings, with their
    # evaluation matches, and the same strength curve. Matches of 40 games:
    # the equal-cost ones, and the Elo ladder's 13 (generation 0 against the
    # random player, then every 5th generation against the one 5 before), and
    # generations 0, 10, ..., 60 against the random player and uct:playouts=1000
    # (14 matches, rated on notebook 05's 9x9 scale by its recorded games). The
    # same runs from a terminal: mockgo zero --base-dir runs/04_zero/full/katago
    # --board-size 9 --generations 60 --katago --set strength_every=5
    # --no-evaluate, and --base-dir runs/04_zero/full/plain --generations 20
    # --set strength_every=5. The warm-up: WarmUp's defaults, 24 generations
    # of 128 games.
    default = ZeroConfig(strength_every=5)
    full = ZeroPreset(dataclasses.replace(default, evaluate=False).with_katago(),
                      generations=60, match_games=40, plain=default, plain_generations=20,
                      chain_every=5)
    return quick, full


# ------------------------------------------------------------ 05: arena


@dataclasses.dataclass(frozen=True)
class ArenaPreset:
    """Notebook 05 in one mode: a ``size`` x ``size`` ladder of ``players``
    (search players) and, with ``zero_readouts``, notebook 04's Zero agent,
    each playing ``games`` games against every one of ``anchors`` (the
    first fixed at 0 Elo), which play ``anchor_games`` games a pair; the
    showcase game of ``showcase`` (a ``uct:`` spec) against
    ``showcase_opponent`` with ``key_moves`` visit maps; and, unless
    ``big_size`` is None, a ladder on that board of the policy networks
    (with ``big_networks``: notebook 03's RL policy and an AlphaGo search
    with notebook 02's value network) against ``big_anchors``, with the
    finished matches in ``big_recorded`` (folders relative to the
    repository) joining its fit without being played. ``workers``:
    processes playing a match's games side by side (``big_workers`` on the
    19x19 board; 1: in the notebook's own process)."""

    size: int
    anchors: tuple
    players: tuple
    games: int
    anchor_games: int
    zero_readouts: int | None  # None: no Zero agent
    showcase: str
    showcase_opponent: str
    key_moves: int
    big_size: int | None  # None: no 19x19 ladder
    big_anchors: tuple
    big_networks: bool
    big_games: int
    big_anchor_games: int
    alphago_readouts: int
    alphago_mix: float
    big_recorded: tuple = ()
    workers: int = 2
    big_workers: int = 2


# Quick: 9x9, the random player and GnuGo level 1 as anchors (random
# alone without GnuGo), three 200-playout UCT players (plain, RAVE,
# heavy playouts), 6 games a pairing: 7 matches, 42 games of 1 to 3 s
# each (measured on the 2 shared cores, load ~4: 1.3 s a game of UCT-200
# against random, 2.5 to 3 s against GnuGo level 1, which won all of
# them). Then a 19x19 taste: the shipped sl-19 against random, 2 games
# (TensorFlow's start-up dominates), with two recorded 40-game matches
# against GnuGo level 10, read from docs/matches in about a second: AlphaGo's
# search at 1,600 readouts a move, sl-19 alone (the full ladder's
# pairing 6, the same seed), and sl-19-13x192 alone (AlphaGo's policy at its
# published size, trained on a GPU). That one match is played in the
# notebook's process (big_workers=1): its two games share each network call
# there, where two worker processes each imported TensorFlow and loaded the
# network first (measured on the 2 shared cores, load ~7: 3 s in the
# process, 20 s on 2 workers; the same games). The whole notebook: a few
# minutes.
_ARENA_QUICK = ArenaPreset(size=9, anchors=("random", "gnugo:level=1"),
                           players=("uct:playouts=200", "uct:playouts=200,rave=1",
                                    "uct:playouts=200,heavy=1"),
                           games=6, anchor_games=6, zero_readouts=None,
                           showcase="uct:playouts=200,rave=1", showcase_opponent="gnugo:level=1",
                           key_moves=3, big_size=19, big_anchors=("random",), big_networks=False,
                           big_games=2, big_anchor_games=0, alphago_readouts=0, alphago_mix=0.5,
                           big_recorded=("docs/matches/alphago1600-vs-gnugo10",
                                         "docs/matches/sl19-vs-gnugo10-ladder",
                                         "docs/matches/sl19-13x192-vs-gnugo10"),
                           workers=2, big_workers=1)
# Full: hours on 2 cores; stopped, it resumes (every match keeps its games
# in the run folder). Measured (games' seconds in docs/matches/ladder-*,
# two games at a time on the 2 cores, at times beside other jobs): the 9x9
# ladder's 720 games took 5.4 hours of game time, about 2.7 hours on the 2
# workers; a game of UCT-5000 with RAVE took 28 s against random, 19 s
# against GnuGo level 1 and 79 s against level 10 (61, 50 and 86 s with
# heavy playouts); the Zero agent at 200 readouts 13, 12 and 41 s. 19x19,
# 40 games a pairing (10 between anchors): the policies play random in a
# second a game, GnuGo level 1 in 15 to 17 s and level 10 in 73 s (sl-19)
# to 155 s (rl-19, whose games run longer); random against level 10 took
# 262 s a game. AlphaGo's search at 100 readouts spent 0.65 to 0.73 s a
# move: its games took 260 s each against random, 119 s against level 1 and
# 208 s against level 10, 6.5 hours of game time for its 120 games (about
# 3.3 on the 2 workers). A hundred readouts are too few to
# improve on the policy; 1,600 did better against GnuGo level 10 but cost
# 1.66 s a move on two cores (docs/results.md: about four hours for its 40
# games), so that match joins the fit from its recorded folder instead of
# being played again, as does sl-19-13x192's match against level 10 (a
# network trained on a GPU by mockgo recipe). The anchors' own 40-game match
# joins their 10 games here: 10 alone could not tell the two levels apart.
_ARENA_FULL = ArenaPreset(size=9, anchors=("random", "gnugo:level=1", "gnugo:level=10"),
                          players=("uct:playouts=1000", "uct:playouts=1000,rave=1",
                                   "uct:playouts=5000,rave=1", "uct:playouts=5000,rave=1,heavy=1"),
                          games=40, anchor_games=40, zero_readouts=200,
                          showcase="uct:playouts=5000,rave=1,heavy=1",
                          showcase_opponent="gnugo:level=1", key_moves=3, big_size=19,
                          big_anchors=("random", "gnugo:level=1", "gnugo:level=10"),
                          big_networks=True, big_games=40, big_anchor_games=10,
                          alphago_readouts=100, alphago_mix=0.5,
                          big_recorded=("docs/matches/alphago1600-vs-gnugo10",
                                        "docs/matches/sl19-13x192-vs-gnugo10",
                                        "docs/matches/gnugo1-vs-gnugo10-19x19"), workers=2)


_PRESETS = {
    "01_supervised": lambda: (_SUPERVISED_QUICK, _SUPERVISED_FULL),
    "02_value_net": lambda: (_VALUE_QUICK, _VALUE_FULL),
    "03_policy_gradient": _reinforce_presets,
    "04_zero_selfplay": _zero_presets,
    "05_arena": lambda: (_ARENA_QUICK, _ARENA_FULL),
}
NOTEBOOKS = tuple(_PRESETS)  #: The notebooks that have presets, in the series' order.
# The notebooks with a preset of their own for full mode on a GPU.
_GPU_PRESETS = {"01_supervised": _supervised_gpu, "02_value_net": _value_gpu}


def preset_name(notebook, quick, device="CPU"):
    """Which of ``notebook``'s presets runs: ``"quick"``; ``"gpu"`` in full
    mode when ``device`` (as :func:`~mockgo.nets.device.compute_device`
    names it: ``"GPU (...)"`` or ``"CPU"``) is a GPU and the notebook has a
    GPU preset (01 and 02); else ``"full"``."""
    if notebook not in _PRESETS:
        raise ValueError(f"unknown notebook {notebook!r}; known: {', '.join(NOTEBOOKS)}")
    if quick:
        return "quick"
    return "gpu" if device.startswith("GPU") and notebook in _GPU_PRESETS else "full"


def preset(notebook, quick, device="CPU"):
    """The preset of ``notebook`` (a name of :data:`NOTEBOOKS`) in quick or
    full mode, on ``device`` (:func:`preset_name` says which)."""
    name = preset_name(notebook, quick, device)
    if name == "gpu":
        return _GPU_PRESETS[notebook]()
    quick_preset, full_preset = _PRESETS[notebook]()
    return quick_preset if quick else full_preset
