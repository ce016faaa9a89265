"""Notebook 05's arena: which players can take part, and a game that shows
what a search thinks.

::

    from mockgo.arena.showcase import arena_lineup, showcase_game, key_moves
    lineup = arena_lineup(preset, root)        # 9x9: anchors, search players, notes
    game = showcase_game("uct:playouts=200,rave=1", "gnugo:level=1", 9, "runs/x/showcase")
    for k in key_moves(game.records):
        record = game.records[k]               # the position, the root's visits, the move

A *lineup* is what a ladder (:func:`mockgo.arena.ladder.ladder`) rates: its
anchors (the first fixed at 0 Elo), its players, and a note for every player
or anchor left out and why (GnuGo not installed, a network a notebook's full
run has not made yet). Players that depend on other notebooks' runs come
last, so that a ladder resumed after they appear keeps the numbering (and the
folders) of the matches it already played.

The showcase game is one game of a UCT player (:class:`~mockgo.play.players.UCTPlayer`)
against an opponent, played through :func:`~mockgo.arena.matches.match`, in
which every search's root statistics are recorded: the visit counts N of each
move (pass last) and their wins W. The move a UCT search plays is its most
visited one (:meth:`~mockgo.search.uct.UCTSearch.best_action`), so the visit
map shows the decision itself.
"""

import dataclasses
import shutil
from pathlib import Path

import numpy as np

from mockgo import pretrained
from mockgo.arena.matches import match
from mockgo.data.records import load_sgf, replay
from mockgo.gtp.client import find_gnugo
from mockgo.play.players import Player, UCTPlayer, make_player

__all__ = ["Lineup", "SearchRecord", "SearchRecorder", "ShowcaseGame", "arena_lineup",
           "big_board_lineup", "key_moves", "showcase_game", "zero_network"]


# ---------------------------------------------------------------- lineups


@dataclasses.dataclass
class Lineup:
    """A ladder's anchors (the first fixed at 0 Elo) and players, with a
    note for each one left out or replaced, saying why."""

    size: int
    anchors: list
    players: list
    notes: list

    def describe(self):
        lines = [f"{self.size}x{self.size}: anchors {', '.join(self.anchors)} "
                 f"({self.anchors[0]} = 0 Elo)",
                 f"players: {', '.join(self.players) or 'none'}"]
        return "\n".join(lines + [f"  - {note}" for note in self.notes])


def _shown(path, root):
    """``path`` relative to ``root`` when it is under it (for notes)."""
    try:
        return Path(path).resolve().relative_to(Path(root).resolve())
    except ValueError:
        return path


def _gnugo_available(gnugo):
    return bool(find_gnugo() if gnugo is None else gnugo)


def _anchors(anchors, gnugo, notes):
    """The anchors that can play: GnuGo's only when it is installed."""
    if _gnugo_available(gnugo):
        return list(anchors)
    kept = [a for a in anchors if not a.startswith("gnugo")]
    left = [a for a in anchors if a.startswith("gnugo")]
    if left:
        notes.append(f"GnuGo is not installed (apt-get install gnugo): {', '.join(left)} left "
                     f"out, so {' and '.join(kept) or 'nothing'} is the only anchor and the "
                     f"ratings say only how far each player is from it")
    return kept


def zero_network(root):
    """Notebook 04's full run's best network (``runs/04_zero/full/katago``,
    :func:`mockgo.notebook.zero_dir`: its ``state.json``'s best model, as
    :class:`mockgo.zero.layout.RunLayout` lays it out): ``(path, None)``, or
    ``(None, why not)``."""
    from mockgo.notebook import zero_dir
    from mockgo.data.files import read_json
    from mockgo.zero.layout import RunLayout

    folder = zero_dir(root, quick=False)
    layout = RunLayout(folder)
    if not layout.state.exists():
        return None, (f"no 9x9 Zero network: notebook 04's full run ({_shown(folder, root)}) "
                      f"has not started (run it in full mode first)")
    # Only "best" is read (a run of an earlier mockgo may lack it: no model):
    # checked, so that a damaged state is named, not a TypeError.
    state = read_json(layout.state, "the run's progress", schema={"best?": int})
    best = state.get("best", 0)
    path = layout.model(best)
    if best == 0:
        return None, (f"no 9x9 Zero network: notebook 04's full run ({_shown(folder, root)}) "
                      f"has not trained a generation yet (its best model is generation 0, "
                      f"random weights)")
    if not path.exists():
        return None, (f"no 9x9 Zero network: {_shown(path, root)}, the run's best model, "
                      f"is missing")
    return path, None


def arena_lineup(preset, root, gnugo=None):
    """The 9x9 ladder's :class:`Lineup`: ``preset.anchors`` (GnuGo's left
    out when it is not installed; ``gnugo``: True/False to say so instead of
    looking), ``preset.players``, and last, with ``preset.zero_readouts``,
    notebook 04's best network (:func:`zero_network`, or else the shipped
    ``zero-9``) as an ``mcts:`` player with that many readouts a move."""
    notes = []
    anchors = _anchors(preset.anchors, gnugo, notes)
    players = list(preset.players)
    if preset.zero_readouts is None:
        notes.append("the Zero agent (notebook 04) is left out in quick mode")
    else:
        path, why = zero_network(root)
        if path is not None:
            players.append(f"mcts:path={Path(path).resolve()},readouts={preset.zero_readouts},"
                           f"name=zero-{path.stem}-{preset.zero_readouts}")
        elif "zero-9" in pretrained.names():
            notes.append(why + "; the Zero agent is the shipped zero-9")
            players.append(f"mcts:pretrained=zero-9,readouts={preset.zero_readouts},"
                           f"name=zero-9-{preset.zero_readouts}")
        else:
            notes.append(why + "; the Zero agent is left out")
    return Lineup(preset.size, anchors, players, notes)


def big_board_lineup(preset, root, gnugo=None):
    """The 19x19 ladder's :class:`Lineup` (None when ``preset.big_size`` is
    None): ``preset.big_anchors``; the shipped SL policy ``sl-19``; with
    ``preset.big_networks``, notebook 03's RL policy (or else the shipped
    ``rl-19``) and an AlphaGo search
    (the SL policy's priors, notebook 02's value network, or else the
    shipped ``value-19``, mixed with rollouts at ``preset.alphago_mix``,
    ``preset.alphago_readouts`` a move), each when its network exists."""
    from mockgo.notebook import rl_policy_path, value_path

    if preset.big_size is None:
        return None
    notes = []
    anchors = _anchors(preset.big_anchors, gnugo, notes)
    players = []
    if "sl-19" in pretrained.names():
        players.append("policy:pretrained=sl-19")
    else:
        notes.append("the shipped SL policy sl-19 is missing from this installation")
    if not preset.big_networks:
        notes.append("notebook 03's RL policy and the AlphaGo search with notebook 02's value "
                     "network are left out in quick mode")
        return Lineup(preset.big_size, anchors, players, notes)
    rl_policy = rl_policy_path(root, quick=False)
    if rl_policy.exists():
        players.append(f"policy:path={rl_policy.resolve()},name=rl-policy")
    elif "rl-19" in pretrained.names():
        notes.append(f"the RL policy is the shipped rl-19: notebook 03's {_shown(rl_policy, root)} "
                     f"does not exist")
        players.append("policy:pretrained=rl-19,name=rl-policy")
    else:
        notes.append(f"no RL policy: {_shown(rl_policy, root)} does not exist (run notebook 03 "
                     f"in full mode)")
    value = value_path(root, quick=False)
    search = (f"readouts={preset.alphago_readouts},mix={preset.alphago_mix:g},"
              f"name=alphago-{preset.alphago_readouts}")
    if value.exists():
        players.append(f"alphago:policy_pretrained=sl-19,value={value.resolve()},{search}")
    elif "value-19" in pretrained.names():
        notes.append(f"AlphaGo's search judges with the shipped value-19: notebook 02's value "
                     f"network {_shown(value, root)} does not exist")
        players.append(f"alphago:policy_pretrained=sl-19,value_pretrained=value-19,{search}")
    else:
        notes.append(f"no AlphaGo search: notebook 02's value network {_shown(value, root)} "
                     f"does not exist (run notebook 02 in full mode)")
    return Lineup(preset.big_size, anchors, players, notes)


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
    """A :class:`~mockgo.play.players.UCTPlayer` that keeps a
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
    """The showcase game: its :class:`~mockgo.arena.matches.MatchResult`
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
