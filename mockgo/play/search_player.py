"""The tree-search players: one search tree per game, kept from move to move.

- :class:`SearchPlayer`: Monte Carlo tree search with PUCT
  (:mod:`mockgo.search.mcts`) and any evaluator
  (:mod:`mockgo.search.evaluators`): uniform priors, a dual network
  (AlphaGo Zero), a policy network with a value network and rollouts
  (AlphaGo). All its games' trees are searched in lockstep, one evaluator
  call per step for all of them (specs ``mcts:...``, ``alphago:...``).
- :class:`UCTPlayer`: classic Monte Carlo tree search with random playouts
  and, as an option, RAVE (:mod:`mockgo.search.uct`; spec ``uct:...``).

Both follow the game with ``observe`` (keeping the subtree under each move)
and start a new tree from a board that did not come from the moves they
observed (an undo, a loaded position); each game's tree gets its seed from
the game's generator. ``seconds`` gives either a time budget a move instead
of a number of readouts or playouts (:func:`check_seconds`,
:func:`budget_label`).

A :class:`SearchPlayer` with a ``record_encoder`` attaches to each answer a
:class:`MoveSearch`, the record of the search that chose the move (the
position, the root's visit distribution, the SGF comment): the runner keeps
it with the move (``PlayedGame.records``), and self-play makes its training
examples from it (:mod:`mockgo.zero.selfplay`)."""

import dataclasses
import math

import numpy as np

from mockgo.data.gametree import SearchSummary
from mockgo.play.analysts import MoveInfo, lower_bound, principal_variation
from mockgo.play.player import RESIGN, THINKING, Choices, Player, passes_now
from mockgo.search.games import GoGame
from mockgo.search.mcts import (MCTSPlayer, ResignationCheck, SearchOptions, search_many,
                                search_step)
from mockgo.search.uct import UCTSearch

__all__ = ["MoveSearch", "SearchPlayer", "UCTPlayer", "budget_label", "check_seconds",
           "search_comment"]


class _TreePerGame(Player):
    """What the search players share: one tree per game, kept from move to
    move. A tree has ``root.state.board`` (the position at its root) and
    ``play(move)`` (go down to the subtree under the move); subclasses make
    one with :meth:`new_tree`. When a turn's board is not the
    position at the root of its game's tree (a new game, an undo, a loaded
    position), the search starts afresh from it, with the game's generator."""

    def __init__(self):
        self.trees = {}  # game -> its tree
        self._rngs = {}  # game -> the game's generator, for trees started later

    def start_game(self, game, board, rng):
        self._rngs[game] = rng
        self.trees[game] = self.new_tree(board, rng)

    def _tree_at(self, game, board):
        """Game ``game``'s tree if its root is the position ``board``, else None."""
        tree = self.trees.get(game)
        mine = None if tree is None else tree.root.state.board
        if mine is None or mine.hash != board.hash or mine.history != board.history \
                or mine.to_play != board.to_play:
            return None
        return tree

    def _tree_for(self, turn):
        return self.tree_at(turn.game, turn.board, turn.rng)

    def tree_at(self, game, board, rng=None):
        """Game ``game``'s tree if its root is the position ``board``; if it
        is not, with ``rng`` (the game's generator) a new tree from ``board``,
        the game's tree from now on (as a move's search starts one), without
        it None. Live analysis (:mod:`mockgo.gtp.analysis`) reads and grows
        the tree it gives."""
        tree = self._tree_at(game, board)
        if tree is None and rng is not None:
            rng = self._rngs.setdefault(game, rng)
            tree = self.trees[game] = self.new_tree(board, rng)
        return tree

    def observe(self, game, board, move):
        tree = self.trees.get(game)
        if tree is not None and move != RESIGN \
                and tree.root.state.board.history == board.history[:-1]:
            tree.play(move)  # keeps the subtree under the move

    def end_game(self, game):
        """Frees the game's tree; returns it (None if there was none)."""
        self._rngs.pop(game, None)
        return self.trees.pop(game, None)

    def search_summary(self, game, board, top=5):
        """What the search of game ``game`` thought of ``board``, the position
        it has just answered (:class:`mockgo.data.gametree.SearchSummary`:
        the root's value for the player to move, its visits, the ``top``
        most visited moves with their values); None if its tree is not at
        ``board`` (a pass answered without searching)."""
        tree = self.trees.get(game)
        mine = None if tree is None else tree.root.state.board
        if mine is None or mine.history != board.history or mine.hash != board.hash:
            return None
        visits, values, value = self._root_statistics(tree)
        order = np.argsort(-visits, kind="stable")[:top]
        return SearchSummary(value, int(visits.sum()),
                             [(int(a), int(visits[a]), float(values[a]))
                              for a in order if visits[a] > 0])


# The readouts of a search with a time budget: more than any fits in it.
_UNLIMITED_READOUTS = 2**62


def check_seconds(seconds):
    """A search's time budget a move must be a finite number of seconds > 0."""
    if not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"seconds (a move) must be a number > 0, not {seconds!r}")


def budget_label(count, seconds):
    """How a search player's name says its budget: ``800`` or ``2.5s``."""
    return f"{count}" if seconds is None else f"{seconds:g}s"


@dataclasses.dataclass
class MoveSearch:
    """The record of the search that chose a move, as a :class:`SearchPlayer`
    with a ``record_encoder`` attaches it to its answer (self-play makes a
    training example of it): the position (``planes``, encoded by the
    ``record_encoder``; the ``color`` to move and the ``move_number``), the
    root's visit distribution ``pi``
    (:meth:`~mockgo.search.mcts.MCTSPlayer.visit_distribution`, forced
    playouts taken off), whether it was a ``full_search`` (with playout cap
    randomization, a fast one is not), the SGF ``comment``
    (:func:`search_comment`), and the game's resignation bookkeeping so far:
    whether it may resign (``resign_enabled``), and, where it may not, who
    would have resigned first (``would_have_resigned``; None: no one yet)."""

    planes: np.ndarray
    color: int
    move_number: int
    pi: np.ndarray
    full_search: bool
    comment: str
    resign_enabled: bool
    would_have_resigned: int | None

    @classmethod
    def of(cls, tree, encoder):
        """The record of ``tree``'s finished search (an
        :class:`~mockgo.search.mcts.MCTSPlayer`), the position at its root
        encoded by ``encoder``."""
        board = tree.state.board
        return cls(encoder.encode(board), board.to_play, board.move_number,
                   tree.visit_distribution(), tree.full_search,
                   search_comment(tree, full=tree.full_search), tree.resign_enabled,
                   tree.would_have_resigned)


def search_comment(tree, top=5, full=True):
    """The root's statistics of ``tree`` (an
    :class:`~mockgo.search.mcts.MCTSPlayer`) as an SGF comment
    (:class:`mockgo.data.gametree.SearchSummary`): its value for the player
    to move, the readouts, and the most visited moves with their visits and
    Q; ``full=False`` (a fast search of playout cap randomization) puts
    "fast search, " before them."""
    root = tree.root
    counts = root.child_N
    order = np.argsort(-counts, kind="stable")[:top]
    moves = [(int(a), int(counts[a]), float(root.child_Q[a])) for a in order if counts[a] > 0]
    comment = SearchSummary(tree.root_value, int(counts.sum()), moves).comment(root.state.size)
    return comment if full else f"fast search, {comment}"


# A SearchPlayer's search where it differs from the search's own defaults
# (SearchOptions): 200 readouts a move, no Dirichlet noise, no resigning.
PLAYER_SEARCH = SearchOptions(num_readouts=200, dirichlet=False, resign_threshold=None)


class SearchPlayer(_TreePerGame):
    """Monte Carlo tree search as a player: one :class:`mockgo.search.mcts.MCTSPlayer`
    tree per game, searched in lockstep with the player's other games (one
    ``evaluate`` call per search step for all of them:
    :func:`mockgo.search.mcts.search_many`), kept from move to move.

    ``evaluate``: an evaluator (:mod:`mockgo.search.evaluators`); ``size``:
    the one board size it plays (a network's), or None. ``game``: the search
    state's class, with ``from_board(board, max_moves)``
    (:class:`mockgo.search.games.GoGame`; ``SensibleGoGame``, Zero's, that plays
    only sensible moves; or ``CarefulGoGame``, the spec players', that does
    not fill its own two-point eyes either); ``max_moves``: the move cap the search sees
    (default: the board's move number plus 3 * N * N, beyond any match's cap).
    ``search``: the options of each game's search, a
    :class:`~mockgo.search.mcts.SearchOptions` (default
    ``PLAYER_SEARCH``: 200 readouts, no noise, no resigning); any of its
    fields given as a keyword (``c_puct=5``, ``parallel_readouts=16``,
    ``resign_threshold=-0.9``, ...) replaces the object's, and
    ``readouts`` is its ``num_readouts``. ``search`` holds the result
    (``options``: the same as a dict).
    ``resign_disabled_share``: the share of games in which resigning is off
    (drawn from each game's generator; AlphaGo Zero's check of the
    threshold). ``answer_passes``: as :class:`~mockgo.play.policy_player.PolicyPlayer`'s.
    ``record_encoder``: an :class:`~mockgo.go.features.Encoder`: each move
    chosen by a search carries a :class:`MoveSearch` of that search, its
    position encoded by it (``Choices.records``; self-play's training
    examples); None: no records.

    ``seconds``: a time budget a move instead of ``readouts``: each game's
    search gets that many seconds to itself, one game after another (as
    :class:`UCTPlayer`'s), so a move's search does not depend on how many
    games are played beside it (``search_many(seconds=...)``; not with
    ``stepwise``).

    ``stop_early``: a move's search ends once its pick can no longer
    change (:meth:`mockgo.search.mcts.MCTSPlayer.decided`): the same move
    as the whole search's (with ``seconds``: as far as the pace of the
    search so far says), in less time. Not with ``stepwise``.

    ``stepwise``: each :meth:`choose` call makes ONE search step
    (:func:`mockgo.search.mcts.search_step`, one evaluator call) for all the
    games' searches, and answers the games whose search is done;
    the others get :data:`THINKING` and the runner offers them again at its
    next step. A game whose search is short (a fast search of playout cap
    randomization, a tree mostly kept from the last move) then moves on
    while the games beside it still search, and every evaluator call carries
    leaves of every game: self-play's batches stay full. Off, each call
    searches its games to the end together (:func:`~mockgo.search.mcts.search_many`).

    When a turn's board is not the position at the root of its game's tree
    (a new game, an undo, a loaded position), the search starts afresh
    from it. Each game's tree gets its seed from the game's generator.
    """

    def __init__(self, evaluate, readouts=None, *, search=None, resign_disabled_share=0.0,
                 size=None, game=None, max_moves=None, record_encoder=None, name="mcts",
                 seed=None, answer_passes=False, stepwise=False, seconds=None, **search_options):
        if readouts is not None:
            if "num_readouts" in search_options:
                raise TypeError("give readouts or num_readouts, not both")
            search_options["num_readouts"] = readouts
        if seconds is not None:
            check_seconds(seconds)
            search_options["num_readouts"] = _UNLIMITED_READOUTS
        self.search = dataclasses.replace(PLAYER_SEARCH if search is None else search,
                                          **search_options)
        if self.search.stop_early and stepwise:
            raise ValueError("stop_early ends a move's search in search_many; a step-wise "
                             "search (self-play's) runs each search to its end")
        if seconds is not None and stepwise:
            raise ValueError("a time budget (seconds) searches each move to its end: "
                             "it cannot be step-wise")
        self.seconds = seconds
        self.evaluate = evaluate
        self.stepwise = bool(stepwise)
        self.answer_passes = bool(answer_passes)
        self.resign_disabled_share = resign_disabled_share
        self.size = size
        self.game = game or GoGame
        self.max_moves = max_moves
        self.record_encoder = record_encoder
        self.name = name
        self.seed = seed
        # Called after every step of a move's search, between steps (live
        # analysis prints there: mockgo.gtp.analysis); None: nothing.
        self.after_step = None
        self._warmed_up = False
        super().__init__()  # game -> its MCTSPlayer

    @property
    def options(self):
        """The search's options (``search``) as a dict."""
        return dataclasses.asdict(self.search)

    def new_tree(self, board, rng):
        """A game's search tree from ``board``, its random numbers drawn from
        ``rng`` (the game's generator): first whether it may resign (not in
        a share ``resign_disabled_share`` of games, when it resigns at all),
        then its tree's seed."""
        enabled = True
        if self.search.resign_threshold is not None:
            enabled = ResignationCheck(self.resign_disabled_share).resign_enabled(rng)
        tree = MCTSPlayer(self.evaluate, self.search, resign_enabled=enabled,
                          seed=int(rng.integers(2**63)))
        cap = self.max_moves or board.move_number + 3 * board.pass_index
        tree.initialize(self.game.from_board(board.copy(), max_moves=cap),
                        move_number=board.move_number)
        return tree

    def analyst(self, board, rng, limit):
        """Its tree of game 0 at ``board``, read live and grown a step of its
        own search at a time (:mod:`mockgo.play.analysts`)."""
        return _MCTSAnalyst(self, board, rng, limit)

    def choose(self, turns):
        if self.stepwise:
            return self._choose_stepwise(turns)
        answers = self._choices(turns, np.empty(len(turns), np.int64))
        passing = passes_now(turns)
        for i in np.flatnonzero(passing):
            answers.moves[i] = turns[i].board.pass_index
        searching = np.flatnonzero(~passing)
        trees = [self._tree_for(turns[i]) for i in searching]
        if self.seconds is None:
            search_many(trees, self.evaluate, after_step=self.after_step)
        else:  # each game's move gets the whole budget
            self._warm_up(trees)
            for tree in trees:
                search_many([tree], self.evaluate, seconds=self.seconds,
                            after_step=self.after_step)
        for i, tree in zip(searching, trees):
            self._answer(answers, i, tree)
        return answers

    def _choices(self, turns, moves):
        """The answers to ``turns``: ``moves``, and room for the records of
        the searches with a ``record_encoder``."""
        records = None if self.record_encoder is None else [None] * len(turns)
        return Choices(moves, np.zeros(len(turns)), records=records)

    def _warm_up(self, trees):
        """Before the first timed search: a search of two steps on a
        throw-away tree, charged to no move. A process's first search
        compiles what it runs: the networks' graphs, and the numba
        functions of the search wherever their cache is not valid (numba
        rebuilds it when a module's source changes; the headline match's
        first move after such a change took 11.98 s of its 9.5)."""
        if trees and not self._warmed_up:
            options = dataclasses.replace(self.search, stop_early=False,
                                          num_readouts=2 * self.search.parallel_readouts)
            throw_away = MCTSPlayer(self.evaluate, options, seed=0)
            throw_away.initialize(trees[0].root.state)
            search_many([throw_away], self.evaluate)
            self._warmed_up = True

    def _choose_stepwise(self, turns):
        """One search step for every game (``stepwise`` in the class docstring)."""
        answers = self._choices(turns, np.full(len(turns), THINKING, np.int64))
        moves = answers.moves
        going_on = [self._searching(turn) for turn in turns]
        new = [i for i, searching in enumerate(going_on) if not searching]
        for i, passing in zip(new, passes_now([turns[i] for i in new])):
            if passing:  # no search, and the game's tree stays as it was
                moves[i] = turns[i].board.pass_index
        stepping = [i for i in range(len(turns)) if moves[i] == THINKING]
        trees = {i: self._tree_for(turns[i]) for i in stepping}
        for i in stepping:
            if not going_on[i]:
                trees[i].start_search()
        search_step(list(trees.values()), self.evaluate)
        for i, tree in trees.items():
            if not tree.searching:
                self._answer(answers, i, tree)
        return answers

    def _searching(self, turn):
        """Whether the turn's game has a step-wise search going on at its
        position (begun at an earlier step)."""
        tree = self._tree_at(turn.game, turn.board)
        return tree is not None and tree.searching

    def _answer(self, answers, i, tree):
        """Answer turn ``i`` after its finished search: RESIGN, or the tree's
        pick with the record of the search (with a ``record_encoder``)."""
        if tree.should_resign():
            answers.moves[i] = RESIGN
            return
        if answers.records is not None:
            answers.records[i] = MoveSearch.of(tree, self.record_encoder)
        answers.moves[i] = tree.pick_action()

    @staticmethod
    def _root_statistics(tree):
        root = tree.root
        if root.child_N is None:  # not searched
            return np.zeros(1), np.zeros(1), tree.root_value
        return root.child_N, np.where(root.child_N > 0, root.child_Q, 0.0), tree.root_value


# --------------------------------------------------------------------- UCT


class _UCTTree:
    """One game's UCT search and the root of its tree (:class:`UCTPlayer`)."""

    __slots__ = ("search", "root")

    def __init__(self, search, root):
        self.search, self.root = search, root

    def play(self, move):
        # A finished game's tree stays: the next turn's board starts a new one.
        if not self.root.terminal:
            self.root = self.search.advance(self.root, move)


class UCTPlayer(_TreePerGame):
    """Classic Monte Carlo tree search with random playouts
    (:class:`mockgo.search.uct.UCTSearch`, RAVE with ``rave``) as a player:
    one tree per game, kept from move to move, searched ``playouts``
    simulations a move, or for ``seconds`` a move when that is given (then
    the play depends on the machine's speed). ``resign``: resign when the
    root's win rate falls below it (None: never). ``exploration`` and
    ``rave_equivalence``: the search's c and k. No network: it plays any
    board size. The options are the search's; each game's tree gets its seed
    from the game's generator.

    It answers a pass with a pass when playing on cannot gain
    (:func:`mockgo.go.ownership.should_pass`); otherwise it passes when the
    search says passing is best, which is when every move loses.
    """

    answer_passes = True

    def __init__(self, playouts=10000, seconds=None, rave=False, exploration=None,
                 rave_equivalence=1000.0, heavy=False, score_weight=0.0, resign=None, seed=None,
                 name=None):
        self.options = dict(playouts=playouts, rave=rave, exploration=exploration,
                            rave_equivalence=rave_equivalence, heavy=heavy,
                            score_weight=score_weight)
        UCTSearch(**self.options)  # checks the options now, not at the first move
        if seconds is not None:
            check_seconds(seconds)
        self.seconds = seconds
        self.resign = resign
        self.seed = seed
        self.name = name or (f"uct{'-rave' if rave else ''}{'-heavy' if heavy else ''}-"
                             f"{budget_label(playouts, seconds)}")
        super().__init__()  # game -> its _UCTTree

    def new_tree(self, board, rng):
        search = UCTSearch(seed=int(rng.integers(2**63)), **self.options)
        cap = board.move_number + 3 * board.pass_index
        return _UCTTree(search, search.new_root(GoGame.from_board(board.copy(), max_moves=cap)))

    def analyst(self, board, rng, limit):
        """Its tree of game 0 at ``board``, read live and grown a slice of
        playouts at a time (:mod:`mockgo.play.analysts`)."""
        return _UCTAnalyst(self, board, rng, limit)

    def choose(self, turns):
        moves = np.empty(len(turns), np.int64)
        passing = passes_now(turns)
        for i, turn in enumerate(turns):
            if passing[i]:
                moves[i] = turn.board.pass_index
                continue
            tree = self._tree_for(turn)
            tree.search.run(tree.root, seconds=self.seconds)
            if self.resign is not None and tree.root.win_rate() < self.resign:
                moves[i] = RESIGN
            else:
                moves[i] = tree.search.best_action(tree.root)
        return Choices(moves, np.zeros(len(turns)))

    @staticmethod
    def _root_statistics(tree):
        # Win rates (0 to 1) as values (-1 to +1), as the other searches give them.
        root = tree.root
        return root.N, 2 * root.W / np.maximum(root.N, 1) - 1, 2 * root.win_rate() - 1


# ------------------------------------------------------------ analysis
#
# What a search player reports of a position (Player.analyst,
# mockgo.play.analysts): its own tree for the game, read live. The GTP
# engine's lz-analyze grows it a slice at a time and looks for the next
# command between slices; the tree stays the player's, and its next move
# starts from what the analysis searched (Leela Zero's pondering).

# Readouts a slice of UCT playouts (its search has no steps of its own).
UCT_SLICE = 16


class _TreeAnalyst:
    """A search player's tree at the position: ``grow()`` searches one
    slice more (False when there is nothing to search: a finished game, or
    ``limit`` visits), ``infos()`` reads it."""

    searches = True

    def __init__(self, player, board, rng, limit):
        self.player, self.board, self.rng, self.limit = player, board, rng, limit

    def tree(self, start=False):
        """The game's tree at the position; with ``start``, a new one if the
        player has none there yet (as its move would start it)."""
        return self.player.tree_at(0, self.board, self.rng if start else None)

    def visits(self, tree):
        raise NotImplementedError

    def infos(self):
        tree = self.tree()
        return [] if tree is None else self._infos(tree)


class _MCTSAnalyst(_TreeAnalyst):
    """:class:`~mockgo.search.mcts.MCTSPlayer` trees (``mcts``, ``alphago``).
    The tree counts a step's virtual losses (each a loss) while the step is
    in flight, so while the player searches its move the tree is read
    between steps (:meth:`after_each_step`)."""

    def visits(self, tree):
        n = tree.root.child_N
        return 0 if n is None else int(n.sum())

    def grow(self):
        tree = self.tree(start=True)
        left = self.limit - self.visits(tree)
        if tree.root.terminal or left <= 0:
            return False
        # One step of the player's own search (search_step), of up to
        # parallel_readouts readouts: as its move's search would make them.
        tree.remaining, tree.searching = min(tree.parallel_readouts, left), True
        try:
            search_step([tree], self.player.evaluate)
        finally:
            tree.remaining, tree.searching = 0, False
        return True

    def after_each_step(self, callback):
        """Call ``callback()`` after each step of the player's search (None:
        stop), where no readout is in flight."""
        self.player.after_step = callback

    def _infos(self, tree):
        root = tree.root
        if root.child_N is None:
            return []
        infos = []
        for a in np.flatnonzero(root.child_Q > -np.inf):
            n = int(root.child_N[a])
            winrate = (float(root.child_Q[a]) + 1.0) / 2.0 if n > 0 else 0.0
            pv = [int(a)] + principal_variation(root, a, _mcts_visits)
            infos.append(MoveInfo(int(a), n, winrate, float(root.child_P[a]),
                                  lower_bound(winrate, n), pv))
        return infos


def _mcts_visits(node):
    return node.child_N  # None until the node is expanded


def _uct_visits(node):
    # A move tried fewer times than the search's expand_after has no node
    # yet; a finished game's node has no moves.
    return None if node.terminal else node.N


class _UCTAnalyst(_TreeAnalyst):
    """UCT trees (``uct``): win rates are its nodes' wins over visits; the
    prior is uniform over its candidate moves (it has no policy, and treats
    moves it has not tried alike). UCT has no virtual loss: a thread may
    read its tree while it searches."""

    def visits(self, tree):
        return int(tree.root.N.sum())

    def grow(self):
        tree = self.tree(start=True)
        left = self.limit - self.visits(tree)
        if tree.root.terminal or left <= 0:
            return False
        tree.search.run(tree.root, playouts=min(UCT_SLICE, left))
        return True

    def _infos(self, tree):
        root = tree.root
        legal = np.flatnonzero(root.legal)
        prior = 1.0 / max(len(legal), 1)
        infos = []
        for a in legal:
            n = int(root.N[a])
            winrate = float(root.W[a] / n) if n > 0 else 0.0
            infos.append(MoveInfo(int(a), n, winrate, prior, lower_bound(winrate, n),
                                  [int(a)] + principal_variation(root, a, _uct_visits)))
        return infos
