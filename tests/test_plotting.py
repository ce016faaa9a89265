"""mockgo.plotting draws what it is given: stones where the board has them,
heatmap values on their points, marks, labels and curves (Agg backend)."""

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.image import AxesImage
from matplotlib.patches import Circle

from mockgo.go import coords
from mockgo.go.board import BLACK, EMPTY, WHITE, Board
from mockgo.go.handicap import hoshi_points
from mockgo.plotting import (bars_by_phase, color_name, draw_board, draw_game, draw_planes,
                             plot_curves, plot_elo_chain, plot_reinforce_runs, plot_value_curve,
                             reference_line)

plt.switch_backend("Agg")


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def board_after(size, moves):
    board = Board(size)
    for vertex in moves:
        board.play(coords.from_gtp(vertex, size))
    return board


def xy(point, size):
    """Where draw_board puts a point: x the column, y up from the bottom row."""
    row, col = divmod(point, size)
    return col, size - 1 - row


def stones_drawn(ax):
    """{(x, y): face colour} of the stone circles (the last-move ring is not filled)."""
    return {tuple(np.round(c.center, 6)): matplotlib.colors.to_hex(c.get_facecolor())
            for c in ax.patches if isinstance(c, Circle) and c.get_fill()}


def test_draw_board_puts_every_stone_on_its_point_and_rings_the_last_move():
    board = board_after(9, ["C3", "D4", "E5", "pass", "G7"])
    ax = draw_board(board, title="a game")
    expected = {xy(p, 9): "#000000" if board.stones[p] == BLACK else "#ffffff"
                for p in np.flatnonzero(board.stones)}
    assert stones_drawn(ax) == expected
    assert len(expected) == 4 and expected[(2, 2)] == "#000000" and expected[(3, 3)] == "#ffffff"
    rings = [c for c in ax.patches if isinstance(c, Circle) and not c.get_fill()]
    assert [tuple(r.center) for r in rings] == [xy(coords.from_gtp("G7", 9), 9)]
    # Grid lines: size horizontal and size vertical ones, then the star points.
    lines = [line for line in ax.lines if len(line.get_xdata()) == 2]
    assert len(lines) == 2 * 9
    stars = {(line.get_xdata()[0], line.get_ydata()[0]) for line in ax.lines
             if len(line.get_xdata()) == 1}
    assert stars == {xy(p, 9) for p in hoshi_points(9)}
    assert [t.get_text() for t in ax.get_xticklabels()] == list("ABCDEFGHJ")
    assert [t.get_text() for t in ax.get_yticklabels()] == [str(n) for n in range(1, 10)]
    assert ax.get_title() == "a game"


def test_draw_board_without_last_move_and_from_an_array_of_stones():
    board = board_after(5, ["B2", "C3"])
    ax = draw_board(board, show_last_move=False)
    assert not [c for c in ax.patches if isinstance(c, Circle) and not c.get_fill()]
    stones = np.full(25, EMPTY)
    stones[[0, 24]] = [WHITE, BLACK]  # A5 white, E1 black
    ax = draw_board(None, stones=stones)
    assert stones_drawn(ax) == {(0, 4): "#ffffff", (4, 0): "#000000"}
    assert [t.get_text() for t in ax.get_xticklabels()] == list("ABCDE")


def test_draw_board_heatmap_values_sit_on_their_points_and_pass_goes_in_the_title():
    board = board_after(5, ["B4"])
    values = np.arange(26, dtype=float) / 100  # point p gets p / 100, pass 0.25
    ax = draw_board(board, heatmap=values, title="policy", colorbar=True)
    image, = [a for a in ax.get_children() if isinstance(a, AxesImage)]
    shown = np.asarray(image.get_array())
    assert shown.shape == (5, 5)
    for p in range(25):
        x, y = xy(p, 5)
        # origin="lower": array row y is drawn at height y, column x at x.
        assert shown[y, x] == pytest.approx(values[p])
    assert image.get_extent() == [-0.5, 4.5, -0.5, 4.5]
    assert ax.get_title() == "policy  (pass 25%)"
    assert len(ax.figure.axes) == 2  # the colour bar
    # A pass below 1% is not worth a word in the title.
    values[25] = 0.004
    assert draw_board(board, heatmap=values, title="policy").get_title() == "policy"
    # Without a pass entry the title stays as given, and no colour bar.
    ax = draw_board(board, heatmap=values[:25], title="no pass")
    assert ax.get_title() == "no pass" and len(ax.figure.axes) == 1


def test_draw_board_marks_are_labelled_on_their_points():
    board = board_after(9, ["E5"])
    e5, c7 = coords.from_gtp("E5", 9), coords.from_gtp("C7", 9)
    ax = draw_board(board, marks={e5: "E", c7: "N"})
    texts = {t.get_text(): t for t in ax.texts}
    assert set(texts) == {"E", "N"}
    assert texts["E"].get_position() == xy(e5, 9) and texts["N"].get_position() == xy(c7, 9)
    # Readable on a black stone, and on the wood.
    assert texts["E"].get_color() == "white" and texts["N"].get_color() == "blue"


def test_draw_board_draws_into_a_given_axes():
    figure, (left, right) = plt.subplots(1, 2)
    assert draw_board(Board(5), ax=right) is right
    assert not left.lines and len(right.lines) == 2 * 5 + len(hoshi_points(5))


def test_draw_planes_shows_each_plane_with_its_name():
    rng = np.random.default_rng(0)
    planes = rng.integers(0, 2, (5, 5, 10)).astype(np.uint8)
    names = [f"plane {k}" for k in range(10)]
    figure = draw_planes(planes, names=names, columns=4)
    axes = figure.axes
    assert len(axes) == 12  # 3 rows of 4
    for k, ax in enumerate(axes):
        images = [a for a in ax.get_children() if isinstance(a, AxesImage)]
        assert not ax.axison
        if k < 10:
            assert len(images) == 1
            np.testing.assert_array_equal(images[0].get_array(), planes[..., k])
            assert ax.get_title() == names[k]
        else:
            assert not images and ax.get_title() == ""


def test_draw_game_one_board_per_panel_with_titles():
    boards = [board_after(5, moves) for moves in (["C3"], ["C3", "D4"], ["C3", "D4", "B2"])]
    figure = draw_game(boards, columns=2, titles=["one", "two", "three"])
    axes = figure.axes
    assert len(axes) == 4
    assert [ax.get_title() for ax in axes[:3]] == ["one", "two", "three"]
    for board, ax in zip(boards, axes):
        assert len(stones_drawn(ax)) == int((board.stones != EMPTY).sum())
    assert not axes[3].axison and not axes[3].patches


def test_plot_curves_draws_each_key_and_its_validation_twin_dashed():
    history = {"loss": [3.0, 2.0, 1.5], "val_loss": [3.2, 2.5, 2.4], "top1": [0.1, 0.2, 0.3]}
    ax = plot_curves(history, title="training", xlabel="generation")
    lines = {line.get_label(): line for line in ax.lines}
    assert set(lines) == {"loss", "val_loss", "top1"}
    for key, values in history.items():
        np.testing.assert_array_equal(lines[key].get_xdata(), [1, 2, 3])
        np.testing.assert_array_equal(lines[key].get_ydata(), values)
    assert lines["val_loss"].get_linestyle() == "--" and lines["loss"].get_linestyle() == "-"
    assert lines["val_loss"].get_color() == lines["loss"].get_color()
    assert lines["top1"].get_color() != lines["loss"].get_color()
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["loss", "val_loss", "top1"]
    assert ax.get_xlabel() == "generation" and ax.get_title() == "training"
    # Only the keys asked for (and their twins).
    ax = plot_curves(history, keys=["top1"])
    assert [line.get_label() for line in ax.lines] == ["top1"]
    assert ax.get_xlabel() == "epoch"


def test_a_reference_line_is_drawn_labelled_and_kept_in_view():
    ax = plot_curves({"loss": [0.9, 0.7, 0.6], "val_loss": [0.85, 0.75, 0.74]})
    assert ax.get_ylim()[1] < 1.0  # the curves alone leave a guess's MSE of 1 out of view
    reference_line(ax, 1.0, "always guessing 0")
    line = ax.lines[-1]
    np.testing.assert_array_equal(line.get_ydata(), [1.0, 1.0])
    assert line.get_linestyle() == ":" and ax.get_ylim()[1] > 1.0
    assert [t.get_text() for t in ax.texts] == ["always guessing 0"]
    # Below the curves, the axis widens downwards.
    reference_line(ax, 0.2, "a better guess")
    assert ax.get_ylim()[0] < 0.2


def test_a_value_curve_shows_each_colour_to_move_and_ends_at_the_result():
    curve = np.array([0.5, 0.55, 0.45, 0.7, 0.8])
    ax = plot_value_curve(curve, WHITE, title="a game")
    lines = {line.get_label(): line for line in ax.lines}
    black, white = lines["black to move"], lines["white to move"]
    assert list(black.get_xdata()) == [0, 2, 4] and list(black.get_ydata()) == [0.5, 0.45, 0.8]
    assert list(white.get_xdata()) == [1, 3] and list(white.get_ydata()) == [0.55, 0.7]
    result = lines["result: white won"]
    assert list(result.get_xdata()) == [4] and list(result.get_ydata()) == [0.0]
    assert ax.get_title() == "a game"
    # White first (a handicap game): the even positions are white's to move.
    ax = plot_value_curve(curve, BLACK, first=WHITE)
    lines = {line.get_label(): line for line in ax.lines}
    assert list(lines["white to move"].get_xdata()) == [0, 2, 4]
    assert list(lines["result: black won"].get_ydata()) == [1.0]
    # No known winner (a game without a result): no dot.
    ax = plot_value_curve(curve, None)
    assert not any(line.get_label().startswith("result") for line in ax.lines)


def test_bars_by_phase_puts_each_series_side_by_side_in_every_group():
    series = {"network": [1.0, 0.8, 0.3], "constant": [1.0, 1.0, 0.9], "rollouts": [1.1, 0.7, 0.1]}
    ax = bars_by_phase(["opening", "middle", "end"], series)
    bars = ax.patches
    assert len(bars) == 9
    for k, values in enumerate(series.values()):
        mine = bars[3 * k:3 * k + 3]
        assert [b.get_height() for b in mine] == values
        assert len({b.get_facecolor() for b in mine}) == 1
    # Within each group the series stand left to right in order, without overlapping.
    for group in range(3):
        lefts = [bars[3 * k + group].get_x() for k in range(3)]
        width = bars[group].get_width()
        assert lefts == sorted(lefts) and np.allclose(np.diff(lefts), width)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["opening", "middle", "end"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(series)
    assert ax.get_ylim()[1] == pytest.approx(1.35 * 1.1)


def test_color_name():
    assert [color_name(c) for c in (BLACK, WHITE, EMPTY)] == ["black", "white", "nobody"]


def test_plot_reinforce_runs_draws_each_run_on_three_panels_and_skips_missing_figures():
    def entry(i, variance, evaluated):
        return {"iteration": i, "eval_win_rate": 0.5 + i / 100 if evaluated else None,
                "gradient_variance": variance, "mean_abs_advantage": 1.0 - i / 100}
    value = [entry(i, 2.0, i % 2 == 0) for i in range(1, 7)]
    older = [entry(i, None, i % 3 == 0) for i in range(1, 7)]  # no variance logged
    axes = plot_reinforce_runs({"value": value, "zero": older})
    wins, variance, advantage = axes
    assert [line.get_label() for line in wins.get_lines()[:2]] == ["value", "zero"]
    assert list(wins.get_lines()[0].get_xdata()) == [2, 4, 6]
    assert list(wins.get_lines()[1].get_xdata()) == [3, 6]
    assert [line.get_label() for line in variance.get_lines()] == ["value"]
    assert variance.get_yscale() == "log"
    assert list(advantage.get_lines()[1].get_ydata()) == [1.0 - i / 100 for i in range(1, 7)]
    plt.close("all")


def test_an_elo_chain_draws_its_bounds_hollow_and_labels_each_match():
    chain = [{"generation": 0, "elo": 50.0, "wins": 5, "games": 8, "bound": False},
             {"generation": 2, "elo": 120.0, "wins": 6, "games": 8, "bound": False},
             {"generation": 4, "elo": 250.0, "wins": 8, "games": 8, "bound": True}]
    ax = plot_elo_chain(chain)
    line, exact, bound = ax.get_lines()[:3]
    assert list(line.get_ydata()) == [50.0, 120.0, 250.0]
    assert list(exact.get_xdata()) == [0, 2] and list(bound.get_xdata()) == [4]
    assert bound.get_markerfacecolor() == "none" and exact.get_markerfacecolor() != "none"
    assert [t.get_text() for t in ax.texts] == ["5/8", "6/8", "8/8"]


def test_an_elo_chain_draws_the_anchored_ratings_beside_it_with_their_intervals():
    from mockgo.arena.ladder import Rating

    chain = [{"generation": 0, "elo": 0.0, "wins": 4, "games": 8, "bound": False},
             {"generation": 10, "elo": 900.0, "wins": 8, "games": 8, "bound": True}]
    anchored = {0: Rating("gen0", -20.0, -120.0, 80.0), 10: Rating("gen10", 400.0, 250.0, 550.0)}
    ax = plot_elo_chain(chain, anchored=anchored)
    fixed = ax.get_lines()[0]
    assert list(fixed.get_xdata()) == [0, 10] and list(fixed.get_ydata()) == [-20.0, 400.0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "against fixed players (95% interval)" in labels and len(labels) == 3
