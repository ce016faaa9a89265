"""Matches: N games between two players, with the statistics to read them.
The one match engine: ``mockgo match``, the ladder, the notebooks,
REINFORCE's evaluation and AlphaGo Zero's 55% gate all play through it.

::

    from mockgo.arena.matches import match
    result = match("random", "gnugo:level=1", games=20, size=9, verbose=True)  # prints a table
    result.win_rate, result.interval(), result.elo(), result.elo_interval()

    mockgo match --black random --white gnugo:level=1 --games 20 --size 9

Players are :mod:`mockgo.play.players` objects or specs. The first player,
A, has black in games 0, 2, 4...; the colours alternate. In one process the
games are played in lockstep by :func:`mockgo.play.runner.play_games` (one
network call per step for all the games a network is to move in); with
``workers`` > 1, players given as specs (or :class:`mockgo.cluster.Recipe`)
are made in each worker process (``multiprocessing``, spawn context) and the
processes play games side by side, which is how GnuGo games use every core;
with ``cluster="ray"`` (``mockgo match --cluster ray``) the workers are Ray
actors on the machines of a cluster, each with its own players (its own
GnuGo process). Workers send their games back; this process saves them.
Each game gets its own seed
(from ``seed`` and the game number) and each player a generator from it
(GTP engines that know ``set_random_seed``, such as GnuGo, get a seed too),
so games differ from one another and mockgo's own players replay a match
exactly whatever the number of workers; an engine may carry state from one
game to the next (GnuGo does, a little), so its games can depend on which
games its worker played before.

A game ends at two passes in a row, a resignation, or the move cap
(``max_moves``, default 2 * size * size, counting passes; the position is
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

With ``out_dir``, every game is saved there as SGF (player names, result,
and a comment with the specs and how it was scored); ``mockgo match`` saves
them in ``matches/<time>-<A>-vs-<B>`` unless told otherwise.

Resuming: a match with ``out_dir`` is a resumable job, since one against
GnuGo at level 10 can take hours. The folder keeps ``match.json`` (the
settings) and ``games.jsonl``, one line per finished game (number, how it
ended, the dead stones, its SGF file, the seconds each move took its
player), appended as each game ends. Run the
same match into the same folder again and the finished games are read back
(their SGF files replayed), and only the others are played; ``games`` may
be raised to extend a match. Other settings are refused, naming the folder
and each difference; a ``games.jsonl`` line whose SGF file is gone or
unreadable is an error naming it, not a game silently played again.

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
import json
import math
import os
import re
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from mockgo.cluster import add_cluster_options, executor_from_args
from mockgo.data.files import atomic_write_text, check_same_settings, check_schema, read_json
from mockgo.data.records import SGFError, final_board, load_sgf, save_sgf
from mockgo.go import coords
from mockgo.go.board import BLACK, EMPTY, WHITE
from mockgo.gtp.client import GTPEngine, find_gnugo, gnugo_command
from mockgo.play.players import Player, make_player, parse_spec, spec_help
from mockgo.play.runner import PlayedGame, game_seed, play_games

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
class MatchResult:
    """The games of a match between A and B (A black in the even-numbered
    games), as :class:`~mockgo.play.runner.PlayedGame` in game order, and the
    statistics (module docstring), from A's point of view."""

    name_a: str
    name_b: str
    spec_a: str
    spec_b: str
    size: int
    komi: float
    games: list
    seconds: float = 0.0
    out_dir: str | None = None
    scorer: str = "tromp-taylor"
    confidence: float = 0.95

    @staticmethod
    def a_is_black(game):
        return game.index % 2 == 0

    def a_score(self, game):
        """1 if A won ``game``, 0 if it lost, 0.5 for a draw."""
        if game.winner == EMPTY:
            return 0.5
        return float((game.winner == BLACK) == self.a_is_black(game))

    @property
    def n(self):
        return len(self.games)

    @property
    def wins_a(self):
        return sum(self.a_score(g) == 1 for g in self.games)

    @property
    def wins_b(self):
        return sum(self.a_score(g) == 0 for g in self.games)

    @property
    def draws(self):
        return sum(self.a_score(g) == 0.5 for g in self.games)

    @property
    def score_a(self):
        """A's wins, a draw counting half."""
        return sum(self.a_score(g) for g in self.games)

    @property
    def wins(self):
        return self.score_a

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
            scores = [self.a_score(g) for g in self.games if self.a_is_black(g) == as_black]
            out[label] = (len(scores), scores.count(1.0), scores.count(0.0), scores.count(0.5))
        return out

    def seconds_per_move(self):
        """``(A's, B's)`` mean seconds to choose a move, over the games that
        have timings (None for a side with none: games read back from a
        folder written before matches timed the moves)."""
        totals = {True: [0.0, 0], False: [0.0, 0]}
        for game in self.games:
            if getattr(game, "think_seconds", None) is None:
                continue
            for color in (BLACK, WHITE):
                timed = game.thinking(color)
                if timed is not None:
                    is_a = (color == BLACK) == self.a_is_black(game)
                    totals[is_a][0] += timed[0]
                    totals[is_a][1] += timed[1]
        return tuple(seconds / moves if moves else None
                     for seconds, moves in (totals[True], totals[False]))

    def timed_games(self):
        return sum(getattr(game, "think_seconds", None) is not None for game in self.games)

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
        moves = statistics.mean(g.board.move_number for g in self.games) if self.games else 0
        lines.append(f"games ended: {ends or 'none'}; {moves:.0f} moves a game on average; "
                     f"{self.seconds:.1f} s")
        per_move = self.seconds_per_move()
        if None not in per_move:
            timed = self.timed_games()
            lines.append(f"seconds a move: A {per_move[0]:.2f}, B {per_move[1]:.2f}"
                         + ("" if timed == self.n else f" (the {timed} timed games)"))
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
    needs_file = True  # it reads the game from an SGF file

    def __init__(self, binary=None, level=10):
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
    needs_file = False

    def dead_stones(self, board, sgf_path):
        return []

    def close(self):
        pass


def make_scorer(kind="auto"):
    if kind == "auto":
        kind = "gnugo" if find_gnugo() else "tromp-taylor"
    if kind == "gnugo":
        return GnuGoScorer()
    if kind in ("tromp-taylor", "none", "area"):
        return TrompTaylorScorer()
    raise ValueError(f"unknown scorer {kind!r}: gnugo, tromp-taylor or auto")


# ------------------------------------------------------ scoring and saving


def _file_name(index, black, white):
    def clean(name):
        return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_")[:40] or "player"
    return f"game-{index:03d}-{clean(black)}-vs-{clean(white)}.sgf"


def score_and_save(game, scorer=None, sgf_path=None, comment=None):
    """Finish a played game as a match does: unless it ended by resignation
    or forfeit, ``scorer`` (``dead_stones(board, sgf_path)``; default every
    stone alive) marks the dead stones (``game.dead``); with ``sgf_path``
    the game is saved there, with a comment saying how it was scored. GnuGo
    reads the game from a file: without a path a temporary one is used."""

    scoring = score_game(game, scorer or TrompTaylorScorer())
    return save_game(game, sgf_path, (comment or "") + scoring)


def score_game(game, scorer):
    """Mark ``game``'s dead stones by ``scorer`` (games that ended by two
    passes or the move cap); returns the sentences saying how it was
    scored, for the SGF comment."""
    info = ""
    if game.reason in ("score", "move cap"):
        if scorer.needs_file:
            with tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / "game.sgf"
                save_sgf(game.record(result="?"), path)
                game.dead = list(scorer.dead_stones(game.board, path))
        info += (f"\nScored by area (komi {game.board.komi:g}) after removing {len(game.dead)} "
                 f"dead stones ({scorer.name})"
                 + (f": {' '.join(coords.to_gtp(p, game.size) for p in game.dead)}"
                    if game.dead else "") + ".")
        if game.reason == "move cap":
            info += f"\nThe game was stopped at the move cap ({game.board.move_number} moves)."
    return info


def save_game(game, sgf_path, comment):
    """Save a scored game as SGF at ``sgf_path`` (None: nowhere), with
    ``comment`` and the game's note as its root comment."""
    info = comment
    if game.note:
        info += "\n" + game.note
    if sgf_path is not None:
        record = game.record()
        record.game_comment = info.strip() or None
        save_sgf(record, sgf_path)
        game.path = str(sgf_path)
    return game


def _match_comment(index, specs, games):
    a_is_black = index % 2 == 0
    return (f"mockgo match, game {index + 1} of {games}: "
            f"black = {specs[0] if a_is_black else specs[1]}, "
            f"white = {specs[1] if a_is_black else specs[0]}.")


def _sgf_path(game, out_dir):
    black, white = game.names
    return None if not out_dir else str(Path(out_dir) / _file_name(game.index, black, white))


def _finish(game, scorer, out_dir, specs, games):
    return score_and_save(game, scorer, _sgf_path(game, out_dir),
                          _match_comment(game.index, specs, games))


# ------------------------------------------------------------------ workers


def _make_side(side):
    """A player in a worker: from a spec, or from a
    :class:`~mockgo.cluster.Recipe` (a player of networks held in memory)."""
    return make_player(side) if isinstance(side, str) else side.make()


class _Session:
    """A match's worker (:mod:`mockgo.cluster`): the two players and the
    scorer, made there once. A task is some of the match's games, played
    there in lockstep and scored; the games go back to the driver, which
    saves them and writes ``games.jsonl``."""

    def __init__(self, side_a, side_b, scorer):
        self.scorer = make_scorer(scorer)
        self.players = []
        try:
            self.players.append(_make_side(side_a))
            self.players.append(_make_side(side_b))
        except BaseException:
            self.close()
            raise

    def __call__(self, task):
        indices = task["indices"]
        a, b = self.players
        played = play_games([a if i % 2 == 0 else b for i in indices],
                            [b if i % 2 == 0 else a for i in indices], len(indices), task["size"],
                            komi=task["komi"], seeds=[game_seed(task["seed"], i) for i in indices],
                            max_moves=task["max_moves"])
        finished = []
        for game in played:
            game.index = indices[game.index]  # the runner numbers the games it plays
            scoring = score_game(game, self.scorer)
            game.players = None  # engines and networks stay in the worker
            finished.append((game, scoring))
        return finished

    def close(self):
        for player in self.players:
            try:
                player.close()
            except Exception:
                pass
        self.players = []
        self.scorer.close()


# ----------------------------------------------------------- resuming


MATCH_SETTINGS = "match.json"
FINISHED_GAMES = "games.jsonl"
# The shape of a games.jsonl line (_log_finished writes it; check_schema), so
# that a damaged line is named, not a KeyError while the match resumes.
# "think" came later (its length is checked against the game's moves).
ENTRY_SCHEMA = {"index": int, "names": [str], "reason": (str, None), "resigned?": (int, None),
                "dead": [int], "seconds": float, "sgf": str}


def _match_settings(specs, size, komi, max_moves, seed, scorer):
    return dict(spec_a=specs[0], spec_b=specs[1], size=size, komi=float(komi),
                max_moves=max_moves, seed=seed, scorer=scorer)


def _open_folder(out_dir, settings):
    """Check (or write) ``match.json``; the finished games of an earlier run
    of this match, read back from ``games.jsonl`` and their SGF files."""
    folder = Path(out_dir)
    path = folder / MATCH_SETTINGS
    if path.exists():
        stored = read_json(path, "the match's settings", schema=dict)
        check_same_settings(folder, "a match", stored, settings)
    else:
        atomic_write_text(path, json.dumps(settings, indent=1))
    finished = {}
    log = folder / FINISHED_GAMES
    if not log.exists():
        return finished
    lines = log.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines):  # a line cut short by a crash: that game is played again
                warnings.warn(f"{log}: line {number} is incomplete (the match stopped while "
                              f"writing it); that game is played again")
                atomic_write_text(log, "".join(f"{kept}\n" for kept in lines[:-1]))
                break
            raise ValueError(f"{log}: line {number} is not JSON: {line[:80]!r}") from None
        problem = check_schema(entry, ENTRY_SCHEMA, what="the entry")
        if problem:
            raise ValueError(f"{log}: line {number} is not a finished game's entry: {problem}; "
                             f"delete the line to play that game again")
        finished[entry["index"]] = _read_back(folder, entry, log, number)
    return finished


def _read_back(folder, entry, log, number):
    """A finished game from its ``games.jsonl`` entry and its SGF file."""
    path = folder / entry["sgf"]
    try:
        record = load_sgf(path)
    except (OSError, SGFError) as error:
        raise ValueError(f"{log}: line {number} names game {entry['index'] + 1}'s file "
                         f"{path}, which cannot be read ({error}); delete the line to play "
                         f"that game again") from None
    board = final_board(record)
    if entry["reason"] == "resign":
        board.resign(entry["resigned"])
    moves = np.array([move for _, move in board.history], np.int64)
    empty = np.zeros(0)
    return PlayedGame(board, None, tuple(entry["names"]), moves,
                      np.array([color for color, _ in board.history], np.int8), empty, empty,
                      empty, empty, empty, reason=entry["reason"], note=entry.get("note"),
                      forfeited_by=entry.get("forfeited_by"), index=entry["index"],
                      seconds=entry["seconds"], think_seconds=_think_back(entry, moves, log, number),
                      dead=entry["dead"], path=str(path))


def _think_back(entry, moves, log, number):
    """The per-move thinking times of a ``games.jsonl`` entry (None for
    entries written before matches recorded them)."""
    think = entry.get("think")
    if think is None:
        return None
    if len(think) != len(moves):
        raise ValueError(f"{log}: line {number} has {len(think)} move times for the "
                         f"{len(moves)} moves of its SGF file; delete the line to play that "
                         f"game again")
    return np.array(think, np.float64)


def _log_finished(out_dir, game):
    """Append the game's line to ``games.jsonl`` (flushed to disk: the
    commit point of a finished game, after its SGF file was written)."""
    entry = dict(index=game.index, names=list(game.names), reason=game.reason,
                 resigned=game.board.resigned, forfeited_by=game.forfeited_by, note=game.note,
                 dead=[int(p) for p in game.dead], seconds=round(game.seconds, 3),
                 sgf=Path(game.path).name, result=game.result)
    if game.think_seconds is not None:
        entry["think"] = [round(float(s), 3) for s in game.think_seconds]
    with open(Path(out_dir) / FINISHED_GAMES, "a", encoding="utf-8") as file:
        file.write(json.dumps(entry) + "\n")
        file.flush()
        os.fsync(file.fileno())


def default_out_dir(spec_a, spec_b):
    def clean(spec):
        return re.sub(r"[^A-Za-z0-9._=-]+", "_", spec).strip("_")[:40]
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return str(Path("matches") / f"{stamp}-{clean(spec_a)}-vs-{clean(spec_b)}")


def _spec(player):
    if isinstance(player, str):
        return player
    return getattr(player, "name", None) or repr(player)


def match(a, b, games=10, size=9, komi=7.5, max_moves=None, workers=1, concurrent=None,
          out_dir=None, scorer=None, seed=0, verbose=False, progress=False, confidence=0.95,
          file=None, stats=None, cluster=None, games_per_task=1):
    """Play ``games`` games between players ``a`` and ``b``; returns a
    :class:`MatchResult` (and prints its table if ``verbose``).

    A player is a spec (:func:`mockgo.play.players.make_player`), a Player
    object, or a :class:`mockgo.cluster.Recipe` that makes one in a worker
    (a network held in memory travels so). ``a`` has black in the
    even-numbered games, ``b`` in the odd ones. Every game gets its seed
    from ``seed`` and its number, so a match replays exactly, however it is
    played:

    - ``workers=1`` (the default): in this process, the games in lockstep
      (``concurrent`` at a time, default all; one at a time with a GTP
      engine), one network call per step for each network player;
    - ``workers=N`` (specs or recipes; None: one per core): N worker
      processes (``multiprocessing``, spawn context) that each make their
      own players: engines such as GnuGo in parallel;
    - ``cluster="ray"`` (or any :class:`mockgo.cluster.Executor`): on a Ray
      cluster's workers (``workers`` of them; None: as many as its CPUs
      allow), each with its own players (its own GnuGo process).

    With workers, each task is ``games_per_task`` games, played in lockstep
    by one worker and sent back to this process, which scores nothing but
    saves every game and its ``games.jsonl`` line (so ``out_dir`` is on this
    machine). ``max_moves``: the move cap (default ``2 * size * size``).
    ``out_dir``: save every game there as SGF (default: not saved), and
    resume from the games already finished there (module docstring).
    ``scorer``: ``"gnugo"`` (dead stones by GnuGo), ``"tromp-taylor"`` or
    None (every stone alive), or ``"auto"`` (GnuGo if installed). ``file``:
    where the table and the games' lines go (default stdout); ``progress``:
    a bar of finished games; ``stats``: the runner's counters (in-process
    only).
    """

    out = file or sys.stdout
    specs = (_spec(a), _spec(b))
    for player in (a, b):
        if isinstance(player, str):
            parse_spec(player)  # a typo fails here, not in every worker
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    if games_per_task < 1:
        raise ValueError(f"games_per_task must be >= 1, got {games_per_task}")
    scorer = scorer or "tromp-taylor"
    if scorer == "auto":
        scorer = "gnugo" if find_gnugo() else "tromp-taylor"
    finished = {}
    if out_dir:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        out_dir = str(out_dir)
        finished = _open_folder(out_dir, _match_settings(specs, size, komi, max_moves, seed,
                                                         scorer))
        if any(index >= games for index in finished):
            raise ValueError(f"{out_dir} holds {max(finished) + 1} games of this match, more "
                             f"than the {games} asked for: ask for at least as many")
    todo = [i for i in range(games) if i not in finished]
    if cluster is None:
        workers = workers or os.cpu_count() or 1
        workers = max(1, min(workers, len(todo)))
    elif workers is not None:
        workers = max(1, min(workers, len(todo)))
    if (workers != 1 or cluster is not None) and any(isinstance(p, Player) for p in (a, b)):
        raise ValueError("worker processes and clusters need both players as specs or "
                         "mockgo.cluster.Recipe (each worker makes its own)")
    started = time.perf_counter()
    results = list(finished.values())
    if finished and verbose:
        print(f"{len(finished)} of {games} games already played in {out_dir}: read back",
              file=out, flush=True)

    def report(game):
        if out_dir:
            _log_finished(out_dir, game)
        results.append(game)
        if verbose:
            black, white = game.names
            print(f"game {game.index + 1:3d}/{games}: {black} (B) vs {white} (W): "
                  f"{game.result:>8}  {game.board.move_number:3d} moves  {game.seconds:5.1f} s",
                  file=out, flush=True)

    if todo and workers == 1 and cluster is None:
        made = [None if isinstance(p, Player) else _make_side(p) for p in (a, b)]
        player_a, player_b = (m or p for m, p in zip(made, (a, b)))
        scoring = make_scorer(scorer)
        try:
            blacks = [player_a if i % 2 == 0 else player_b for i in todo]
            whites = [player_b if i % 2 == 0 else player_a for i in todo]

            def on_game(game):
                game.index = todo[game.index]  # the runner numbers the games it plays
                report(_finish(game, scoring, out_dir, specs, games))

            play_games(blacks, whites, len(todo), size, komi=komi,
                       seeds=[game_seed(seed, i) for i in todo], max_moves=max_moves,
                       concurrent=concurrent, progress=progress, stats=stats, on_game=on_game)
        finally:
            scoring.close()
            for player in made:
                if player is not None:
                    player.close()
    elif todo:
        _play_on_workers(a, b, todo, cluster, workers, games_per_task, scorer, specs, out_dir,
                         report, dict(size=size, komi=komi, max_moves=max_moves, seed=seed,
                                      games=games), progress)
    results.sort(key=lambda g: g.index)
    first = results[0]
    names = first.names if first.index % 2 == 0 else first.names[::-1]
    result = MatchResult(names[0], names[1], specs[0], specs[1], size, komi, results,
                         seconds=time.perf_counter() - started, out_dir=out_dir or None,
                         scorer=scorer, confidence=confidence)
    if verbose:
        print("", file=out)
        print(result.table(), file=out, flush=True)
    return result


def _play_on_workers(a, b, todo, cluster, workers, games_per_task, scorer, specs, out_dir,
                     report, settings, progress):
    """The games ``todo`` as tasks of ``games_per_task`` on an executor
    (:mod:`mockgo.cluster`); each game saved here as its task comes back."""
    from mockgo.cluster import Executor, Recipe, make_executor

    executor = make_executor(cluster, workers=workers)
    try:
        recipe = Recipe(_Session, (a, b, scorer))
        tasks = {tuple(todo[k:k + games_per_task]): dict(settings,
                                                         indices=todo[k:k + games_per_task])
                 for k in range(0, len(todo), games_per_task)}
        bar = None
        if progress:
            from tqdm.auto import tqdm
            bar = tqdm(total=len(todo), desc=progress if isinstance(progress, str) else "games",
                       leave=False)
        for _, played in executor.map(recipe, tasks):
            for game, scoring in played:
                report(save_game(game, _sgf_path(game, out_dir),
                                 _match_comment(game.index, specs, settings["games"]) + scoring))
                if bar is not None:
                    bar.update(1)
        if bar is not None:
            bar.close()
    finally:
        if not isinstance(cluster, Executor):  # made here
            executor.close()


def _remove_unplayed(folder):
    """Remove ``folder`` if it holds nothing but what a match writes before
    its first game (``match.json``): a match that never played. A folder
    with a finished game is kept, to resume."""
    if not folder.is_dir() or any(p.name != MATCH_SETTINGS for p in folder.iterdir()):
        return
    (folder / MATCH_SETTINGS).unlink(missing_ok=True)
    folder.rmdir()


# ------------------------------------------------------------ command line


def configure_parser(parser):
    """The options of ``mockgo match``."""

    parser.description = ("Play games between two players, alternating colours, and report "
                          "the win rate and Elo difference with 95% intervals.")
    parser.epilog = "player specs (KIND or KIND:key=value,...):\n" + spec_help()
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--black", required=True, help="player A's spec (black in game 1)")
    parser.add_argument("--white", required=True, help="player B's spec (white in game 1)")
    parser.add_argument("--games", type=int, default=10, help="number of games (default 10)")
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument("--komi", type=float, default=7.5, help="komi (default 7.5)")
    parser.add_argument("--max-moves", type=int, help="move cap (default 2 * size * size)")
    parser.add_argument("--workers", type=int,
                        help="processes (default: one per core); with --cluster ray, Ray "
                             "workers (default: as many as the cluster's CPUs allow)")
    parser.add_argument("--games-per-task", type=int, default=1,
                        help="with workers: games a worker plays in lockstep per task "
                             "(default 1; more for network players, one call per step)")
    parser.add_argument("--out", help="folder for the SGF files "
                        "(default matches/<time>-<A>-vs-<B>)")
    parser.add_argument("--scorer", default="auto", choices=["auto", "gnugo", "tromp-taylor"],
                        help="dead stones by GnuGo, or every stone alive (default: GnuGo "
                             "if installed)")
    parser.add_argument("--seed", type=int, default=0, help="the match's seed (default 0)")
    parser.add_argument("--quiet", action="store_true", help="print only the table")
    add_cluster_options(parser)
    return parser


def run_cli(args):
    out_dir = args.out or default_out_dir(args.black, args.white)
    new_folder = not Path(out_dir).exists()
    executor = None
    try:
        executor = executor_from_args(args, workers=args.workers)
        result = match(args.black, args.white, games=args.games, size=args.size, komi=args.komi,
                       max_moves=args.max_moves, workers=args.workers, out_dir=out_dir,
                       scorer=args.scorer, seed=args.seed, verbose=not args.quiet,
                       cluster=executor, games_per_task=args.games_per_task)
    except BaseException:
        # A match that failed before its first game (a player that cannot
        # start, a bad size or komi) must not leave a timestamped folder
        # behind each time it is tried.
        if new_folder:
            _remove_unplayed(Path(out_dir))
        raise
    finally:
        if executor is not None:
            executor.close()
    if args.quiet:
        print(result.table())
    return 0
