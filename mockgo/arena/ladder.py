"""A ladder: Elo ratings for players, against fixed anchors.

::

    mockgo ladder --player policy:path=models/sl.keras --player random:seed=1 \\
        --games 10 --size 9 --plot ladder.png

Every player plays a match (:func:`mockgo.play.match.match`, ``games`` games,
colours alternating) against each anchor, and the anchors play each other
(``anchor_games`` games a pair, default ``games``) so that their own
ratings are measured too. The anchors are, by default, the random player,
GnuGo at level 1 and GnuGo at level 10. Then the ratings are fitted, a table
printed, and a plot of the ratings with their intervals saved.

Recorded matches
----------------
A match too long to play again (AlphaGo's search at 1,600 readouts a move
takes hours for 40 games on two cores) can join the fit from its folder
(``--recorded docs/matches/NAME``, read by
:func:`mockgo.play.match_folder.read_match`): its games count exactly as if
the ladder had played them, so a player of such a match is rated on its
real record, as long as a chain of games links it to the first anchor. The
table names every recorded match, its folder and the command that played it.

A player of one's own
---------------------
Beside specs, a player may be a :class:`~mockgo.play.player.Player` object,
such as a class written in a notebook cell: it is rated under its ``name``
and its matches are played in this process (worker processes make their
players from specs, and cannot import a class that lives in a notebook);
the anchors' matches still use the workers. Its games are kept under its
name, so a player changed since its games were played needs a new name, or
the ladder reads the old games back.

Rating method
-------------
Bradley-Terry (the Elo model) fitted by maximum likelihood over all the
games at once: player i scores against player j with probability
``1 / (1 + 10 ** (-(R_i - R_j) / 400))``; a draw counts half a win and
half a loss. The random player (the first anchor) is fixed at 0 Elo, which
pins down the scale's origin. Each pair that met gets ``prior_games``
(default 1) virtual games, half won by each side: a weak pull toward equal
ratings that keeps a 10-0 sweep finite (the plain maximum-likelihood
estimate of a sweep is infinite), at the price of shrinking lopsided
results a little (10-0 reads as 10.5-0.5, about 530 Elo). The intervals
come from the likelihood's curvature: the inverse of the observed
information (the negative Hessian of the log-likelihood, with the virtual
games) at the optimum is the covariance of the ratings, and the 95%
interval of R_i is ``R_i +- 1.96 sd(R_i)``: the uncertainty of i's rating
relative to the random player, which is exact by definition. Players
linked to the anchor by no chain of games cannot be rated (an error).
"""

import argparse
import dataclasses
import math
import statistics
import sys
from pathlib import Path

import numpy as np

from mockgo.cluster import local_workers, make_executor
from mockgo.play.match import match
from mockgo.play.match_folder import read_match
from mockgo.play.player import Player
from mockgo.play.specs import spec_help
from mockgo.play.results import format_elo, wilson_interval

ANCHORS = ("random", "gnugo:level=1", "gnugo:level=10")
ELO_PER_NATURAL = 400 / math.log(10)  # Elo points per unit of log-odds


@dataclasses.dataclass
class Rating:
    """One player's fitted rating: Elo, its interval, and what it rests on."""

    name: str
    elo: float
    low: float
    high: float
    games: float = 0
    score: float = 0  # wins + draws / 2, virtual games excluded
    anchor: bool = False


def fit_ratings(results, anchor, prior_games=1.0, confidence=0.95, max_iterations=100):
    """Fit Elo ratings (module docstring) to ``results``: rows
    ``(player_i, player_j, score_i, games)``, where ``score_i`` is i's wins
    plus half its draws against j in ``games`` games (rows for the same pair
    add up, in either order). ``anchor`` is fixed at 0. Returns
    ``{player: Rating}``, best first.
    """
    names, pairs = [], {}
    for i, j, score, games in results:
        if i == j:
            raise ValueError(f"{i} cannot play itself in a rating")
        if not 0 <= score <= games:
            raise ValueError(f"{i} vs {j}: score {score} out of {games} games")
        for name in (i, j):
            if name not in names:
                names.append(name)
        key, flip = ((i, j), False) if names.index(i) < names.index(j) else ((j, i), True)
        s, n = pairs.get(key, (0.0, 0.0))
        pairs[key] = (s + (games - score if flip else score), n + games)
    if anchor not in names:
        raise ValueError(f"the anchor {anchor!r} played no games")
    index = {name: k for k, name in enumerate(names)}
    rows = np.array([[index[i], index[j]] for i, j in pairs], dtype=int).reshape(-1, 2)
    observed = np.array([pairs[key] for key in pairs], dtype=float).reshape(-1, 2)
    score = observed[:, 0] + prior_games / 2
    games = observed[:, 1] + prior_games
    free = [k for k in range(len(names)) if names[k] != anchor]
    position = {k: m for m, k in enumerate(free)}
    x = np.zeros(len(names))  # ratings in natural units (log-odds)

    def gradient_and_hessian(x):
        p = 1 / (1 + np.exp(-(x[rows[:, 0]] - x[rows[:, 1]])))
        g = np.zeros(len(names))
        h = np.zeros((len(names), len(names)))
        residual = score - games * p
        weight = games * p * (1 - p)
        for (a, b), r, w in zip(rows, residual, weight):
            g[a] += r
            g[b] -= r
            h[a, a] -= w
            h[b, b] -= w
            h[a, b] += w
            h[b, a] += w
        return g[free], h[np.ix_(free, free)]

    for _ in range(max_iterations):
        g, h = gradient_and_hessian(x)
        if not free:
            break
        try:
            step = np.linalg.solve(h, g)
        except np.linalg.LinAlgError:
            raise ValueError("the ratings cannot be fitted: some players are not linked to "
                             f"{anchor!r} by any chain of games") from None
        step = np.clip(step, -5, 5)  # Newton on a concave function; guard the first steps
        x[free] -= step
        if np.abs(step).max() < 1e-10:
            break
    g, h = gradient_and_hessian(x)
    covariance = np.linalg.inv(-h) if free else np.zeros((0, 0))
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    ratings = {}
    for k, name in enumerate(names):
        elo = x[k] * ELO_PER_NATURAL
        sd = math.sqrt(max(covariance[position[k], position[k]], 0.0)) * ELO_PER_NATURAL \
            if k in position else 0.0
        played = sum(observed[m, 1] for m, (a, b) in enumerate(rows) if k in (a, b))
        won = sum(observed[m, 0] if a == k else observed[m, 1] - observed[m, 0]
                  for m, (a, b) in enumerate(rows) if k in (a, b))
        ratings[name] = Rating(name, float(elo), float(elo - z * sd), float(elo + z * sd),
                               float(played), float(won), anchor=name == anchor)
    return dict(sorted(ratings.items(), key=lambda item: -item[1].elo))


@dataclasses.dataclass
class LadderResult:
    """A ladder's outcome: each player's rating, and the matches it rests on."""

    ratings: dict  # spec: Rating (name = the player's display name)
    results: list  # (spec i, spec j, score_i, games), the recorded matches' too
    matches: list  # MatchResult, the ones played here
    plot: str | None = None
    recorded: list = dataclasses.field(default_factory=list)  # MatchResult, read back

    def record(self, spec, opponent):
        """``(score, games)`` of ``spec`` against ``opponent`` over every
        match between them (played or recorded), a draw counting half."""
        score = games = 0.0
        for i, j, s, n in self.results:
            if (i, j) == (spec, opponent):
                score, games = score + s, games + n
            elif (j, i) == (spec, opponent):
                score, games = score + n - s, games + n
        return score, games

    def against(self, opponent, specs):
        """A line for each of ``specs`` (rated players): its score against
        ``opponent`` with the 95% Wilson interval of its win rate, and its
        rating on the ladder: how players that met the same opponent
        compare, on the games themselves and on the fitted scale."""
        lines = []
        for spec in specs:
            rating = self.ratings[spec]
            score, games = self.record(spec, opponent)
            if not games:
                raise ValueError(f"{spec} played no games against {opponent} in this ladder")
            low, high = wilson_interval(score, games)
            where = [m.out_dir for m in self.recorded if {m.spec_a, m.spec_b} == {spec, opponent}]
            lines.append(f"{rating.name}: {score:g} of {games:g} against "
                         f"{self.ratings[opponent].name} ({score / games:.1%}, 95% "
                         f"{low:.1%} to {high:.1%}"
                         + "".join(f", recorded in {folder}" for folder in where)
                         + f"); rated {format_elo(rating.elo)} Elo "
                         f"({format_elo(rating.low)} to {format_elo(rating.high)})")
        return "\n".join(lines)

    def table(self):
        """The ratings, best first: each player by the name its matches gave
        it (a spec's ``name=``, or one made from the spec), with its spec
        where two players share a name; never cut short."""
        names = [r.name for r in self.ratings.values()]
        labels = {spec: (r.name if names.count(r.name) == 1 or r.name == spec
                         else f"{r.name} ({spec})") + (" *" if r.anchor else "")
                  for spec, r in self.ratings.items()}
        width = max([len("player"), *map(len, labels.values())]) + 2
        lines = [f"{'player':{width}}{'Elo':>7}  {'95% interval':>15}{'games':>7}{'score':>8}"]
        for spec, r in self.ratings.items():
            interval = ("fixed" if r.anchor
                        else f"{format_elo(r.low)} to {format_elo(r.high)}")
            lines.append(f"{labels[spec]:{width}}{format_elo(r.elo):>7}  {interval:>15}"
                         f"{r.games:>7g}{r.score:>8g}")
        lines.append("* the anchor, fixed at 0 Elo. Bradley-Terry maximum likelihood with one "
                     "virtual draw per pair;")
        lines.append("  intervals from the likelihood's curvature (see mockgo.arena.ladder).")
        for m in self.recorded:
            command = m.command()
            how = "played by:" if command else "played by a program, not by a command"
            lines.append(f"recorded, not played here: {m.name_a} vs {m.name_b}, {m.score_a:g} of "
                         f"{m.n}, read from {m.out_dir}, {how}")
            if command:
                lines.append(f"  {command}")
        return "\n".join(lines)


def draw_ratings(ratings, ax=None, title="mockgo ladder"):
    """A horizontal error-bar chart of the ratings (best at the top, anchors
    in grey) on ``ax`` (default: a new figure's); returns the axes."""
    import matplotlib.pyplot as plt  # matplotlib: imported only for a plot

    items = list(ratings.values())[::-1]  # best at the top
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 0.5 * len(items) + 1.5))
    y = np.arange(len(items))
    elo = np.array([r.elo for r in items])
    low = np.array([r.elo - r.low for r in items])
    high = np.array([r.high - r.elo for r in items])
    for k, r in enumerate(items):
        color = "tab:gray" if r.anchor else "tab:blue"
        ax.errorbar([elo[k]], [k], xerr=[[low[k]], [high[k]]], fmt="o", color=color, capsize=4)
    ax.set_yticks(y, [r.name for r in items])
    ax.axvline(0, color="lightgray", lw=1, zorder=0)
    ax.set_xlabel("Elo (random = 0), 95% interval")
    ax.set_title(title)
    return ax


def plot_ratings(ratings, path, title="mockgo ladder"):
    """:func:`draw_ratings`, saved to ``path`` (PNG) with no display."""
    import matplotlib  # matplotlib: imported only for a plot

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # matplotlib: imported only for a plot

    ax = draw_ratings(ratings, title=title)
    fig = ax.figure
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


#: The header line of the ladder's table of matches (:func:`match_row`).
MATCH_HEADER = (f"{'':>3}  {'A':20} {'B':20}{'games':>6}{'A wins':>8}{'as black':>9}"
                f"{'as white':>9}{'A rate':>8}  {'95% interval':14}{'s/move A':>9}{'s/move B':>9}")


def match_row(number, m):
    """One match as a row of the ladder's match table (:data:`MATCH_HEADER`):
    A's wins over all, as black and as white, its win rate with its Wilson
    interval, and the seconds a move of each side (blank where the games were
    not timed)."""
    low, high = m.interval()
    colours = m.by_color()
    seconds = ["" if s is None else f"{s:.2f}" for s in m.seconds_per_move()]
    return (f"{number:>3}  {m.name_a:20} {m.name_b:20}{m.n:>6}{m.score_a:>8g}"
            f"{colours['black'][1]:>9}{colours['white'][1]:>9}{m.win_rate:>8.1%}  "
            f"{f'{low:.1%} to {high:.1%}':14}{seconds[0]:>9}{seconds[1]:>9}")


def ladder(players, anchors=ANCHORS, games=10, anchor_games=None, size=9, komi=7.5,
           workers=None, out_dir="matches/ladder", plot="ladder.png", prior_games=1.0,
           seed=0, verbose=True, file=None, recorded=()):
    """Rate ``players`` (specs, or Player objects: module docstring)
    against ``anchors`` (specs; the first is fixed at 0 Elo): every player
    plays each anchor, and the anchors play each other. The ratings are
    keyed by spec, a Player object's by its ``name``. ``recorded``:
    finished matches read back (:class:`~mockgo.play.results.MatchResult`,
    e.g. from :func:`~mockgo.play.match_folder.read_match`) whose games
    join the fit without being played (module docstring); they must be of
    the ladder's board size and komi. Returns a :class:`LadderResult` (and prints its
    table)."""
    out = file or sys.stdout
    recorded = list(recorded)
    for m in recorded:
        if (m.size, m.komi) != (size, komi):
            raise ValueError(f"the recorded match in {m.out_dir} was played on {m.size}x{m.size} "
                             f"with komi {m.komi:g}: it cannot join a {size}x{size} ladder with "
                             f"komi {komi:g}")
    anchors = list(dict.fromkeys(anchors))
    players = [p for p in dict.fromkeys(players) if p not in anchors]
    keys = [_key(p) for p in players]
    for player in players:
        if isinstance(player, Player) and (player.name in anchors
                                           or keys.count(player.name) > 1):
            raise ValueError(f"two players of the ladder are called {player.name!r}: give the "
                             f"{type(player).__name__} another name")
    anchor_games = games if anchor_games is None else anchor_games
    pairings = [(a, b, anchor_games) for k, a in enumerate(anchors) for b in anchors[k + 1:]]
    pairings += [(p, a, games) for p in players for a in anchors]
    results, matches, names = [], [], {}
    if verbose:  # one table: a row as each match ends (a match's own report is 20 lines)
        print(MATCH_HEADER, file=out, flush=True)
    for number, m in enumerate(recorded, 1):  # read back, not played: rows r1, r2...
        if verbose:
            print(match_row(f"r{number}", m), file=out, flush=True)
        names[m.spec_a], names[m.spec_b] = m.name_a, m.name_b
        results.append((m.spec_a, m.spec_b, m.score_a, m.n))
    # With worker processes, one pool plays every match: a pool of its own
    # for each match started fresh workers (and imported mockgo in them)
    # every time. Measured on 2 cores, notebook 05's quick 9x9 ladder (7
    # matches, 56 games, 2 workers): 28 s with one pool, 36 s with a pool a
    # match. A game's seed comes from its match and number alone, so the
    # games are the same either way.
    pool = make_executor(None, workers) if local_workers(workers) > 1 else None
    try:
        for number, (a, b, n) in enumerate(pairings):
            if n <= 0:
                continue
            folder = Path(out_dir) / f"{number + 1:02d}" if out_dir else False
            here = isinstance(a, Player) or isinstance(b, Player)  # made in this process
            m = match(a, b, games=n, size=size, komi=komi, workers=1 if here else workers,
                      out_dir=folder, scorer="auto", seed=seed + number, verbose=False, file=out,
                      cluster=None if here else pool)
            if verbose:
                print(match_row(number + 1, m), file=out, flush=True)
            matches.append(m)
            names[_key(a)], names[_key(b)] = m.name_a, m.name_b
            results.append((_key(a), _key(b), m.score_a, m.n))
    finally:
        if pool is not None:
            pool.close()
    ratings = fit_ratings(results, anchors[0], prior_games=prior_games)
    for spec, rating in ratings.items():
        rating.name = names.get(spec, spec)
    result = LadderResult(ratings, results, matches, recorded=recorded)
    if plot:
        result.plot = plot_ratings(ratings, plot,
                                   title=f"mockgo ladder, {size}x{size}, komi {komi:g}")
    if verbose:
        print("", file=out)
        print(result.table(), file=out)
        if out_dir:
            print(f"the games, as SGF: {out_dir}/<match>/", file=out)
        if result.plot:
            print(f"plot saved to {result.plot}", file=out)
    return result


def _key(player):
    """A ladder player's key in the results and ratings: its spec, or a
    Player object's name."""
    return player.name if isinstance(player, Player) else player


# ------------------------------------------------------------ command line


def configure_parser(parser):
    """The options of ``mockgo ladder``."""
    parser.description = ("Rate players in Elo against anchors (random = 0, GnuGo levels 1 and "
                          "10): matches, a table and a plot.")
    parser.epilog = "player specs (KIND or KIND:key=value,...):\n" + spec_help()
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--player", action="append", default=[], metavar="SPEC",
                        help="a player to rate (repeat for several)")
    parser.add_argument("--anchor", action="append", metavar="SPEC",
                        help="an anchor (repeat; the first is fixed at 0 Elo; default: "
                             + ", ".join(ANCHORS) + ")")
    parser.add_argument("--games", type=int, default=10,
                        help="games per player and anchor (default 10)")
    parser.add_argument("--anchor-games", type=int,
                        help="games per pair of anchors (default --games; 0 skips them)")
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument("--komi", type=float, default=7.5, help="komi (default 7.5)")
    parser.add_argument("--workers", type=int, help="processes (default: one per core)")
    parser.add_argument("--out", default="matches/ladder", help="folder for the SGF files")
    parser.add_argument("--plot", default="ladder.png", help="where to save the plot (PNG)")
    parser.add_argument("--recorded", action="append", default=[], metavar="FOLDER",
                        help="a finished match's folder (mockgo match --out) whose games join "
                             "the fit without being played (repeat for several)")
    parser.add_argument("--prior-games", type=float, default=1.0,
                        help="virtual drawn games per pair (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first match")
    parser.add_argument("--quiet", action="store_true", help="print only the table")
    return parser


def run_cli(args):
    """``mockgo ladder``: play (or read back) the matches, then print and plot the ratings."""
    result = ladder(args.player, anchors=args.anchor or ANCHORS, games=args.games,
                    anchor_games=args.anchor_games, size=args.size, komi=args.komi,
                    workers=args.workers, out_dir=args.out, plot=args.plot,
                    prior_games=args.prior_games, seed=args.seed, verbose=not args.quiet,
                    recorded=[read_match(folder) for folder in args.recorded])
    if args.quiet:
        print(result.table())
    return 0
