"""An external engine that crashes mid-match: started again once a move,
given the game and a new seed, and, crashing again, losing that game by
forfeit rather than ending a match of hours (GTPPlayer, the game runner,
the match loop, the match folder)."""

import sys

import pytest

from mockgo.go import coords
from mockgo.go.board import COLOR_NAMES
from mockgo.play.gtp_player import GTPPlayer
from mockgo.play.match import match
from mockgo.play.match_folder import read_match
from mockgo.play.runner import play_games

# A GTP "engine" that passes at every genmove, logs every command it gets
# (one line per process: "start" then the commands), and dies of a
# segmentation fault, as GnuGo 3.8 now and then does, at its CRASH_AT-th
# CRASH_ON command: only in the first process started (a flag file), or in
# every process ("always").
ENGINE = r"""
import os, signal, sys
crash_on, crash_at, flag, log = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
dies = flag == "always" or not os.path.exists(flag)
seen = 0
with open(log, "a") as out:
    out.write("start\n")
for line in sys.stdin:
    number, _, command = line.strip().partition(" ")
    with open(log, "a") as out:
        out.write(command + "\n")
    if command.split()[0] == crash_on:
        seen += 1
        if dies and seen == crash_at:
            if flag != "always":
                open(flag, "w").close()
            os.kill(os.getpid(), signal.SIGSEGV)
    answer = {"name": "crasher", "known_command set_random_seed": "true"}.get(command, "")
    if command.startswith("genmove"):
        answer = "pass"
    print(f"={number} {answer}\n", flush=True)
    if command == "quit":
        break
"""


def _command(tmp_path, crash_on, crash_at, flag):
    script = tmp_path / "crasher.py"
    script.write_text(ENGINE)
    return [sys.executable, str(script), crash_on, str(crash_at), str(flag),
            str(tmp_path / "commands.log")]


def _processes(tmp_path):
    """The commands each process of the engine got, in order."""
    text = (tmp_path / "commands.log").read_text()
    return [chunk.strip().splitlines() for chunk in text.split("start\n")[1:]]


@pytest.mark.parametrize("crash_on, crash_at", [("genmove", 3), ("play", 2)])
def test_an_engine_that_crashes_once_is_given_the_game_again_and_it_goes_on(tmp_path, crash_on,
                                                                           crash_at):
    engine = GTPPlayer(_command(tmp_path, crash_on, crash_at, tmp_path / "crashed"))
    with pytest.warns(RuntimeWarning, match=r"killed by signal 11 \(SIGSEGV\).*starting it again"):
        [game] = play_games("random:seed=1", engine, count=1, size=5, rng=0)
    engine.close()
    assert engine.restarts == 1
    assert game.reason != "forfeit" and game.forfeited_by is None
    first, second = _processes(tmp_path)[:2]
    # The new process: a new seed, the board set up, then every move of the
    # game so far (its own moves too, which the first process made itself).
    assert second[0].startswith("set_random_seed") and second[0] not in first
    assert second[1:4] == ["boardsize 5", "clear_board", "komi 7.5"]
    played = second.index("genmove white") - 4
    history = [f"play {COLOR_NAMES[c]} {coords.to_gtp(m, 5)}" for c, m in game.board.history]
    assert played >= 1 and second[4:4 + played] == history[:played]

def test_an_engine_that_crashes_again_loses_the_game_by_forfeit_and_the_match_goes_on(tmp_path):
    command = " ".join(_command(tmp_path, "genmove", 1, "always"))
    with pytest.warns(RuntimeWarning, match="starting it again"):
        result = match("random:seed=1", f"gtp:cmd={command}", games=2, size=5,
                       scorer="tromp-taylor", seed=0, out_dir=tmp_path / "match")
    assert "2 by forfeit" in str(result)
    recorded = read_match(tmp_path / "match")  # as the match folder keeps them
    assert [g.result for g in recorded.games] == ["B+F", "W+F"]  # crasher: white, then black
    assert recorded.wins_a == 2
    crashed = "crasher was killed by signal 11 (SIGSEGV) at move {}, and was killed by signal 11 " \
              "(SIGSEGV) again when started anew"
    assert [(g.reason, g.note) for g in recorded.games] == [
        ("forfeit", crashed.format(2)), ("forfeit", crashed.format(1))]
    assert len(_processes(tmp_path)) == 4  # two a game: the next game started it again
