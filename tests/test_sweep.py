"""A readout sweep read back from its match folders (mockgo.arena.sweep)."""

import math

import matplotlib
import pytest

from mockgo.arena.sweep import plot_sweep, read_sweep, readouts_of
from mockgo.play.match import match

matplotlib.use("Agg")


def test_a_heavy_loss_is_one_by_40_points_or_resignation():
    from mockgo.arena.sweep import _lost_heavily

    assert _lost_heavily("W+88.5", False) and _lost_heavily("B+R", False)
    assert not _lost_heavily("W+3.5", False) and not _lost_heavily("B+88.5", True)


def test_readouts_are_read_off_the_specs():
    assert readouts_of("policy:pretrained=zero-9,softpick=6") == 0
    assert readouts_of("mcts:pretrained=zero-9,readouts=800") == 800
    assert readouts_of("mcts:pretrained=zero-9") == 200
    assert readouts_of("alphago:policy=p.keras,readouts=16,mix=0.5") == 16


def test_a_sweep_rates_each_budget_on_its_games_against_every_opponent(tmp_path):
    budgets = ("mcts:readouts=2,seed=1", "mcts:readouts=24,seed=1")
    opponents = ("random:seed=3", "uct:playouts=8,seed=2")
    folders = []
    for k, budget in enumerate(budgets):
        for j, opponent in enumerate(opponents):
            folder = tmp_path / f"{k}{j}"
            match(budget, opponent, games=4, size=5, workers=1, out_dir=folder,
                  scorer="tromp-taylor", seed=k + j)
            folders.append(folder)
    anchor = tmp_path / "anchor"  # the two opponents' own games place them
    match(opponents[1], opponents[0], games=4, size=5, workers=1, out_dir=anchor,
          scorer="tromp-taylor")
    sweep = read_sweep(folders, recorded=[anchor], anchor=opponents[0])
    assert [b.readouts for b in sweep.budgets] == [2, 24] and sweep.opponents == list(opponents)
    for budget in sweep.budgets:
        assert {o: games for o, (_, games) in budget.record.items()} == {o: 4 for o in opponents}
        assert budget.seconds > 0 and budget.low < budget.elo < budget.high
        rate, low, high = budget.win_rate(opponents[0])
        assert low <= rate <= high
    assert all(0 <= b.routs[o] <= 4 for b in sweep.budgets for o in opponents)
    table = sweep.table().splitlines()
    assert "lost by 40+" in table[1]
    assert table[0].split()[:3] == ["readouts", "s", "a"] and len(table) == 3
    axes = plot_sweep(sweep)
    assert [t.get_text() for t in axes[0].get_xticklabels()] == ["2", "24"]
    with pytest.raises(ValueError, match="no match folders"):
        read_sweep([tmp_path / "nothing"])
    assert math.isfinite(sweep.budgets[0].elo)
