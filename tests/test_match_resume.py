"""Matches with an out_dir are resumable jobs (mockgo.arena.matches)."""

import argparse
import dataclasses
import json
import time
import warnings

import pytest

from mockgo.arena.matches import configure_parser, run_cli
from mockgo.play.match import match
from mockgo.play.match_folder import FINISHED_GAMES
from mockgo.data.files import FolderBusyError, is_temporary
from mockgo.go.board import BLACK, WHITE
from mockgo.play.random_player import RandomPlayer


def _results(result):
    return [(g.index, g.result, g.board.move_number, g.names) for g in result.games]


def test_a_match_resumes_and_extends_in_its_folder(tmp_path, capsys):
    folder = tmp_path / "m"
    first = match("random:seed=1", "random:seed=2", games=4, size=5, seed=3, out_dir=folder)
    assert len((folder / FINISHED_GAMES).read_text().splitlines()) == 4
    # The same match again: nothing is played, the games are read back.
    again = match("random:seed=1", "random:seed=2", games=4, size=5, seed=3, out_dir=folder,
                  verbose=True)
    assert "4 of 4 games already played" in capsys.readouterr().out
    assert _results(again) == _results(first)
    assert (again.wins_a, again.wins_b, again.draws) == (first.wins_a, first.wins_b, first.draws)
    # Extended to 6: two more games, the same as in a fresh 6-game match.
    extended = match("random:seed=1", "random:seed=2", games=6, size=5, seed=3, out_dir=folder)
    fresh = match("random:seed=1", "random:seed=2", games=6, size=5, seed=3)
    assert _results(extended) == _results(fresh)
    assert len((folder / FINISHED_GAMES).read_text().splitlines()) == 6


def test_a_resumed_match_refuses_other_settings_and_lost_files(tmp_path):
    folder = tmp_path / "m"
    match("random", "random:seed=2", games=2, size=5, out_dir=folder)
    with pytest.raises(ValueError, match=r"holds a match made with other settings.*size"):
        match("random", "random:seed=2", games=2, size=7, out_dir=folder)
    with pytest.raises(ValueError, match="more than the 1 asked for"):
        match("random", "random:seed=2", games=1, size=5, out_dir=folder)
    log = folder / FINISHED_GAMES
    lost = json.loads(log.read_text().splitlines()[0])["sgf"]
    (folder / lost).unlink()
    with pytest.raises(ValueError, match=f"line 1 names game 1's file .*{lost}"):
        match("random", "random:seed=2", games=2, size=5, out_dir=folder)


def test_a_match_holds_its_folder_and_clears_what_a_killed_write_left(tmp_path,
                                                                     another_process_holds):
    folder = tmp_path / "m"
    match("random", "random:seed=2", games=1, size=5, out_dir=folder)
    with another_process_holds(folder, "another match"):
        with pytest.raises(FolderBusyError, match="another match"):
            match("random", "random:seed=2", games=2, size=5, out_dir=folder)
    # An SGF write killed before its rename leaves its temporary behind.
    left = folder / ".game-001-random-vs-random.sgf.abcd1234.tmp"
    left.write_text("(;GM[1]")
    assert is_temporary(left)
    resumed = match("random", "random:seed=2", games=2, size=5, out_dir=folder)
    assert resumed.n == 2 and not left.exists()


def test_a_line_cut_short_by_a_crash_means_that_game_is_played_again(tmp_path):
    folder = tmp_path / "m"
    match("random", "random:seed=2", games=3, size=5, out_dir=folder)
    log = folder / FINISHED_GAMES
    lines = log.read_text().splitlines()
    log.write_text("\n".join(lines[:2]) + "\n" + lines[2][:15])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = match("random", "random:seed=2", games=3, size=5, out_dir=folder)
    assert any("incomplete" in str(w.message) for w in caught)
    assert result.n == 3
    # The cut line is gone, so the log reads whole next time.
    assert match("random", "random:seed=2", games=3, size=5, out_dir=folder).n == 3
    assert len(log.read_text().splitlines()) == 3


class _SlowRandom(RandomPlayer):
    """A random player that takes ``delay`` seconds a move."""

    def __init__(self, delay, **options):
        super().__init__(**options)
        self.delay = delay

    def group_key(self):  # random players answer together; this one on its own
        return ("slow", id(self))

    def choose(self, turns):
        time.sleep(self.delay)
        return super().choose(turns)


def test_a_match_times_each_players_moves_and_keeps_the_times_in_its_folder(tmp_path):
    folder = tmp_path / "m"
    slow, fast = _SlowRandom(0.03, seed=1, name="slow"), RandomPlayer(seed=2, name="fast")
    result = match(slow, fast, games=2, size=5, out_dir=folder)
    a, b = result.seconds_per_move()
    assert a >= 0.03 and b < a
    assert "seconds a move: A" in result.table()
    # Each game's moves have one time each, and the slow player's are its own.
    for game in result.games:
        assert len(game.think_seconds) == len(game.moves)
        slow_color = BLACK if game.index % 2 == 0 else WHITE
        assert game.thinking(slow_color)[0] >= 0.03 * game.thinking(slow_color)[1]
    again = match(slow, fast, games=2, size=5, out_dir=folder)
    assert again.seconds_per_move() == pytest.approx((a, b), abs=2e-3)
    # Lines written before matches timed moves read back without times.
    log = folder / FINISHED_GAMES
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    log.write_text("".join(json.dumps({k: v for k, v in e.items() if k != "think"}) + "\n"
                           for e in entries))
    untimed = match(slow, fast, games=2, size=5, out_dir=folder)
    assert untimed.seconds_per_move() == (None, None)
    assert "seconds a move" not in untimed.table()


@pytest.mark.parametrize("bad", [["--size", "99"], ["--komi", "1e20"],
                                 ["--white", "policy:path=/no/such/model.keras"]])
def test_a_match_that_cannot_start_leaves_no_folder(tmp_path, monkeypatch, bad):
    # Each failed `mockgo match` left an empty timestamped folder in matches/.
    monkeypatch.chdir(tmp_path)
    parser = configure_parser(argparse.ArgumentParser(prog="mockgo match"))
    args = parser.parse_args(["--black", "random", "--white", "random", "--games", "1",
                              "--scorer", "tromp-taylor", "--quiet"] + bad)
    with pytest.raises((ValueError, FileNotFoundError)):
        run_cli(args)
    assert list((tmp_path / "matches").glob("*")) == []
    # A folder that was there before is left as it was, and one with a
    # finished game is kept to resume.
    (tmp_path / "mine").mkdir()
    with pytest.raises((ValueError, FileNotFoundError)):
        run_cli(parser.parse_args(["--black", "random", "--white", "random", "--games", "1",
                                   "--out", "mine"] + bad))
    assert (tmp_path / "mine").is_dir()


def test_a_match_that_played_keeps_its_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    parser = configure_parser(argparse.ArgumentParser(prog="mockgo match"))
    run_cli(parser.parse_args(["--black", "random", "--white", "random", "--games", "1",
                               "--size", "5", "--scorer", "tromp-taylor", "--quiet"]))
    [folder] = (tmp_path / "matches").glob("*")
    assert (folder / FINISHED_GAMES).exists()


def test_a_finished_match_reads_back_as_a_record_with_the_command_that_played_it(tmp_path,
                                                                                   capsys):
    from mockgo.play.match_folder import read_match

    folder = tmp_path / "m"
    played = match("random:seed=1", "random:seed=2", games=4, size=5, seed=3, out_dir=folder)
    log_before = (folder / FINISHED_GAMES).read_text()
    record = read_match(folder)
    assert (record.spec_a, record.spec_b, record.size, record.komi, record.seed) == (
        "random:seed=1", "random:seed=2", 5, 7.5, 3)
    assert _results(record) == _results(played)
    assert (record.score_a, record.n) == (played.score_a, 4)
    assert (folder / FINISHED_GAMES).read_text() == log_before  # nothing written
    # The command plays the same match: run, it finds every game done and plays none.
    command = record.command()
    assert f"--out {folder}" in command and "--seed 3" in command
    args = configure_parser(argparse.ArgumentParser()).parse_args(command.split()[2:])
    assert run_cli(args) == 0
    assert "4 of 4 games already played" in capsys.readouterr().out
    assert (folder / FINISHED_GAMES).read_text() == log_before


def test_reading_a_match_names_a_folder_that_holds_none(tmp_path):
    from mockgo.play.match_folder import read_match

    with pytest.raises(FileNotFoundError, match=r"empty is not a match's folder: it has no "
                                                r"match\.json"):
        read_match(tmp_path / "empty")
    match("random", "random:seed=2", games=1, size=5, out_dir=tmp_path / "m")
    (tmp_path / "m" / FINISHED_GAMES).unlink()
    with pytest.raises(ValueError, match="m holds no finished game"):
        read_match(tmp_path / "m")


def test_a_match_a_program_seeded_with_several_numbers_reads_back_without_a_command(tmp_path):
    """A Zero run's own matches (equal-cost, evaluation, strength) are seeded
    by a list of ints: a record all the same, with no command line to replay
    it (its players were networks the run held in memory)."""
    from mockgo.arena.ladder import ladder
    from mockgo.play.match_folder import read_match

    folder = tmp_path / "zero-like"
    played = match("random:seed=1", "random:seed=2", games=2, size=5, seed=[0, 14, 5],
                   out_dir=folder)
    record = read_match(folder)
    assert record.seed == [0, 14, 5] and _results(record) == _results(played)
    assert record.command() is None
    table = ladder([], anchors=["random:seed=2"], size=5, workers=1, out_dir=None, plot=None,
                   verbose=False, recorded=[record]).table()
    assert "played by a program, not by a command" in table
    # So is one whose players are names no spec makes (a Zero run's strength matches).
    assert dataclasses.replace(record, seed=3, spec_a="000020").command() is None
    assert dataclasses.replace(record, seed=3).command().startswith("mockgo match --black random")
    # A seed of another shape is still named as damage.
    settings = json.loads((folder / "match.json").read_text())
    (folder / "match.json").write_text(json.dumps({**settings, "seed": [0, "x"]}))
    with pytest.raises(ValueError, match=r"field 'seed' should be an int or an array of ints"):
        read_match(folder)
