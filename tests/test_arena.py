"""Matches, their statistics, the ladder's rating fit, and the mockgo command."""

import math
from types import SimpleNamespace

import numpy as np
import pytest

from mockgo.arena.ladder import fit_ratings, ladder
from mockgo.cli import SUBCOMMANDS, main
from mockgo.data.sgf_reader import load_sgf, replay
from mockgo.go import coords
from mockgo.go.board import BLACK, EMPTY, WHITE
from mockgo.play.match import match
from mockgo.play.gtp_player import GTPPlayer
from mockgo.play.player import RESIGN, Choices, Player
from mockgo.play.random_player import RandomPlayer
from mockgo.play.specs import format_spec, make_player, parse_spec
from mockgo.play.results import (MatchResult, elo_from_rate, elo_interval, rate_from_elo,
                                 wilson_interval)
from mockgo.play.runner import play_games
from mockgo.play.scoring import TrompTaylorScorer, score_and_save

# ------------------------------------------------------------- statistics


@pytest.mark.parametrize("successes, n, low, high", [
    (8, 10, 0.4902, 0.9433),
    # Newcombe (1998), "Two-sided confidence intervals for the single
    # proportion", Statistics in Medicine 17, Table I, method 3 (Wilson).
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
    (5, 10, 0.2366, 0.7634),
])
def test_wilson_interval_known_values(successes, n, low, high):
    got = wilson_interval(successes, n)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_wilson_interval_edges():
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert wilson_interval(10, 10)[0] == pytest.approx(1 - wilson_interval(0, 10)[1])
    assert wilson_interval(8, 10, confidence=0.99)[0] < wilson_interval(8, 10)[0]
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_elo_arithmetic():
    assert elo_from_rate(0.5) == 0
    assert elo_from_rate(0.75) == pytest.approx(400 * math.log10(3))  # 190.85
    assert elo_from_rate(10 / 11) == pytest.approx(400)
    assert elo_from_rate(0.25) == pytest.approx(-elo_from_rate(0.75))
    assert rate_from_elo(400) == pytest.approx(10 / 11)
    assert rate_from_elo(elo_from_rate(0.3)) == pytest.approx(0.3)
    assert elo_from_rate(0.0) == -math.inf and elo_from_rate(1.0) == math.inf
    # 8/10: the Wilson bounds through the Elo formula.
    low, high = elo_interval(8, 10)
    assert low == pytest.approx(400 * math.log10(0.49016 / 0.50984), abs=0.1)
    assert high == pytest.approx(400 * math.log10(0.94334 / 0.05666), abs=0.5)
    # A sweep: infinite on one side, and a finite bound on the other.
    assert elo_interval(10, 10) == (pytest.approx(166.2, abs=0.1), math.inf)
    assert elo_interval(0, 10) == (-math.inf, pytest.approx(-166.2, abs=0.1))


def game(index, winner, reason="score"):
    """What MatchResult reads of a played game (A is black in the even ones)."""
    return SimpleNamespace(index=index, winner=winner, reason=reason,
                           board=SimpleNamespace(move_number=50))


def test_match_result_counts_by_colour_and_draws_as_halves():
    games = [game(0, BLACK), game(1, BLACK), game(2, WHITE), game(3, EMPTY), game(4, BLACK)]
    result = MatchResult("A", "B", "a", "b", 9, 7.5, games)
    # A is black in games 0, 2, 4 (won 0 and 4) and white in 1 and 3 (lost 1, drew 3).
    assert (result.wins_a, result.wins_b, result.draws) == (2, 2, 1)
    assert result.by_color() == {"black": (3, 2, 1, 0), "white": (2, 0, 1, 1)}
    assert result.win_rate == pytest.approx(2.5 / 5)
    assert result.interval() == pytest.approx(wilson_interval(2.5, 5))
    assert result.elo() == 0
    assert (result.name_a, result.name_b) == ("A", "B")
    table = result.table()
    assert "A as black" in table and "50.0%" in table and "Elo A - B" in table


# ------------------------------------------------------------------ specs


def test_player_specs():
    assert parse_spec("random") == ("random", {})
    assert parse_spec("random:seed=3") == ("random", {"seed": "3"})
    assert parse_spec("policy:path=models/sl.keras,temperature=0.5") == (
        "policy", {"path": "models/sl.keras", "temperature": "0.5"})
    assert parse_spec("gtp:name=x,cmd=gnugo --mode gtp --x=1,2") == (
        "gtp", {"name": "x", "cmd": "gnugo --mode gtp --x=1,2"})
    for bad in ["", ":seed=1", "random:seed", "random:seed=1,seed=2"]:
        with pytest.raises(ValueError):
            parse_spec(bad)
    with pytest.raises(ValueError, match="unknown player kind"):
        make_player("alphago-zero")
    with pytest.raises(ValueError, match="unexpected keyword"):
        make_player("random:temperature=1")
    with pytest.raises(ValueError, match="path"):
        make_player("policy")
    player = make_player("random:seed=3,name=dice")
    assert isinstance(player, RandomPlayer) and player.name == "dice" and player.seed == 3


def test_a_spec_written_by_format_spec_reads_back_as_it_was_given(tmp_path):
    assert format_spec("random") == "random"
    spec = format_spec("alphago", policy_pretrained="sl-19", value=tmp_path / "v.keras",
                       readouts=800, mix=0.5, seed=None, name="alphago-800")
    assert spec == f"alphago:policy_pretrained=sl-19,value={tmp_path / 'v.keras'},readouts=800," \
                   f"mix=0.5,name=alphago-800"
    assert parse_spec(spec) == ("alphago", {"policy_pretrained": "sl-19",
                                            "value": str(tmp_path / "v.keras"), "readouts": "800",
                                            "mix": "0.5", "name": "alphago-800"})
    assert format_spec("alphago", mix=0.0) == "alphago:mix=0"
    command = format_spec("gtp", name="g", cmd="gnugo --mode gtp --x=1,2")
    assert parse_spec(command) == ("gtp", {"name": "g", "cmd": "gnugo --mode gtp --x=1,2"})
    with pytest.raises(ValueError, match="a value has no commas"):
        format_spec("policy", path="a,b.keras")
    with pytest.raises(ValueError, match="cmd must come last"):
        format_spec("gtp", cmd="gnugo", name="g")


def test_gtp_player_follows_the_game_and_resyncs_after_an_undo(gnugo_path):
    from mockgo.go.board import Board

    with make_player(f"gtp:cmd={gnugo_path} --mode gtp --level 0") as gnugo:
        assert isinstance(gnugo, GTPPlayer) and gnugo.name.startswith("GNU Go")
        board = Board(9, komi=6.5)
        gnugo.start_game(0, board, np.random.default_rng(0))
        board.play(coords.from_gtp("E5", 9))
        reply = gnugo.select_move(board)
        board.play(reply)
        # GnuGo's reply varies with its seed: black's next move must be free.
        board.play(next(m for m in (coords.from_gtp(v, 9) for v in ("C3", "G7", "C7"))
                        if board.is_legal(m)))
        gnugo.select_move(board)  # the engine got that move on the way
        assert gnugo._sent[:3] == [(c, m) for c, m in board.history]
        # A different game (a new board): the engine is set up again.
        other = Board(9, komi=6.5)
        other.play(coords.from_gtp("D4", 9))
        move = gnugo.select_move(other)
        assert other.is_legal(move) and gnugo._sent[0] == (BLACK, coords.from_gtp("D4", 9))


# ------------------------------------------------------------------ games


class Stubborn(Player):
    """Plays the same point every move: illegal on its second move."""

    name = "stubborn"

    def choose(self, turns):
        return Choices(np.zeros(len(turns), np.int64), np.zeros(len(turns)))


class Quitter(Player):
    name = "quitter"

    def choose(self, turns):
        return Choices(np.full(len(turns), RESIGN), np.zeros(len(turns)))


def test_an_illegal_move_forfeits_and_a_resignation_ends_the_game(tmp_path):
    result, = play_games(Stubborn(), RandomPlayer(seed=1), 1, 5, rng=0)
    score_and_save(result, sgf_path=tmp_path / "f.sgf")
    assert (result.reason, result.result, result.winner) == ("forfeit", "W+F", WHITE)
    assert "illegal" in result.note and load_sgf(tmp_path / "f.sgf").result == "W+F"
    result, = play_games(RandomPlayer(seed=1), Quitter(), 1, 5, rng=0)
    score_and_save(result)
    assert (result.reason, result.result, result.board.move_number, result.path) == \
        ("resign", "B+R", 1, None)


def test_move_cap_and_tromp_taylor_scoring(tmp_path):
    result, = play_games(RandomPlayer(seed=2), RandomPlayer(seed=3), 1, 5, komi=0.5, rng=0,
                         max_moves=10)
    score_and_save(result, TrompTaylorScorer(), sgf_path=tmp_path / "cap.sgf")
    assert result.reason == "move cap" and result.board.move_number == 10
    assert result.result == result.board.result()
    record = load_sgf(tmp_path / "cap.sgf")
    assert len(record.moves) == 10 and "move cap" in record.game_comment


def test_random_against_gnugo_level_1(gnugo_path, tmp_path):
    games = 8
    result = match("random", "gnugo:level=1", games=games, size=9, komi=7.5, workers=2,
                   out_dir=tmp_path, scorer="gnugo", seed=7, verbose=False)
    assert result.n == games and result.name_a == "random" and result.name_b == "gnugo-l1"
    assert result.by_color()["black"][0] == result.by_color()["white"][0] == games // 2
    assert result.wins_b / games >= 0.8  # GnuGo wins (nearly) all
    low, high = result.interval()
    assert low <= result.win_rate <= high and high < 0.5
    assert result.elo() < 0 and result.elo_interval()[1] < 0
    files = sorted(tmp_path.glob("*.sgf"))
    assert len(files) == games
    for g in result.games:
        assert g.reason in ("score", "resign")  # no forfeit: every move was legal
        record = load_sgf(g.path)
        assert (record.black, record.white) == g.names
        assert record.result == g.result and record.size == 9 and record.komi == 7.5
        positions = list(replay(record))
        assert record.problem is None and len(positions) == g.board.move_number
        if g.reason == "score":
            margin = float(g.result[2:])
            assert 0 < margin <= 81 + 7.5
            assert "removing" in record.game_comment
            assert g.winner == (BLACK if g.result[0] == "B" else WHITE)
    assert "A as black" in result.table()


def test_match_in_process_is_reproducible(tmp_path):
    first = match("random", "random", games=2, size=5, workers=1, out_dir=tmp_path / "a",
                  scorer="tromp-taylor", seed=1, verbose=False)
    again = match("random", "random", games=2, size=5, workers=1, out_dir=False,
                  scorer="tromp-taylor", seed=1, verbose=False)
    assert [g.result for g in first.games] == [g.result for g in again.games]
    assert [g.board.history for g in first.games] == [g.board.history for g in again.games]
    assert again.out_dir is None and len(list((tmp_path / "a").glob("*.sgf"))) == 2


# ----------------------------------------------------------------- ladder


def test_ladder_fit_recovers_known_differences():
    # B scores 76% against A, C 64% against B: 200 and 100 Elo (near enough).
    table = [("B", "A", 760, 1000), ("C", "B", 640, 1000)]
    ratings = fit_ratings(table, anchor="A", prior_games=0)
    assert list(ratings) == ["C", "B", "A"]
    assert ratings["A"].elo == 0 and ratings["A"].anchor
    assert ratings["B"].elo == pytest.approx(elo_from_rate(0.76), abs=1e-6)
    assert ratings["C"].elo == pytest.approx(elo_from_rate(0.76) + elo_from_rate(0.64), abs=1e-6)
    # B's interval: its standard error from the curvature, by hand:
    # 1 / sqrt(n p (1 - p)) log-odds, in Elo.
    sd = 400 / math.log(10) / math.sqrt(1000 * 0.76 * 0.24)
    assert ratings["B"].high - ratings["B"].elo == pytest.approx(1.959964 * sd, rel=1e-4)
    assert ratings["B"].games == 2000 and ratings["B"].score == 760 + 360
    # Rows for one pair add up, whichever way round they are written.
    split = fit_ratings([("B", "A", 380, 500), ("A", "B", 120, 500), ("C", "B", 640, 1000)],
                        anchor="A", prior_games=0)
    assert split["C"].elo == pytest.approx(ratings["C"].elo)


def test_ladder_fit_with_sweeps_and_a_consistent_table():
    table = [("gnugo-1", "random", 10, 10), ("gnugo-10", "random", 10, 10),
             ("gnugo-10", "gnugo-1", 8, 10), ("mine", "random", 7, 10), ("mine", "gnugo-1", 1, 10)]
    ratings = fit_ratings(table, anchor="random")
    assert all(math.isfinite(r.elo) and r.low < r.elo < r.high for r in ratings.values()
               if not r.anchor)
    assert list(ratings) == ["gnugo-10", "gnugo-1", "mine", "random"]
    # The prior: one virtual draw makes 10-0 read as 10.5-0.5 on a lone pair.
    lone = fit_ratings([("x", "random", 10, 10)], anchor="random")
    assert lone["x"].elo == pytest.approx(elo_from_rate(10.5 / 11))
    with pytest.raises(ValueError, match="linked"):
        fit_ratings([("a", "b", 1, 2), ("c", "d", 1, 2)], anchor="a")
    with pytest.raises(ValueError, match="anchor"):
        fit_ratings([("a", "b", 1, 2)], anchor="z")


def check_ladder_ratings(result, anchor, prior_games=1.0):
    """The ratings of a ladder agree with its games: the anchor is fixed at
    0; each player's games and score are the sums of its matches' (each
    match's games played in full, or read back in full); and the ratings solve the
    Bradley-Terry likelihood equations (module docstring of
    mockgo.arena.ladder): against the opponents it met, each rated
    player's expected score, with one virtual draw per pair, equals its
    actual score."""
    matches = result.recorded + result.matches  # the recorded ones' rows come first
    assert [m.n for m in matches] == [games for _, _, _, games in result.results]
    assert [m.score_a for m in matches] == [score for _, _, score, _ in result.results]
    ratings = result.ratings
    assert ratings[anchor].anchor and ratings[anchor].elo == 0
    assert ratings[anchor].low == ratings[anchor].high == 0
    assert [spec for spec, r in ratings.items() if r.anchor] == [anchor]
    for spec, rating in ratings.items():
        mine = [(score, games) if a == spec else (games - score, games)
                for a, b, score, games in result.results if spec in (a, b)]
        assert rating.games == sum(games for _, games in mine)
        assert rating.score == sum(score for score, _ in mine)
        if rating.anchor:
            continue
        assert rating.low < rating.elo < rating.high
        expected = actual = 0.0
        for a, b, score, games in result.results:
            if spec in (a, b):
                other = ratings[b if a == spec else a].elo
                expected += (games + prior_games) * rate_from_elo(rating.elo - other)
                actual += (score if a == spec else games - score) + prior_games / 2
        assert expected == pytest.approx(actual, abs=1e-6), spec


def test_ladder_end_to_end_on_a_small_board(tmp_path):
    plot = tmp_path / "ladder.png"
    result = ladder(["random:seed=5,name=other"], anchors=["random"], games=4, size=5,
                    workers=1, out_dir=tmp_path / "games", plot=str(plot), verbose=False)
    assert set(result.ratings) == {"random", "random:seed=5,name=other"}
    assert result.ratings["random:seed=5,name=other"].name == "other"
    check_ladder_ratings(result, "random")
    # One pair: the rating is the Elo of the score with the virtual draw.
    (_, _, score, games), = result.results
    assert result.ratings["random:seed=5,name=other"].elo == pytest.approx(
        elo_from_rate((games - score + 0.5) / (games + 1)))
    assert len(list((tmp_path / "games").rglob("*.sgf"))) == 4
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "anchor" in result.table()


class FirstPoint(Player):
    """A player written as a learner would: the lowest sensible point."""

    name = "first-point"

    def choose(self, turns):
        moves = [int(np.flatnonzero(t.mask)[0]) for t in turns]
        return Choices(np.array(moves), np.zeros(len(moves)))


def test_a_player_object_joins_the_ladder_under_its_name_played_in_this_process(tmp_path):
    # workers=2: its match is played here (a class of a notebook cannot reach
    # a worker process), so no worker is started for it.
    result = ladder([FirstPoint()], anchors=["random"], games=4, size=5, workers=2,
                    out_dir=tmp_path / "games", plot=None, verbose=False)
    assert set(result.ratings) == {"random", "first-point"}
    assert result.ratings["first-point"].games == 4
    assert result.results[0][:2] == ("first-point", "random")
    check_ladder_ratings(result, "random")
    assert len(list((tmp_path / "games").rglob("*first-point*.sgf"))) == 4
    # A name another player of the ladder has is refused.
    clash = FirstPoint()
    clash.name = "random"
    with pytest.raises(ValueError, match="two players of the ladder are called 'random'"):
        ladder([clash], anchors=["random"], games=2, size=5, workers=1, out_dir=None,
               plot=None, verbose=False)


def test_ladder_reports_its_matches_as_one_table(tmp_path, capsys):
    ladder(["random:seed=5,name=other", "random:seed=7"], anchors=["random"], games=4, size=5,
           workers=1, out_dir=tmp_path / "games", plot=None, verbose=True)
    lines = capsys.readouterr().out.splitlines()
    # the header once, then one row a match (no match's own 20-line report)...
    assert lines[0].split()[:4] == ["A", "B", "games", "A"]
    assert [line.split()[:3] for line in lines[1:3]] == [["1", "other", "random"],
                                                         ["2", "random", "random"]]
    assert not any("A as black" in line or "== match" in line for line in lines)
    # ...then the ratings, where a name two players share gets its spec
    table = "\n".join(lines[3:])
    assert "random (random:seed=7)" in table and "random *" in table


def test_a_recorded_match_joins_the_fit_and_rates_a_player_the_ladder_never_played(tmp_path,
                                                                                   capsys):
    from mockgo.play.match_folder import read_match

    # "far" met only "other", in a match played before (and elsewhere)...
    match("random:seed=9,name=far", "random:seed=5,name=other", games=6, size=5, seed=2,
          out_dir=tmp_path / "record")
    record = read_match(tmp_path / "record")
    result = ladder(["random:seed=5,name=other"], anchors=["random"], games=4, size=5,
                    workers=1, out_dir=tmp_path / "games", plot=None, verbose=True,
                    recorded=[record])
    printed = capsys.readouterr().out
    # ...and is rated through "other", on its real record, exactly as if played here.
    far, other = "random:seed=9,name=far", "random:seed=5,name=other"
    assert set(result.ratings) == {"random", other, far}
    assert result.ratings[far].name == "far"
    assert result.ratings[far].games == 6 and result.ratings[far].score == record.score_a
    assert (record.spec_a, record.spec_b, record.score_a, 6) in result.results
    expected = fit_ratings([(record.spec_a, record.spec_b, record.score_a, 6),
                            *[row for row in result.results if far not in row[:2]]], "random")
    assert result.ratings[far].elo == pytest.approx(expected[far].elo)
    check_ladder_ratings(result, "random")
    assert len(result.matches) == 1  # only other vs random was played
    # The record is a row of the match table, and the ratings table names its folder and command.
    assert [line.split()[:3] for line in printed.splitlines()[1:3]] == [
        ["r1", "far", "other"], ["1", "other", "random"]]
    table = result.table()
    assert f"read from {tmp_path / 'record'}" in table and record.command() in table
    # A player's record against an opponent adds its matches up, from either side.
    assert result.record(other, far) == (6 - record.score_a, 6)
    line = result.against(other, [far]).splitlines()[0]
    assert line.startswith(f"far: {record.score_a:g} of 6 against other (")
    assert f"recorded in {tmp_path / 'record'}); rated" in line
    assert "recorded" not in result.against("random", [other])
    with pytest.raises(ValueError, match="played no games against random"):
        result.against("random", [far])
    # A record of another board cannot join.
    with pytest.raises(ValueError, match=r"in .*record was played on 5x5 with komi 7.5: it "
                                         r"cannot join a 7x7 ladder"):
        ladder(["random:seed=5,name=other"], anchors=["random"], games=2, size=7, workers=1,
               out_dir=None, plot=None, verbose=False, recorded=[record])


def test_ladder_rates_a_much_stronger_player_far_above(gnugo_path, tmp_path):
    strong = f"gnugo:level=1,binary={gnugo_path}"
    result = ladder([strong], anchors=["random", "random:seed=5,name=other"], games=4, size=5,
                    workers=1, out_dir=None, plot=None, verbose=False)
    check_ladder_ratings(result, "random")
    # GnuGo beats a random player in every game on 5x5...
    assert [(a, score, games) for a, _, score, games in result.results if a == strong] == [
        (strong, 4, 4), (strong, 4, 4)]
    # ...so it is rated first, well above both random players (4-0 against
    # each reads as 4.5-0.5 with the virtual draw: about 380 Elo).
    ratings = list(result.ratings.values())
    assert ratings[0].name == "gnugo-l1"
    assert ratings[0].elo > max(r.elo for r in ratings[1:]) + 300


# -------------------------------------------------------------------- cli


def test_cli_match(tmp_path, capsys):
    assert set(SUBCOMMANDS) >= {"gtp", "match", "ladder"}
    status = main(["match", "--black", "random:seed=1", "--white", "random:seed=2",
                   "--games", "2", "--size", "5", "--workers", "1", "--scorer", "tromp-taylor",
                   "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0 and "A as white" in out and "Elo A - B" in out
    assert len(list(tmp_path.glob("*.sgf"))) == 2
    assert main(["match", "--black", "nonsense", "--white", "random"]) == 1


def test_cli_ladder_rates_a_player_from_a_recorded_match(tmp_path, capsys):
    main(["match", "--black", "random:seed=9,name=far", "--white", "random:seed=2",
          "--games", "2", "--size", "5", "--workers", "1", "--scorer", "tromp-taylor",
          "--out", str(tmp_path / "record")])
    capsys.readouterr()
    status = main(["ladder", "--player", "random:seed=2", "--anchor", "random", "--games", "2",
                   "--size", "5", "--workers", "1", "--out", str(tmp_path / "games"),
                   "--plot", str(tmp_path / "ladder.png"), "--quiet",
                   "--recorded", str(tmp_path / "record")])
    out = capsys.readouterr().out
    assert status == 0 and any(line.startswith("far ") for line in out.splitlines()[1:4])
    assert f"read from {tmp_path / 'record'}, played by:" in out
    assert main(["ladder", "--player", "random:seed=2", "--anchor", "random",
                 "--recorded", str(tmp_path / "nothing")]) != 0


# ------------------------------------------------------ network and search


def test_policy_player_greedy_sampled_and_sensible(tmp_path):
    import numpy as np

    from mockgo.go.board import Board
    from mockgo.nets import models
    from mockgo.play.policy_player import PolicyPlayer

    model = models.policy_network(5, 48, layers=2, filters=4)
    path = tmp_path / "p5.keras"
    model.save(path)
    greedy = make_player(f"policy:path={path}")
    assert isinstance(greedy, PolicyPlayer) and greedy.name == "policy:p5.keras"
    board = Board(5)
    p = greedy.policy(board)
    assert p.shape == (26,) and p.sum() == pytest.approx(1) and p[-1] == 0
    assert greedy.select_move(board) == int(np.argmax(p))
    hot = [PolicyPlayer(model, temperature=2.0, seed=4) for _ in range(2)]
    assert [hot[0].select_move(board) for _ in range(5)] == \
        [hot[1].select_move(board) for _ in range(5)]
    # Black's only empty points are its own eyes: it passes instead of filling one.
    eyes = Board.from_diagram("""
        . X O . O
        X X O O O
        X . X O .
        X X X O O
        . X O O .""")
    assert greedy.select_move(eyes) == eyes.pass_index
    # Nor a point of its two-point eye (A1-A2), in a real game: spec players
    # (answer_passes) pass; REINFORCE's players keep the single-point rule.
    two_point = Board.from_diagram("""
        . X O . O
        X X O O O
        X X X O .
        . X X O O
        . X O O .""")
    assert greedy.answer_passes and greedy.select_move(two_point) == two_point.pass_index
    assert PolicyPlayer(model).select_move(two_point) in (
        coords.from_gtp("A1", 5), coords.from_gtp("A2", 5))
    for spec in ("mcts:readouts=16,seed=0", "uct:playouts=64,seed=0"):
        assert make_player(spec).select_move(two_point) == two_point.pass_index, spec
    with pytest.raises(ValueError, match="5x5 only"):
        greedy.check_size(9)
    with pytest.raises(ValueError, match="planes"):
        PolicyPlayer(model, encoder="agz17")


def test_search_specs_take_a_time_budget_instead_of_readouts():
    from mockgo.go.board import Board
    from mockgo.play.search_player import SearchPlayer
    from mockgo.search.evaluators import uniform_evaluator

    player = make_player("mcts:seconds=0.05,seed=0")
    assert player.name == "mcts-uniform-0.05s" and player.seconds == 0.05
    board = Board(5)
    assert board.is_legal(player.select_move(board))
    assert player.trees[0].root.child_N.sum() > 0
    assert make_player("mcts:readouts=8").seconds is None
    assert make_player("uct:seconds=0.5").name == "uct-0.5s"
    with pytest.raises(ValueError, match="step-wise"):
        SearchPlayer(uniform_evaluator, seconds=1.0, stepwise=True)
    with pytest.raises(ValueError, match="step-wise"):
        SearchPlayer(uniform_evaluator, stop_early=True, stepwise=True)
    assert make_player("mcts:seconds=1,stop_early=1").options["stop_early"]
    with pytest.raises(ValueError, match="stop_early is 0 or 1"):
        make_player("mcts:readouts=8,stop_early=2")
    for spec in ("mcts:seconds=0", "mcts:seconds=inf", "mcts:seconds=abc", "uct:seconds=-1",
                 "alphago:policy=p.keras,seconds=nan"):
        with pytest.raises(ValueError, match="seconds= is the time a move"):
            make_player(spec)
    for spec in ("mcts:readouts=16,seconds=1", "uct:playouts=100,seconds=1"):
        with pytest.raises(ValueError, match="or seconds=, not both"):
            make_player(spec)


def test_search_player_keeps_its_trees_and_restarts_on_a_foreign_board():
    from mockgo.go.board import Board

    followed = {}
    player = make_player("mcts:readouts=8,seed=1")
    end_game = player.end_game

    def ending(game):  # each game's tree as the game ends
        followed[game] = player.trees[game].root.state.board.history
        return end_game(game)

    player.end_game = ending
    games = play_games(player, RandomPlayer(seed=2), 3, 5, komi=0.5, rng=0, max_moves=30)
    assert sorted(followed) == [0, 1, 2]
    for game in games:
        assert game.reason in ("score", "move cap", "resign") and game.board.move_number > 4
        # Each tree followed every move of its game (but a resignation, which is no move).
        assert followed[game.index] == game.board.history
    assert not player.trees  # freed at each game's end
    other = Board(5)
    other.play(coords.from_gtp("C3", 5))
    move = player.select_move(other)
    assert other.is_legal(move) and player.trees[0].root.state.board.history == other.history


def test_a_policy_players_first_moves_are_drawn_from_its_policy_then_it_is_greedy(tmp_path):
    import numpy as np

    from mockgo.go.board import Board
    from mockgo.nets import models
    from mockgo.play.policy_player import PolicyPlayer

    model = models.policy_network(5, 48, layers=2, filters=4)
    model.save(tmp_path / "p5.keras")
    player = make_player(f"policy:path={tmp_path / 'p5.keras'},softpick=2")
    assert isinstance(player, PolicyPlayer) and player.softpick_moves == 2
    opening, later = Board(5), Board(5)
    for move in ("C3", "B2"):
        later.play(coords.from_gtp(move, 5))
    drawn = {player.select_move(opening, np.random.default_rng(seed)) for seed in range(30)}
    best = int(np.argmax(player.policy(later)))
    assert len(drawn) > 3  # move 1 drawn at temperature 1
    assert {player.select_move(later, np.random.default_rng(seed)) for seed in range(10)} == {best}
    assert player.with_temperature(0.0).softpick_moves == 2
    with pytest.raises(ValueError, match="softpick is a number of moves >= 0"):
        make_player(f"policy:path={tmp_path / 'p5.keras'},softpick=-1")
