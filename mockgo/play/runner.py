"""Many games at once: the batched game runner behind self-play, matches,
REINFORCE and the value network's data.

A network evaluates a batch of 64 positions in little more time than one
(``benchmarks/inference.py``), so games are played side by side: the
running games advance *in lockstep*, one move each per step, and at every
step all the positions in which one network is to move are encoded into one
preallocated uint8 batch (``encoder.encode_into``) and evaluated in **one**
compiled call (:class:`mockgo.nets.inference.Predictor`). In self-play that is
one call per step for every running game; in a match between two networks,
one call per network::

    from mockgo.play.runner import NetworkPolicy, RandomPolicy, play_games, play_match

    sl = NetworkPolicy(model, encoder="alphago48", temperature=1.0, name="sl")
    games = play_games(sl, sl, count=64, size=19, rng=0)        # self-play
    match = play_match(sl, RandomPolicy(), games=32, size=9, rng=1)
    print(match.win_rate, games[0].result, games[0].log_probs[:5])
    games[0].save_sgf("runs/game.sgf")

Batch players
-------------
The runner asks *batch players* for moves (one object per side, or one per
game). Two kinds:

:class:`NetworkPolicy`
    a :class:`~mockgo.nets.inference.Predictor`, an encoder and a temperature:
    the network's probabilities are masked to ``board.sensible_moves()``
    (legal, not filling the mover's own single-point eye) and renormalised
    (:func:`~mockgo.nets.inference.masked_policy`), then tempered: at temperature
    T the move is sampled from ``p ** (1 / T)``, normalised; T = 0 takes the
    most probable move. Policies sharing a Predictor and an encoder (self-play,
    or the same net at two temperatures) share one call per step.
:class:`RandomPolicy`
    uniform over the sensible points.

Either passes only when no point is sensible (a policy without a pass
output never chooses to pass). They follow what
:class:`mockgo.play.players.PolicyPlayer` and :class:`~mockgo.play.players.RandomPlayer`
do for one game at a time through ``select_move(board)``;
:func:`as_batch_player` turns one of those (or a Keras model, or
``"random"``) into a batch player, sharing its Predictor, and
:meth:`NetworkPolicy.to_player` goes the other way. A *fixed mix* of
opponents is a list with one player per game (:func:`mixture`).

Games
-----
A game ends after two passes in a row or at the move cap (``max_moves``,
default ``2 * N * N``) and is scored by area with komi
(``board.area_score()``, ``board.winner()``). Each game comes back as a
:class:`PlayedGame`: the final :class:`~mockgo.go.board.Board` (its
``history`` is the game), and per move the move, the mask of moves it was
chosen from, its log-probability under the policy that chose it (after
masking and temperature; 0 for a forced pass or a greedy move) and who chose
it; and, for players made with ``keep_planes=True``, the encoded planes of the
positions the network saw (bit-packed: 19x19x48 takes 2.2 kB instead of
17 kB). :meth:`PlayedGame.planes_at` re-encodes positions of any game by
replaying its moves, with any encoder.

``random_move_at`` (one number per game) makes the U-th move of a game a
uniformly random *legal* point instead of the player's choice (AlphaGo's
recipe for value-network data, :func:`mockgo.learn.reinforce.value_dataset`).
``boards`` continues games from given positions.

With ``count`` larger than ``concurrent``, at most ``concurrent`` games run
at once and a new game starts as soon as one ends, so that batches stay full
until the last games.
"""

import math
from dataclasses import dataclass

import numpy as np

from mockgo.data import records
from mockgo.go.board import BLACK, EMPTY, WHITE, Board

__all__ = [
    "BatchPlayer",
    "MatchResult",
    "NetworkPolicy",
    "PlayedGame",
    "RandomPolicy",
    "RANDOM_MOVE",
    "as_batch_player",
    "check_temperature",
    "mixture",
    "play_games",
    "play_match",
    "sample_moves",
    "temper",
]

RANDOM_MOVE = 2  # PlayedGame.chosen_by: the forced uniformly random move (0/1: black's/white's player)


# ------------------------------------------------------------ batch players


class BatchPlayer:
    """What the runner asks for moves. ``network`` is False for players that
    need no evaluation (they choose from the sensible-move masks alone)."""

    name = "player"
    network = False
    temperature = 1.0
    keep_planes = False

    def group_key(self):
        """Players with the same key are evaluated in one call per step."""
        return ("player", id(self))

    def __repr__(self):
        return f"<{type(self).__name__} {self.name}>"


class RandomPolicy(BatchPlayer):
    """Uniform over the sensible points (legal, not filling the mover's own
    single-point eye); passes when there is none. The batch twin of
    :class:`mockgo.play.players.RandomPlayer`."""

    def __init__(self, name="random"):
        self.name = name

    def group_key(self):
        return ("random",)

    @staticmethod
    def distributions(masks):
        """Move probabilities for rows of sensible-move masks (N*N + 1, pass
        last): uniform over the points, all on pass when there is none."""
        points = masks[:, :-1]
        counts = points.sum(axis=1, keepdims=True)
        out = np.zeros(masks.shape, np.float64)
        out[:, :-1] = points / np.maximum(counts, 1)
        out[:, -1] = counts[:, 0] == 0
        return out


class NetworkPolicy(BatchPlayer):
    """A policy network for the runner: a Predictor, an encoder and a
    temperature (module docstring).

    ``model``: a Keras model, a path to a ``.keras`` file, or a
    :class:`~mockgo.nets.inference.Predictor` to share (its model's first output
    is the policy: a dual network works too). ``encoder``: the name of the
    feature planes the network takes (:func:`mockgo.go.features.get_encoder`;
    None: the encoder the network records, :mod:`mockgo.nets.io`).
    ``keep_planes``: keep the encoded planes of the positions this player
    moved in (REINFORCE replays them for its update).
    """

    network = True

    def __init__(self, model, encoder=None, temperature=1.0, name=None,
                 keep_planes=False, batch_size=1024):
        from mockgo.nets.inference import network_input

        self.predictor, self.encoder = network_input(model, encoder, batch_size)
        self.model = self.predictor.model
        self.size = self.encoder.size
        self.temperature = check_temperature(temperature)
        self.keep_planes = bool(keep_planes)
        self.name = name or self.model.name

    def group_key(self):
        return ("network", id(self.predictor), self.encoder.name)

    def probabilities(self, planes):
        """The network's raw policy for a batch of planes (one compiled call)."""
        outputs = self.predictor.predict(planes)
        return outputs[0] if isinstance(outputs, tuple) else outputs

    def with_temperature(self, temperature, name=None, keep_planes=None):
        """The same network (same Predictor: no new graph) at another temperature."""
        return NetworkPolicy(self.predictor, self.encoder.name, temperature,
                             name=name or self.name,
                             keep_planes=self.keep_planes if keep_planes is None else keep_planes)

    def to_player(self, seed=None, name=None):
        """A :class:`mockgo.play.players.PolicyPlayer` (one game at a time, for
        GTP and the arena) playing this network at this temperature."""
        from mockgo.play.players import PolicyPlayer

        return PolicyPlayer(self.model, encoder=self.encoder.name, temperature=self.temperature,
                            seed=seed, name=name or self.name)


def as_batch_player(player, **options):
    """A batch player from a batch player (returned as is), a Keras model
    (``options`` go to :class:`NetworkPolicy`), ``"random"``, or a
    :mod:`mockgo.play.players` PolicyPlayer (sharing its Predictor, encoder and
    temperature) or RandomPlayer."""
    if isinstance(player, BatchPlayer):
        return player
    if isinstance(player, str) and player == "random":
        return RandomPolicy()
    from mockgo.play import players

    if isinstance(player, players.RandomPlayer):
        return RandomPolicy(name=player.name)
    if isinstance(player, players.PolicyPlayer):
        return NetworkPolicy(player.predictor, player.encoder.name, player.temperature,
                             name=player.name, **options)
    return NetworkPolicy(player, **options)


def mixture(players, weights, count, rng):
    """A fixed mix of opponents: one of ``players`` for each of ``count``
    games, in proportion to ``weights`` (rounded to whole games, the
    remainders drawn at random), shuffled."""
    rng = np.random.default_rng(rng)
    weights = np.asarray(weights, np.float64)
    if len(weights) != len(players) or (weights < 0).any() or weights.sum() <= 0:
        raise ValueError("mixture needs one non-negative weight per player, not all zero")
    share = weights / weights.sum() * count
    numbers = np.floor(share).astype(int)
    rest = count - numbers.sum()
    if rest:
        numbers += np.bincount(rng.choice(len(players), rest, replace=False,
                                          p=(share - numbers) / (share - numbers).sum()),
                               minlength=len(players))
    chosen = [player for player, n in zip(players, numbers) for _ in range(n)]
    return [chosen[i] for i in rng.permutation(count)]


# ------------------------------------------------------ sampling, vectorised


def check_temperature(temperature):
    """A sampling temperature as a float; ValueError below 0."""
    temperature = float(temperature)
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0, got {temperature}")
    return temperature


def temper(distributions, temperatures):
    """Rows of move probabilities at per-row temperatures: ``p ** (1/T)``
    renormalised; T = 0 puts everything on the most probable move; T = 1
    leaves the row as it is."""
    p = np.asarray(distributions, np.float64)
    temperatures = np.broadcast_to(np.asarray(temperatures, np.float64), (len(p),))
    if np.all(temperatures == 1.0):
        return p
    p = p.copy()
    greedy = temperatures == 0
    if greedy.any():
        best = np.argmax(p[greedy], axis=1)
        p[greedy] = 0.0
        p[np.flatnonzero(greedy), best] = 1.0
    other = ~greedy & (temperatures != 1.0)
    if other.any():
        with np.errstate(divide="ignore"):
            logits = np.log(p[other]) / temperatures[other, None]
        logits -= logits.max(axis=1, keepdims=True)
        weights = np.exp(logits)
        p[other] = weights / weights.sum(axis=1, keepdims=True)
    return p


def sample_moves(distributions, rng):
    """One move per row of probabilities (inverse CDF, vectorised) and its
    log-probability. A move of probability 0 is never drawn."""
    p = np.asarray(distributions, np.float64)
    cumulative = np.cumsum(p, axis=1)
    total = cumulative[:, -1]
    # u < total, also after rounding, so some entry (a positive one) exceeds it.
    u = np.minimum(rng.random(len(p)) * total, total * (1 - 1e-12))
    moves = np.argmax(cumulative > u[:, None], axis=1)
    return moves, np.log(p[np.arange(len(p)), moves])


# ------------------------------------------------------------------- games


@dataclass
class PlayedGame:
    """One game played by the runner (module docstring).

    Per move ``t`` of this run (the first ``start_move`` moves of
    ``board.history`` were on the board before it began): ``moves[t]``
    (flat index, N*N = pass), ``colors[t]``, ``masks[t]`` (the moves it was
    chosen from: the sensible moves, or the legal points for the forced
    random move), ``log_probs[t]``, ``chosen_by[t]`` (0: black's player,
    1: white's player, :data:`RANDOM_MOVE`), ``evaluated[t]`` (a network
    saw the position) and ``plane_rows[t]`` (its row in ``planes``, or -1).
    """

    board: Board
    players: tuple
    moves: np.ndarray
    colors: np.ndarray
    masks: np.ndarray
    log_probs: np.ndarray
    chosen_by: np.ndarray
    evaluated: np.ndarray
    plane_rows: np.ndarray
    planes: np.ndarray | None = None  # bit-packed along the plane axis
    num_planes: int = 0
    start_move: int = 0
    capped: bool = False
    random_move_at: int = -1

    @property
    def size(self):
        return self.board.size

    @property
    def length(self):
        return len(self.moves)

    @property
    def winner(self):
        """BLACK, WHITE or EMPTY (a draw), by area with komi."""
        return self.board.winner()

    @property
    def score(self):
        """Black's area minus white's minus komi."""
        return self.board.area_score()

    @property
    def result(self):
        return self.board.result()

    def side_of(self, player):
        """The colour ``player`` played (BLACK, WHITE), or None."""
        black, white = self.players
        if player is black:
            return BLACK
        if player is white:
            return WHITE
        return None

    def outcome(self, color):
        """+1 if ``color`` won, -1 if it lost, 0 for a draw."""
        winner = self.winner
        return 0.0 if winner == EMPTY else (1.0 if winner == color else -1.0)

    def kept_planes(self, rows=None):
        """The kept planes (unpacked, uint8) of move rows ``rows`` (default:
        every row that has them)."""
        if self.planes is None:
            raise ValueError("no planes were kept for this game (keep_planes=False)")
        index = self.plane_rows if rows is None else self.plane_rows[np.asarray(rows)]
        index = index[index >= 0] if rows is None else index
        if (index < 0).any():
            raise ValueError("some of these moves have no kept planes")
        return np.unpackbits(self.planes[index], axis=-1, count=self.num_planes)

    def planes_at(self, rows, encoder):
        """The planes (``encoder``, an Encoder) of the positions before the
        moves ``rows`` of this run, re-encoded by replaying the game."""
        rows = np.asarray(rows, np.int64)
        out = np.empty((len(rows), *encoder.shape), np.uint8)
        if not len(rows):
            return out
        board = self.starting_board()
        wanted = {}
        for i, t in enumerate(rows):
            wanted.setdefault(int(t), []).append(i)
        history = self.board.history[self.start_move:]
        for t, (color, move) in enumerate(history[:rows.max() + 1]):
            for i in wanted.get(t, ()):
                encoder.encode_into(board, out[i])
            board.play(move, color)
        return out

    def starting_board(self):
        """A Board with the position this run started from (the empty board,
        or the first ``start_move`` moves replayed)."""
        board = Board(self.board.size, komi=self.board.komi, superko=self.board.superko)
        for color, move in self.board.history[:self.start_move]:
            board.play(move, color)
        return board

    def record(self, black=None, white=None, **options):
        """The game as a :class:`mockgo.data.records.GameRecord` (player names
        default to the players' names)."""
        return records.record_from_board(self.board, black=black or self.players[0].name,
                                         white=white or self.players[1].name, **options)

    def save_sgf(self, path, **options):
        """Write the game as SGF, atomically (:func:`mockgo.data.records.save_sgf`),
        making the folder if needed. Returns the path."""
        from pathlib import Path

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        records.save_sgf(self.record(**options), path)
        return path


class _Recorder:
    """The per-move lists of one game while it runs."""

    __slots__ = ("moves", "colors", "masks", "log_probs", "chosen_by", "evaluated",
                 "plane_rows", "planes")

    def __init__(self):
        self.moves, self.colors, self.masks, self.log_probs = [], [], [], []
        self.chosen_by, self.evaluated, self.plane_rows, self.planes = [], [], [], []


def _finish(board, players, recorder, points, plane_bytes, num_planes, start, capped, at):
    planes = (np.stack(recorder.planes) if recorder.planes
              else np.zeros((0, board.size, board.size, plane_bytes), np.uint8)) \
        if num_planes else None
    return PlayedGame(
        board=board, players=players,
        moves=np.array(recorder.moves, np.int32),
        colors=np.array(recorder.colors, np.int8),
        masks=(np.array(recorder.masks, bool) if recorder.masks
               else np.zeros((0, points + 1), bool)),
        log_probs=np.array(recorder.log_probs, np.float64),
        chosen_by=np.array(recorder.chosen_by, np.int8),
        evaluated=np.array(recorder.evaluated, bool),
        plane_rows=np.array(recorder.plane_rows, np.int32),
        planes=planes, num_planes=num_planes, start_move=start, capped=capped,
        random_move_at=at)


def _per_game(player, count, what):
    if isinstance(player, (list, tuple)):
        if len(player) != count:
            raise ValueError(f"{what}: {len(player)} players for {count} games")
        return [as_batch_player(p) for p in player]
    player = as_batch_player(player)
    return [player] * count


def play_games(black, white, count, size, komi=7.5, rng=None, max_moves=None,
               random_move_at=None, boards=None, concurrent=None, superko=True,
               progress=False, stats=None):
    """Play ``count`` games between ``black`` and ``white`` (a batch player
    each, or a list of one per game), in lockstep; returns a list of
    :class:`PlayedGame`, in game order.

    ``rng``: a numpy Generator or a seed (all sampling comes from it).
    ``max_moves``: the move cap, counted from the empty board (default
    ``2 * size * size``), one number or one per game. ``random_move_at``:
    per game, the number (1-based, counted from the first move of the game)
    of the move to make uniformly at random among the legal points, or -1.
    ``boards``: positions to continue (one per game; they are played on,
    not copied; ``size`` and ``komi`` are then theirs). ``concurrent``: how
    many games run at once (default all). ``progress``: a tqdm bar of
    finished games (True, or a description). ``stats``: a dict that gets
    ``steps``, ``network_calls``, ``evaluations``, ``moves`` and the seconds
    spent encoding (``encode_s``) and in the network (``network_s``).
    """
    import time

    from mockgo.nets.inference import masked_policy

    rng = np.random.default_rng(rng)
    blacks = _per_game(black, count, "black")
    whites = _per_game(white, count, "white")
    if boards is not None:
        if len(boards) != count:
            raise ValueError(f"{len(boards)} boards for {count} games")
        size = boards[0].size
    points = size * size
    caps = np.broadcast_to(np.asarray(2 * points if max_moves is None else max_moves, np.int64),
                           (count,))
    random_at = np.broadcast_to(np.asarray(-1 if random_move_at is None else random_move_at,
                                           np.int64), (count,))
    concurrent = count if concurrent is None else max(1, min(int(concurrent), count))
    for player in {id(p): p for p in blacks + whites}.values():
        if player.network and player.size != size:
            raise ValueError(f"{player.name} plays {player.size}x{player.size}, "
                             f"not {size}x{size}")

    # Preallocated: one plane batch per network group, the masks of a step.
    buffers = {}
    for player in blacks + whites:
        key = player.group_key()
        if player.network and key not in buffers:
            buffers[key] = np.zeros((concurrent, *player.encoder.shape), np.uint8)
    masks = np.zeros((concurrent, points + 1), bool)
    keeps = []  # per game: the planes kept (0: none)
    for b, w in zip(blacks, whites):
        kept = {p.encoder.num_planes for p in (b, w) if p.network and p.keep_planes}
        if len(kept) > 1:
            raise ValueError(f"{b.name} and {w.name} both keep planes, of different encoders")
        keeps.append(kept.pop() if kept else 0)
    stats = {} if stats is None else stats
    for key in ("steps", "network_calls", "evaluations", "moves"):
        stats.setdefault(key, 0)
    stats.setdefault("encode_s", 0.0)
    stats.setdefault("network_s", 0.0)

    results = [None] * count
    game_boards = [None] * count
    recorders = [None] * count
    starts = [0] * count
    running = []
    started = 0
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=count, desc=progress if isinstance(progress, str) else "games",
                   leave=False)

    def start_game():
        nonlocal started
        g = started
        started += 1
        board = boards[g] if boards is not None else Board(size, komi=komi, superko=superko)
        game_boards[g] = board
        recorders[g] = _Recorder()
        starts[g] = board.move_number
        if board.is_over or board.move_number >= caps[g]:
            end_game(g)
        else:
            running.append(g)

    def end_game(g):
        board = game_boards[g]
        num_planes = keeps[g]
        results[g] = _finish(board, (blacks[g], whites[g]), recorders[g], points,
                             (num_planes + 7) // 8, num_planes, starts[g],
                             not board.is_over, int(random_at[g]))
        game_boards[g] = recorders[g] = None
        if bar is not None:
            bar.update(1)

    while started < count and len(running) < concurrent:
        start_game()

    while running:
        n = len(running)
        stats["steps"] += 1
        # Who moves in each running game, and from which moves.
        groups = {}
        forced = []
        for j, g in enumerate(running):
            board = game_boards[g]
            color = board.to_play
            if random_at[g] == board.move_number + 1:
                legal = board.legal_moves()
                masks[j] = legal
                if legal[:-1].any():
                    masks[j, -1] = False
                forced.append(j)
                continue
            masks[j] = board.sensible_moves()
            player = blacks[g] if color == BLACK else whites[g]
            groups.setdefault(player.group_key(), []).append((j, g, player))
        has_point = masks[:n, :-1].any(axis=1)
        chosen = np.full(n, points, np.int64)  # pass unless decided otherwise
        log_probs = np.zeros(n)
        who = np.empty(n, np.int8)
        evaluated = np.zeros(n, bool)
        plane_of = {}  # j -> packed planes, for players that keep them
        if forced:
            rows = np.array(forced)
            moves, logp = sample_moves(RandomPolicy.distributions(masks[rows]), rng)
            chosen[rows], log_probs[rows], who[rows] = moves, logp, RANDOM_MOVE
        for key, members in groups.items():
            player = members[0][2]
            for j, g, p in members:
                who[j] = 0 if game_boards[g].to_play == BLACK else 1
            active = [(j, p) for j, _, p in members if has_point[j]]
            if not active:
                continue
            rows = np.array([j for j, _ in active])
            if player.network:
                batch = buffers[key]
                began = time.perf_counter()
                encoder = player.encoder
                for k, j in enumerate(rows):
                    encoder.encode_into(game_boards[running[j]], batch[k])
                middle = time.perf_counter()
                raw = player.probabilities(batch[:len(rows)])
                stats["encode_s"] += middle - began
                stats["network_s"] += time.perf_counter() - middle
                stats["network_calls"] += 1
                stats["evaluations"] += len(rows)
                evaluated[rows] = True
                distributions = temper(masked_policy(raw, masks[rows]),
                                       [p.temperature for _, p in active])
                keepers = [k for k, (_, p) in enumerate(active) if p.keep_planes]
                if keepers:
                    packed = np.packbits(batch[keepers], axis=-1)
                    for k, row in zip(keepers, packed):
                        plane_of[int(rows[k])] = row
            else:
                distributions = player.distributions(masks[rows])
            moves, logp = sample_moves(distributions, rng)
            chosen[rows], log_probs[rows] = moves, logp
        # Play the moves and note them.
        still = []
        for j, g in enumerate(running):
            board = game_boards[g]
            recorder = recorders[g]
            move = int(chosen[j])
            recorder.moves.append(move)
            recorder.colors.append(board.to_play)
            recorder.masks.append(masks[j].copy())
            recorder.log_probs.append(log_probs[j])
            recorder.chosen_by.append(who[j])
            recorder.evaluated.append(evaluated[j])
            packed = plane_of.get(j)
            if packed is not None:
                recorder.plane_rows.append(len(recorder.planes))
                recorder.planes.append(packed)
            else:
                recorder.plane_rows.append(-1)
            board.play(move)
            if board.is_over or board.move_number >= caps[g]:
                end_game(g)
            else:
                still.append(g)
        stats["moves"] += n
        running[:] = still
        while started < count and len(running) < concurrent:
            start_game()
    if bar is not None:
        bar.close()
    return results


# ------------------------------------------------------------------ matches


@dataclass
class MatchResult:
    """Games between ``player`` and its opponents, half with each colour."""

    player: BatchPlayer
    games: list
    wins: float  # draws count half
    win_rate: float

    @property
    def losses(self):
        return len(self.games) - self.wins


def play_match(player, opponent, games, size, komi=7.5, rng=None, max_moves=None,
               concurrent=None, progress=False, stats=None):
    """``games`` games of ``player`` against ``opponent`` (a batch player, or
    one per game: a fixed mix, :func:`mixture`), ``player`` black in the
    even-numbered games and white in the others. Returns a
    :class:`MatchResult`; draws count half a win."""
    player = as_batch_player(player)
    opponents = _per_game(opponent, games, "opponent")
    black = [player if i % 2 == 0 else opponents[i] for i in range(games)]
    white = [opponents[i] if i % 2 == 0 else player for i in range(games)]
    played = play_games(black, white, games, size, komi=komi, rng=rng, max_moves=max_moves,
                        concurrent=concurrent, progress=progress, stats=stats)
    wins = sum((game.outcome(BLACK if i % 2 == 0 else WHITE) + 1) / 2
               for i, game in enumerate(played))
    return MatchResult(player, played, wins, wins / games if games else math.nan)
