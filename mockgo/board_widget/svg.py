"""The board widget's pictures as SVG text: the board (stones, coordinates
on all four sides and the last move marked, as Sabaki draws them, with the
overlays: a heatmap of move probabilities, a search's most visited moves),
and the graph of black's winning chances over a game.

One drawing serves the live widget (the browser shows the SVG and maps a
click to the ``data-point`` of the intersection under it) and the static
picture a notebook keeps when it runs headless (``image/svg+xml``), so the
two cannot drift apart. (matplotlib's :func:`mockgo.plotting.draw_board` is
for figures; this is for the widget, where a click must find its point.)
"""

import html

import numpy as np

from mockgo.go import coords
from mockgo.go.board import BLACK, WHITE
from mockgo.go.handicap import hoshi_points

__all__ = ["board_svg", "graph_svg"]

CELL = 32  # pixels between lines
MARGIN = 30  # room for the coordinates
_WOOD, _LINE = "#dcb35c", "#2b1d0e"


def _xy(point, size):
    row, col = divmod(int(point), size)
    return MARGIN + col * CELL, MARGIN + row * CELL


def board_svg(board, heatmap=None, search=None, marks=None, clickable=True, title=None):
    """The position on ``board`` as SVG text.

    ``heatmap``: N*N (+ pass) values, e.g. a policy's probabilities: each
    empty point gets a red square as strong as its share of the largest
    (none under 3% of it), and its percentage when it is 1% or more. ``search``: a
    :class:`~mockgo.data.gametree.SearchSummary` of the search that chose
    the last move: its moves get their win rate for the player who was to
    move and their visits, on a disc or on the stone since played there
    (in red on the last move, which then needs no ring). ``marks``: flat point to a short label. ``clickable``: an
    invisible target, and a ghost stone shown on hover, on every empty
    point (``data-point`` is its flat index).
    """
    size = board.size
    extent = 2 * MARGIN + (size - 1) * CELL
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="mg-board" width="{extent}" '
             f'height="{extent}" viewBox="0 0 {extent} {extent}" data-size="{size}" '
             f'font-family="sans-serif">']
    if title:
        parts.append(f"<title>{html.escape(title)}</title>")
    parts.append(f'<rect width="{extent}" height="{extent}" rx="4" fill="{_WOOD}"/>')
    low, high = MARGIN, MARGIN + (size - 1) * CELL
    for i in range(size):
        at = MARGIN + i * CELL
        parts.append(f'<line x1="{low}" y1="{at}" x2="{high}" y2="{at}" stroke="{_LINE}" '
                     f'stroke-width="{1.5 if i in (0, size - 1) else 0.8}"/>')
        parts.append(f'<line x1="{at}" y1="{low}" x2="{at}" y2="{high}" stroke="{_LINE}" '
                     f'stroke-width="{1.5 if i in (0, size - 1) else 0.8}"/>')
    for point in hoshi_points(size):
        x, y = _xy(point, size)
        parts.append(f'<circle cx="{x}" cy="{y}" r="3" fill="{_LINE}"/>')
    parts.extend(_coordinates(size))
    stones = board.stones
    if heatmap is not None:
        parts.extend(_heatmap(np.asarray(heatmap, float), stones, size))
    for point in np.flatnonzero(stones):
        x, y = _xy(point, size)
        color = "black" if stones[point] == BLACK else "white"
        parts.append(f'<circle class="mg-stone mg-{color}" data-point="{point}" cx="{x}" '
                     f'cy="{y}" r="{CELL * 0.47:.1f}" fill="{"#111" if color == "black" else "#f7f7f2"}" '
                     f'stroke="#111" stroke-width="{0.6 if color == "black" else 1}"/>')
    last = board.last_move
    labelled = {move for move, _, _ in search.moves} if search is not None else set()
    if last is not None and last != board.pass_index and stones[last] and last not in labelled:
        x, y = _xy(last, size)
        ring = "#f7f7f2" if stones[last] == BLACK else "#111"
        parts.append(f'<circle class="mg-last-move" data-point="{last}" cx="{x}" cy="{y}" '
                     f'r="{CELL * 0.22:.1f}" fill="none" stroke="{ring}" stroke-width="2"/>')
    if search is not None:
        parts.extend(_search(search, stones, size, last))
    for point, label in (marks or {}).items():
        x, y = _xy(point, size)
        color = "#f7f7f2" if stones[point] == BLACK else "#1a4db3"
        parts.append(f'<text x="{x}" y="{y + 5}" text-anchor="middle" font-size="15" '
                     f'font-weight="bold" fill="{color}">{html.escape(str(label))}</text>')
    if clickable:
        ghost = "#111" if board.to_play == BLACK else "#f7f7f2"  # shown on hover (CSS)
        for point in np.flatnonzero(stones == 0):
            x, y = _xy(point, size)
            parts.append(f'<g class="mg-point" data-point="{point}">'
                         f'<rect x="{x - CELL / 2}" y="{y - CELL / 2}" width="{CELL}" '
                         f'height="{CELL}" fill="transparent"/>'
                         f'<circle class="mg-ghost" cx="{x}" cy="{y}" r="{CELL * 0.47:.1f}" '
                         f'fill="{ghost}" opacity="0"/></g>')
    parts.append("</svg>")
    return "".join(parts)


def _coordinates(size):
    """Letters (GTP's, without I) above and below, numbers left and right."""
    parts = []
    far = 2 * MARGIN + (size - 1) * CELL - MARGIN / 2
    style = 'font-size="12" fill="#3b2a14" text-anchor="middle"'
    for i in range(size):
        at = MARGIN + i * CELL
        letter = coords.GTP_COLUMNS[i]
        number = size - i
        parts.append(f'<text x="{at}" y="{MARGIN / 2 + 4}" {style}>{letter}</text>')
        parts.append(f'<text x="{at}" y="{far + 4}" {style}>{letter}</text>')
        parts.append(f'<text x="{MARGIN / 2}" y="{at + 4}" {style}>{number}</text>')
        parts.append(f'<text x="{far}" y="{at + 4}" {style}>{number}</text>')
    return parts


def _heatmap(values, stones, size):
    points = values[:size * size]
    top = points.max() if len(points) and points.max() > 0 else 1.0
    parts = ['<g class="mg-heatmap">']
    # Points under 3% of the largest are left bare, so the likely moves stand out.
    for point in np.flatnonzero((points >= 0.03 * top) & (points > 0) & (stones == 0)):
        x, y = _xy(point, size)
        share = points[point] / top
        parts.append(f'<rect x="{x - CELL / 2 + 1}" y="{y - CELL / 2 + 1}" width="{CELL - 2}" '
                     f'height="{CELL - 2}" rx="4" fill="#d7301f" '
                     f'fill-opacity="{0.05 + 0.75 * share:.2f}" data-p="{points[point]:.4f}"/>')
        if points[point] >= 0.01:
            parts.append(f'<text x="{x}" y="{y + 4}" text-anchor="middle" font-size="11" '
                         f'fill="#fff" font-weight="bold">{100 * points[point]:.0f}</text>')
    return parts + ["</g>"]


def _search(summary, stones, size, last=None):
    """The search's moves: a disc with the win rate (for the player who was
    to move) and the visits on each empty point, the same two numbers on
    the stone of a move since played (the one the search chose); on the
    ``last`` move, in red, in place of its ring."""
    parts = ['<g class="mg-search">']
    best = summary.moves[0][1] if summary.moves else 0
    for rank, (move, visits, q) in enumerate(summary.moves):
        if move >= size * size:
            continue  # a pass: the view's text says so
        x, y = _xy(move, size)
        ink = "#fff"
        if stones[move]:
            ink = "#ff6b57" if move == last else "#fff" if stones[move] == BLACK else "#111"
            if move == last and stones[move] == WHITE:
                ink = "#d7301f"
        else:
            color = "#1a7f37" if rank == 0 else "#1a4db3"
            parts.append(f'<circle class="mg-candidate" data-point="{move}" cx="{x}" cy="{y}" '
                         f'r="{CELL * 0.45:.1f}" fill="{color}" fill-opacity="'
                         f'{0.35 + 0.5 * visits / max(best, 1):.2f}" stroke="{color}"/>')
        parts.append(f'<text x="{x}" y="{y - 1}" text-anchor="middle" font-size="11" '
                     f'fill="{ink}" font-weight="bold">{50 * (q + 1):.0f}%</text>')
        parts.append(f'<text x="{x}" y="{y + 10}" text-anchor="middle" font-size="9" '
                     f'fill="{ink}">{visits}</text>')
    return parts + ["</g>"]


def graph_svg(values, current=None, width=360, height=140):
    """Black's winning chances over a game: ``values[k]`` after move k (0 to
    1, or None where nothing is known), a dashed line at 50%, the current
    move marked; each move's column is a ``data-move`` target, to jump there."""
    left, right, top, bottom = 34, 8, 10, 22
    inner_w, inner_h = width - left - right, height - top - bottom
    count = max(len(values) - 1, 1)

    def x_of(k):
        return left + inner_w * k / count

    def y_of(v):
        return top + inner_h * (1 - v)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="mg-graph" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif">',
             f'<rect width="{width}" height="{height}" fill="#fbfaf7" stroke="#ccc"/>']
    for v, label in ((1, "100%"), (0.5, "50%"), (0, "0%")):
        parts.append(f'<text x="{left - 4}" y="{y_of(v) + 4}" font-size="10" '
                     f'text-anchor="end" fill="#555">{label}</text>')
    parts.append(f'<line x1="{left}" y1="{y_of(0.5)}" x2="{width - right}" y2="{y_of(0.5)}" '
                 f'stroke="#999" stroke-dasharray="4 3"/>')
    parts.append(f'<text x="{left}" y="{height - 6}" font-size="10" fill="#555">'
                 f'black\'s winning chances by move (0 to {len(values) - 1})</text>')
    runs, run = [], []
    for k, v in enumerate(values):
        if v is None:
            if run:
                runs.append(run)
            run = []
        else:
            run.append(f"{x_of(k):.1f},{y_of(v):.1f}")
    if run:
        runs.append(run)
    for run in runs:
        if len(run) == 1:
            x, y = run[0].split(",")
            parts.append(f'<circle cx="{x}" cy="{y}" r="2" fill="#111"/>')
        else:
            parts.append(f'<polyline class="mg-value-line" points="{" ".join(run)}" '
                         f'fill="none" stroke="#111" stroke-width="1.5"/>')
    if current is not None and 0 <= current < len(values):
        parts.append(f'<line class="mg-current" x1="{x_of(current):.1f}" y1="{top}" '
                     f'x2="{x_of(current):.1f}" y2="{top + inner_h}" stroke="#d7301f"/>')
    step = inner_w / count
    for k in range(len(values)):
        parts.append(f'<rect class="mg-move" data-move="{k}" x="{x_of(k) - step / 2:.1f}" '
                     f'y="{top}" width="{step:.1f}" height="{inner_h}" fill="transparent"/>')
    parts.append("</svg>")
    return "".join(parts)
