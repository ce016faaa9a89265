"""What a search buys at each budget: one network played at several readout
counts (and alone, with no search) against the same fixed opponents, read
back from the matches' folders and put on one Elo scale.

::

    sweep = read_sweep(sorted(Path("docs/matches/sweep-zero9").iterdir()),
                       recorded=ladder_folders)     # notebook 05's 9x9 ladder
    sweep.table()                                   # a row per budget
    plot_sweep(sweep)                               # win rates and Elo

Each budget is a player spec: ``policy:...`` (the network alone: 0
readouts) or a search with ``readouts=N``. Its games against every opponent
count together in one Elo fit (:func:`mockgo.arena.ladder.fit_ratings`, the
random player at 0) with the ladder's recorded games, which place the
opponents on notebook 05's scale; its seconds a move are the matches' own
timings.
"""

import dataclasses
import math
import re
from pathlib import Path

import numpy as np

from mockgo.arena.ladder import fit_ratings
from mockgo.play.match_folder import MATCH_SETTINGS, read_match
from mockgo.play.results import wilson_interval

__all__ = ["ROUT", "Budget", "Sweep", "plot_sweep", "read_sweep", "readouts_of"]


#: A loss by this many points or more on 9x9 is a whole group lost, not a
#: close game (the board has 81 points).
ROUT = 40


def _lost_heavily(result, a_won):
    """Whether A lost the game of SGF ``result`` by :data:`ROUT` points or
    more, or by resignation or forfeit."""
    if a_won:
        return False
    margin = result.partition("+")[2]
    return margin in ("R", "Resign", "F", "Forfeit") or (
        margin.replace(".", "", 1).isdigit() and float(margin) >= ROUT)


def readouts_of(spec):
    """A spec's readouts a move: its ``readouts=`` (a search's default of 200
    when it gives none: ``mcts:``'s), 0 for a ``policy:`` player."""
    if spec.startswith("policy:"):
        return 0
    found = re.search(r"(?:^|[:,])readouts=(\d+)", spec)
    return int(found.group(1)) if found else 200


@dataclasses.dataclass
class Budget:
    """One budget of the sweep: its spec and readouts, the games against each
    opponent (``{opponent spec: (wins, games)}``), its mean seconds a move,
    its rating with the 95% interval, and the games it lost heavily
    against each opponent (``routs``: by :data:`ROUT` points or more, or by
    resignation): a whole group lost, not a close game."""

    spec: str
    readouts: int
    record: dict
    seconds: float
    routs: dict = dataclasses.field(default_factory=dict)  # opponent: games lost by ROUT+
    elo: float = math.nan
    low: float = math.nan
    high: float = math.nan

    def win_rate(self, opponent):
        """``(rate, low, high)`` against ``opponent``, with the Wilson interval."""
        wins, games = self.record[opponent]
        return (wins / games, *wilson_interval(wins, games))


@dataclasses.dataclass
class Sweep:
    """A network's budgets against fixed opponents, read back from their match folders."""

    budgets: list  # Budget, fewest readouts first
    opponents: list  # opponent specs, in the order first met

    def table(self):
        """A row per budget: readouts, seconds a move, the games won against
        each opponent with the interval and the games lost heavily, and the
        Elo with its interval."""
        header = ["readouts", "s a move", *self.opponents, "Elo (95%)"]
        rows = []
        for b in self.budgets:
            cells = ["none" if b.readouts == 0 else f"{b.readouts:,}", f"{b.seconds:.2f}"]
            for opponent in self.opponents:
                if opponent not in b.record:
                    cells.append("-")
                    continue
                wins, games = b.record[opponent]
                rate, low, high = b.win_rate(opponent)
                cells.append(f"{wins:g} of {games} ({low:.0%}-{high:.0%}), "
                             f"{b.routs[opponent]} lost by {ROUT}+")
            cells.append(f"{b.elo:+.0f} ({b.low:+.0f} to {b.high:+.0f})")
            rows.append(cells)
        widths = [max(len(str(r[k])) for r in [header, *rows]) for k in range(len(header))]
        return "\n".join("  ".join(str(c).rjust(w) for c, w in zip(row, widths))
                         for row in [header, *rows])


def read_sweep(folders, recorded=(), anchor="random"):
    """The :class:`Sweep` of the matches in ``folders`` (each a match folder:
    a budget's spec as player A against a fixed opponent), rated in one fit
    with the ``recorded`` match folders (the ladder that places the
    opponents), ``anchor`` at 0 Elo."""
    matches = [read_match(f) for f in folders if (Path(f) / MATCH_SETTINGS).is_file()]
    if not matches:
        raise ValueError("no match folders to read a sweep from")
    budgets, opponents = {}, []
    for m in matches:
        budget = budgets.setdefault(m.spec_a, Budget(m.spec_a, readouts_of(m.spec_a), {}, 0.0))
        wins, games = budget.record.get(m.spec_b, (0, 0))
        budget.record[m.spec_b] = (wins + m.score_a, games + m.n)
        budget.routs[m.spec_b] = budget.routs.get(m.spec_b, 0) + sum(
            _lost_heavily(g.result, m.a_score(g) == 1) for g in m.games)
        if m.spec_b not in opponents:
            opponents.append(m.spec_b)
    seconds = {}
    for m in matches:
        mine = m.seconds_per_move()[0]
        if mine is not None:
            seconds.setdefault(m.spec_a, []).append((mine, m.n))
    results = [(m.spec_a, m.spec_b, m.score_a, m.n) for m in matches]
    results += [(m.spec_a, m.spec_b, m.score_a, m.n) for m in (read_match(f) for f in recorded)]
    ratings = fit_ratings(results, anchor)
    for spec, budget in budgets.items():
        timed = seconds.get(spec, [])
        budget.seconds = (sum(s * n for s, n in timed) / sum(n for _, n in timed)
                          if timed else math.nan)
        rating = ratings[spec]
        budget.elo, budget.low, budget.high = rating.elo, rating.low, rating.high
    return Sweep(sorted(budgets.values(), key=lambda b: b.readouts), opponents)


def plot_sweep(sweep, axes=None, names=None):
    """Two panels: the win rate against each opponent by readouts (the
    network alone drawn at the left as "none", a dashed line across), and
    the Elo by seconds a move, with 95% intervals. ``names``: the
    opponents' labels (default their specs). Returns the axes."""
    import matplotlib.pyplot as plt  # matplotlib: imported only for a plot

    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    names = names or {}
    searched = [b for b in sweep.budgets if b.readouts > 0]
    alone = [b for b in sweep.budgets if b.readouts == 0]
    left, right = axes
    for k, opponent in enumerate(sweep.opponents):
        color = f"C{k}"
        label = names.get(opponent, opponent)
        points = [b for b in searched if opponent in b.record]
        rates = np.array([b.win_rate(opponent) for b in points]).reshape(-1, 3)
        left.errorbar([b.readouts for b in points], rates[:, 0],
                      yerr=[rates[:, 0] - rates[:, 1], rates[:, 2] - rates[:, 0]],
                      fmt="o-", color=color, capsize=3, label=f"against {label}")
        for b in alone:
            if opponent in b.record:
                rate, low, high = b.win_rate(opponent)
                left.axhspan(low, high, color=color, alpha=0.12)
                left.axhline(rate, color=color, ls="--", lw=1,
                             label=f"the network alone against {label}")
    left.set_xscale("log")
    left.set_xticks([b.readouts for b in searched], [f"{b.readouts:,}" for b in searched])
    left.minorticks_off()
    left.set_xlabel("readouts a move")
    left.set_ylabel("games won (95% interval)")
    left.set_ylim(0, 1)
    left.grid(alpha=0.3)
    left.legend(fontsize=8)
    right.errorbar([b.seconds for b in sweep.budgets], [b.elo for b in sweep.budgets],
                   yerr=[[b.elo - b.low for b in sweep.budgets],
                         [b.high - b.elo for b in sweep.budgets]], fmt="o-", color="C3",
                   capsize=3)
    for b in sweep.budgets:
        right.annotate("none" if b.readouts == 0 else f"{b.readouts}", (b.seconds, b.elo),
                       textcoords="offset points", xytext=(6, -10), fontsize=8)
    right.set_xscale("log")
    right.set_xlabel("seconds a move")
    right.set_ylabel("Elo (the random player: 0)")
    right.grid(alpha=0.3)
    return axes
