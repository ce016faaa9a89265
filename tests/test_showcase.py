"""Notebook 05's helpers: who takes part in the ladders (mockgo.notebook's
line-ups), the recorded searches of the showcase game, and the key moves
(mockgo.arena.showcase)."""

import json

import numpy as np
import pytest

from mockgo import notebook, presets, pretrained
from mockgo.arena.ladder import Rating, draw_ratings
from mockgo.arena.lineups import (arena_lineup, big_board_lineup, what_a_bigger_network_buys,
                                  what_search_buys, zero_network)
from mockgo.arena.showcase import SearchRecord, SearchRecorder, key_moves, showcase_game
from mockgo.go.board import Board
from mockgo.play.random_player import RandomPlayer
from mockgo.play.specs import make_player

QUICK = presets.preset("05_arena", True)
FULL = presets.preset("05_arena", False)


def test_the_presets_are_registered_and_quick_is_small():
    assert "05_arena" in presets.NOTEBOOKS
    assert QUICK.size == FULL.size == 9 and QUICK.anchors[0] == FULL.anchors[0] == "random"
    assert QUICK.games <= 10 and QUICK.zero_readouts is None and not QUICK.big_networks
    assert FULL.big_games == 40 and set(FULL.big_anchors) >= {"gnugo:level=1", "gnugo:level=10"}
    for spec in QUICK.players + FULL.players + (QUICK.showcase, FULL.showcase):
        make_player(spec).close()  # every spec makes a player


def zero_run(root):
    """Where notebook 05 looks for notebook 04's full run under ``root``."""
    return notebook.zero_dir(root, quick=False)


def networks(root):
    """Notebook 03's RL policy and notebook 02's value network under ``root``,
    where notebook 05 looks for them."""
    return notebook.rl_policy_path(root, quick=False), notebook.value_path(root, quick=False)


def test_quick_lineup_with_and_without_gnugo(tmp_path):
    lineup = arena_lineup(QUICK, tmp_path, zero_run(tmp_path), gnugo=True)
    assert lineup.anchors == list(QUICK.anchors) and lineup.players == list(QUICK.players)
    assert any("Zero" in note for note in lineup.notes)
    alone = arena_lineup(QUICK, tmp_path, zero_run(tmp_path), gnugo=False)
    assert alone.anchors == ["random"] and alone.players == list(QUICK.players)
    assert any("GnuGo is not installed" in note and "gnugo:level=1" in note
               for note in alone.notes)
    assert "random = 0 Elo" in alone.describe()


def _zero_run(root, best, model=True):
    folder = root / "runs" / "04_zero" / "full" / "katago"
    (folder / "models").mkdir(parents=True)
    (folder / "state.json").write_text(json.dumps({"best": best, "latest": best}))
    if model:
        (folder / "models" / f"{best:06d}.keras").write_bytes(b"")
    return folder


def test_the_zero_agent_joins_last_when_notebook_04_trained_one(tmp_path):
    path, why = zero_network(zero_run(tmp_path), tmp_path)
    assert path is None and "has not started" in why
    lineup = arena_lineup(FULL, tmp_path, zero_run(tmp_path), gnugo=True)
    # No run of one's own: the shipped zero-9 plays, and the notes say so.
    assert lineup.players[:-1] == list(FULL.players)
    assert lineup.players[-1] == (f"mcts:pretrained=zero-9,readouts={FULL.zero_readouts},"
                                  f"name=zero-9-{FULL.zero_readouts}")
    assert any(note.startswith("zero-9, the Zero agent that notebook 04's full run trained, "
                               "as it ships with mockgo (")
               and "used because no 9x9 Zero network" in note for note in lineup.notes)

    folder = _zero_run(tmp_path, best=25)
    lineup = arena_lineup(FULL, tmp_path, zero_run(tmp_path), gnugo=True)
    assert lineup.players[:-1] == list(FULL.players)  # last: resumed ladders keep their numbers
    zero = lineup.players[-1]
    assert zero.startswith("mcts:path=") and str(folder / "models" / "000025.keras") in zero
    assert f"readouts={FULL.zero_readouts}" in zero and not lineup.notes
    # The listing names the network as the repository does, not by this machine's path.
    assert ("mcts:path=runs/04_zero/full/katago/models/000025.keras," in lineup.describe()
            and str(tmp_path) not in lineup.describe())


@pytest.mark.parametrize("best, model, reason", [(0, True, "generation 0"),
                                                 (3, False, "is missing")])
def test_no_zero_agent_from_an_untrained_or_broken_run(tmp_path, best, model, reason):
    _zero_run(tmp_path, best, model)
    path, why = zero_network(zero_run(tmp_path), tmp_path)
    assert path is None and reason in why


def test_big_board_lineup_adds_the_networks_that_exist(tmp_path):
    quick = big_board_lineup(QUICK, tmp_path, *networks(tmp_path), gnugo=True)
    assert quick.size == 19 and quick.anchors == ["random"]
    assert quick.players == ["policy:pretrained=sl-19"]
    # tmp_path is a checkout without docs/matches: the records are left out, and said so.
    assert quick.recorded == []
    assert [note for note in quick.notes if "recorded match" in note] == [
        f"the recorded match {folder} is not in this checkout: left out"
        for folder in QUICK.big_recorded]

    full = big_board_lineup(FULL, tmp_path, *networks(tmp_path), gnugo=True)
    # No runs of one's own: the shipped sl-19, rl-19 and value-19 play, each
    # named as the network the earlier notebook's full run trained, with its card.
    assert full.players == ["policy:pretrained=sl-19", "policy:pretrained=rl-19,name=rl-policy",
                            f"alphago:policy_pretrained=sl-19,value_pretrained=value-19,"
                            f"readouts={FULL.alphago_readouts},mix={FULL.alphago_mix:g},"
                            f"name=alphago-{FULL.alphago_readouts}"]
    assert len(full.notes) == 2 + len(FULL.big_recorded)  # rl-19's, value-19's, the records'
    assert full.notes[0].startswith("rl-19, the RL policy that notebook 03's full run trained, "
                                    "as it ships with mockgo ("
                                    + pretrained.card("rl-19")["headline"])
    assert "value-19, the value network that notebook 02's full run trained" in full.notes[1]
    assert "missing" not in " ".join(full.notes[:2])
    assert full.anchors == list(FULL.big_anchors)
    rl = notebook.rl_policy_path(tmp_path, False)
    value = notebook.value_path(tmp_path, False)
    for path in (rl, value):
        path.parent.mkdir(parents=True)
        path.write_bytes(b"")
    full = big_board_lineup(FULL, tmp_path, *networks(tmp_path), gnugo=False)
    # the notes: GnuGo's, and the records'
    assert full.anchors == ["random"] and len(full.notes) == 1 + len(FULL.big_recorded)
    sl, rl_spec, alphago = full.players
    assert rl_spec == f"policy:path={rl.resolve()},name=rl-policy"
    assert alphago.startswith("alphago:policy_pretrained=sl-19,value=")
    assert f"readouts={FULL.alphago_readouts}" in alphago
    assert str(tmp_path) not in full.describe()
    assert f"policy:path={rl.relative_to(tmp_path)},name=rl-policy" in full.describe()


def test_the_big_board_lineup_reads_the_recorded_matches_named_as_the_repository_names_them():
    root = notebook.repo_root()
    for preset in (QUICK, FULL):
        lineup = big_board_lineup(preset, root, *networks(root), gnugo=True)
        assert [m.out_dir for m in lineup.recorded] == list(preset.big_recorded)
        assert not any("recorded match" in note for note in lineup.notes)
        for m in lineup.recorded:  # whole 40-game matches on the ladder's board
            assert (m.n, m.size, m.komi, m.spec_b) == (40, lineup.size, 7.5, "gnugo:level=10")
            assert f"({m.out_dir})" in lineup.describe() and str(root) not in lineup.describe()
    # Full mode plays sl-19 against level 10 itself; quick mode reads that pairing's record.
    quick = big_board_lineup(QUICK, root, *networks(root), gnugo=True)
    assert [m.spec_a for m in quick.recorded] == [
        "alphago:policy_pretrained=sl-19,value_pretrained=value-19,readouts=1600,mix=0.5",
        "policy:pretrained=sl-19", "policy:pretrained=sl-19-13x192"]
    full = big_board_lineup(FULL, root, *networks(root), gnugo=True)
    assert "gnugo:level=1" in [m.spec_a for m in full.recorded]  # the anchors' 40 games
    # Without GnuGo, quick mode's records still link level 10 to sl-19 (which
    # plays random); full mode's records, linked to each other through level 10
    # alone, would hang in the air: left out.
    assert len(big_board_lineup(QUICK, root, *networks(root), gnugo=False).recorded) == 3
    alone = big_board_lineup(FULL, root, *networks(root), gnugo=False)
    assert alone.recorded == [] and any("shares no player with this ladder" in note
                                        for note in alone.notes)


def test_what_search_buys_compares_the_searches_with_the_policy_against_one_opponent():
    from mockgo.arena.ladder import LadderResult, fit_ratings

    policy, opponent = "policy:pretrained=sl-19", "gnugo:level=10"
    weak = "alphago:policy_pretrained=sl-19,readouts=100,name=a-100"
    strong = "alphago:policy_pretrained=sl-19,readouts=1600,name=a-1600"
    # A search over another policy is rated higher still, and is not sl-19's to compare.
    other = "alphago:policy_pretrained=sl-19-13x192,seconds=9.5,name=a-large"
    results = [(policy, "random", 40, 40), (opponent, "random", 40, 40), (policy, opponent, 14, 40),
               (weak, opponent, 8, 40), (strong, opponent, 19, 40), (other, opponent, 35, 40)]
    ratings = fit_ratings(results, "random")
    for spec, name in ((policy, "sl-19"), (weak, "a-100"), (strong, "a-1600"), (other, "a-large")):
        ratings[spec].name = name
    text, gap = what_search_buys(LadderResult(ratings, results, []), policy, opponent)
    # The gap is the best-rated search's, on the fitted scale: more games won, higher.
    assert gap == pytest.approx(ratings[strong].elo - ratings[policy].elo) and gap > 0
    lines = text.splitlines()
    assert [line.split(":")[0] for line in lines[:3]] == ["sl-19", "a-1600", "a-100"]
    assert "a-large" not in text
    assert lines[1].startswith("a-1600: 19 of 40 against gnugo:level=10 (47.5%, 95% 32.9% to")
    assert lines[3] == f"the best-rated search, a-1600, against sl-19 alone: {gap:+.0f} Elo"
    # Nothing to compare: said, and no gap.
    text, gap = what_search_buys(LadderResult(ratings, results[:2], []), policy, opponent)
    assert gap is None and "nothing to compare" in text


@pytest.mark.parametrize("search, policy, built_on", [
    ("alphago:policy_pretrained=sl-19,readouts=100", "policy:pretrained=sl-19", True),
    ("alphago:policy_pretrained=sl-19-13x192,seconds=9.5", "policy:pretrained=sl-19", False),
    ("alphago:policy=/nets/p.keras,value=/nets/v.keras", "policy:path=/nets/p.keras,name=p", True),
    ("alphago:policy=/nets/p.keras", "policy:path=/nets/q.keras", False),
    ("alphago:policy_pretrained=sl-19", "policy:path=/nets/p.keras", False),
    ("policy:pretrained=sl-19", "policy:pretrained=sl-19", False),
])
def test_a_search_is_built_on_the_policy_it_names(search, policy, built_on):
    from mockgo.arena.lineups import _built_on

    assert _built_on(search, policy) is built_on


def test_what_a_bigger_network_buys_compares_it_with_the_small_one_and_its_searches():
    from mockgo.arena.ladder import LadderResult, fit_ratings

    small, large, opponent = "policy:pretrained=sl-19", "policy:pretrained=sl-19-13x192", \
        "gnugo:level=10"
    search = "alphago:policy_pretrained=sl-19,readouts=1600,name=a-1600"
    # The large network's own search is rated above it: not one of the small one's.
    over_large = "alphago:policy_pretrained=sl-19-13x192,seconds=9.5,name=a-large"
    results = [(small, "random", 40, 40), (opponent, "random", 40, 40), (small, opponent, 14, 40),
               (search, opponent, 19, 40), (large, opponent, 28, 40),
               (over_large, opponent, 35, 40)]
    ratings = fit_ratings(results, "random")
    for spec, name in ((small, "sl-19"), (large, "sl-19-13x192"), (search, "a-1600"),
                       (over_large, "a-large")):
        ratings[spec].name = name
    text, gap = what_a_bigger_network_buys(LadderResult(ratings, results, []), small,
                                                    large, opponent)
    # Measured against the best of the small network and its searches: here the search.
    assert gap == pytest.approx(ratings[large].elo - ratings[search].elo) and gap > 0
    lines = text.splitlines()
    assert [line.split(":")[0] for line in lines[:2]] == ["sl-19", "sl-19-13x192"]
    assert lines[1].startswith("sl-19-13x192: 28 of 40 against gnugo:level=10 (70.0%, 95% 54.6%")
    assert lines[2] == (f"sl-19-13x192 alone against the best-rated of sl-19 and its searches, "
                        f"a-1600: {gap:+.0f} Elo")
    # The large network's match is not on the ladder: nothing to compare.
    text, gap = what_a_bigger_network_buys(LadderResult(ratings, results[:4], []),
                                                    small, large, opponent)
    assert gap is None and "nothing to compare" in text


def _record(visits, win_rate, move=None):
    visits = np.asarray(visits, float)
    move = int(np.argmax(visits)) if move is None else move
    return SearchRecord(Board(2), visits, visits * win_rate, move, win_rate)


def test_key_moves_opening_turning_point_and_hardest_choice():
    records = [_record([10, 0, 0, 0, 0], 0.5),     # opening
               _record([9, 1, 0, 0, 0], 0.55),
               _record([5, 4, 1, 0, 0], 0.5),      # closest call while open
               _record([9, 1, 0, 0, 0], 0.1),      # the biggest swing
               _record([5, 5, 0, 0, 0], 0.0)]      # a tie, but the game is lost
    assert key_moves(records, 3) == [0, 2, 3]
    assert key_moves(records, 2) == [0, 3]
    assert key_moves(records[:1], 3) == [0] and key_moves([], 3) == []
    # Coinciding picks are filled with searches spread over the game.
    flat = [_record([10, 0, 0, 0, 0], 0.95) for _ in range(9)]
    assert len(key_moves(flat, 3)) == 3


def test_a_search_record_reads_its_statistics():
    record = _record([2, 6, 0, 0, 2], 0.25)
    assert record.move == 1 and record.move_number == 1
    assert record.visit_share.sum() == pytest.approx(1.0)
    assert record.top(2) == [(1, 6, 0.25), (0, 2, 0.25)]


def test_the_recorder_wants_a_uct_player():
    with pytest.raises(TypeError):
        SearchRecorder(RandomPlayer())


def test_showcase_game_records_every_search_and_reads_them_back(tmp_path):
    show = showcase_game("uct:playouts=30", "random", 5, tmp_path, seed=3, scorer="tromp-taylor")
    game = show.game
    searches = (game.board.move_number + 1) // 2  # black's moves
    assert 0 < len(show.records) <= searches
    for record in show.records:
        assert record.board.to_play == 1 and record.visits.sum() >= 30
        assert record.visits[record.move] == record.visits.max()  # the most visited is played
        assert record.board.history == game.board.history[:record.board.move_number]
    again = showcase_game("uct:playouts=30", "random", 5, tmp_path, seed=3,
                          scorer="tromp-taylor")
    assert again.game.result == game.result and len(again.records) == len(show.records)
    for a, b in zip(show.records, again.records):
        assert a.board.hash == b.board.hash and a.move == b.move
        np.testing.assert_array_equal(a.visits, b.visits)


def test_draw_ratings_on_given_axes():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ratings = {"uct": Rating("uct-200", 400, 100, 700),
               "random": Rating("random", 0, 0, 0, anchor=True)}
    fig, ax = plt.subplots()
    assert draw_ratings(ratings, ax=ax, title="t") is ax
    assert [t.get_text() for t in ax.get_yticklabels()] == ["random", "uct-200"]
    plt.close(fig)
