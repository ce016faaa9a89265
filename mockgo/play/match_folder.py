"""A match's folder, which makes a match a resumable job: ``match.json``
(the settings) and ``games.jsonl``, one line per finished game (its number,
how it ended, the dead stones, its SGF file, the seconds each move took its
player), appended and flushed to disk as each game ends, after its SGF file
is written.

A match run again into the same folder reads the finished games back
(:func:`open_folder`: their SGF files replayed) and plays only the others.
Other settings are refused, naming the folder and each difference; a
``games.jsonl`` line whose SGF file is gone or unreadable is an error
naming it, not a game silently played again; a last line cut short by a
crash is dropped with a warning (that game is played again).

A finished match is also a record: :func:`read_match` reads a folder back
as a :class:`~mockgo.play.results.MatchResult` without playing anything
(how a ladder rates a player from a match played elsewhere, with its
command, :meth:`~mockgo.play.results.MatchResult.command`).
"""

import json
import os
import warnings
from pathlib import Path

import numpy as np

from mockgo.data.files import atomic_write_text, check_same_settings, check_schema, read_json
from mockgo.data.sgf_reader import SGFError, final_board, load_sgf
from mockgo.play.results import MatchResult
from mockgo.play.runner import PlayedGame


MATCH_SETTINGS = "match.json"  #: A match folder's settings: the players' specs, board, seed...
FINISHED_GAMES = "games.jsonl"  #: A match folder's finished games, one JSON line each.
# The shape of a games.jsonl line (log_finished writes it; check_schema), so
# that a damaged line is named, not a KeyError while the match resumes.
# "think" came later (its length is checked against the game's moves).
ENTRY_SCHEMA = {"index": int, "names": [str], "reason": (str, None), "resigned?": (int, None),
                "dead": [int], "seconds": float, "sgf": str}


def match_settings(specs, size, komi, max_moves, seed, scorer):
    """The settings a match folder records (``match.json``), as a dict."""
    return dict(spec_a=specs[0], spec_b=specs[1], size=size, komi=float(komi),
                max_moves=max_moves, seed=seed, scorer=scorer)


def open_folder(out_dir, settings):
    """Check (or write) ``match.json``; the finished games of an earlier run
    of this match, read back from ``games.jsonl`` and their SGF files."""
    folder = Path(out_dir)
    path = folder / MATCH_SETTINGS
    if path.exists():
        stored = read_json(path, "the match's settings", schema=dict)
        check_same_settings(folder, "a match", stored, settings)
    else:
        atomic_write_text(path, json.dumps(settings, indent=1))
    return _finished_games(folder, repair=True)


# The fields of match.json that read_match needs (match_settings writes them).
# A seed is an int, or a list of ints where a program (a Zero run's matches)
# seeded its match from several numbers.
SETTINGS_SCHEMA = {"spec_a": str, "spec_b": str, "size": int, "komi": float,
                   "max_moves": (int, None), "seed": (int, [int]), "scorer": str}


def read_match(folder, confidence=0.95):
    """The match in ``folder`` (``match.json`` and ``games.jsonl``, as
    :func:`mockgo.play.match.match` writes them), read back without playing
    or changing anything: a :class:`~mockgo.play.results.MatchResult` of its
    finished games, which knows the settings it was played with (its
    :meth:`~mockgo.play.results.MatchResult.command` plays it again, or
    resumes it). A folder that is not a match's, or holds no finished game,
    is an error naming it."""
    folder = Path(folder)
    if not (folder / MATCH_SETTINGS).exists():
        raise FileNotFoundError(f"{folder} is not a match's folder: it has no {MATCH_SETTINGS} "
                                f"(mockgo match --out FOLDER writes one)")
    settings = read_json(folder / MATCH_SETTINGS, "the match's settings", schema=SETTINGS_SCHEMA)
    finished = _finished_games(folder, repair=False)
    if not finished:
        raise ValueError(f"{folder} holds no finished game ({FINISHED_GAMES} is missing or empty)")
    games = [finished[index] for index in sorted(finished)]
    names = MatchResult.names_of(games[0])
    return MatchResult(names[0], names[1], settings["spec_a"], settings["spec_b"],
                       settings["size"], float(settings["komi"]), games,
                       seconds=sum(game.seconds for game in games), out_dir=str(folder),
                       scorer=settings["scorer"], confidence=confidence, seed=settings["seed"],
                       max_moves=settings["max_moves"])


def _finished_games(folder, repair):
    """``{index: PlayedGame}`` from ``folder/games.jsonl``. A last line cut
    short by a crash is dropped with a warning, and with ``repair`` removed
    from the file (that game is played again)."""
    finished = {}
    log = folder / FINISHED_GAMES
    if not log.exists():
        return finished
    lines = log.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines):  # a line cut short by a crash
                fate = "played again" if repair else "left out"
                warnings.warn(f"{log}: line {number} is incomplete (the match stopped while "
                              f"writing it); that game is {fate}")
                if repair:
                    atomic_write_text(log, "".join(f"{kept}\n" for kept in lines[:-1]))
                break
            raise ValueError(f"{log}: line {number} is not JSON: {line[:80]!r}") from None
        problem = check_schema(entry, ENTRY_SCHEMA, what="the entry")
        if problem:
            raise ValueError(f"{log}: line {number} is not a finished game's entry: {problem}; "
                             f"delete the line to play that game again")
        finished[entry["index"]] = _read_back(folder, entry, log, number)
    return finished


def _read_back(folder, entry, log, number):
    """A finished game from its ``games.jsonl`` entry and its SGF file."""
    path = folder / entry["sgf"]
    try:
        record = load_sgf(path)
    except (OSError, SGFError) as error:
        raise ValueError(f"{log}: line {number} names game {entry['index'] + 1}'s file "
                         f"{path}, which cannot be read ({error}); delete the line to play "
                         f"that game again") from None
    board = final_board(record)
    if entry["reason"] == "resign":
        board.resign(entry["resigned"])
    moves = np.array([move for _, move in board.history], np.int64)
    empty = np.zeros(0)
    return PlayedGame(board, None, tuple(entry["names"]), moves,
                      np.array([color for color, _ in board.history], np.int8), empty, empty,
                      empty, empty, empty, reason=entry["reason"], note=entry.get("note"),
                      forfeited_by=entry.get("forfeited_by"), index=entry["index"],
                      seconds=entry["seconds"], think_seconds=_think_back(entry, moves, log, number),
                      dead=entry["dead"], path=str(path))


def _think_back(entry, moves, log, number):
    """The per-move thinking times of a ``games.jsonl`` entry (None for
    entries written before matches recorded them)."""
    think = entry.get("think")
    if think is None:
        return None
    if len(think) != len(moves):
        raise ValueError(f"{log}: line {number} has {len(think)} move times for the "
                         f"{len(moves)} moves of its SGF file; delete the line to play that "
                         f"game again")
    return np.array(think, np.float64)


def log_finished(out_dir, game):
    """Append the game's line to ``games.jsonl`` (flushed to disk: the
    commit point of a finished game, after its SGF file was written)."""
    entry = dict(index=game.index, names=list(game.names), reason=game.reason,
                 resigned=game.board.resigned, forfeited_by=game.forfeited_by, note=game.note,
                 dead=[int(p) for p in game.dead], seconds=round(game.seconds, 3),
                 sgf=Path(game.path).name, result=game.result)
    if game.think_seconds is not None:
        entry["think"] = [round(float(s), 3) for s in game.think_seconds]
    with open(Path(out_dir) / FINISHED_GAMES, "a", encoding="utf-8") as file:
        file.write(json.dumps(entry) + "\n")
        file.flush()
        os.fsync(file.fileno())
