"""How ``mockgo gtp`` starts (issue 37): the controller's first commands are
answered before TensorFlow or Keras is imported, the network loads at the
first genmove, a spec's mistakes are reported at start and a load that
fails later is an answer; standard error carries mockgo's lines only."""

import json
import os
import subprocess
import sys
import zipfile

import pytest

from mockgo.gtp.server import GTPServer
from mockgo.cli import main as mockgo_main
from mockgo.go.board import Board
from mockgo.native_log import native_lines_dropped
from mockgo.play.lazy_player import LazyPlayer, PlayerLoadError, PlayerPlan
from mockgo.play.specs import lazy_player, make_player

FIRST_COMMANDS = ["name", "version", "protocol_version", "list_commands", "known_command genmove",
                  "boardsize 19", "clear_board", "komi 6.5", "play b Q16"]

# The engine as `mockgo gtp` runs it, in a fresh process (this one has
# imported TensorFlow in other tests), with GTPServer.handle wrapped to
# record, after each command, whether TensorFlow and Keras were imported.
RECORDING_ENGINE = """
import json, sys
from mockgo.gtp import server as gtp
from mockgo.cli import main

record_path, argv = sys.argv[1], sys.argv[2:]
handle, seen = gtp.GTPServer.handle, []

def recording(self, line):
    answer = handle(self, line)
    seen.append([line.strip(), "tensorflow" in sys.modules, "keras" in sys.modules])
    with open(record_path, "w") as out:
        json.dump(seen, out)
    return answer

gtp.GTPServer.handle = recording
sys.exit(main(argv))
"""

# What TensorFlow's runtime prints at start-up, in any case.
TENSORFLOW_WORDS = ("cuinit", "onednn", "cuda", "absl", "tensorflow", "cpu_feature_guard")


def test_first_answers_come_before_tensorflow_and_stderr_stays_mockgo_s(tmp_path):
    record = tmp_path / "record.json"
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}  # the CLI sets it
    commands = FIRST_COMMANDS + ["genmove w", "genmove b", "quit"]
    done = subprocess.run(
        [sys.executable, "-c", RECORDING_ENGINE, str(record), "gtp", "--player",
         "policy:pretrained=sl-19"],
        input="\n".join(commands) + "\n", capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    answers = done.stdout.split("\n\n")[:-1]
    assert len(answers) == len(commands), done.stdout
    assert all(a.startswith("=") for a in answers), done.stdout
    assert answers[0] == "= mockgo" and answers[1].endswith("(policy:sl-19)")
    assert answers[4] == "= true"
    seen = json.loads(record.read_text())
    assert [line for line, _, _ in seen] == commands
    for line, tensorflow, keras in seen[:len(FIRST_COMMANDS)]:
        assert not tensorflow and not keras, f"imported by the time {line!r} was answered"
    assert seen[len(FIRST_COMMANDS)][2], "the first genmove loads the network (Keras)"
    # Both moves are points, and stderr has no line of TensorFlow's.
    assert answers[-3][2:] != "pass" and answers[-2][2:] != "pass"
    for line in done.stderr.splitlines():
        assert line.startswith("mockgo") and \
            not any(word in line.lower() for word in TENSORFLOW_WORDS), done.stderr


@pytest.mark.parametrize("spec, message", [
    ("policy:pretrained=sl-18", "no pretrained network 'sl-18'"),
    ("policy:path=no/such.keras", "no model file no/such.keras"),
    ("policy:pretrained=sl-19,temperature=-1", "temperature must be >= 0"),
    ("mcts:path=no/such.keras,readouts=8", "no model file"),
    ("alphago:policy_pretrained=sl-19,value=no/such.keras", "no model file"),
])
def test_a_bad_spec_ends_the_engine_at_start(spec, message, capsys):
    assert mockgo_main(["gtp", "--player", spec]) == 1
    assert message in capsys.readouterr().err


def test_a_network_that_fails_to_load_is_an_answer(tmp_path):
    # A zip with mockgo's record but no model in it: accepted at start (the
    # record gives the size), fails when Keras loads it.
    hollow = tmp_path / "hollow.keras"
    with zipfile.ZipFile(hollow, "w") as archive:
        archive.writestr("mockgo.json", json.dumps(
            {"format": 1, "kind": "policy", "encoder": "alphago48", "board_size": 19}))
    server = GTPServer(lazy_player(f"policy:path={hollow}"))
    assert server.handle("1 name") == "=1 mockgo\n\n"
    for _ in range(2):  # the same answer again, and the engine goes on
        answer = server.handle("2 genmove b")
        assert answer.startswith("?2 cannot load policy:hollow.keras: ")
        assert "internal" not in answer
        assert str(hollow) in answer
    assert server.handle("play b D4") == "=\n\n"
    assert server.handle("boardsize 9") == "? unacceptable size\n\n"  # the record's 19 only


def test_lazy_player_is_built_once_at_its_first_move():
    built = []

    def build():
        built.append(make_player("mcts:readouts=8,seed=0"))
        return built[-1]

    player = LazyPlayer(PlayerPlan(build, "later", size=5, seconds=2.0))
    assert (player.name, player.size, player.seconds, player.loaded) == ("later", 5, 2.0, False)
    with pytest.raises(ValueError, match="5x5 only"):
        player.check_size(9)
    board = Board(5)
    player.start_game(0, board, player.game_rng(1))
    player.observe(0, board, 0)  # nothing to follow yet
    player.seconds = 0.5  # the GTP engine lends a clock's budget
    assert board.is_legal(player.select_move(board))
    assert len(built) == 1 and player.loaded and built[0].seconds == 0.5
    assert 0 in built[0].trees  # the game told before the build was started in the player
    player.seconds = None
    assert built[0].seconds is None
    player.select_move(board)
    assert len(built) == 1

    def failing():
        built.append(None)
        raise ImportError("no module named 'tensorflow'")

    broken = LazyPlayer(PlayerPlan(failing, "broken", size=5))
    for _ in range(2):  # tried once: the same error again
        with pytest.raises(PlayerLoadError, match="cannot load broken: no module named"):
            broken.select_move(board)
    assert built[1:] == [None]


def test_native_start_up_lines_are_dropped_and_other_lines_kept(capfd):
    native = (b"WARNING: All log messages before absl::InitializeLog() is called are written "
              b"to STDERR\nI0000 00:00:1795468937.455237   17371 port.cc:153] oneDNN custom "
              b"operations are on.\nE0000 00:00:1795468938.012345   17371 cuda_platform.cc:52] "
              b"failed call to cuInit: INTERNAL: CUDA error\n")
    # Written to the descriptor, as the C++ runtime does (and as Python's
    # sys.stderr does outside pytest, which replaces it).
    with native_lines_dropped():
        os.write(2, native + b"mockgo.arena.gtp: a line of our own\n")
    os.write(2, b"after the block\n")
    assert capfd.readouterr().err == "mockgo.arena.gtp: a line of our own\nafter the block\n"
