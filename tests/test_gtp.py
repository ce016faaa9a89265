"""mockgo's GTP engine, driven through real pipes (and, for the corners, in process)."""

import argparse
import os
import subprocess
import sys

import numpy as np
import pytest

import mockgo
from mockgo.gtp.cli import configure_parser
from mockgo.gtp.protocol import preprocess
from mockgo.gtp.server import GTPServer, free_handicap_points
from mockgo.go import coords
from mockgo.go.board import BLACK, WHITE, Board
from mockgo.go.ownership import estimate_dead
from mockgo.play.gtp_engine import GTPEngine, GTPError, gnugo_command
from mockgo.play.player import RESIGN, Choices, Player
from mockgo.play.random_player import RandomPlayer

ENGINE = [sys.executable, "-m", "mockgo.gtp", "--player", "random"]
ALL_COMMANDS = [
    "protocol_version", "name", "version", "known_command", "list_commands", "quit",
    "boardsize", "clear_board", "komi", "play", "genmove", "undo", "showboard",
    "final_score", "final_status_list", "fixed_handicap", "place_free_handicap",
    "set_free_handicap", "loadsgf", "time_settings", "time_left", "kgs-genmove_cleanup",
    "lz-analyze", "kata-analyze", "genmove_analyze", "lz-genmove_analyze", "kata-genmove_analyze",
]


@pytest.fixture(scope="module")
def engine():
    with GTPEngine(ENGINE, name="mockgo") as process:
        yield process


@pytest.fixture
def gtp(engine):
    """The engine on an empty 9x9 board, komi 7.5."""
    engine.send_many(["boardsize 9", "clear_board", "komi 7.5"])
    return engine


def grid(showboard):
    """The stone rows of a showboard answer: one list of size cells a row,
    top row first (the row labels, last-move brackets and notes left out)."""
    lines = showboard.strip("\n").splitlines()
    size = len(lines[0].split())
    return [line.replace("(", " ").replace(")", " ").split()[1:size + 1]
            for line in lines[1:-1]]


def board_after(size, moves):
    board = Board(size)
    for vertex in moves:
        board.play(coords.from_gtp(vertex, size))
    return board


def expect_error(engine, command, message):
    with pytest.raises(GTPError) as info:
        engine.send(command)
    assert info.value.message == message, command


# ------------------------------------------------------------ the basics


def test_identity_commands(gtp):
    assert gtp.send("protocol_version") == "2"
    assert gtp.send("name") == "mockgo"
    assert gtp.send("version").startswith(mockgo.__version__)
    assert gtp.send("list_commands").split("\n") == ALL_COMMANDS
    for command in ALL_COMMANDS:
        assert gtp.send(f"known_command {command}") == "true"
    assert gtp.send("known_command frobnicate") == "false"
    expect_error(gtp, "known_command", "syntax error")


def test_play_and_showboard_match_the_rules_engine(gtp):
    moves = ["E5", "C3", "G7", "C7", "D4", "pass"]
    colors = ["black", "white"] * 3
    for color, vertex in zip(colors, moves):
        assert gtp.send(f"play {color} {vertex}") == ""
    assert gtp.send("showboard").strip("\n") == str(board_after(9, moves))
    # Lower case, abbreviations, and a colour playing twice in a row.
    assert gtp.send("play B a1") == ""
    assert gtp.send("play b b1") == ""
    rows = grid(gtp.send("showboard"))
    assert rows[-1][:3] == ["X", "X", "."]


def test_bad_moves_are_refused_and_the_board_is_unchanged(gtp):
    gtp.send("play black E5")
    before = gtp.send("showboard")
    expect_error(gtp, "play white E5", "illegal move")  # occupied
    expect_error(gtp, "play white T19", "illegal move")  # off a 9x9 board
    expect_error(gtp, "play white J10", "illegal move")
    expect_error(gtp, "play white I5", "syntax error")  # no column I in GTP
    expect_error(gtp, "play white 55", "syntax error")
    expect_error(gtp, "play white E", "syntax error")
    expect_error(gtp, "play red E4", "syntax error")
    expect_error(gtp, "play white", "syntax error")
    expect_error(gtp, "play", "syntax error")
    assert gtp.send("showboard") == before


def test_suicide_and_ko_are_illegal(gtp):
    # White surrounds A1; black A1 would be suicide.
    for vertex in ["A2", "B1"]:
        gtp.send(f"play white {vertex}")
    expect_error(gtp, "play black A1", "illegal move")
    # A ko: white E5 in black's mouth, black F5 in white's; black takes at F5.
    gtp.send("clear_board")
    for color, vertex in [("b", "D5"), ("b", "E6"), ("b", "E4"), ("w", "F6"), ("w", "F4"),
                          ("w", "G5"), ("w", "E5")]:
        gtp.send(f"play {color} {vertex}")
    assert gtp.send("play black F5") == ""  # takes E5: a ko
    expect_error(gtp, "play white E5", "illegal move")  # the immediate retake
    gtp.send("play white A9")  # a ko threat elsewhere
    gtp.send("play black A1")
    assert gtp.send("play white E5") == ""  # now the retake is allowed


def test_boardsize_out_of_range_keeps_the_board(gtp):
    gtp.send("play black C3")
    expect_error(gtp, "boardsize 1", "unacceptable size")
    expect_error(gtp, "boardsize 26", "unacceptable size")
    expect_error(gtp, "boardsize nine", "syntax error")
    expect_error(gtp, "boardsize", "syntax error")
    rows = grid(gtp.send("showboard"))
    assert len(rows) == 9 and "X" in rows[6]
    assert gtp.send("boardsize 13") == ""
    assert len(grid(gtp.send("showboard"))) == 13
    assert gtp.send("boardsize 25") == "" and gtp.send("boardsize 2") == ""


def test_komi(gtp):
    assert gtp.send("komi 0.5") == ""
    assert gtp.send("komi -3") == ""
    expect_error(gtp, "komi lots", "syntax error")
    gtp.send("komi 6.5")
    assert gtp.send("final_score") == "W+6.5"  # an empty board


def test_komi_is_bounded(gtp):
    # 99999999999999999999 was taken, and final_score said W+1e+20.
    for komi in ("99999999999999999999", "1000.5", "-1001"):
        expect_error(gtp, f"komi {komi}", "syntax error")
    assert gtp.send("final_score") == "W+7.5"  # the komi before stays
    assert gtp.send("komi -1000") == "" and gtp.send("final_score") == "B+1000"
    assert gtp.send("komi 1000") == "" and gtp.send("final_score") == "W+1000"
    with pytest.raises(ValueError, match="komi 1e\\+20 is not a number from -1000 to 1000"):
        GTPServer(RandomPlayer(), size=9, komi=1e20)
    parser = configure_parser(argparse.ArgumentParser(prog="gtp"))
    assert parser.parse_args(["--komi", "-1000"]).komi == -1000
    with pytest.raises(SystemExit):
        parser.parse_args(["--komi", "1e20"])


def test_genmove_plays_a_legal_move_for_either_colour(gtp):
    gtp.send("play black E5")
    vertex = gtp.send("genmove white")
    move = coords.from_gtp(vertex, 9)
    assert vertex != "E5" and move != 81
    board = board_after(9, ["E5", vertex])
    assert grid(gtp.send("showboard")) == grid(str(board))
    # Black again, although white did not move: allowed by GTP.
    gtp.send("play white pass")
    gtp.send("genmove black")
    second = gtp.send("genmove black")  # twice in a row
    assert coords.from_gtp(second, 9) < 81
    expect_error(gtp, "genmove purple", "syntax error")
    expect_error(gtp, "genmove", "syntax error")


def test_undo_replays_the_game_less_one_move(gtp):
    expect_error(gtp, "undo", "cannot undo")
    # Black captures a white stone, then undo: the stone is back.
    for color, vertex in [("w", "A1"), ("b", "A2"), ("w", "E5"), ("b", "B1")]:
        gtp.send(f"play {color} {vertex}")
    assert grid(gtp.send("showboard"))[-1][0] == "."  # A1 captured
    assert gtp.send("undo") == ""
    rows = grid(gtp.send("showboard"))
    assert rows[-1][0] == "O" and rows[-1][1] == "."
    assert gtp.send("undo") == "" and gtp.send("undo") == "" and gtp.send("undo") == ""
    assert gtp.send("showboard").strip("\n") == str(Board(9))
    expect_error(gtp, "undo", "cannot undo")


def test_final_score_and_status_remove_dead_stones(gtp):
    # Black holds columns A-E, white F-J; a lone stone of each inside the other's area.
    for row in range(1, 10):
        gtp.send(f"play black E{row}")
        gtp.send(f"play white F{row}")
    gtp.send("play black H5")
    gtp.send("play white B5")
    assert sorted(gtp.send("final_status_list dead").split()) == ["B5", "H5"]
    alive = gtp.send("final_status_list alive").splitlines()
    assert sorted(len(group.split()) for group in alive) == [9, 9]  # the two walls
    assert gtp.send("final_status_list seki") == ""
    expect_error(gtp, "final_status_list zombie", "syntax error")
    # Black: 45 points (B5 counts again), white 36, komi 7.5.
    assert gtp.send("final_score") == "B+1.5"


def test_handicap_commands(gtp):
    assert gtp.send("fixed_handicap 2") == "C3 G7"
    rows = grid(gtp.send("showboard"))
    assert rows[6][2] == "X" and rows[2][6] == "X"
    assert coords.from_gtp(gtp.send("genmove white"), 9) < 81  # white moves first now
    expect_error(gtp, "fixed_handicap 2", "board not empty")
    gtp.send("clear_board")
    expect_error(gtp, "fixed_handicap 10", "invalid number of stones")
    expect_error(gtp, "fixed_handicap 1", "invalid number of stones")
    expect_error(gtp, "fixed_handicap two", "syntax error")
    stones = gtp.send("place_free_handicap 12").split()
    assert len(set(stones)) == 12
    expect_error(gtp, "place_free_handicap 3", "board not empty")
    gtp.send("clear_board")
    expect_error(gtp, "place_free_handicap 1", "invalid number of stones")
    expect_error(gtp, "set_free_handicap A1 A1", "bad vertex list")
    expect_error(gtp, "set_free_handicap A1 pass", "bad vertex list")
    expect_error(gtp, "set_free_handicap A1", "syntax error")
    expect_error(gtp, "set_free_handicap A1 X99", "bad vertex list")
    expect_error(gtp, "set_free_handicap A1 B", "syntax error")
    assert gtp.send("set_free_handicap A1 B2 J9") == ""
    rows = grid(gtp.send("showboard"))
    assert rows[-1][0] == "X" and rows[-2][1] == "X" and rows[0][8] == "X"
    gtp.send("play white E5")  # white to move after a handicap


def test_free_handicap_points_spread_out():
    assert free_handicap_points(9, 4) == [coords.from_gtp(v, 9) for v in ["C3", "G7", "C7", "G3"]]
    points = free_handicap_points(9, 20)
    assert len(set(points)) == 20
    assert len(set(free_handicap_points(5, 3))) == 3
    assert len(set(free_handicap_points(3, 8))) == 8  # all but one point of a 3x3 board


def test_loadsgf(gtp, tmp_path):
    path = tmp_path / "game.sgf"
    path.write_text("(;GM[1]FF[4]SZ[7]KM[5.5];B[dd];W[cc];B[dc];W[cd])")
    assert gtp.send(f"loadsgf {path}") == "black"
    assert len(grid(gtp.send("showboard"))) == 7
    # Tromp-Taylor by hand: 2 black and 2 white stones, every empty point
    # reaches both colours, komi 5.5.
    assert gtp.send("final_score") == "W+5.5"
    # Empty points count for the one colour they reach: a black wall on
    # column C, a white one on D (5x5):
    # black 15 points, white 10, komi 5.5.
    walls = tmp_path / "walls.sgf"
    walls.write_text("(;GM[1]FF[4]SZ[5]KM[5.5];" + ";".join(
        f"B[c{row}];W[d{row}]" for row in "abcde") + ")")
    assert gtp.send(f"loadsgf {walls}") == "black"
    assert gtp.send("final_score") == "W+0.5"
    # The position before move 3: two stones, black to play.
    assert gtp.send(f"loadsgf {path} 3") == "black"
    rows = grid(gtp.send("showboard"))
    assert sum(row.count("X") + row.count("O") for row in rows) == 2
    assert gtp.send(f"loadsgf {path} 2") == "white"
    assert gtp.send("undo") == ""  # the loaded moves can be taken back
    expect_error(gtp, "loadsgf /no/such/file.sgf", "cannot load file")
    (tmp_path / "bad.sgf").write_text("(;GM[1]SZ[9];B[zz])")
    expect_error(gtp, f"loadsgf {tmp_path / 'bad.sgf'}", "cannot load file")
    expect_error(gtp, f"loadsgf {path} zero", "syntax error")
    expect_error(gtp, "loadsgf", "syntax error")


def test_loadsgf_says_where_an_illegal_move_stopped_it(gtp, tmp_path):
    # Move 3 plays on black's own stone: the first two moves are loaded, and
    # the answer says so after the colour to play (it was a bare "= black").
    path = tmp_path / "illegal.sgf"
    path.write_text("(;GM[1]FF[4]SZ[5];B[aa];W[bb];B[aa];W[cc])")
    assert gtp.send(f"loadsgf {path}") == ("black; loaded 2 of 4 moves: move 3 (B A5) is "
                                           "illegal: the point is occupied")
    rows = grid(gtp.send("showboard"))
    assert sum(row.count("X") + row.count("O") for row in rows) == 2
    # Up to the illegal move, nothing to say.
    assert gtp.send(f"loadsgf {path} 3") == "black"


def test_time_commands_are_accepted(gtp):
    assert gtp.send("time_settings 300 30 5") == ""
    assert gtp.send("time_left black 120 3") == ""
    assert gtp.send("time_left w 0 0") == ""
    expect_error(gtp, "time_settings 300 30", "syntax error")
    expect_error(gtp, "time_settings a b c", "syntax error")
    expect_error(gtp, "time_left green 1 1", "syntax error")


def test_kgs_genmove_cleanup(gtp):
    vertex = gtp.send("kgs-genmove_cleanup black")
    assert coords.from_gtp(vertex, 9) < 81
    expect_error(gtp, "kgs-genmove_cleanup", "syntax error")


def test_unknown_command_and_the_engine_carries_on(gtp):
    expect_error(gtp, "frobnicate now", "unknown command")
    expect_error(gtp, "genmove_black", "unknown command")
    assert gtp.send("protocol_version") == "2"


# -------------------------------------------------------- raw protocol


def test_preprocessing_ids_and_malformed_lines_through_a_raw_pipe():
    text = ("\n"
            "   \t  \n"
            "# a comment line\n"
            "1 protocol_version   # a trailing comment\n"
            "2\tname\r\n"
            "na\x01me\n"
            "boardsize 9\n"
            "3 boardsize 99\n"
            "4 frobnicate\n"
            "5 play black E5\n"
            "6 play white E5\n"
            "7 play white 5E\n"
            "8\n"
            "10 known_command quit\n"
            "quit\n"
            "name\n")  # after quit: never answered
    done = subprocess.run(ENGINE, input=text.encode(), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode() == (
        "=1 2\n\n"
        "=2 mockgo\n\n"
        "= mockgo\n\n"
        "=\n\n"
        "?3 unacceptable size\n\n"
        "?4 unknown command\n\n"
        "=5\n\n"
        "?6 illegal move\n\n"
        "?7 syntax error\n\n"
        "?8 syntax error\n\n"
        "=10 true\n\n"
        "=\n\n")


def test_preprocess():
    assert preprocess("1 play\tb E5 # why\r\n") == "1 play b E5"
    assert preprocess("# only a comment\n") == ""
    assert preprocess("\x00\x1b \t\n") == ""


def test_a_lone_cr_ends_no_command():
    # The spec: CR is removed. Python's universal newlines made it a line end,
    # so "na\rme" was two unknown commands.
    text = b"1 na\rme\n2 protocol_version\r\n3 name\rversion\n4 known_command\r name\n"
    done = subprocess.run(ENGINE, input=text, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout == b"=1 mockgo\n\n=2 2\n\n?3 unknown command\n\n=4 true\n\n"


def test_end_of_input_ends_the_engine():
    done = subprocess.run(ENGINE, input=b"name\n", capture_output=True, timeout=60)
    assert done.returncode == 0 and done.stdout == b"= mockgo\n\n"


def test_the_mockgo_command_runs_the_engine():
    command = [sys.executable, "-m", "mockgo.cli", "gtp", "--player", "random:seed=4",
               "--name", "mine"]
    with GTPEngine(command) as process:
        assert process.send("name") == "mine"
        assert process.send("version") == f"{mockgo.__version__} (random)"
        process.send("boardsize 9")
        assert coords.from_gtp(process.send("genmove b"), 9) < 81


def test_version_answer_is_what_lizzie_asks_for():
    # Lizzie reads the version answer as Leela Zero's and stops at a dialog below 0.15.
    command = [sys.executable, "-m", "mockgo.cli", "gtp", "--player", "random",
               "--version-answer", "0.17"]
    with GTPEngine(command) as process:
        assert process.send("version") == "0.17"
        assert process.send("name") == "mockgo"
    bad = subprocess.run([*command[:-1], "0.17\n= x"], capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2 and "--version-answer" in bad.stderr


# ------------------------------------------------------------ in process


class Fixed(Player):
    """Always the same answer."""

    def __init__(self, move):
        self.move, self.name = move, "fixed"

    def choose(self, turns):
        if self.move == "boom":
            raise RuntimeError("the player broke")
        moves = [t.board.pass_index if self.move == "pass" else self.move for t in turns]
        return Choices(np.array(moves), np.zeros(len(turns)))


def answer(server, command):
    return server.handle(command + "\n")


def test_cleanup_does_not_pass_while_a_sensible_move_is_left():
    server = GTPServer(Fixed("pass"), size=5)
    assert answer(server, "genmove b") == "= pass\n\n"
    assert answer(server, "kgs-genmove_cleanup b") != "= pass\n\n"
    # With nothing sensible left (only own eyes to fill), cleanup passes too.
    server = GTPServer(Fixed("pass"), size=3)
    for vertex in ["A2", "B2", "C2"]:
        answer(server, f"play b {vertex}")
    answer(server, "play b B1")
    answer(server, "play b B3")
    assert answer(server, "kgs-genmove_cleanup b") == "= pass\n\n"


class Timed(Fixed):
    """A player with a time budget: remembers the budget of each move."""

    def __init__(self, seconds):
        super().__init__("pass")
        self.seconds, self.budgets = seconds, []

    def choose(self, turns):
        self.budgets.append(self.seconds)
        return super().choose(turns)


def test_the_clock_follows_gtp_conventions_and_shares_out_its_time():
    from mockgo.gtp.clock import CLOCK_MARGIN, GameClock

    assert GameClock((0, 1, 0)).budget(0, 361) is None  # GTP's "no time limits"
    # Main time: 600 s over (0.75 * 361 - 0) / 2 = 135.4 own moves to come;
    # with byo-yomi after it (30 s for 5 stones), a stone's share is the larger.
    assert GameClock((600, 0, 0)).budget(0, 361) == pytest.approx(600 / 135.375 - CLOCK_MARGIN)
    assert GameClock((600, 30, 5)).budget(0, 361) == pytest.approx(6 - CLOCK_MARGIN)
    clock = GameClock((600, 0, 0))
    clock.set(20, 0)  # late in absolute time: at least 10 moves are provided for
    assert clock.budget(300, 361) == pytest.approx(2 - CLOCK_MARGIN)
    clock.set(0, 0)
    assert clock.budget(300, 361) == 0.05
    # Canadian byo-yomi, run move by move: 10 s of main time, then 30 s for 3 stones.
    clock = GameClock((10, 30, 3))
    clock.spend(4)
    assert (clock.seconds, clock.stones) == (6, 0)
    clock.spend(8)  # main time runs out: 2 s off the first period, the move its first stone
    assert (clock.seconds, clock.stones) == (28, 2)
    assert clock.budget(50, 81) == pytest.approx(14 - CLOCK_MARGIN)
    clock.spend(10)
    clock.spend(10)  # the period's stones played: a new period
    assert (clock.seconds, clock.stones) == (30, 3)


class FakeTimer:
    """A clock a test moves by hand; a player's move takes ``step`` seconds."""

    def __init__(self, step):
        self.now, self.step, self.calls = 0.0, step, 0

    def __call__(self):
        self.calls += 1
        if self.calls % 2 == 0:  # every second reading ends a move
            self.now += self.step
        return self.now


def test_players_with_a_time_budget_keep_to_the_clock():
    timed = Timed(10.0)
    server = GTPServer(timed, size=9, timer=FakeTimer(step=4.0))
    answer(server, "genmove b")  # no clock: the player's own budget
    answer(server, "time_settings 0 30 5")
    answer(server, "time_left w 12 4")
    answer(server, "time_left b 30 5")  # the other colour's clock is its own
    answer(server, "genmove w")
    # No time_left for black since: the engine's own clock, 4 s taken by white's move
    # are not black's; then black's move takes 4 s of its period.
    answer(server, "genmove b")
    answer(server, "genmove b")
    assert timed.budgets == [10.0, pytest.approx(3 - 0.5), pytest.approx(6 - 0.5),
                             pytest.approx(26 / 4 - 0.5)]
    assert timed.seconds == 10.0  # the player's budget is given back after each move
    answer(server, "clear_board")  # a new game: the whole main time again
    answer(server, "genmove w")
    assert timed.budgets[-1] == pytest.approx(6 - 0.5)
    answer(server, "time_settings 600 0 0")
    answer(server, "genmove b")  # 600 s over 29.4 moves to come on 9x9 leave 10 s whole
    assert timed.budgets[-1] == 10.0


def test_a_clock_warns_of_a_player_that_ignores_it(caplog):
    untimed = Fixed("pass")
    server = GTPServer(untimed, size=9)
    answer(server, "time_settings 0 30 5")
    assert "takes no notice of the clock" in caplog.text
    assert answer(server, "genmove b") == "= pass\n\n" and not hasattr(untimed, "seconds")


def test_resign_and_illegal_choices():
    assert answer(GTPServer(Fixed(RESIGN), size=9), "5 genmove w") == "=5 resign\n\n"
    server = GTPServer(Fixed(40), size=9)
    answer(server, "play b E5")  # point 40 is now occupied: the engine passes instead
    assert answer(server, "genmove w") == "= pass\n\n"


def test_an_exception_is_an_error_answer_not_the_end():
    server = GTPServer(Fixed("boom"), size=9)
    assert answer(server, "3 genmove b").startswith("?3 internal error: the player broke")
    assert answer(server, "4 name") == "=4 mockgo\n\n"


@pytest.mark.parametrize("command, expected", [
    # Unicode digits are digits to str.isdigit() and int(): "² name" answered
    # "=² mockgo", "play b A١" played A1, "boardsize 1_9" was 19.
    ("\u00b2 name", "? unknown command"),
    ("\u0661 name", "? unknown command"),
    ("play b A\u0661", "? syntax error"),
    ("play b \u0410\u0031", "? syntax error"),  # a Cyrillic A
    ("play b \u017f1", "? syntax error"),  # long s: "\u017f1".upper() is "S1"
    ("play blac\u212a A1", "? syntax error"),  # Kelvin sign: lower() is "k"
    ("play b A01", "="),
    ("play b A" + "9" * 5000, "? illegal move"),  # well formed, off the board
    ("boardsize 1_9", "? syntax error"),
    ("boardsize \u0661\u0669", "? syntax error"),
    ("boardsize +9", "? syntax error"),
    ("boardsize -9", "? syntax error"),
    ("boardsize " + "9" * 5000, "? syntax error"),
    ("boardsize 2147483648", "? syntax error"),  # past a GTP int
    ("boardsize 0009", "="),
    ("komi 1_0", "? syntax error"),
    ("komi \u0666.5", "? syntax error"),
    ("komi nan", "? syntax error"),
    ("komi inf", "? syntax error"),
    ("komi 6.5e1", "? syntax error"),
    ("komi " + "9" * 400, "? syntax error"),
    ("komi -6.5", "="),
    ("komi .5", "="),
    ("time_settings 1_0 0 0", "? syntax error"),
    ("time_left b \u00b3 0", "? syntax error"),
    ("fixed_handicap \u00b2", "? syntax error"),
    ("final_status_list d\u0131ead", "? syntax error"),
    ("play\u00a0b A1", "? unknown command"),  # a no-break space separates nothing
    ("7\u2003name", "? unknown command"),
])
def test_numbers_ids_and_vertices_are_ascii(command, expected):
    server = GTPServer(Fixed("pass"), size=9)
    assert answer(server, command).removesuffix("\n\n") == expected


def test_loadsgf_of_files_that_used_to_break_the_engine(tmp_path):
    server = GTPServer(Fixed("pass"), size=9, komi=6.5)
    good = tmp_path / "hex.sgf"
    good.write_bytes(b"(;GM[1]CA[hex]SZ[9]KM[5.5]PB[Jos\xe9];B[ee])")  # was LookupError
    assert answer(server, f"loadsgf {good}") == "= white\n\n"
    (tmp_path / "nan.sgf").write_text("(;GM[1]SZ[9]KM[nan];B[ee])")  # was final_score W+nan
    fifo = tmp_path / "fifo.sgf"
    os.mkfifo(fifo)  # blocked forever
    for path in [tmp_path / "nan.sgf", fifo, "/dev/zero", tmp_path]:
        assert answer(server, f"loadsgf {path}") == "? cannot load file\n\n"
    assert server.komi == 5.5 and answer(server, "final_score").startswith("= B+")


def test_unacceptable_size_for_a_player_that_cannot_play_it():
    class NineOnly(RandomPlayer):
        size = 9

    server = GTPServer(NineOnly(), size=9)
    assert answer(server, "boardsize 19") == "? unacceptable size\n\n"
    assert server.size == 9


def test_dead_stones_on_an_empty_and_a_settled_board():
    assert estimate_dead(Board(9)) == []
    board = Board.from_diagram("""
        . X O . .
        X X O . .
        . X O . .
        X X O O O
        . X O . .""")
    assert estimate_dead(board) == []


# ---------------------------------------------------------- against GnuGo


def test_a_whole_game_against_gnugo_through_two_pipes(gnugo_path):
    with GTPEngine(ENGINE, name="mockgo") as ours, \
            GTPEngine(gnugo_command(level=0, binary=gnugo_path), name="gnugo") as gnugo:
        for engine in (ours, gnugo):
            engine.send_many(["boardsize 9", "clear_board", "komi 7.5"])
        engines = {BLACK: ours, WHITE: gnugo}
        board = Board(9)
        color, passes, moves = BLACK, 0, 0
        while passes < 2 and moves < 300:
            name = "black" if color == BLACK else "white"
            vertex = engines[color].send(f"genmove {name}")
            if vertex.lower() == "resign":
                break
            move = coords.from_gtp(vertex, 9)
            assert board.is_legal(move, color), vertex
            board.play(move, color)
            engines[3 - color].send(f"play {name} {vertex}")
            passes = passes + 1 if move == 81 else 0
            color, moves = 3 - color, moves + 1
        assert moves > 20
        assert grid(ours.send("showboard")) == grid(gnugo.send("showboard"))
        assert grid(ours.send("showboard")) == grid(str(board))
        # GnuGo's score is area with komi after taking off the stones it
        # calls dead: our board, with those stones off, counts the same.
        gnugo_score = gnugo.send("final_score")
        dead = [coords.from_gtp(v, 9) for v in gnugo.send("final_status_list dead").split()]
        assert gnugo_score == board.result(dead)
        # Ours judges the dead stones by random playouts: against a random
        # player every game GnuGo wins by a wide margin, and both say so.
        ours_score = ours.send("final_score")
        assert gnugo_score.startswith("W+") and ours_score.startswith("W+")
        assert abs(float(ours_score[2:]) - float(gnugo_score[2:])) <= 10, (ours_score,
                                                                           gnugo_score)


def test_the_old_module_path_still_starts_the_engine():
    """Controllers set up with ``python -m mockgo.arena.gtp`` keep working."""
    old = [sys.executable, "-m", "mockgo.arena.gtp", "--player", "random"]
    done = subprocess.run(old, input=b"name\nlist_commands\nquit\n", capture_output=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert done.stdout.decode().startswith("= mockgo\n\n= protocol_version\n")


def test_extra_commands_are_answered_listed_and_known():
    def echo(server, args):
        return f"{server.size} {' '.join(args)}"

    server = GTPServer(RandomPlayer(seed=0), size=9, commands={"mockgo-echo": echo})
    assert server.handle("7 mockgo-echo a b") == "=7 9 a b\n\n"
    assert server.handle("known_command mockgo-echo") == "= true\n\n"
    assert server.handle("list_commands").rstrip("\n").split("\n")[-1] == "mockgo-echo"
    assert server.handle("genmove b").startswith("= ")  # the standard table is still there
    plain = GTPServer(RandomPlayer(seed=0), size=9)
    assert plain.handle("mockgo-echo") == "? unknown command\n\n"
