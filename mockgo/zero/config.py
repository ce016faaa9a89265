"""What defines an AlphaGo Zero run (:class:`ZeroConfig`, stored in the run
folder's ``config.json``), the game it plays among them
(:attr:`ZeroConfig.game_class`: Go on the sensible moves,
:class:`~mockgo.search.games.SensibleGoGame`, unless told otherwise)."""

import dataclasses
import zlib

import numpy as np

from mockgo.go.features import AGZ17
from mockgo.search.games import GoGame, SensibleGoGame

__all__ = ["ENCODER", "ZeroConfig", "seed_of"]

ENCODER = AGZ17  #: The dual network's input planes.


@dataclasses.dataclass
class ZeroConfig:
    """Everything that defines a run; stored in ``config.json``.

    The defaults are a full 9x9 run sized for a CPU: a 4-block, 32-filter
    network, 64 readouts per move, 256 games a generation, 32 of them in
    lockstep with 8 leaves each (network batches of 256 positions).
    :meth:`for_test` is a tiny run of a minute.
    """

    board_size: int = 9
    komi: float = 7.5
    # the network (mockgo.nets.models.dual_network)
    blocks: int = 4
    filters: int = 32
    l2: float = 1e-4
    # a dual network to start from instead of random weights (the path of a
    # .keras file, e.g. one trained on KGS games: train_policy); generation 0
    # is a copy of it, and blocks and filters must be its own
    init_model: str | None = None
    # self-play
    games_per_generation: int = 256
    readouts: int = 64  # simulations per move
    parallel_readouts: int = 8  # leaves per tree per network call
    games_in_parallel: int = 32  # games in lockstep: a network batch = this x parallel_readouts
    c_puct: float = 1.5
    fpu_reduction: float = 0.0  # an unvisited move's Q: the parent's value less this
    softpick_moves: int | None = None  # moves sampled by visit count; None: N*N/12 (6 on 9x9)
    max_moves: int | None = None  # None: 2 * N * N
    resign_threshold: float | None = -0.9  # None: never resign
    resign_disabled_share: float = 0.2
    holdout_share: float = 0.05
    random_symmetry: bool = True  # evaluate each position under a random symmetry
    sensible_moves: bool = True  # no filling one's own eyes; pass only when nothing else is left
    # the search's network graph (mockgo.nets.inference.Predictor): "float32", "bfloat16"
    # (mixed precision), or "auto": bfloat16 on CPUs with bfloat16 instructions, where it
    # measured 1.1-1.2x faster self-play (benchmarks/mcts.py), else float32
    precision: str = "auto"
    # training
    window: int = 5  # generations of self-play to train on
    max_examples: int = 200_000
    chunk_size: int = 50_000
    epochs: int = 1  # passes over the window (each example is in `window` windows)
    batch_size: int = 128
    learning_rate: float = 1e-3  # Adam
    value_weight: float = 1.0  # the value loss's weight against the policy's
    # evaluation
    evaluate: bool = True
    eval_games: int = 40
    eval_readouts: int | None = None  # None: readouts
    promote_win_rate: float = 0.55
    seed: int = 0
    # KataGo's additions (Wu 2019, "Accelerating Self-Play Learning in Go"), all off by
    # default, so a run started before they existed resumes unchanged; `mockgo zero
    # --katago` (with_katago) switches the set on. The network's auxiliary heads,
    # trained on the final position of every game that ended by two passes:
    ownership_head: bool = False  # who owns each point at the end (81 targets on 9x9)
    score_head: bool = False  # the final margin, as a share of the board
    ownership_weight: float = 1.5  # KataGo's: 1.5 x the mean over the points
    score_weight: float = 0.5  # the score loss (MSE of margin / N*N) against the policy's
    global_pooling: int = 0  # channels pooled in blocks 2, 5, 8, ...; 0: no global pooling
    # playout cap randomization: this share of the moves gets a full search (readouts,
    # noise) and becomes a training example; the others a fast one (fast_readouts)
    full_search_share: float = 1.0
    fast_readouts: int | None = None
    forced_playouts: float = 0.0  # k of forced playouts and policy target pruning (KataGo: 2)
    # the strength curve: every strength_every generations (0: never), a match of
    # strength_games games against GnuGo at strength_level (strength_curve.jsonl)
    strength_every: int = 0
    strength_games: int = 10
    strength_level: int = 1

    @property
    def game_class(self):
        """The search state the run plays: :class:`~mockgo.search.games.SensibleGoGame`
        (the sensible moves; why: its docstring) or, with ``sensible_moves=False``,
        :class:`~mockgo.search.games.GoGame` (the legal moves)."""
        return SensibleGoGame if self.sensible_moves else GoGame

    def new_game(self):
        """The start of a game as the search sees it (see :attr:`game_class`)."""
        return self.game_class(self.board_size, komi=self.komi, max_moves=self.moves_cap)

    def __post_init__(self):
        if self.games_per_generation < 1 or self.games_in_parallel < 1:
            raise ValueError("games_per_generation and games_in_parallel must be >= 1")
        if not 0 <= self.holdout_share < 1 or not 0 <= self.resign_disabled_share <= 1:
            raise ValueError("holdout_share must be in [0, 1), resign_disabled_share in [0, 1]")
        if self.window < 1 or self.epochs < 1:
            raise ValueError("window and epochs must be >= 1")
        if self.precision not in ("auto", "float32", "bfloat16"):
            raise ValueError(f"precision must be auto, float32 or bfloat16, "
                             f"not {self.precision!r}")
        if not 0 < self.full_search_share <= 1:
            raise ValueError(f"full_search_share must be in (0, 1], not {self.full_search_share}")
        if self.full_search_share < 1 and not (self.fast_readouts or 0) >= 1:
            raise ValueError("full_search_share < 1 (playout cap randomization) needs "
                             "fast_readouts >= 1")
        if self.forced_playouts < 0 or self.strength_every < 0 or self.strength_games < 1:
            raise ValueError("forced_playouts and strength_every must be >= 0, "
                             "strength_games >= 1")
        if not 0 <= self.global_pooling < self.filters:
            raise ValueError(f"global_pooling must be from 0 to filters - 1 ({self.filters - 1})")

    def with_katago(self):
        """This config with KataGo's set switched on (``mockgo zero
        --katago``): ownership and score heads, global pooling of a quarter
        of the channels, a full search on a quarter of the moves and a fast
        one of a quarter of the readouts on the others (KataGo: 1 in 4
        moves, 600 and 100 readouts; a quarter, not a sixth, since our
        searches are small), forced playouts with k = 2. The pooled channels
        and the fast readouts follow ``filters`` and ``readouts``."""
        return dataclasses.replace(self, ownership_head=True, score_head=True,
                                   global_pooling=max(1, self.filters // 4),
                                   full_search_share=0.25,
                                   fast_readouts=max(1, self.readouts // 4),
                                   forced_playouts=2.0)

    @property
    def aux_heads(self):
        """Whether the network has an auxiliary head (ownership or score)."""
        return self.ownership_head or self.score_head

    @classmethod
    def for_test(cls, board_size=9, **changes):
        """A tiny run for tests and ``--test``: a 1-block, 8-filter network,
        8 games a generation with 8 readouts a move, 4 evaluation games."""
        settings = dict(board_size=board_size, blocks=1, filters=8, games_per_generation=8,
                        readouts=8, parallel_readouts=4, games_in_parallel=8,
                        holdout_share=0.25, resign_disabled_share=0.5, window=2, epochs=2,
                        batch_size=64, eval_games=4, max_examples=10_000)
        settings.update(changes)
        return cls(**settings)

    @property
    def moves_cap(self):
        return 2 * self.board_size ** 2 if self.max_moves is None else self.max_moves

    @property
    def match_readouts(self):
        return self.readouts if self.eval_readouts is None else self.eval_readouts

    def to_dict(self):
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, values):
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(values) - known
        if unknown:
            raise ValueError(f"unknown config fields: {sorted(unknown)}")
        return cls(**values)


def seed_of(*parts):
    """A numpy seed from ints and strings (strings by CRC-32), so that game
    ``i`` of a job always gets the same random numbers."""
    return [int(p) if isinstance(p, (int, np.integer)) else zlib.crc32(str(p).encode())
            for p in parts]
