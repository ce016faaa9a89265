"""Notebook 05's showcase: a game that shows what a search thinks.

::

    from mockgo.arena.showcase import showcase_game, key_moves
    game = showcase_game("uct:playouts=200,rave=1", "gnugo:level=1", 9, "runs/x/showcase")
    for k in key_moves(game.records):
        record = game.records[k]               # the position, the root's visits, the move

(Which players take part in notebook 05's ladders, its line-ups, is
:mod:`mockgo.arena.lineups`' to say: it is given the other notebooks' run
folders.)

The showcase game is one game of a UCT player (:class:`~mockgo.play.search_player.UCTPlayer`)
against an opponent, played through :func:`~mockgo.play.match.match`, in
which every search's root statistics are recorded: the visit counts N of each
move (pass last) and their wins W. The move a UCT search plays is its most
visited one (:meth:`~mockgo.search.uct.UCTSearch.best_action`), so the visit
map shows the decision itself.
"""

import dataclasses
import shutil
from pathlib import Path

import numpy as np

from mockgo.data.sgf_reader import load_sgf, replay
from mockgo.play.match import match
from mockgo.play.player import Player
from mockgo.play.search_player import UCTPlayer
from mockgo.play.specs import make_player

__all__ = ["SearchRecord", "SearchRecorder", "ShowcaseGame", "key_moves", "showcase_game"]


# ------------------------------------------------------- the showcase game


@dataclasses.dataclass
class SearchRecord:
    """One search of the showcase game: the position (``board``, before the
    move), the root's visit counts ``visits`` and wins ``wins`` (N*N + 1
    entries, pass last), the ``move`` played and the root's win rate."""

    board: object
    visits: np.ndarray
    wins: np.ndarray
    move: int
    win_rate: float

    @property
    def move_number(self):
        """The move's number in the game, from 1."""
        return self.board.move_number + 1

    @property
    def visit_share(self):
        """The visits as shares of the search's simulations (the heatmap)."""
        return self.visits / max(self.visits.sum(), 1)

    def top(self, count=3):
        """The ``count`` most visited moves: ``(move, visits, win rate)``."""
        order = np.argsort(-self.visits, kind="stable")[:count]
        return [(int(a), int(self.visits[a]), float(self.wins[a] / self.visits[a]))
                for a in order if self.visits[a] > 0]


class SearchRecorder(Player):
    """A :class:`~mockgo.play.search_player.UCTPlayer` that keeps a
    :class:`SearchRecord` of each of its searches (``records``), in the
    order it moved. Everything else is the UCT player's."""

    def __init__(self, player):
        if not isinstance(player, UCTPlayer):
            raise TypeError(f"a SearchRecorder records a UCT player's searches, not {player!r}")
        self.player = player
        self.name = player.name
        self.seed = player.seed
        self.records = []

    def start_game(self, game, board, rng):
        self.player.start_game(game, board, rng)

    def choose(self, turns):
        choices = self.player.choose(turns)
        for turn, move in zip(turns, choices.moves):
            tree = self.player.trees.get(turn.game)
            root = None if tree is None else tree.root
            # A pass answered without a search leaves the last tree behind.
            if root is None or move < 0 or root.state.board.history != turn.board.history:
                continue  # (or a resignation)
            self.records.append(SearchRecord(turn.board.copy(), root.N.copy(), root.W.copy(),
                                             int(move), root.win_rate()))
        return choices

    def observe(self, game, board, move):
        self.player.observe(game, board, move)

    def end_game(self, game):
        self.player.end_game(game)

    def close(self):
        self.player.close()


@dataclasses.dataclass
class ShowcaseGame:
    """The showcase game: its :class:`~mockgo.play.results.MatchResult`
    (one game, the searcher black) and the searcher's :class:`SearchRecord` s."""

    result: object
    records: list

    @property
    def game(self):
        return self.result.games[0]


SEARCHES = "searches.npz"


def showcase_game(searcher, opponent, size, folder, seed=0, komi=7.5, scorer="auto"):
    """Play one game of ``searcher`` (a ``uct:`` spec), black, against
    ``opponent`` (a spec) on ``size`` x ``size``, recording each search
    (:class:`SearchRecorder`). The game is saved in ``folder/game`` and the
    searches in ``folder/searches.npz``; run again with the same settings,
    both are read back instead of played (a game without its searches is
    played again). Returns a :class:`ShowcaseGame`."""
    folder = Path(folder)
    saved = folder / SEARCHES
    game_dir = folder / "game"
    if not saved.exists():
        shutil.rmtree(game_dir, ignore_errors=True)
    game_dir.mkdir(parents=True, exist_ok=True)
    recorder = SearchRecorder(make_player(searcher))
    result = match(recorder, opponent, games=1, size=size, komi=komi, workers=1,
                   out_dir=game_dir, scorer=scorer, seed=seed)
    if recorder.records:
        records = recorder.records
        np.savez(saved, move_numbers=np.array([r.board.move_number for r in records]),
                 visits=np.stack([r.visits for r in records]),
                 wins=np.stack([r.wins for r in records]),
                 moves=np.array([r.move for r in records]),
                 win_rates=np.array([r.win_rate for r in records]))
    else:
        records = _read_searches(saved, result.games[0].path)
    return ShowcaseGame(result, records)


def _read_searches(saved, sgf_path):
    """The records saved by :func:`showcase_game`, their boards replayed
    from the game's SGF file."""
    data = np.load(saved)
    wanted = {int(n): k for k, n in enumerate(data["move_numbers"])}
    boards = {}
    for board, _, _ in replay(load_sgf(sgf_path)):
        if board.move_number in wanted:
            boards[board.move_number] = board.copy()
    return [SearchRecord(boards[n], data["visits"][k], data["wins"][k], int(data["moves"][k]),
                         float(data["win_rates"][k])) for n, k in wanted.items()]


def key_moves(records, count=3):
    """Indices of up to ``count`` telling searches among ``records``, in
    game order: the *opening* (the first search), the *turning point* (the
    search whose win rate moved most from the one before) and the *hardest
    choice* (the smallest gap between the two most visited moves' shares,
    among the searches whose win rate was between 0.2 and 0.8), then, if those coincide, searches spread evenly over the game."""
    if not records:
        return []
    chosen = [0]
    if len(records) > 1:
        rates = np.array([r.win_rate for r in records])
        chosen.append(1 + int(np.argmax(np.abs(np.diff(rates)))))

        def gap(record):  # among searches whose game was still open
            if not 0.2 <= record.win_rate <= 0.8:
                return np.inf
            shares = np.sort(record.visit_share)[::-1]
            return shares[0] - shares[1]

        gaps = [gap(r) if k not in chosen else np.inf for k, r in enumerate(records)]
        if np.isfinite(min(gaps)):
            chosen.append(int(np.argmin(gaps)))
    for k in np.linspace(0, len(records) - 1, count + 2).round().astype(int)[1:-1]:
        if len(dict.fromkeys(chosen)) >= count:
            break
        chosen.append(int(k))
    return sorted(list(dict.fromkeys(chosen))[:count])
