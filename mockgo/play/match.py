"""Matches: N games between two players, and their :class:`~mockgo.play.results.MatchResult`.
The one match engine: ``mockgo match``, the ladder, the notebooks,
REINFORCE's evaluation and AlphaGo Zero's 55% gate all play through it.

::

    from mockgo.play.match import match
    result = match("random", "gnugo:level=1", games=20, size=9, verbose=True)  # prints a table
    result.win_rate, result.interval(), result.elo(), result.elo_interval()

    mockgo match --black random --white gnugo:level=1 --games 20 --size 9

Players are :class:`~mockgo.play.player.Player` objects or specs
(:mod:`mockgo.play.specs`). The first player,
A, has black in games 0, 2, 4...; the colours alternate. In one process the
games are played in lockstep by :func:`mockgo.play.runner.play_games` (one
network call per step for all the games a network is to move in); with
``workers`` > 1, players given as specs (or :class:`mockgo.cluster.Recipe`)
are made in each worker process (``multiprocessing``, spawn context) and the
processes play games side by side, which is how GnuGo games use every core;
with ``cluster="ray"`` (``mockgo match --cluster ray``) the workers are Ray
actors on the machines of a cluster, each with its own players (its own
GnuGo process). Workers send their games back; this process saves them.
Each game gets its own seed
(from ``seed`` and the game number) and each player a generator from it
(GTP engines that know ``set_random_seed``, such as GnuGo, get a seed too),
so games differ from one another and mockgo's own players replay a match
exactly whatever the number of workers; an engine may carry state from one
game to the next (GnuGo does, a little), so its games can depend on which
games its worker played before.

A game ends at two passes in a row, a resignation, or the move cap
(``max_moves``, default 2 * size * size, counting passes; the position is
then scored as it stands). A move the rules forbid (which mockgo's players
never make), or an engine that crashed and crashed again when started anew,
loses the game by forfeit, written ``B+F``/``W+F``.

Scoring: area scoring with komi (Chinese rules), after taking off the
board the stones GnuGo calls dead: a GnuGo started for the purpose loads
the game's SGF (``loadsgf``) and answers ``final_status_list dead``
(``scorer="gnugo"``). Without GnuGo (``scorer="tromp-taylor"``, or
``"auto"`` when GnuGo is not installed) every stone counts as alive:
Tromp-Taylor scoring, which is exact when the game was played out to the
end (as random players do) and favours the side whose dead stones are left
on the board otherwise.

With ``out_dir``, every game is saved there as SGF (player names, result,
and a comment with the specs and how it was scored); ``mockgo match`` saves
them in ``matches/<time>-<A>-vs-<B>`` unless told otherwise.

Resuming: a match with ``out_dir`` is a resumable job, since one against
GnuGo at level 10 can take hours. The folder keeps ``match.json`` (the
settings) and ``games.jsonl``, one line per finished game (number, how it
ended, the dead stones, its SGF file, the seconds each move took its
player), appended as each game ends. Run the
same match into the same folder again and the finished games are read back
(their SGF files replayed), and only the others are played; ``games`` may
be raised to extend a match. Other settings are refused, naming the folder
and each difference; a ``games.jsonl`` line whose SGF file is gone or
unreadable is an error naming it, not a game silently played again. The
match holds the folder's lock while it plays (:func:`mockgo.data.files.job_folder`):
a second match into the same folder is refused, naming the process that
plays there, and the temporary files of an SGF write that a kill cut short
are deleted when the match resumes.

The statistics are :mod:`mockgo.play.results`'s, the scoring
:mod:`mockgo.play.scoring`'s, the resumable folder
:mod:`mockgo.play.match_folder`'s; ``mockgo match`` is
:mod:`mockgo.arena.matches`.
"""

import re
import shlex
import sys
import time
from pathlib import Path

from mockgo.cluster import Executor, Recipe, local_workers, make_executor
from mockgo.data.files import job_folder
from mockgo.play.gtp_engine import find_gnugo
from mockgo.play.match_folder import log_finished, match_settings, open_folder
from mockgo.play.player import Player
from mockgo.play.specs import engine_command, make_player, parse_spec
from mockgo.play.results import MatchResult
from mockgo.play.runner import game_seed, play_games
from mockgo.play.scoring import make_scorer, save_game, score_and_save, score_game


def _file_name(index, black, white):
    def clean(name):
        return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_")[:40] or "player"
    return f"game-{index:03d}-{clean(black)}-vs-{clean(white)}.sgf"


def _match_comment(index, specs, games):
    a_is_black = index % 2 == 0
    return (f"mockgo match, game {index + 1} of {games}: "
            f"black = {specs[0] if a_is_black else specs[1]}, "
            f"white = {specs[1] if a_is_black else specs[0]}.")


def _sgf_path(game, out_dir):
    black, white = game.names
    return None if not out_dir else str(Path(out_dir) / _file_name(game.index, black, white))


def _finish(game, scorer, out_dir, specs, games):
    return score_and_save(game, scorer, _sgf_path(game, out_dir),
                          _match_comment(game.index, specs, games))


# ------------------------------------------------------------------ workers


def _make_side(side):
    """A player in a worker: from a spec, or from a
    :class:`~mockgo.cluster.Recipe` (a player of networks held in memory)."""
    return make_player(side) if isinstance(side, str) else side.make()


class _Session:
    """A match's worker (:mod:`mockgo.cluster`): the two players and the
    scorer, made there once. A task is some of the match's games, played
    there in lockstep and scored; the games go back to the driver, which
    saves them and writes ``games.jsonl``."""

    def __init__(self, side_a, side_b, scorer):
        self.scorer = make_scorer(scorer)
        self.players = []
        try:
            self.players.append(_make_side(side_a))
            self.players.append(_make_side(side_b))
        except BaseException:
            self.close()
            raise

    def __call__(self, task):
        indices = task["indices"]
        a, b = self.players
        played = play_games([a if i % 2 == 0 else b for i in indices],
                            [b if i % 2 == 0 else a for i in indices], len(indices), task["size"],
                            komi=task["komi"], seeds=[game_seed(task["seed"], i) for i in indices],
                            max_moves=task["max_moves"])
        finished = []
        for game in played:
            game.index = indices[game.index]  # the runner numbers the games it plays
            scoring = score_game(game, self.scorer)
            game.players = None  # engines and networks stay in the worker
            finished.append((game, scoring))
        return finished

    def close(self):
        for player in self.players:
            try:
                player.close()
            except Exception:
                pass
        self.players = []
        self.scorer.close()


# ------------------------------------------------------------------ the match


def _spec(player):
    if isinstance(player, str):
        return player
    return getattr(player, "name", None) or repr(player)


def match(a, b, games=10, size=9, komi=7.5, max_moves=None, workers=1, concurrent=None,
          out_dir=None, scorer=None, seed=0, verbose=False, progress=False, confidence=0.95,
          file=None, stats=None, cluster=None, games_per_task=1):
    """Play ``games`` games between players ``a`` and ``b``; returns a
    :class:`MatchResult` (and prints its table if ``verbose``).

    A player is a spec (:func:`mockgo.play.specs.make_player`), a Player
    object, or a :class:`mockgo.cluster.Recipe` that makes one in a worker
    (a network held in memory travels so). ``a`` has black in the
    even-numbered games, ``b`` in the odd ones. Every game gets its seed
    from ``seed`` and its number, so a match replays exactly, however it is
    played:

    - ``workers=1`` (the default): in this process, the games in lockstep
      (``concurrent`` at a time, default all; one at a time with a GTP
      engine), one network call per step for each network player;
    - ``workers=N`` (specs or recipes; None: one per core): N worker
      processes (``multiprocessing``, spawn context) that each make their
      own players: engines such as GnuGo in parallel;
    - ``cluster="ray"`` (or any :class:`mockgo.cluster.Executor`): on a Ray
      cluster's workers (``workers`` of them; None: as many as its CPUs
      allow), each with its own players (its own GnuGo process).

    With workers, each task is ``games_per_task`` games, played in lockstep
    by one worker and sent back to this process, which scores nothing but
    saves every game and its ``games.jsonl`` line (so ``out_dir`` is on this
    machine). ``max_moves``: the move cap (default ``2 * size * size``).
    ``out_dir``: save every game there as SGF (default: not saved), and
    resume from the games already finished there (module docstring).
    ``scorer``: ``"gnugo"`` (dead stones by GnuGo), ``"tromp-taylor"`` or
    None (every stone alive), or ``"auto"`` (GnuGo if installed). ``file``:
    where the table and the games' lines go (default stdout); ``progress``:
    a bar of finished games; ``stats``: the runner's counters (in-process
    only).
    """

    out = file or sys.stdout
    specs = (_spec(a), _spec(b))
    for player in (a, b):
        if isinstance(player, str):
            parse_spec(player)  # a typo fails here, not in every worker
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    if games_per_task < 1:
        raise ValueError(f"games_per_task must be >= 1, got {games_per_task}")
    scorer = scorer or "tromp-taylor"
    if scorer == "auto":
        scorer = "gnugo" if find_gnugo() else "tromp-taylor"
    # The folder's lock: two matches writing one folder would log each other's
    # games; and the temporaries a killed SGF write left are deleted first.
    with job_folder(out_dir or None, f"a match, {specs[0]} against {specs[1]}"):
        finished = {}
        if out_dir:
            Path(out_dir).mkdir(parents=True, exist_ok=True)
            out_dir = str(out_dir)
            finished = open_folder(out_dir, match_settings(specs, size, komi, max_moves, seed,
                                                             scorer))
            if any(index >= games for index in finished):
                raise ValueError(f"{out_dir} holds {max(finished) + 1} games of this match, more "
                                 f"than the {games} asked for: ask for at least as many")
        todo = [i for i in range(games) if i not in finished]
        if cluster is None:
            workers = local_workers(workers)
            workers = max(1, min(workers, len(todo)))
        elif workers is not None:
            workers = max(1, min(workers, len(todo)))
        if (workers != 1 or cluster is not None) and any(isinstance(p, Player) for p in (a, b)):
            raise ValueError("worker processes and clusters need both players as specs or "
                             "mockgo.cluster.Recipe (each worker makes its own)")
        started = time.perf_counter()
        results = list(finished.values())
        if finished and verbose:
            print(f"{len(finished)} of {games} games already played in {out_dir}: read back",
                  file=out, flush=True)
        for spec in dict.fromkeys(specs):
            command = engine_command(spec)
            if command and verbose and todo:
                print(f"{spec} runs: {shlex.join(command)}", file=out, flush=True)

        def report(game):
            if out_dir:
                log_finished(out_dir, game)
            results.append(game)
            if verbose:
                black, white = game.names
                print(f"game {game.index + 1:3d}/{games}: {black} (B) vs {white} (W): "
                      f"{game.result:>8}  {game.board.move_number:3d} moves  {game.seconds:5.1f} s",
                      file=out, flush=True)

        if todo and workers == 1 and cluster is None:
            made = [None if isinstance(p, Player) else _make_side(p) for p in (a, b)]
            player_a, player_b = (m or p for m, p in zip(made, (a, b)))
            scoring = make_scorer(scorer)
            try:
                blacks = [player_a if i % 2 == 0 else player_b for i in todo]
                whites = [player_b if i % 2 == 0 else player_a for i in todo]

                def on_game(game):
                    game.index = todo[game.index]  # the runner numbers the games it plays
                    report(_finish(game, scoring, out_dir, specs, games))

                play_games(blacks, whites, len(todo), size, komi=komi,
                           seeds=[game_seed(seed, i) for i in todo], max_moves=max_moves,
                           concurrent=concurrent, progress=progress, stats=stats, on_game=on_game)
            finally:
                scoring.close()
                for player in made:
                    if player is not None:
                        player.close()
        elif todo:
            _play_on_workers(a, b, todo, cluster, workers, games_per_task, scorer, specs, out_dir,
                             report, dict(size=size, komi=komi, max_moves=max_moves, seed=seed,
                                          games=games), progress)
        results.sort(key=lambda g: g.index)
        names = MatchResult.names_of(results[0])
        result = MatchResult(names[0], names[1], specs[0], specs[1], size, komi, results,
                             seconds=time.perf_counter() - started, out_dir=out_dir or None,
                             scorer=scorer, confidence=confidence, seed=seed,
                             max_moves=max_moves)
        if verbose:
            print("", file=out)
            print(result.table(), file=out, flush=True)
        return result


def _play_on_workers(a, b, todo, cluster, workers, games_per_task, scorer, specs, out_dir,
                     report, settings, progress):
    """The games ``todo`` as tasks of ``games_per_task`` on an executor
    (:mod:`mockgo.cluster`); each game saved here as its task comes back."""
    executor = make_executor(cluster, workers=workers)
    try:
        recipe = Recipe(_Session, (a, b, scorer))
        tasks = {tuple(todo[k:k + games_per_task]): dict(settings,
                                                         indices=todo[k:k + games_per_task])
                 for k in range(0, len(todo), games_per_task)}
        bar = None
        if progress:
            from tqdm.auto import tqdm
            bar = tqdm(total=len(todo), desc=progress if isinstance(progress, str) else "games",
                       leave=False)
        for _, played in executor.map(recipe, tasks):
            for game, scoring in played:
                report(save_game(game, _sgf_path(game, out_dir),
                                 _match_comment(game.index, specs, settings["games"]) + scoring))
                if bar is not None:
                    bar.update(1)
        if bar is not None:
            bar.close()
    finally:
        if not isinstance(cluster, Executor):  # made here
            executor.close()
