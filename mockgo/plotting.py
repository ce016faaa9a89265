"""Pictures for the notebooks: Go boards, move heatmaps, feature planes and
training curves, drawn with matplotlib.

Every function draws into a matplotlib Axes (a new figure when none is given)
and returns it, so a notebook can lay several out side by side.
"""

import matplotlib.pyplot as plt
import numpy as np

from mockgo.go import coords
from mockgo.go.board import BLACK, WHITE
from mockgo.go.handicap import hoshi_points
from mockgo.play.results import elo_from_rate

_WOOD = "#dcb35c"


def _axes(ax, size_inches=4.5):
    if ax is None:
        _, ax = plt.subplots(figsize=(size_inches, size_inches))
    return ax


def draw_board(board, ax=None, heatmap=None, marks=None, title=None, show_last_move=True,
               stones=None, cmap="Reds", colorbar=False):
    """A board with its stones, coordinates, the last move marked, and
    optionally a heatmap over the points (a vector of N*N or N*N+1 values,
    e.g. move probabilities). The pass entry has no point to colour: the
    title names it when it holds at least 1% ("pass 12%"), and says nothing
    of it otherwise (a "pass: 0.000" on every board would teach nothing).

    ``marks`` maps flat points to short labels (e.g. ``{move: "E"}`` for the
    expert's move). ``stones`` draws another array of stones instead of
    ``board.stones`` (for positions from a dataset).
    """
    ax = _axes(ax)
    size = board.size if board is not None else int(round(np.sqrt(len(stones))))
    stones = board.stones if stones is None else np.asarray(stones)
    ax.set_facecolor(_WOOD)
    ax.set_xlim(-0.7, size - 0.3)
    ax.set_ylim(-0.7, size - 0.3)
    ax.set_aspect("equal")
    image = None
    if heatmap is not None:
        values = np.asarray(heatmap, float)
        grid = values[: size * size].reshape(size, size)
        image = ax.imshow(np.flipud(grid), cmap=cmap, alpha=0.75, origin="lower",
                          extent=(-0.5, size - 0.5, -0.5, size - 0.5), zorder=1)
        if len(values) > size * size and values[size * size] >= 0.01:
            title = f"{title or ''}  (pass {values[size * size]:.0%})".strip()
        if colorbar:
            plt.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    for i in range(size):
        ax.plot([0, size - 1], [i, i], color="black", lw=0.7, zorder=2)
        ax.plot([i, i], [0, size - 1], color="black", lw=0.7, zorder=2)
    for p in hoshi_points(size):
        row, col = divmod(p, size)
        ax.plot(col, size - 1 - row, "o", color="black", markersize=3, zorder=2)
    for p in np.flatnonzero(stones):
        row, col = divmod(int(p), size)
        face = "black" if stones[p] == BLACK else "white"
        ax.add_patch(plt.Circle((col, size - 1 - row), 0.46, facecolor=face,
                                edgecolor="black", lw=0.8, zorder=3))
    last = getattr(board, "last_move", None) if show_last_move and board is not None else None
    if last is not None and last != size * size:
        row, col = divmod(last, size)
        ring = "white" if stones[last] == BLACK else "black"
        ax.add_patch(plt.Circle((col, size - 1 - row), 0.2, fill=False, edgecolor=ring,
                                lw=1.5, zorder=4))
    for p, label in (marks or {}).items():
        row, col = divmod(int(p), size)
        color = "white" if stones[p] == BLACK else "blue"
        ax.text(col, size - 1 - row, label, ha="center", va="center", fontsize=9,
                fontweight="bold", color=color, zorder=5)
    letters = coords.GTP_COLUMNS[:size]
    ax.set_xticks(range(size), list(letters))
    ax.set_yticks(range(size), [str(n) for n in range(1, size + 1)])
    ax.tick_params(length=0, labelsize=7)
    for spine in ax.spines.values():
        spine.set_visible(False)
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def draw_planes(planes, names=None, columns=8, cell_inches=1.3):
    """Feature planes of one position, shape (N, N, C), as a grid of images."""
    planes = np.asarray(planes)
    count = planes.shape[-1]
    rows = (count + columns - 1) // columns
    figure, axes = plt.subplots(rows, columns, figsize=(columns * cell_inches, rows * cell_inches))
    for index, ax in enumerate(np.atleast_1d(axes).reshape(-1)):
        ax.axis("off")
        if index < count:
            ax.imshow(planes[..., index], cmap="gray_r", vmin=0, vmax=1, interpolation="nearest")
            if names is not None:
                ax.set_title(names[index], fontsize=6)
    figure.tight_layout()
    return figure


def draw_game(boards, columns=4, titles=None, cell_inches=2.6):
    """Several positions (Boards) as a grid, e.g. a game every k moves."""
    rows = (len(boards) + columns - 1) // columns
    figure, axes = plt.subplots(rows, columns, figsize=(columns * cell_inches, rows * cell_inches))
    for index, ax in enumerate(np.atleast_1d(axes).reshape(-1)):
        if index < len(boards):
            draw_board(boards[index], ax=ax, title=titles[index] if titles else None)
        else:
            ax.axis("off")
    figure.tight_layout()
    return figure


def plot_curves(history, keys=None, ax=None, title=None, xlabel="epoch"):
    """Training curves from a Keras ``History.history`` dict (or any dict of
    lists); by default every key, with ``val_`` keys dashed beside their twin."""
    ax = _axes(ax, 5)
    keys = keys or [k for k in history if not k.startswith("val_")]
    for key in keys:
        line, = ax.plot(range(1, len(history[key]) + 1), history[key], label=key)
        if f"val_{key}" in history:
            ax.plot(range(1, len(history[f"val_{key}"]) + 1), history[f"val_{key}"], "--",
                    color=line.get_color(), label=f"val_{key}")
    ax.set_xlabel(xlabel)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    if title:
        ax.set_title(title)
    return ax


def plot_value_curve(curve, winner=None, first=BLACK, ax=None, title=None):
    """A value network's view of one game
    (:func:`mockgo.learn.value.value_curve`): the probability that black
    wins, position by position, against a grey line at 0.5, drawn as two
    lines, the positions with black to move and those with white to move
    (``first``: who moves in the first position; the turn alternates, passes
    included). A network that reads the stones draws two lines close
    together; the gap between them is how far its estimate swings with whose
    turn it is. When ``winner`` (BLACK or WHITE) is known, the result is a
    dot after the last position, at 1 when black won and 0 when white did,
    so that a reader sees whether and when the lines head for it."""
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 3))
    curve = np.asarray(curve, float)
    moves = np.arange(len(curve))
    second = WHITE if first == BLACK else BLACK
    for start, colour in ((0, first), (1, second)):
        ax.plot(moves[start::2], curve[start::2], lw=1.2,
                color="black" if colour == BLACK else "tab:orange",
                label=f"{color_name(colour)} to move")
    ax.axhline(0.5, color="grey", lw=0.8)
    if winner in (BLACK, WHITE):
        ax.plot([len(curve) - 1], [1.0 if winner == BLACK else 0.0], "o", color="tab:red",
                label=f"result: {color_name(winner)} won")
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("moves played")
    ax.set_ylabel("P(black wins)")
    ax.legend(fontsize=8, loc="best")
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def reference_line(ax, y, label):
    """A dotted grey line across ``ax`` at height ``y``, ``label`` written
    on it at the left: the score of a guess to read a curve against (an MSE
    of 1 for always guessing 0 on results of +1 and -1). The y-axis is
    widened to show it. Returns ``ax``."""
    ax.axhline(y, color="grey", lw=0.8, ls=":")
    ax.text(0.02, y, label, va="bottom", fontsize=8, transform=ax.get_yaxis_transform())
    low, high = ax.get_ylim()
    ax.set_ylim(min(low, y - 0.05 * (high - low)), max(high, y + 0.1 * (high - low)))
    return ax


def bars_by_phase(names, series, ax=None, ylabel="test MSE"):
    """Grouped bars: for each of ``names`` (the groups, e.g. phases of the
    game), one bar per entry of ``series`` (a dict label -> one value per
    group), side by side, with a legend."""
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3))
    width = 0.8 / len(series)
    x = np.arange(len(names))
    for k, (label, values) in enumerate(series.items()):
        ax.bar(x + (k - (len(series) - 1) / 2) * width, values, width, label=label)
    ax.set_xticks(x, names, fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 1.35 * np.nanmax([np.asarray(v, float) for v in series.values()]))
    ax.legend(fontsize=8, ncols=min(len(series), 3), loc="upper center")
    return ax


def plot_reinforce_runs(histories, axes=None):
    """REINFORCE runs side by side (``{label: Reinforce.history}``), on three
    axes (new ones when None): the win rate against the SL policy at each
    evaluation, the variance of one game's gradient (log scale: how noisy
    each update is), and the mean ``|advantage|`` of the moves, ``|z - b(s)|``.
    Iterations whose entries lack a figure (runs of an older mockgo) are
    left out. Returns the axes."""
    if axes is None:
        _, axes = plt.subplots(1, 3, figsize=(14, 3.6))
    panels = (("eval_win_rate", "win rate against the SL policy"),
              ("gradient_variance", "variance of one game's gradient"),
              ("mean_abs_advantage", "mean |z - b(s)|"))
    for ax, (key, title) in zip(axes, panels):
        for label, history in histories.items():
            points = [(h["iteration"], h[key]) for h in history if h.get(key) is not None]
            if points:
                ax.plot(*zip(*points), "o-" if key == "eval_win_rate" else "-", ms=3,
                        label=label)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("iteration")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    axes[0].axhline(0.5, color="grey", lw=0.8)
    axes[0].set_ylim(0, 1)
    axes[1].set_yscale("log")
    return axes


def color_name(color):
    """``"black"``, ``"white"``, or ``"nobody"`` for any other value (a game without a winner)."""
    return {BLACK: "black", WHITE: "white"}.get(color, "nobody")


def strength_elo(point, clip=800.0):
    """A strength-curve point's Elo against its GnuGo level and its 95%
    interval, all finite: ``(elo, low, high)``. The estimate counts half a
    win and half a loss more, (wins + 0.5) / (games + 1), so that a match
    all lost or all won still gets a point on the plot; the interval is the
    Wilson interval's, clipped to +-``clip`` (and the estimate into it)."""

    rate = (point["wins"] + 0.5) / (point["games"] + 1)
    low, high = (min(max(elo_from_rate(p), -clip), clip) for p in point["wilson_95"])
    return min(max(elo_from_rate(rate), low), high), low, high


def _elo_errorbar(ax, xs, points, label):
    """One line of match points' Elo (:func:`strength_elo`) at ``xs``, each
    with its 95% interval as an error bar."""
    elos = np.array([strength_elo(p) for p in points]).reshape(-1, 3)
    ax.errorbar(xs, elos[:, 0], yerr=[elos[:, 0] - elos[:, 1], elos[:, 2] - elos[:, 0]],
                marker="o", capsize=3, label=label)


def plot_strength_curve(curves, ax=None, x="cpu_hours", level=1, title=None):
    """Elo against GnuGo at ``level`` as a function of the run's cost, one
    line per run: ``curves`` maps a label to the points of
    :meth:`mockgo.zero.run.ZeroRun.strength_curve`; ``x`` is ``"cpu_hours"``,
    ``"hours"`` (wall clock) or ``"selfplay_games"``. Each point has its 95%
    interval as an error bar (:func:`strength_elo`); 0 is GnuGo's strength."""
    ax = _axes(ax, 6)
    for label, points in curves.items():
        points = [p for p in points if p["level"] == level]
        if not points:
            continue
        _elo_errorbar(ax, [p[x] for p in points], points,
                      f"{label} ({points[-1]['games']} games a point)")
    ax.axhline(0, color="gray", lw=0.8, ls=":")
    ax.set_xlabel({"cpu_hours": "CPU-hours", "hours": "hours (wall clock)",
                   "selfplay_games": "self-play games"}.get(x, x))
    ax.set_ylabel(f"Elo against GnuGo level {level}")
    ax.set_title(title or f"strength against GnuGo level {level}")
    ax.grid(alpha=0.3)
    if curves:
        ax.legend()
    return ax


def plot_equal_cost(points, names=("this run", "the other run"), ax=None, title=None):
    """The Elo of one run's model over another run's model of the same CPU
    time, against those CPU-hours, with 95% intervals as error bars
    (:func:`strength_elo`): ``points`` from
    :func:`mockgo.zero.match.equal_cost_matches`; ``names``: the two runs. Above
    0, the first run's settings made the stronger player for the same work."""
    ax = _axes(ax, 6)
    _elo_errorbar(ax, [p["other_cpu_hours"] for p in points], points,
                  f"{names[0]} against {names[1]}"
                  + (f" ({points[-1]['games']} games a point)" if points else ""))
    ax.axhline(0, color="gray", lw=0.8, ls=":")
    ax.set_xlabel(f"CPU-hours of {names[1]}'s model (the other at most as many)")
    ax.set_ylabel("Elo difference")
    ax.set_title(title or "head to head at equal CPU time")
    ax.grid(alpha=0.3)
    ax.legend()
    return ax


def plot_elo_chain(chain, ax=None, title=None, anchored=None):
    """A run's Elo ladder, the random player at 0: ``chain`` from
    :func:`mockgo.zero.report.elo_chain`, one point a generation. A point
    that rests on a match won or lost in full is drawn hollow (its Elo is a
    bound: the link counts at its 95% Wilson bound); the label of each point
    is the match that placed it (wins of games against the one before).
    ``anchored``: ``{generation: Rating}`` of the same run's generations
    rated against fixed players (:func:`mockgo.arena.generations.anchored_ratings`),
    drawn beside the chain with their 95% intervals."""
    ax = _axes(ax, 6)
    if anchored:
        gens = sorted(anchored)
        ax.errorbar(gens, [anchored[g].elo for g in gens],
                    yerr=[[anchored[g].elo - anchored[g].low for g in gens],
                          [anchored[g].high - anchored[g].elo for g in gens]],
                    fmt="s-", color="C1", capsize=4, lw=1,
                    label="against fixed players (95% interval)")
    xs, ys = [p["generation"] for p in chain], [p["elo"] for p in chain]
    ax.plot(xs, ys, "-", color="C0", lw=1)
    exact = [p for p in chain if not p["bound"]]
    bound = [p for p in chain if p["bound"]]
    ax.plot([p["generation"] for p in exact], [p["elo"] for p in exact], "o", color="C0",
            label="Elo from the matches")
    if bound:
        ax.plot([p["generation"] for p in bound], [p["elo"] for p in bound], "o", color="C0",
                mfc="none", label="a bound (a match won or lost in full)")
    for p in chain:
        ax.annotate(f"{p['wins']:g}/{p['games']}", (p["generation"], p["elo"]),
                    textcoords="offset points", xytext=(0, 6), ha="center", fontsize=8)
    ax.axhline(0, color="gray", lw=0.8, ls=":")
    ax.xaxis.set_major_locator(plt.MaxNLocator(integer=True))
    ax.set_xlabel("generation")
    ax.set_ylabel("Elo (the random player: 0)")
    ax.set_title(title or "each generation against the one before")
    ax.grid(alpha=0.3)
    if chain or anchored:
        ax.legend()
    return ax
