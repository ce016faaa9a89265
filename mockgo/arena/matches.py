"""Matches: N games between two players, with the statistics to read them.

::

    from mockgo.arena.matches import match
    result = match("random", "gnugo:level=1", games=20, size=9)   # prints a table
    result.win_rate, result.interval(), result.elo(), result.elo_interval()

    mockgo match --black random --white gnugo:level=1 --games 20 --size 9

Players are given as :mod:`mockgo.play.players` specs, because games run in
parallel worker processes (``multiprocessing``, spawn context, ``workers``
of them, default one per core) and each worker makes its own players from
the specs; GTP engines, policy networks and mockgo's own players all fit.
The first player, A (``black_spec``), has black in games 0, 2, 4...; the
colours alternate. Each game gets its own seed (from ``seed`` and the game
number), passed to players that take one (``seed_game``; GTP engines that
know ``set_random_seed``, such as GnuGo, get it too), so games differ from
one another. mockgo's own players replay a match exactly whatever the
number of workers; an engine may carry state from one game to the next
(GnuGo does, a little), so its games can depend on which games its worker
played before.

A game ends at two passes in a row, a resignation, or the move cap
(``max_moves``, default 3 * size * size, counting passes; the position is
then scored as it stands). A move the rules forbid (which mockgo's players
never make) loses the game by forfeit, written ``B+F``/``W+F``.

Scoring: area scoring with komi (Chinese rules), after taking off the
board the stones GnuGo calls dead: a GnuGo started for the purpose loads
the game's SGF (``loadsgf``) and answers ``final_status_list dead``
(``scorer="gnugo"``). Without GnuGo (``scorer="tromp-taylor"``, or
``"auto"`` when GnuGo is not installed) every stone counts as alive:
Tromp-Taylor scoring, which is exact when the game was played out to the
end (as random players do) and favours the side whose dead stones are left
on the board otherwise.

Every game is saved as SGF in ``out_dir`` (player names, result, and a
comment with the specs and how it was scored).

Statistics
----------
A draw counts half a win. The win rate p = wins / games of player A has a
95% confidence interval by the Wilson score interval (good at small counts
and at 0% or 100%, where the normal approximation collapses to a point)::

    (p + z^2 / 2n  +-  z sqrt(p (1 - p) / n + z^2 / 4n^2)) / (1 + z^2 / n)

The Elo difference A - B is the one that predicts p under the Elo model,
``D = 400 log10(p / (1 - p))``, and its interval maps the Wilson bounds
through the same function (it is monotonic). At 0% or 100% the point
estimate is -inf or +inf, and so is one end of the interval; the other end
is finite, and says how large the gap is at least.
"""

import argparse
import dataclasses
import datetime
import math
import multiprocessing
import multiprocessing.util
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from mockgo.go import coords
from mockgo.go.board import BLACK, EMPTY, WHITE, Board, IllegalMove
from mockgo.play.players import RESIGN, make_player, parse_spec

COLOR_LETTERS = {BLACK: "B", WHITE: "W"}

# ------------------------------------------------------------- statistics


def wilson_interval(successes, n, confidence=0.95):
    """The Wilson score interval for a proportion: ``(low, high)``.
    ``successes`` may be fractional (draws count half). With n = 0: (0, 1)."""
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= n:
        raise ValueError(f"{successes} successes out of {n}")
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / n
    z2n = z * z / n
    center = (p + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    # At 0 or n successes a bound is exactly 0 or 1; rounding would leave 1e-17.
    low = 0.0 if successes == 0 else max(0.0, center - half)
    high = 1.0 if successes == n else min(1.0, center + half)
    return low, high


def elo_from_rate(p):
    """The Elo difference at which the stronger side scores ``p``:
    ``400 log10(p / (1 - p))``; -inf at 0 and +inf at 1."""
    if not 0 <= p <= 1:
        raise ValueError(f"a win rate must be in [0, 1], got {p}")
    if p == 0:
        return -math.inf
    if p == 1:
        return math.inf
    return 400 * math.log10(p / (1 - p))


def rate_from_elo(difference):
    """The expected score of a side ``difference`` Elo stronger."""
    return 1 / (1 + 10 ** (-difference / 400))


def elo_interval(successes, n, confidence=0.95):
    """The Elo difference's interval: the Wilson bounds through :func:`elo_from_rate`."""
    low, high = wilson_interval(successes, n, confidence)
    return elo_from_rate(low), elo_from_rate(high)


def format_elo(value):
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.0f}"


# ----------------------------------------------------------------- results


@dataclasses.dataclass
class GameResult:
    """One game of a match. ``winner``: BLACK, WHITE or EMPTY (a draw);
    ``reason``: "score", "resign", "forfeit" or "move cap" (scored)."""

    index: int
    black: str  # player names
    white: str
    a_is_black: bool
    winner: int
    result: str  # as SGF writes it: "B+12.5", "W+R", "B+F", "0"
    reason: str
    moves: int
    dead: int = 0  # stones the scorer took off the board
    seconds: float = 0.0
    path: str | None = None  # the SGF file
    note: str | None = None  # what the forfeit was, say

    @property
    def a_score(self):
        """1 if player A won, 0 if lost, 0.5 for a draw."""
        if self.winner == EMPTY:
            return 0.5
        return float((self.winner == BLACK) == self.a_is_black)


@dataclasses.dataclass
class MatchResult:
    """The games of a match between A (``black_spec``, black in even games)
    and B, and the statistics (module docstring), from A's point of view."""

    spec_a: str
    spec_b: str
    size: int
    komi: float
    games: list
    seconds: float = 0.0
    out_dir: str | None = None
    scorer: str = "gnugo"
    confidence: float = 0.95

    @property
    def name_a(self):
        g = self.games[0] if self.games else None
        return (g.black if g.a_is_black else g.white) if g else self.spec_a

    @property
    def name_b(self):
        g = self.games[0] if self.games else None
        return (g.white if g.a_is_black else g.black) if g else self.spec_b

    @property
    def n(self):
        return len(self.games)

    @property
    def wins_a(self):
        return sum(g.a_score == 1 for g in self.games)

    @property
    def wins_b(self):
        return sum(g.a_score == 0 for g in self.games)

    @property
    def draws(self):
        return sum(g.a_score == 0.5 for g in self.games)

    @property
    def score_a(self):
        return sum(g.a_score for g in self.games)

    @property
    def win_rate(self):
        return self.score_a / self.n if self.n else math.nan

    def interval(self):
        return wilson_interval(self.score_a, self.n, self.confidence)

    def elo(self):
        return elo_from_rate(self.win_rate) if self.n else math.nan

    def elo_interval(self):
        return elo_interval(self.score_a, self.n, self.confidence)

    def by_color(self):
        """``{"black": (games, A wins, B wins, draws), "white": ...}`` by A's colour."""
        out = {}
        for label, as_black in (("black", True), ("white", False)):
            games = [g for g in self.games if g.a_is_black == as_black]
            out[label] = (len(games), sum(g.a_score == 1 for g in games),
                          sum(g.a_score == 0 for g in games), sum(g.a_score == 0.5 for g in games))
        return out

    def reasons(self):
        counts = {}
        for g in self.games:
            counts[g.reason] = counts.get(g.reason, 0) + 1
        return counts

    def table(self):
        """The small table ``match`` prints."""
        a, b = self.name_a, self.name_b
        lines = [f"A = {a} ({self.spec_a})", f"B = {b} ({self.spec_b})",
                 f"{self.n} games on {self.size}x{self.size}, komi {self.komi:g}, "
                 f"scored by {self.scorer}",
                 "",
                 f"{'':12}{'games':>7}{'A wins':>8}{'B wins':>8}{'draws':>7}"]
        rows = self.by_color()
        for label in ("black", "white"):
            games, wa, wb, d = rows[label]
            lines.append(f"{'A as ' + label:12}{games:>7}{wa:>8}{wb:>8}{d:>7}")
        lines.append(f"{'total':12}{self.n:>7}{self.wins_a:>8}{self.wins_b:>8}{self.draws:>7}")
        lines.append("")
        if self.n:
            low, high = self.interval()
            elo_low, elo_high = self.elo_interval()
            pct = round(100 * self.confidence)
            lines.append(f"A's win rate {100 * self.win_rate:.1f}%  "
                         f"({pct}% CI {100 * low:.1f}% to {100 * high:.1f}%, Wilson)")
            lines.append(f"Elo A - B    {format_elo(self.elo())}  "
                         f"({pct}% CI {format_elo(elo_low)} to {format_elo(elo_high)})")
        ends = ", ".join(f"{count} by {reason}" for reason, count in sorted(self.reasons().items()))
        moves = statistics.mean(g.moves for g in self.games) if self.games else 0
        lines.append(f"games ended: {ends or 'none'}; {moves:.0f} moves a game on average; "
                     f"{self.seconds:.1f} s")
        if self.out_dir:
            lines.append(f"SGF files in {self.out_dir}")
        return "\n".join(lines)

    def __str__(self):
        return self.table()


# -------------------------------------------------------------- scoring


class GnuGoScorer:
    """Dead stones by GnuGo: ``loadsgf`` the finished game, then
    ``final_status_list dead``. One GnuGo process, reused game after game."""

    name = "gnugo"

    def __init__(self, binary=None, level=10):
        from mockgo.play.gtp_client import GTPEngine, find_gnugo, gnugo_command

        binary = binary or find_gnugo()
        if binary is None:
            raise RuntimeError("GnuGo is not installed (apt-get install gnugo); "
                               "use scorer='tromp-taylor' to count every stone alive")
        self.engine = GTPEngine(gnugo_command(level=level, binary=binary), name="gnugo-scorer")

    def dead_stones(self, board, sgf_path):
        if re.search(r"\s", str(sgf_path)):  # GTP arguments cannot hold spaces
            with tempfile.TemporaryDirectory() as folder:
                copy = Path(folder) / "game.sgf"
                copy.write_bytes(Path(sgf_path).read_bytes())
                return self.dead_stones(board, copy)
        self.engine.send(f"loadsgf {sgf_path}")
        answer = self.engine.send("final_status_list dead")
        return sorted(coords.from_gtp(word, board.size) for word in answer.split())

    def close(self):
        self.engine.close()


class TrompTaylorScorer:
    """Every stone alive."""

    name = "tromp-taylor"

    def dead_stones(self, board, sgf_path):
        return []

    def close(self):
        pass


def make_scorer(kind="auto"):
    from mockgo.play.gtp_client import find_gnugo

    if kind == "auto":
        kind = "gnugo" if find_gnugo() else "tromp-taylor"
    if kind == "gnugo":
        return GnuGoScorer()
    if kind in ("tromp-taylor", "none", "area"):
        return TrompTaylorScorer()
    raise ValueError(f"unknown scorer {kind!r}: gnugo, tromp-taylor or auto")


# ----------------------------------------------------------------- a game


def game_seed(seed, index, slot):
    """The seed of player ``slot`` (0 for A, 1 for B) in game ``index``."""
    return int(np.random.SeedSequence([seed, index, slot]).generate_state(1)[0])


def _file_name(index, black, white):
    def clean(name):
        return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_")[:40] or "player"
    return f"game-{index:03d}-{clean(black)}-vs-{clean(white)}.sgf"


def play_game(black, white, size=9, komi=7.5, max_moves=None, scorer=None, sgf_path=None,
              index=0, a_is_black=True, comment=None):
    """Play one game between two Player objects; returns ``(GameResult, board)``.

    ``scorer``: an object with ``dead_stones(board, sgf_path)`` (default:
    every stone alive). ``sgf_path``: where to save the game (the scorer
    needs a file: without a path, a temporary one is used).
    """
    from mockgo.data.records import record_from_board, save_sgf

    started = time.perf_counter()
    scorer = scorer or TrompTaylorScorer()
    max_moves = 3 * size * size if max_moves is None else max_moves
    board = Board(size, komi=komi, superko=True)
    players = {BLACK: black, WHITE: white}
    distinct = [black] if black is white else [black, white]
    for player in distinct:
        player.reset(size, komi)
    reason = note = None
    while True:
        if board.passes >= 2:
            reason = "score"
            break
        if board.move_number >= max_moves:
            reason = "move cap"
            break
        color = board.to_play
        move = players[color].select_move(board)
        if move == RESIGN:
            board.resign(color)
            for player in distinct:
                player.observe(board, RESIGN)
            reason = "resign"
            break
        try:
            board.play(int(move))
        except (IllegalMove, ValueError) as error:
            reason = "forfeit"
            note = f"{players[color].name} played an illegal move: {error}"
            forfeit_winner = 3 - color
            break
        for player in distinct:
            player.observe(board, int(move))

    dead = []
    if reason == "forfeit":
        result = f"{COLOR_LETTERS[forfeit_winner]}+F"
    elif reason == "resign":
        result = board.result()
    else:
        result = None  # scored below
    info = comment or ""
    temporary = None
    if sgf_path is None:
        temporary = tempfile.NamedTemporaryFile(suffix=".sgf", delete=False)
        temporary.close()
        sgf_path = temporary.name
    try:
        if result is None:
            # The scorer reads the game from its SGF file.
            save_sgf(record_from_board(board, black=black.name, white=white.name, result="?"),
                     sgf_path)
            dead = scorer.dead_stones(board, sgf_path)
            result = board.result(dead=dead)
            info += (f"\nScored by area (komi {komi:g}) after removing {len(dead)} dead "
                     f"stones ({scorer.name})" + (f": {' '.join(coords.to_gtp(p, size) for p in dead)}"
                                                  if dead else "") + ".")
            if reason == "move cap":
                info += f"\nThe game was stopped at the move cap ({max_moves} moves)."
        if note:
            info += "\n" + note
        record = record_from_board(board, black=black.name, white=white.name, result=result)
        record.game_comment = info.strip() or None
        save_sgf(record, sgf_path)
    finally:
        if temporary is not None:
            Path(sgf_path).unlink(missing_ok=True)
            sgf_path = None
    winner = record.winner if record.winner is not None else EMPTY
    return GameResult(index=index, black=black.name, white=white.name, a_is_black=a_is_black,
                      winner=winner, result=result, reason=reason, moves=board.move_number,
                      dead=len(dead), seconds=time.perf_counter() - started, path=sgf_path,
                      note=note), board


# ------------------------------------------------------- worker processes


class _Session:
    """The players and scorer of one process, made from specs on first use."""

    def __init__(self, spec_a, spec_b, scorer):
        self.key = (spec_a, spec_b, scorer)
        self.scorer = make_scorer(scorer)
        self.players = []
        try:
            self.players.append(make_player(spec_a))
            self.players.append(make_player(spec_b))
        except BaseException:
            self.close()
            raise

    def play(self, task):
        index = task["index"]
        a, b = self.players
        a_is_black = index % 2 == 0
        for slot, player in enumerate((a, b)):
            seed_game = getattr(player, "seed_game", None)
            if seed_game is not None:
                seed_game(game_seed(task["seed"], index, slot))
        black, white = (a, b) if a_is_black else (b, a)
        path = None
        if task["out_dir"]:
            path = str(Path(task["out_dir"]) / _file_name(index, black.name, white.name))
        comment = (f"mockgo match, game {index + 1} of {task['games']}: "
                   f"black = {task['spec_a'] if a_is_black else task['spec_b']}, "
                   f"white = {task['spec_b'] if a_is_black else task['spec_a']}.")
        result, _ = play_game(black, white, task["size"], task["komi"], task["max_moves"],
                              self.scorer, path, index, a_is_black, comment)
        return result

    def close(self):
        for player in self.players:
            try:
                player.close()
            except Exception:
                pass
        self.players = []
        self.scorer.close()


_SESSION = None


def _close_session():
    global _SESSION
    if _SESSION is not None:
        _SESSION.close()
        _SESSION = None


def _worker_play(task):
    """Play one game in a worker process (players made on the first call
    and closed when the worker exits)."""
    global _SESSION
    key = (task["spec_a"], task["spec_b"], task["scorer"])
    if _SESSION is None or _SESSION.key != key:
        _close_session()
        _SESSION = _Session(*key)
        multiprocessing.util.Finalize(None, _close_session, exitpriority=10)
    return _SESSION.play(task)


def default_out_dir(spec_a, spec_b):
    def clean(spec):
        return re.sub(r"[^A-Za-z0-9._=-]+", "_", spec).strip("_")[:40]
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return str(Path("matches") / f"{stamp}-{clean(spec_a)}-vs-{clean(spec_b)}")


def match(black_spec, white_spec, games=10, size=9, komi=7.5, max_moves=None, workers=None,
          out_dir=None, scorer="auto", seed=0, verbose=True, confidence=0.95, file=None):
    """Play ``games`` games between two players given as specs; returns a
    :class:`MatchResult` (and prints its table if ``verbose``).

    ``black_spec`` (player A) has black in the even games, ``white_spec``
    (player B) in the odd ones. ``workers``: processes (default: one per
    core, at most one per game; 1 plays in this process). ``out_dir``: where
    the SGF files go (default ``matches/<time>-<A>-vs-<B>``; False: not
    saved). ``scorer``: "gnugo", "tromp-taylor" or "auto" (GnuGo if
    installed). ``seed``: the match's seed, from which every game's seeds
    come. ``file``: where the table and progress go (default stdout).
    """
    from mockgo.play.gtp_client import find_gnugo

    out = file or sys.stdout
    for spec in (black_spec, white_spec):
        parse_spec(spec)  # a typo fails here, not in every worker
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    if scorer == "auto":
        scorer = "gnugo" if find_gnugo() else "tromp-taylor"
    if out_dir is None:
        out_dir = default_out_dir(black_spec, white_spec)
    if out_dir:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        out_dir = str(out_dir)
    workers = workers or os.cpu_count() or 1
    workers = max(1, min(workers, games))
    tasks = [dict(index=i, spec_a=black_spec, spec_b=white_spec, scorer=scorer, seed=seed,
                  size=size, komi=komi, max_moves=max_moves, out_dir=out_dir, games=games)
             for i in range(games)]
    started = time.perf_counter()
    results = []

    def report(result):
        results.append(result)
        if verbose:
            print(f"game {result.index + 1:3d}/{games}: {result.black} (B) vs {result.white} (W): "
                  f"{result.result:>8}  {result.moves:3d} moves  {result.seconds:5.1f} s",
                  file=out, flush=True)

    if workers == 1:
        try:
            for task in tasks:
                report(_worker_play(task))
        finally:
            _close_session()
    else:
        context = multiprocessing.get_context("spawn")
        with context.Pool(workers) as pool:
            for result in pool.imap_unordered(_worker_play, tasks):
                report(result)
            pool.close()
            pool.join()
    results.sort(key=lambda g: g.index)
    result = MatchResult(black_spec, white_spec, size, komi, results,
                         seconds=time.perf_counter() - started, out_dir=out_dir or None,
                         scorer=scorer, confidence=confidence)
    if verbose:
        print("", file=out)
        print(result.table(), file=out, flush=True)
    return result


# ------------------------------------------------------------ command line


def configure_parser(parser):
    """The options of ``mockgo match``."""
    from mockgo.play.players import spec_help

    parser.description = ("Play games between two players, alternating colours, and report "
                          "the win rate and Elo difference with 95% intervals.")
    parser.epilog = "player specs (KIND or KIND:key=value,...):\n" + spec_help()
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--black", required=True, help="player A's spec (black in game 1)")
    parser.add_argument("--white", required=True, help="player B's spec (white in game 1)")
    parser.add_argument("--games", type=int, default=10, help="number of games (default 10)")
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument("--komi", type=float, default=7.5, help="komi (default 7.5)")
    parser.add_argument("--max-moves", type=int, help="move cap (default 3 * size * size)")
    parser.add_argument("--workers", type=int, help="processes (default: one per core)")
    parser.add_argument("--out", help="folder for the SGF files "
                        "(default matches/<time>-<A>-vs-<B>)")
    parser.add_argument("--scorer", default="auto", choices=["auto", "gnugo", "tromp-taylor"],
                        help="dead stones by GnuGo, or every stone alive (default: GnuGo "
                             "if installed)")
    parser.add_argument("--seed", type=int, default=0, help="the match's seed (default 0)")
    parser.add_argument("--quiet", action="store_true", help="print only the table")
    return parser


def run_cli(args):
    result = match(args.black, args.white, games=args.games, size=args.size, komi=args.komi,
                   max_moves=args.max_moves, workers=args.workers, out_dir=args.out,
                   scorer=args.scorer, seed=args.seed, verbose=not args.quiet)
    if args.quiet:
        print(result.table())
    return 0
