"""The GTP client, driving a real GnuGo (skipped where GnuGo is missing)."""

import re
import sys

import pytest

from mockgo.play.gtp_engine import GTPEngine, GTPEngineDied, GTPError, gnugo_command


@pytest.fixture
def gnugo(gnugo_path):
    with GTPEngine(gnugo_command(binary=gnugo_path)) as engine:
        yield engine


def test_protocol_version(gnugo):
    assert gnugo.send("protocol_version") == "2"
    assert gnugo.send("name") == "GNU Go"


def test_unknown_command_raises(gnugo):
    with pytest.raises(GTPError, match="no_such_command.*unknown command") as info:
        gnugo.send("no_such_command")
    assert info.value.command == "no_such_command"
    assert info.value.message == "unknown command"
    assert gnugo.send("protocol_version") == "2"  # and the engine carries on


def test_refused_move_raises(gnugo):
    gnugo.send("boardsize 9")
    gnugo.send("play black E5")
    with pytest.raises(GTPError, match="illegal move"):
        gnugo.send("play white E5")


def test_send_many_keeps_order_around_a_multiline_answer(gnugo):
    answers = gnugo.send_many([
        "boardsize 5", "clear_board", "play black C3", "play white C3",
        "showboard", "list_stones black", "bogus", "list_stones white", "query_boardsize"])
    assert answers[:3] == ["", "", ""]
    assert isinstance(answers[3], GTPError) and answers[3].message == "illegal move"
    board = answers[4].splitlines()
    assert board[0].split() == list("ABCDE")
    assert board[3].split()[:6] == ["3", ".", ".", "X", ".", "."]
    assert len(board) == 7
    assert answers[5] == "C3"
    assert isinstance(answers[6], GTPError) and answers[6].message == "unknown command"
    assert answers[7] == ""  # no white stones: an empty answer
    assert answers[8] == "5"


def test_send_many_with_more_than_a_pipe_full(gnugo):
    # Far more text each way than a pipe holds: must not deadlock.
    answers = gnugo.send_many(["showboard"] * 400 + ["is_legal black A1"] * 5000)
    assert len(answers) == 5400
    assert all(answer.splitlines()[0].split()[0] == "A" for answer in answers[:400])
    assert set(answers[400:]) == {"1"}


def test_engine_that_quit_gives_a_clear_error(gnugo, gnugo_path):
    assert gnugo.send("quit") == ""
    expected = f"{re.escape(gnugo_path)}.*exited with code 0.*'name'"
    with pytest.raises(GTPEngineDied, match=expected):
        gnugo.send("name")
    gnugo.close()  # closing a dead engine is fine


def test_engine_that_dies_gives_a_clear_error():
    # An "engine" that answers one command and exits with an error.
    script = "import sys; sys.stdin.readline(); print('=1 ok\\n', flush=True); sys.exit(3)"
    with GTPEngine([sys.executable, "-c", script], name="fake") as engine:
        assert engine.send("first") == "ok"
        with pytest.raises(GTPEngineDied, match="fake .*exited with code 3.*'second'"):
            engine.send("second")


def test_close_kills_an_engine_that_ignores_quit():
    script = "import time\nwhile True: time.sleep(1)"
    engine = GTPEngine([sys.executable, "-c", script])
    engine.close(timeout=0.5)
    assert engine.process.returncode is not None


def test_the_gnugo_spec_reaches_gnugo_as_its_level(gnugo_path, capsys):
    """gnugo:level=N runs GnuGo with --level N: the process's own argv (read
    from /proc) is the command line a match prints."""
    from pathlib import Path

    from mockgo.play.match import match
    from mockgo.play.specs import engine_command, make_player

    command = engine_command("gnugo:level=7,seed=3")
    assert command[command.index("--level") + 1] == "7" and "--seed" in command
    player = make_player("gnugo:level=7,seed=3")
    try:
        assert player.engine.send("name") == "GNU Go"  # running: exec'd, its argv its own
        argv = Path(f"/proc/{player.engine.process.pid}/cmdline").read_bytes().split(b"\0")[:-1]
        assert [a.decode() for a in argv] == command
    finally:
        player.close()
    assert engine_command("random") is None
    assert engine_command("gtp:cmd=/bin/engine --fast") == ["/bin/engine", "--fast"]
    match("random:seed=1", "gnugo:level=1", games=1, size=5, workers=1, scorer="tromp-taylor",
          verbose=True)
    assert f"gnugo:level=1 runs: {gnugo_path} --mode gtp --level 1 --seed 0" in \
        capsys.readouterr().out
