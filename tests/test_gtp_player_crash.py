"""An external engine that crashes mid-match: started again once a move,
and, crashing again, losing that game by forfeit rather than ending a match
of hours (GTPPlayer, the game runner, the match loop)."""

import sys

import pytest

from mockgo.play.gtp_player import GTPPlayer
from mockgo.play.match import match
from mockgo.play.runner import play_games

# A GTP "engine" that passes at every genmove and dies (as GnuGo does, with a
# segmentation fault) at its CRASH_AT-th genmove; with a flag file, only the
# first process started dies (the file then exists).
ENGINE = r"""
import os, sys
crash_at, flag = int(sys.argv[1]), sys.argv[2]
dies = flag == "always" or not os.path.exists(flag)
genmoves = 0
for line in sys.stdin:
    number, _, command = line.strip().partition(" ")
    if command.startswith("genmove"):
        genmoves += 1
        if dies and genmoves == crash_at:
            if flag != "always":
                open(flag, "w").close()
            os._exit(139)
        answer = "pass"
    elif command == "name":
        answer = "crasher"
    elif command == "known_command set_random_seed":
        answer = "true"
    else:
        answer = ""
    print(f"={number} {answer}\n", flush=True)
    if command == "quit":
        break
"""


def _script(tmp_path):
    script = tmp_path / "crasher.py"
    script.write_text(ENGINE)
    return script


def test_an_engine_that_crashes_once_is_started_again_and_the_game_goes_on(tmp_path):
    engine = GTPPlayer([sys.executable, str(_script(tmp_path)), "3", str(tmp_path / "crashed")],
                       name="crasher")
    with pytest.warns(RuntimeWarning, match="crasher.*exited with code 139.*starting it again"):
        [game] = play_games("random:seed=1", engine, count=1, size=5, rng=0)
    engine.close()
    assert engine.restarts == 1
    assert game.reason != "forfeit" and game.forfeited_by is None


def test_an_engine_that_crashes_again_loses_the_game_by_forfeit_and_the_match_goes_on(tmp_path):
    with pytest.warns(RuntimeWarning, match="starting it again"):
        result = match("random:seed=1", f"gtp:cmd={sys.executable} {_script(tmp_path)} 1 always",
                       games=2, size=5, scorer="tromp-taylor", seed=0, out_dir=tmp_path / "match")
    assert [game.reason for game in result.games] == ["forfeit", "forfeit"]
    assert result.wins_a == 2  # the engine lost both, as white and as black
    assert all("crashed at move" in game.note and "again when started anew" in game.note
               for game in result.games)
    assert "2 by forfeit" in str(result)

