"""Live analysis over GTP (lz-analyze, kata-analyze, genmove_analyze): the
lines read as Sabaki's and Lizzie's parsers read them, their values on fixed
positions for every kind of player, the interruption by the next command,
and a recorded session replayed."""

import math
import pathlib
import re
import subprocess
import sys
import time

import numpy as np
import pytest

from mockgo.gtp import analysis
from mockgo.gtp.server import GTPServer
from mockgo.go import coords
from mockgo.play import analysts
from mockgo.play.player import Choices, Player
from mockgo.play.random_player import RandomPlayer
from mockgo.play.search_player import SearchPlayer
from mockgo.play.specs import make_player
from mockgo.search.games import CarefulGoGame

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
SESSION = FIXTURES / "gtp_analysis_session.txt"
ANALYSIS_COMMANDS = ["lz-analyze", "kata-analyze", "genmove_analyze", "lz-genmove_analyze",
                     "kata-genmove_analyze"]


# ------------------------------------------------ the clients' parsers


def sabaki_variations(line, winrate_format="integer"):
    """Sabaki's parseAnalysis (src/modules/analysis.js), line for line:
    split at ``info``, the principal variation is the run of vertices at
    the end (cut at a pass), the rest key/value pairs; segments without a
    board vertex as ``move`` or without ``winrate`` are dropped. Win rates
    as percentages."""
    variations = []
    for segment in re.split(r"\s*info\s+", line)[1:]:
        segment = segment.strip()
        match = re.search(r"(pass|[A-Za-z]\d+)(\s+(pass|[A-Za-z]\d+))*$", segment)
        if match is None:
            continue
        cut = match.group(0).find("pass")
        vertices = match.group(0) if cut < 0 else match.group(0)[:cut]
        tokens = segment[:match.start()].strip().split()[:-1]
        fields = dict(zip(tokens[0::2], tokens[1::2]))
        if "move" not in fields or "winrate" not in fields \
                or not re.fullmatch(r"[A-Za-z]\d+", fields["move"]):
            continue
        winrate = fields["winrate"]
        variations.append({
            "move": fields["move"], "visits": float(fields["visits"]),
            "winrate": float(winrate) * 100 if winrate_format == "float" else float(winrate) / 100,
            "pv": [v for v in vertices.split() if len(v) >= 2]})
    return variations


def lizzie_moves(line):
    """Lizzie's Leelaz.parseInfo and MoveData.fromInfo: the line less its
    ``info `` split at `` info ``; each part's words are key/value pairs up
    to ``pv``, which takes the rest; visits, win rate and prior are Java
    ints (Integer.parseInt: a sign and digits, nothing else)."""
    def java_int(text):
        assert re.fullmatch(r"[+-]?\d+", text), f"Integer.parseInt({text!r}) fails"
        return int(text)

    assert line.startswith("info ")
    moves = []
    for part in line[5:].split(" info "):
        words = part.strip().split(" ")
        move = {}
        i = 0
        while i < len(words):
            if words[i] == "pv":
                move["pv"] = words[i + 1:]
                break
            key, value = words[i], words[i + 1]
            if key == "move":
                move["move"] = value
            elif key in ("visits", "winrate", "prior", "lcb"):
                move[key] = java_int(value)
            i += 2
        moves.append(move)
    return moves


# Leela Zero's candidate, as its output_analysis writes it.
LZ_CANDIDATE = re.compile(r"info move (?P<move>[A-HJ-Z]\d+|pass) visits (?P<visits>\d+) "
                          r"winrate (?P<winrate>\d+) prior (?P<prior>\d+) lcb (?P<lcb>\d+) "
                          r"order (?P<order>\d+) pv (?P<pv>(?:(?:[A-HJ-Z]\d+|pass) ?)+)")


def candidates(line):
    """The candidates of an lz line, checked against Leela Zero's format
    (the whole line is candidates and nothing else)."""
    found = list(LZ_CANDIDATE.finditer(line))
    assert found and " ".join(m.group(0).strip() for m in found) == line, line
    return [dict(move=m["move"], visits=int(m["visits"]), winrate=int(m["winrate"]),
                 prior=int(m["prior"]), lcb=int(m["lcb"]), order=int(m["order"]),
                 pv=m["pv"].split()) for m in found]


def analysis_lines(answer, ident=""):
    """An analysis answer's ``info`` lines, after checking its frame:
    ``=id`` alone on the first line, an empty line at the end."""
    assert answer.startswith(f"={ident}\n") and answer.endswith("\n\n"), answer
    return [line for line in answer[len(ident) + 2:-2].split("\n") if line]


def check_line(line, size):
    """What every lz line must be, for the parsers and in its values."""
    found = candidates(line)
    assert [c["order"] for c in found] == list(range(len(found)))
    for c in found:
        assert c["pv"][0] == c["move"]
        assert 0 <= c["winrate"] <= 10000 and 0 <= c["prior"] <= 10000
        assert c["lcb"] <= c["winrate"]
        for vertex in c["pv"]:
            assert vertex == "pass" or coords.from_gtp(vertex, size) < size * size
    keys = [(-c["visits"], -c["winrate"]) for c in found if c["visits"] > 0]
    assert keys == sorted(keys), "most visits first, then the higher win rate"
    lizzie = lizzie_moves(line)
    assert [m["move"] for m in lizzie] == [c["move"] for c in found]
    assert [m["visits"] for m in lizzie] == [c["visits"] for c in found]
    sabaki = sabaki_variations(line)
    on_board = [c for c in found if c["move"] != "pass"]
    assert [v["move"] for v in sabaki] == [c["move"] for c in on_board]
    assert [v["winrate"] for v in sabaki] == [c["winrate"] / 100 for c in on_board]
    return found


# ------------------------------------------------------ fixed positions


def stones_evaluator(states):
    """A fixed evaluator for tests: priors favour the centre of the board;
    the value is the stone balance for the player to move, squashed."""
    priors, values = [], []
    for state in states:
        board = state.board
        n = board.size
        rows, cols = np.divmod(np.arange(n * n), n)
        centre = np.exp(-((rows - n // 2) ** 2 + (cols - n // 2) ** 2) / n)
        priors.append(np.append(centre, 0.05))
        mine = np.count_nonzero(board.stones == board.to_play)
        theirs = np.count_nonzero(board.stones == 3 - board.to_play)
        values.append(math.tanh((mine - theirs) / 3))
    return np.array(priors), np.array(values)


def searcher(readouts=64):
    return SearchPlayer(stones_evaluator, readouts=readouts, game=CarefulGoGame,
                        answer_passes=True, softpick_moves=0, name="stones")


def answer(server, command):
    return server.handle(command + "\n")


def setup_5x5(server):
    for command in ["boardsize 5", "clear_board", "komi 0.5", "play b C3", "play w B2"]:
        assert answer(server, command).startswith("=")


def test_list_commands_and_known_command_include_the_analysis_commands():
    server = GTPServer(RandomPlayer(), size=5)
    listed = answer(server, "list_commands")[2:-2].split("\n")
    for command in ANALYSIS_COMMANDS:
        assert command in listed
        assert answer(server, f"known_command {command}") == "= true\n\n"


def test_lz_analyze_of_an_mcts_search_on_a_fixed_position():
    player = searcher()
    server = GTPServer(player, size=5, ponder_visits=200)
    setup_5x5(server)
    lines = analysis_lines(answer(server, "7 lz-analyze b 1 minmoves 30"), "7")
    assert lines
    found = check_line(lines[-1], 5)
    # Without a controller's input the tree grows to ponder_visits: the
    # visits of the last line are the readouts done, all of them.
    assert sum(c["visits"] for c in found) == 200
    legal = player.trees[0].root.child_Q > -np.inf
    assert len(found) == legal.sum()  # minmoves 30: every candidate, visited or not
    assert abs(sum(c["prior"] for c in found) - 10000) <= len(found)  # each cut to 1/10000
    # The values are the tree's: the win rate is the mean result for Black.
    root = player.trees[0].root
    best = coords.from_gtp(found[0]["move"], 5)
    assert found[0]["visits"] == root.child_N.max() == root.child_N[best]
    assert found[0]["winrate"] == int((root.child_Q[best] + 1) / 2 * 10000)
    assert found[0]["prior"] == int(root.child_P[best] * 10000)
    # The principal variation follows the most visited answers.
    node = root.children[best]
    assert coords.from_gtp(found[0]["pv"][1], 5) == int(np.argmax(node.child_N))
    # The stone balance favours Black (one stone each, Black to move): the
    # search agrees, above even.
    assert found[0]["winrate"] > 5000


def test_kata_analyze_gives_fractions():
    server = GTPServer(searcher(), size=5, ponder_visits=64)
    setup_5x5(server)
    lines = analysis_lines(answer(server, "kata-analyze 1"))
    fields = re.findall(r"winrate (\S+) prior (\S+) lcb (\S+)", lines[-1])
    assert fields and all(0.0 <= float(x) <= 1.0 and "." in x for f in fields for x in f)
    assert sabaki_variations(lines[-1], "float")[0]["winrate"] == \
        pytest.approx(float(fields[0][0]) * 100)


def test_an_analysis_for_the_other_colour_and_bad_tags():
    player = searcher()
    server = GTPServer(player, size=5, ponder_visits=40)
    setup_5x5(server)
    lines = analysis_lines(answer(server, "lz-analyze white interval 1"))
    assert sum(c["visits"] for c in check_line(lines[-1], 5)) == 40
    assert player.trees[0].root.to_play == 2  # the tree is White's
    for bad in ["lz-analyze purple 10", "lz-analyze b avoid b D4 1", "lz-analyze minmoves",
                "lz-analyze b -5", "genmove_analyze b 1x"]:
        assert answer(server, bad) == "? cannot parse analyze tags\n\n", bad
    assert len(server.moves) == 2  # nothing played by the failed genmove_analyze


def test_interval_zero_gives_no_lines_as_leela_zero():
    server = GTPServer(searcher(), size=5, ponder_visits=40)
    setup_5x5(server)
    assert answer(server, "lz-analyze b 0") == "=\n\n"


def test_genmove_analyze_prints_then_plays_the_players_move():
    player = searcher(readouts=48)
    ticks = iter(range(10**6))  # each reading of the timer is one second on
    server = GTPServer(player, size=5, timer=lambda: float(next(ticks)))
    setup_5x5(server)
    text = answer(server, "3 genmove_analyze b 50")
    assert text.startswith("=3\n") and text.endswith("\n\n")
    body = text[3:-2].split("\n")
    assert body[-1].startswith("play ")
    lines = body[:-1]
    # The readouts come a step (8) at a time, and with the timer's seconds
    # every step ends an interval: a line each, then the last.
    assert len(lines) >= 48 // 8
    visits = [sum(c["visits"] for c in check_line(line, 5)) for line in lines]
    assert visits == sorted(visits) and visits[-1] == 48
    assert visits[0] < 48  # lines came while it searched
    move = body[-1][len("play "):]
    assert server.moves[-1] == (1, coords.from_gtp(move, 5))
    # softpick 0: the most visited move is played.
    assert move == candidates(lines[-1])[0]["move"]
    # kata- and lz- names are the same command.
    assert answer(server, "lz-genmove_analyze w 0").split("\n")[-3].startswith("play ")
    assert answer(server, "kata-genmove_analyze b 0").split("\n")[-3].startswith("play ")
    assert len(server.moves) == 5


def test_uct_analysis_counts_its_playouts_and_gives_uniform_priors():
    player = make_player("uct:playouts=100")
    server = GTPServer(player, size=5, ponder_visits=160)
    setup_5x5(server)
    found = check_line(analysis_lines(answer(server, "lz-analyze b 1"))[-1], 5)
    assert sum(c["visits"] for c in found) == 160
    root = player.trees[0].root
    assert {c["prior"] for c in found} == {int(10000 / root.legal.sum())}
    best = coords.from_gtp(found[0]["move"], 5)
    assert found[0]["winrate"] == int(root.W[best] / root.N[best] * 10000)
    text = answer(server, "genmove_analyze b 0")
    assert text.split("\n")[-3].startswith("play ")


def test_policy_and_random_players_give_their_priors():
    keras = pytest.importorskip("keras")
    from mockgo.go.features import ALPHAGO48
    from mockgo.nets.io import NetworkInfo
    from mockgo.nets.models import policy_network
    from mockgo.play.policy_player import PolicyPlayer

    keras.utils.set_random_seed(0)
    model = policy_network(5, 48, layers=2, filters=4)
    model.mockgo_info = NetworkInfo("policy", ALPHAGO48, 5)
    player = PolicyPlayer(model)
    server = GTPServer(player, size=5)
    setup_5x5(server)
    lines = analysis_lines(answer(server, "lz-analyze b 10"))
    assert len(lines) == 1  # nothing changes: one line
    found = check_line(lines[0], 5)
    policy = player.policy(server.board)
    for c in found:
        p = policy[coords.from_gtp(c["move"], 5)]
        assert c["prior"] == int(p * 10000)
        assert c["visits"] == round(p * analysts.POLICY_VISITS) > 0
        assert c["winrate"] == 5000 and c["pv"] == [c["move"]]
    assert abs(sum(c["prior"] for c in found) / 10000 - 1) < 0.01
    # The random player's policy: uniform over its sensible moves.
    server = GTPServer(RandomPlayer(), size=5)
    setup_5x5(server)
    found = check_line(analysis_lines(answer(server, "lz-analyze b 10"))[0], 5)
    assert len(found) == 23 and {c["prior"] for c in found} == {int(10000 / 23)}
    assert answer(server, "genmove_analyze b 10").split("\n")[-3].startswith("play ")


def test_alphago_search_analysis(tmp_path):
    keras = pytest.importorskip("keras")
    from mockgo.go.features import ALPHAGO48, ALPHAGO49
    from mockgo.nets.io import save_model
    from mockgo.nets.models import policy_network, value_network

    keras.utils.set_random_seed(0)
    save_model(policy_network(5, 48, layers=2, filters=4), tmp_path / "p.keras",
               encoder=ALPHAGO48)
    save_model(value_network(5, 49, layers=2, filters=4, hidden=8), tmp_path / "v.keras",
               encoder=ALPHAGO49)
    player = make_player(f"alphago:policy={tmp_path / 'p.keras'},value={tmp_path / 'v.keras'},"
                         f"readouts=32,parallel=8")
    server = GTPServer(player, size=5, ponder_visits=48)
    setup_5x5(server)
    found = check_line(analysis_lines(answer(server, "lz-analyze b 1"))[-1], 5)
    assert sum(c["visits"] for c in found) == 48
    root = player.trees[0].root
    best = coords.from_gtp(found[0]["move"], 5)
    assert found[0]["prior"] == int(root.child_P[best] * 10000)


class Fixed(Player):
    name = "fixed"

    def choose(self, turns):
        return Choices(np.array([t.board.pass_index for t in turns]), np.zeros(len(turns)))


def test_a_player_without_analysis_says_so():
    server = GTPServer(Fixed(), size=5)
    assert answer(server, "lz-analyze b 10") == \
        "? fixed gives no analysis: it reports neither a search tree nor a policy " \
        "(Player.analyst)\n\n"
    assert answer(server, "genmove_analyze b 10").startswith("? fixed gives no analysis")
    assert server.moves == []


class Opinionated(Fixed):
    """A new kind of player, unknown to mockgo.gtp.analysis: it reports its
    analysis itself, an opinion of one move and the answer it expects."""

    name = "opinionated"

    def analyst(self, board, rng, limit):
        return OneOpinion(board)


class OneOpinion:
    searches = False  # one line: nothing grows

    def __init__(self, board):
        self.board = board

    def grow(self):
        return False

    def infos(self):
        centre, corner = coords.from_gtp("D4", 5), coords.from_gtp("A1", 5)
        return [analysts.MoveInfo(centre, 7, 0.75, 1.0, analysts.lower_bound(0.75, 7),
                                  [centre, corner])]


def test_a_new_kind_of_player_reports_its_own_analysis():
    server = GTPServer(Opinionated(), size=5)
    setup_5x5(server)
    lines = analysis_lines(answer(server, "lz-analyze b 10"))
    assert len(lines) == 1
    (found,) = check_line(lines[0], 5)
    assert (found["move"], found["visits"], found["winrate"], found["prior"], found["pv"]) == \
        ("D4", 7, 7500, 10000, ["D4", "A1"])
    assert found["lcb"] == int(analysts.lower_bound(0.75, 7) * 10000) > 0
    # genmove_analyze: its line, then the move it plays (a pass).
    assert answer(server, "genmove_analyze b 10").split("\n")[-3] == "play pass"


# -------------------------------------------------------- through pipes


def read_until(stream, predicate, timeout):
    """Lines from ``stream`` up to the first that ``predicate`` accepts."""
    end, lines = time.monotonic() + timeout, []
    while time.monotonic() < end:
        line = stream.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if predicate(lines[-1]):
            return lines
    raise AssertionError(f"not seen in {timeout} s: {lines[-5:]}")


def test_the_next_command_stops_an_analysis_through_a_pipe():
    engine = subprocess.Popen(
        [sys.executable, "-m", "mockgo.arena.gtp", "--player", "mcts:readouts=64", "--size", "5"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        bufsize=1)
    try:
        engine.stdin.write("1 lz-analyze b 5\n")
        engine.stdin.flush()
        assert engine.stdout.readline() == "=1\n"
        lines = read_until(engine.stdout, lambda line: line.startswith("info"), 60)
        lines += read_until(engine.stdout, lambda line: line.startswith("info"), 10)
        engine.stdin.write("2 name\n")
        engine.stdin.flush()
        # Within read_until's 10 s: the analysis stops and the next command is answered.
        rest = read_until(engine.stdout, lambda line: line == "", 10)
        lines += rest
        assert read_until(engine.stdout, lambda line: line == "=2 mockgo", 10)
        infos = [line for line in lines if line]
        visits = [sum(c["visits"] for c in check_line(line, 5)) for line in infos]
        assert visits == sorted(visits) and visits[0] > 0  # the tree grows
        # The engine goes on: the analysis's tree is the player's.
        engine.stdin.write("3 genmove b\n4 quit\n")
        engine.stdin.flush()
        assert read_until(engine.stdout, lambda line: line.startswith("=3 "), 30)
        assert engine.wait(30) == 0
    finally:
        engine.kill()
        engine.wait()


# ------------------------------------------------------ a recorded session


def read_session(path):
    """A recorded session: ``> command`` lines, each followed by the
    engine's answer (its empty last line included), verbatim."""
    exchanges, command, answer_lines = [], None, []
    for line in path.read_text().split("\n"):
        if line.startswith("> "):
            if command is not None:
                exchanges.append((command, "\n".join(answer_lines) + "\n"))
            command, answer_lines = line[2:], []
        elif command is not None:
            answer_lines.append(line)
    exchanges.append((command, "\n".join(answer_lines).rstrip("\n") + "\n\n"))
    return exchanges


def session_server():
    """The recorded session's engine: UCT on 5x5, the timer still (lines
    only when the tree stops growing), 300 visits a ponder."""
    return GTPServer(make_player("uct:playouts=200"), size=5, ponder_visits=300,
                     timer=lambda: 0.0)


def test_a_recorded_session_replays_the_same():
    exchanges = read_session(SESSION)
    assert len(exchanges) >= 8
    server = session_server()
    for command, expected in exchanges:
        got = answer(server, command)
        assert got == expected, command
        if "analyze" in command and "kata" not in command:
            for line in got.split("\n"):
                if line.startswith("info"):
                    check_line(line, 5)


def test_the_command_line_sets_the_ponder_limit():
    import argparse

    from mockgo.gtp.cli import configure_parser

    parser = configure_parser(argparse.ArgumentParser())
    assert parser.parse_args([]).ponder_visits == analysis.PONDER_VISITS
    assert parser.parse_args(["--ponder-visits", "300"]).ponder_visits == 300
    with pytest.raises(SystemExit):
        parser.parse_args(["--ponder-visits", "0"])


def test_a_network_player_is_built_by_its_first_analysis_in_its_loading_context():
    import contextlib

    from mockgo.play.lazy_player import LazyPlayer, PlayerPlan

    seen = []

    def evaluate(states):
        seen.append(("evaluate", inside))
        return stones_evaluator(states)

    @contextlib.contextmanager
    def loading():
        nonlocal inside
        inside = True
        try:
            yield
        finally:
            inside = False

    inside = False
    built = SearchPlayer(evaluate, readouts=16, game=CarefulGoGame, size=5, name="stones")
    lazy = LazyPlayer(PlayerPlan(lambda: built, "stones", size=5), loading=loading)
    server = GTPServer(lazy, size=5, ponder_visits=24)
    setup_5x5(server)
    assert not lazy.loaded
    found = check_line(analysis_lines(answer(server, "lz-analyze b 1"))[-1], 5)
    assert lazy.loaded and sum(c["visits"] for c in found) == 24
    # The first evaluation (the root's) ran while loading; the search after.
    assert seen[0] == ("evaluate", True) and all(not s[1] for s in seen[1:])
    assert len(seen) > 1


# What TensorFlow's runtime prints at start-up (as test_gtp_startup checks).
TENSORFLOW_WORDS = ("cuinit", "onednn", "cuda", "absl", "tensorflow", "cpu_feature_guard")


@pytest.mark.parametrize("spec, size", [("policy:pretrained=sl-19", 19),
                                        ("mcts:pretrained=zero-9,readouts=32", 9)])
def test_shipped_networks_analyse_through_the_command_line(spec, size):
    """As Sabaki runs it: the engine, a shipped network, ``lz-analyze B 50``
    and the next command; stderr keeps to mockgo's lines."""
    commands = [f"boardsize {size}", "clear_board", "play b D4", "1 lz-analyze W 50 minmoves 5",
                "2 genmove_analyze w 20", "quit"]
    done = subprocess.run([sys.executable, "-m", "mockgo.cli", "gtp", "--player", spec,
                           "--ponder-visits", "64"],
                          input="\n".join(commands) + "\n", capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert not any(word in done.stderr.lower() for word in TENSORFLOW_WORDS), done.stderr
    answers = done.stdout.split("\n\n")
    analysed = answers[3]
    lines = analysed.split("\n")
    assert lines[0] == "=1" and len(lines) >= 2
    found = check_line(lines[-1], size)
    assert len(found) >= 5 and "D4" not in [c["move"] for c in found]
    if spec.startswith("mcts"):
        # The next command was already waiting: one slice (a search step of
        # parallel_readouts, 8) and the analysis stops.
        assert sum(c["visits"] for c in found) == 8
    else:  # a policy: its priors, scaled
        assert all(c["winrate"] == 5000 for c in found)
    played = answers[4].split("\n")
    assert played[0] == "=2" and played[-1].startswith("play ")
    check_line(played[-2], size)
