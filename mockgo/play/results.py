"""A match's result and the statistics to read it: the games of a match
between A and B (:class:`MatchResult`, what :func:`mockgo.play.match.match`
returns), A's win rate with its confidence interval, and the Elo difference
it implies.

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

import dataclasses
import math
import statistics

from mockgo.go.board import BLACK, EMPTY, WHITE


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
    """An Elo difference as text with its sign: ``+35``, ``-120``, ``+inf``."""
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.0f}"


# ------------------------------------------------------------- the result


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
    seed: int | list = 0  # the match's seed (each game's comes from it and its number)
    max_moves: int | None = None  # the move cap asked for (None: the default)

    @staticmethod
    def a_is_black(game):
        return game.index % 2 == 0

    @staticmethod
    def names_of(game):
        """``(name of A, name of B)`` from any one game of the match (its
        ``names`` are black's and white's)."""
        return game.names if MatchResult.a_is_black(game) else game.names[::-1]

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

    def command(self):
        """The ``mockgo match`` command that plays this match: run from
        where ``out_dir`` is named, it resumes from the games in that folder
        (all of them finished: it plays nothing and prints the table).
        None for a match that a program played with players no spec makes
        (a Zero run's own matches, between networks it held in memory, some
        seeded with several numbers): no command line plays that one again."""
        # specs imports every kind of player (networks, engines); a result
        # needs it only here.
        from mockgo.play.specs import PLAYER_KINDS, parse_spec

        kinds = [parse_spec(spec)[0] for spec in (self.spec_a, self.spec_b)]
        if not isinstance(self.seed, int) or any(kind not in PLAYER_KINDS for kind in kinds):
            return None
        parts = ["mockgo match", f"--black {self.spec_a}", f"--white {self.spec_b}",
                 f"--games {self.n}", f"--size {self.size}", f"--komi {self.komi:g}"]
        if self.max_moves is not None:
            parts.append(f"--max-moves {self.max_moves}")
        parts += [f"--scorer {self.scorer}", f"--seed {self.seed}"]
        if self.out_dir:
            parts.append(f"--out {self.out_dir}")
        return " ".join(parts)

    def __str__(self):
        return self.table()
