"""Many games at once: the one game loop behind matches, self-play, REINFORCE
and the value network's data.

A network evaluates a batch of 64 positions in little more time than one
(``benchmarks/inference.py``), so games are played side by side: the
running games advance *in lockstep*, one move each per step, and at every
step each player answers all the games in which it is to move in one call
(:meth:`mockgo.play.player.Player.choose`): a network player with one
compiled network call, a tree search with one evaluator call per search step
for all its trees. A step-wise search (self-play's) makes one search step per
call and answers :data:`~mockgo.play.player.THINKING` for the games whose
search goes on: those keep their turn to the next step while the others
play. Players that answer one position at a time (GTP engines) play their
games one after another::

    from mockgo.play.policy_player import PolicyPlayer
    from mockgo.play.random_player import RandomPlayer
    from mockgo.play.runner import play_games

    sl = PolicyPlayer(model, temperature=1.0, name="sl")
    games = play_games(sl, sl, count=64, size=19, rng=0)        # self-play
    games = play_games(sl, RandomPlayer(), count=32, size=9, rng=1)
    print(games[0].result, games[0].log_probs[:5])
    games[0].save_sgf("runs/game.sgf")

Matches (colours alternating, win rates with their intervals) are
:func:`mockgo.play.match.match`, on top of this.

Games
-----
A game ends after two passes in a row, a resignation (a player's
:data:`~mockgo.play.player.RESIGN`), a forfeit (a move the rules forbid, or
a player that cannot move, :class:`~mockgo.play.player.Forfeit`, such as an
engine that crashed twice: that player loses), or at the move cap
(``max_moves``, default ``2 * N * N``, counting passes; the position is then
scored as it stands).
It is scored by area with komi (``board.area_score()``), after taking off
the stones in ``dead`` when a scorer has marked some. Each game comes back
as a :class:`PlayedGame`: the final :class:`~mockgo.go.board.Board` (its
``history`` is the game), and per move the move, the mask of moves it was
chosen from, its log-probability under the policy that chose it (after
masking and temperature; 0 for a forced pass, a greedy move or a search's
choice), who chose it, and what its player attached to its answer (its
*record*: a search player's record of the search, from which self-play makes
its training examples); and, for players with ``keep_planes``, the encoded
planes of the positions their network saw (bit-packed: 19x19x48 takes 2.2 kB
instead of 17 kB). :meth:`PlayedGame.planes_at` re-encodes positions of any
game by replaying its moves, with any encoder.

Random numbers: game ``g`` has a seed (``seeds[g]``, or drawn from ``rng``);
each player gets its own generator in it (:meth:`~mockgo.play.player.Player.game_rng` of the seed
and its colour; a player that plays both colours, as in self-play, of the
seed itself), so a game is the same whichever games it is played beside.

``random_move_at`` (one number per game) makes the U-th move of a game a
uniformly random *legal* point instead of the player's choice (AlphaGo's
recipe for value-network data, :func:`mockgo.learn.value.value_dataset`),
drawn from the game's own generator. ``boards`` continues games from given
positions.

With ``count`` larger than ``concurrent``, at most ``concurrent`` games run
at once and a new game starts as soon as one ends, so that batches stay full
until the last games.
"""

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from mockgo.data import sgf_writer
from mockgo.go.board import BLACK, EMPTY, WHITE, Board, IllegalMove, opponent
from mockgo.play.player import Forfeit
from mockgo.play.player import RESIGN, THINKING, Turn
from mockgo.play.specs import as_player
from mockgo.play.sampling import sample_moves

__all__ = ["PlayedGame", "RANDOM_MOVE", "game_seed", "mixture", "play_games"]

RANDOM_MOVE = 2  #: PlayedGame.chosen_by: the forced uniformly random move (0/1: black's/white's player)
_COLOR_LETTERS = {BLACK: "B", WHITE: "W"}


def game_seed(seed, index, slot=None):
    """The seed of game ``index`` of a run seeded by ``seed`` (and of player
    ``slot`` in it): a function of these numbers only."""
    parts = [*np.atleast_1d(seed).tolist(), index] + ([] if slot is None else [slot])
    return int(np.random.SeedSequence(parts).generate_state(1)[0])


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
    saw the position), ``plane_rows[t]`` (its row in ``planes``, or -1) and
    ``records[t]`` (what its player attached to the answer, or None; a
    resignation, which is no move, keeps none).

    ``reason``: how it ended, ``"score"`` (two passes), ``"resign"``,
    ``"forfeit"`` (``note`` says what was illegal, or why the player could
    not move) or ``"move cap"``.
    ``dead``: stones a scorer took off the board before counting (matches
    scored by GnuGo). ``players`` are the Player objects (None once the game
    has crossed a process boundary); ``names`` their names.
    """

    board: Board
    players: tuple | None
    names: tuple
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
    reason: str = "score"
    note: str | None = None
    forfeited_by: int | None = None  # the colour that forfeited the game
    random_move_at: int = -1
    index: int = 0  # the game's number in its run or match
    seconds: float = 0.0  # from its first move to its last
    # Seconds the mover's player took to choose each move: how long the
    # choose() calls that answered it ran (one call may answer several games
    # in lockstep; each of them waited that long; a step-wise search takes
    # several calls, THINKING until the last). 0 for a forced random move;
    # None for a game read back without times.
    think_seconds: np.ndarray | None = None
    dead: list = field(default_factory=list)
    path: str | None = None  # its SGF file, once saved by a match
    # Per move, what its player attached to its answer (Choices.records), such
    # as a search player's MoveSearch; a game read back from its files has none.
    records: list = field(default_factory=list)

    @property
    def size(self):
        return self.board.size

    @property
    def length(self):
        return len(self.moves)

    def thinking(self, color):
        """``(seconds, moves)``: how long ``color``'s player took over its
        moves of this game (None when the game has no timings)."""
        if self.think_seconds is None:
            return None
        mine = self.colors == color
        return float(self.think_seconds[mine].sum()), int(mine.sum())

    @property
    def capped(self):
        """Whether the game was stopped at the move cap."""
        return self.reason == "move cap"

    @property
    def winner(self):
        """BLACK, WHITE or EMPTY (a draw): by area with komi, the dead stones
        off the board; the resigner's or forfeiter's opponent."""
        if self.forfeited_by is not None:
            return opponent(self.forfeited_by)
        return self.board.winner(dead=self.dead)

    @property
    def score(self):
        """Black's area minus white's minus komi (dead stones off the board)."""
        return self.board.area_score(dead=self.dead)

    @property
    def result(self):
        """As SGF writes it: ``"B+12.5"``, ``"W+R"``, ``"B+F"``, ``"0"``."""
        if self.forfeited_by is not None:
            return f"{_COLOR_LETTERS[opponent(self.forfeited_by)]}+F"
        return self.board.result(dead=self.dead)

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
        """The game as a :class:`mockgo.data.sgf_reader.GameRecord` (player names
        default to the players' names; the result is :attr:`result`)."""
        options.setdefault("result", self.result)
        return sgf_writer.record_from_board(self.board, black=black or self.names[0],
                                            white=white or self.names[1], **options)

    def save_sgf(self, path, **options):
        """Write the game as SGF, atomically (:func:`mockgo.data.sgf_writer.save_sgf`),
        making the folder if needed. Returns the path."""

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        sgf_writer.save_sgf(self.record(**options), path)
        return path


# ------------------------------------------------------------- the lockstep


def play_games(black, white, count, size, komi=7.5, rng=None, seeds=None, max_moves=None,
               random_move_at=None, boards=None, concurrent=None, superko=True,
               progress=False, stats=None, on_step=None, on_game=None):
    """Play ``count`` games between ``black`` and ``white`` (a player each,
    or a list of one per game; anything :func:`mockgo.play.specs.as_player`
    takes), in lockstep; returns a list of :class:`PlayedGame`, in game order.

    ``seeds``: one seed per game (an int or a sequence of ints); default:
    drawn from ``rng`` (a numpy Generator or a seed). ``max_moves``: the move
    cap, counted from the empty board (default ``2 * size * size``), one
    number or one per game. ``random_move_at``: per game, the number
    (1-based, counted from the first move of the game) of the move to make
    uniformly at random among the legal points, or -1. ``boards``: positions
    to continue (one per game; they are played on, not copied; ``size`` and
    ``komi`` are then theirs). ``concurrent``: how many games run at once
    (default all; 1 when a player answers one position at a time).
    ``progress``: a tqdm bar of finished games (True, or a description).
    ``stats``: a dict that gets ``steps``, ``network_calls``, ``evaluations``,
    ``moves`` and the seconds spent encoding (``encode_s``) and in the network
    (``network_s``). ``on_step(step, running)`` after each step,
    ``on_game(game)`` as each game ends.

    The loop below is the whole of it; each of its parts is a method of
    ``_Lockstep``, the games of this call.
    """
    games = _Lockstep(black, white, count, size, komi, rng, seeds, max_moves, random_move_at,
                      boards, concurrent, superko, progress, stats, on_game)
    games.fill()  # the first games, up to `concurrent`
    while games.running:
        games.stats["steps"] += 1
        step = games.turns()  # who is to move in each running game, from which moves
        games.answer(step)  # each group of players answers all its turns in one call
        games.play(step)  # the answers played; the games that end are finished
        games.fill()  # new games take the places of those that ended
        if on_step is not None:
            on_step(games.stats["steps"], len(games.running))
    games.close()
    return games.results


class _Running:
    """One game while it runs: its board, players, generators and per-move lists."""

    __slots__ = ("index", "board", "players", "rngs", "rng", "start", "began", "moves", "colors",
                 "masks", "log_probs", "chosen_by", "evaluated", "plane_rows", "planes",
                 "think", "records", "waited", "keep", "reason", "note", "forfeited_by")

    def __init__(self, index, board, players, rngs, rng, keep):
        self.index, self.board, self.players = index, board, players
        self.rngs, self.rng, self.keep = rngs, rng, keep
        self.start = board.move_number
        self.began = time.perf_counter()
        self.moves, self.colors, self.masks, self.log_probs = [], [], [], []
        self.chosen_by, self.evaluated, self.plane_rows, self.planes = [], [], [], []
        self.think, self.records = [], []
        self.waited = 0.0  # seconds of steps at which its player was still THINKING
        self.reason = self.note = self.forfeited_by = None

    def distinct(self):
        black, white = self.players
        return (black,) if black is white else (black, white)

    def note_move(self, move, color, step, j):
        """Move ``move`` of ``color``, row ``j`` of ``step``, played: note it."""
        self.moves.append(move)
        self.colors.append(color)
        self.masks.append(step.masks[j].copy())
        self.log_probs.append(step.log_probs[j])
        self.chosen_by.append(step.who[j])
        self.evaluated.append(step.evaluated[j])
        self.think.append(step.think[j] + self.waited)
        self.records.append(step.records[j])
        self.waited = 0.0
        packed = step.planes.get(j)
        if packed is not None:
            self.plane_rows.append(len(self.planes))
            self.planes.append(packed)
        else:
            self.plane_rows.append(-1)

    def finish(self, points, random_at):
        num_planes = self.keep
        planes = None
        if num_planes:
            planes = (np.stack(self.planes) if self.planes else
                      np.zeros((0, self.board.size, self.board.size, (num_planes + 7) // 8),
                               np.uint8))
        return PlayedGame(
            board=self.board, players=self.players,
            names=tuple(p.name for p in self.players),
            moves=np.array(self.moves, np.int32),
            colors=np.array(self.colors, np.int8),
            masks=(np.array(self.masks, bool) if self.masks
                   else np.zeros((0, points + 1), bool)),
            log_probs=np.array(self.log_probs, np.float64),
            chosen_by=np.array(self.chosen_by, np.int8),
            evaluated=np.array(self.evaluated, bool),
            plane_rows=np.array(self.plane_rows, np.int32),
            planes=planes, num_planes=num_planes, start_move=self.start,
            reason=self.reason, note=self.note, forfeited_by=self.forfeited_by,
            random_move_at=random_at, index=self.index,
            seconds=time.perf_counter() - self.began,
            think_seconds=np.array(self.think, np.float64), records=self.records)


class _Step:
    """One step of the running games, row ``j`` for ``running[j]``: the
    moves it may choose from (``masks``), the turns grouped by who answers
    them together (``groups``: group key -> ``[(j, Turn)]``) and the rows
    of forced random moves (``forced``); then the answers: the move
    (``chosen``, or THINKING, RESIGN), its log-probability, who chose it
    (``who``: 0 black's player, 1 white's, RANDOM_MOVE), whether a network
    saw the position (``evaluated``), the seconds its player took
    (``think``), the packed planes of players that keep them (``planes``:
    j -> row), the players that could not move (``forfeits``: j -> why)
    and what the players attached to their answers (``records``)."""

    __slots__ = ("masks", "groups", "forced", "chosen", "log_probs", "who", "evaluated",
                 "think", "planes", "forfeits", "records")

    def __init__(self, n, points):
        self.masks = np.empty((n, points + 1), bool)
        self.groups, self.forced = {}, []
        self.chosen = np.empty(n, np.int64)
        self.log_probs = np.zeros(n)
        self.who = np.empty(n, np.int8)
        self.evaluated = np.zeros(n, bool)
        self.think = np.zeros(n)
        self.planes, self.forfeits = {}, {}
        self.records = [None] * n


def _per_game(player, count, what):
    if isinstance(player, (list, tuple)):
        if len(player) != count:
            raise ValueError(f"{what}: {len(player)} players for {count} games")
        return [as_player(p) for p in player]
    player = as_player(player)
    return [player] * count


class _Lockstep:
    """The games of one :func:`play_games` call: their settings, the games
    running (``running``), those finished (``results``, in game order) and
    the counters (``stats``). :func:`play_games`'s loop runs its steps."""

    def __init__(self, black, white, count, size, komi, rng, seeds, max_moves, random_move_at,
                 boards, concurrent, superko, progress, stats, on_game):
        self.blacks = _per_game(black, count, "black")
        self.whites = _per_game(white, count, "white")
        if boards is not None:
            if len(boards) != count:
                raise ValueError(f"{len(boards)} boards for {count} games")
            size = boards[0].size
        if seeds is None:
            rng = np.random.default_rng(rng)
            seeds = [int(s) for s in rng.integers(2**63, size=count)]
        elif len(seeds) != count:
            raise ValueError(f"{len(seeds)} seeds for {count} games")
        self.count, self.size, self.komi, self.superko = count, size, komi, superko
        self.seeds, self.boards, self.on_game = seeds, boards, on_game
        self.points = points = size * size
        self.caps = np.broadcast_to(
            np.asarray(2 * points if max_moves is None else max_moves, np.int64), (count,))
        self.random_at = np.broadcast_to(
            np.asarray(-1 if random_move_at is None else random_move_at, np.int64), (count,))
        distinct = {id(p): p for p in self.blacks + self.whites}.values()
        for player in distinct:
            player.check_size(size)
        if any(p.one_at_a_time for p in distinct):
            concurrent = 1
        self.concurrent = count if concurrent is None else max(1, min(int(concurrent), count))
        self.keeps = []  # per game: the planes kept (0: none)
        for b, w in zip(self.blacks, self.whites):
            kept = {p.encoder.num_planes for p in (b, w) if p.keep_planes}
            if len(kept) > 1:
                raise ValueError(f"{b.name} and {w.name} both keep planes, of different encoders")
            self.keeps.append(kept.pop() if kept else 0)
        self.stats = {} if stats is None else stats
        for key in ("steps", "network_calls", "evaluations", "moves"):
            self.stats.setdefault(key, 0)
        self.stats.setdefault("encode_s", 0.0)
        self.stats.setdefault("network_s", 0.0)
        self.results = [None] * count
        self.running = []
        self.started = 0
        self.bar = None
        if progress:
            self.bar = tqdm(total=count, desc=progress if isinstance(progress, str) else "games",
                            leave=False)

    def fill(self):
        """Start games until ``concurrent`` run, or every game has started."""
        while self.started < self.count and len(self.running) < self.concurrent:
            self.start_game()

    def start_game(self):
        """Start the next game: its board, its players' generators (module
        docstring), the players told; a game that is over already ends."""
        g = self.started
        self.started += 1
        board = self.boards[g] if self.boards is not None else \
            Board(self.size, komi=self.komi, superko=self.superko)
        players = (self.blacks[g], self.whites[g])
        seed = np.atleast_1d(self.seeds[g]).tolist()
        if players[0] is players[1]:
            rngs = (players[0].game_rng(self.seeds[g]),) * 2
        else:
            rngs = tuple(p.game_rng([*seed, slot]) for slot, p in enumerate(players))
        # The forced random move's own stream, apart from the players'.
        game = _Running(g, board, players, rngs, np.random.default_rng([*seed, 2]), self.keeps[g])
        for player, player_rng in zip(game.distinct(), rngs):
            player.start_game(g, board, player_rng)
        if board.is_over or board.move_number >= self.caps[g]:
            self.end_game(game, "score" if board.is_over else "move cap")
        else:
            self.running.append(game)

    def end_game(self, game, reason):
        """Game ``game`` is over (``reason``, unless it has one): its players
        told, its :class:`PlayedGame` made and handed to ``on_game``."""
        game.reason = game.reason or reason
        for player in game.distinct():
            player.end_game(game.index)
        self.results[game.index] = played = game.finish(self.points,
                                                        int(self.random_at[game.index]))
        if self.bar is not None:
            self.bar.update(1)
        if self.on_game is not None:
            self.on_game(played)

    def turns(self):
        """Who moves in each running game, from which moves: a :class:`_Step`
        with the moves allowed, the turns grouped by the players that answer
        them together, and the rows of the forced random moves."""
        step = _Step(len(self.running), self.points)
        for j, game in enumerate(self.running):
            board = game.board
            slot = 0 if board.to_play == BLACK else 1
            step.who[j] = slot
            if self.random_at[game.index] == board.move_number + 1:
                legal = board.legal_moves()
                step.masks[j] = legal
                if legal[:-1].any():
                    step.masks[j, -1] = False
                step.forced.append(j)
                continue
            step.masks[j] = board.sensible_moves()
            player = game.players[slot]
            turn = Turn(game.index, board, step.masks[j], game.rngs[slot], player)
            step.groups.setdefault(player.group_key(), []).append((j, turn))
        return step

    def answer(self, step):
        """The step's answers: each forced random move drawn from its game's
        own generator, and each group's turns answered by one ``choose``
        call, timed (a player that cannot move forfeits its game)."""
        for j in step.forced:
            uniform = step.masks[j:j + 1].astype(np.float64)
            uniform /= uniform.sum()
            move, logp = sample_moves(uniform, [self.running[j].rng])
            step.chosen[j], step.log_probs[j], step.who[j] = move[0], logp[0], RANDOM_MOVE
        for members in step.groups.values():
            rows = np.array([j for j, _ in members])
            turns = [turn for _, turn in members]
            began = time.perf_counter()
            try:
                choices = turns[0].player.choose(turns)
            except Forfeit as forfeit:
                if len(turns) != 1:  # only players of one position at a time may forfeit
                    raise
                step.forfeits[int(rows[0])] = str(forfeit)  # play() ends that game
                continue
            step.think[rows] = time.perf_counter() - began
            step.chosen[rows], step.log_probs[rows] = choices.moves, choices.log_probs
            if choices.records is not None:
                for j, record in zip(rows, choices.records):
                    step.records[j] = record
            self.count_work(choices, rows, turns, step)

    def count_work(self, choices, rows, turns, step):
        """Add a ``choose`` call's work to ``stats``; mark the rows its
        network saw, and keep their planes for players with ``keep_planes``."""
        stats = self.stats
        stats["network_calls"] += choices.calls
        stats["encode_s"] += choices.encode_s
        stats["network_s"] += choices.network_s
        if choices.evaluated is not None and choices.evaluated.any():
            seen = np.flatnonzero(choices.evaluated)
            step.evaluated[rows[seen]] = True
            stats["evaluations"] += len(seen)
            keepers = [k for k, i in enumerate(seen) if turns[i].player.keep_planes]
            if keepers:
                packed = np.packbits(choices.planes[keepers], axis=-1)
                for k, row in zip(keepers, packed):
                    step.planes[int(rows[seen[k]])] = row

    def play(self, step):
        """Play each running game's answer: a forfeit, a resignation or an
        illegal move ends its game; THINKING keeps the turn to the next step;
        a move is played, noted, and shown to the players, and the game ends
        after two passes or at its move cap."""
        still = []
        played = 0
        for j, game in enumerate(self.running):
            board = game.board
            move = int(step.chosen[j])
            color = board.to_play
            if j in step.forfeits:
                game.forfeited_by, game.note = color, step.forfeits[j]
                self.end_game(game, "forfeit")
                continue
            if move == THINKING:  # a step-wise search goes on: the same turn next step
                game.waited += step.think[j]
                still.append(game)
                continue
            played += 1
            if move == RESIGN:
                board.resign(color)
                for player in game.distinct():
                    player.observe(game.index, board, RESIGN)
                self.end_game(game, "resign")
                continue
            try:
                board.play(move)
            except (IllegalMove, ValueError) as error:
                game.forfeited_by = color
                game.note = f"{game.players[0 if color == BLACK else 1].name} played an " \
                            f"illegal move: {error}"
                self.end_game(game, "forfeit")
                continue
            game.note_move(move, color, step, j)
            for player in game.distinct():
                player.observe(game.index, board, move)
            if board.is_over:
                self.end_game(game, "score")
            elif board.move_number >= self.caps[game.index]:
                self.end_game(game, "move cap")
            else:
                still.append(game)
        self.stats["moves"] += played
        self.running[:] = still

    def close(self):
        if self.bar is not None:
            self.bar.close()
