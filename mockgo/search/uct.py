"""Classic Monte Carlo tree search: UCT with random playouts, and RAVE.

Before AlphaGo, the strongest Go programs (MoGo, Crazy Stone, Fuego) had no
neural network. They judged a position by playing it out at random to the
end many times and counting who won, and grew a tree of the positions seen,
spending the playouts where they mattered. This module is that search, the
one Imago's design starts from; :mod:`mockgo.search.mcts` is AlphaGo Zero's,
which replaces the playouts by a network.

One *simulation* (playout) of UCT (Kocsis & Szepesvari 2006):

Select
    From the root, pick the action with the highest
    UCB1 score Q(s, a) + c * sqrt(ln N(s) / N(s, a)), where Q is the share
    of the simulations through (s, a) that the player at s won (a draw counts
    half) and N counts them, until a node with an action never tried. Those
    are tried first, one per simulation, in a random order. Ties anywhere
    break at random: a fixed order (the lowest index) would pile the first
    visits onto one corner of the board.
Expand
    The untried action's child becomes a node of the tree.
Play out
    From the new node, random moves to the end of the game: for Go the
    compiled :meth:`mockgo.go.board.Board.random_playout` (sensible moves: no
    filling one's own single-point eyes, so a game ends with settled
    territory), scored by area with komi; for any other game, random legal
    actions through the :class:`~mockgo.search.games.Game` protocol.
Back up
    Each node on the path counts the simulation, and a win for the player who
    chose the action into it.

RAVE (Gelly & Silver 2007), ``rave=True``: a playout's moves say something
about every move the same player made in it, whatever the order. Each node
also keeps *all-moves-as-first* (AMAF) statistics: after a simulation, every
action the player to move at s played later in it (in the tree or the
playout) counts as if it had been played first. AMAF values are biased but
arrive from the first simulation for many moves at once, so the search
blends them in and lets the real ones take over as they accumulate::

    score(s, a) = (1 - beta) Q(s, a) + beta Q_amaf(s, a),
    beta = sqrt(k / (3 N(s, a) + k))

``k`` (``rave_equivalence``) is the number of simulations at which both
count about equally (Gelly & Silver's hand-chosen schedule, taken per move as
Fuego and Pachi do). With RAVE no action needs to be tried first: an untried
one is scored by its AMAF value alone (``first_play_value`` when it has
none), and the UCB1 exploration term is usually dropped (``exploration=0``,
MoGo's choice), since the AMAF values already spread the visits.

The search talks to its states through the Game protocol, plus, for the fast
Go playouts, the :class:`~mockgo.search.games.GoGame`'s ``.board``. For Go
the tree's actions are the *sensible* moves and pass (the pass is always a
choice, so the search can end a game that is won: two passes end it, scored
by area).
"""

import math
import time

import numpy as np
from numba import njit

from mockgo.go.board import BLACK
from mockgo.go.ownership import area_score_without_dead
from mockgo.search.games import GoGame

__all__ = ["UCTNode", "UCTSearch", "game_playout", "go_playout", "score_value"]


# ----------------------------------------------------------------- playouts


def go_playout(state, rng_state, max_moves=None, first=None, heavy=False, score_weight=0.0):
    """One compiled random game from a :class:`GoGame` state, beginning with
    the move ``first`` if given: returns ``(value, actions)``, the result for
    the player to move at ``state`` (:func:`score_value`) and the actions
    played, in order, players alternating from the player to move.
    ``heavy``: MoGo's playout rules (``Board.random_playout``)."""
    board = state.board
    score, moves, _ = board.random_playout(rng_state, max_moves, first, heavy)
    return score_value(score, board, score_weight), moves


def score_value(score, board, score_weight=0.0):
    """A game's value for the player to move on ``board``, from its area
    score (above 0: black won): +1 a win, -1 a loss, 0 a draw, and with
    ``score_weight`` w, ``(1 - w) * that + w * tanh(margin / (N * N / 8))``,
    so that among moves that all win (or all lose) the search prefers the
    bigger margin: a won game is not given back by slack moves, and a lost
    one is not thrown away group by group."""
    sign = 1.0 if board.to_play == BLACK else -1.0
    margin = sign * score
    value = 0.0 if margin == 0 else (1.0 if margin > 0 else -1.0)
    if score_weight:
        value = (1.0 - score_weight) * value + score_weight * math.tanh(
            margin / (board.pass_index / 8.0))
    return value


def game_playout(state, rng, max_moves=1000):
    """One random game through the Game protocol (any game: tic-tac-toe,
    say): ``(value for the player to move at state, actions played)``. The
    players are read from the states, so games that do not alternate work."""
    end, actions, players = state, [], []
    while not end.is_terminal() and len(actions) < max_moves:
        action = int(rng.choice(np.flatnonzero(end.legal_actions())))
        actions.append(action)
        players.append(end.to_play)
        end = end.play(action)
    if not end.is_terminal():
        return 0.0, actions, players
    value = end.terminal_value()
    return (value if end.to_play == state.to_play else -value), actions, players


# ------------------------------------------------- the compiled inner loops


@njit(cache=True)
def _select_action(N, W, amaf_N, amaf_W, legal, rave, exploration, k, first_play_value,
                   pass_action, pass_opening, log_visits, u):
    """The action with the best score (module docstring), ties broken by
    ``u`` (uniform in [0, 1)): the ``floor(u * ties)``-th of the tied ones.
    Compiled: the same loop in numpy costs more than a Go playout."""
    best = -np.inf
    ties = 0
    scores = np.full(len(N), -np.inf)
    for a in range(len(N)):
        if not legal[a]:
            continue
        n = N[a]
        q = W[a] / n if n > 0 else 0.0
        if rave:
            if a == pass_action:
                score = q if n > 0 else pass_opening
            else:
                amaf = amaf_W[a] / amaf_N[a] if amaf_N[a] > 0 else first_play_value
                beta = math.sqrt(k / (3.0 * n + k))
                score = (1.0 - beta) * q + beta * amaf
        else:
            score = q
        if exploration > 0.0:
            score += exploration * math.sqrt(log_visits / max(n, 1.0))
        scores[a] = score
        if score > best:
            best = score
            ties = 1
        elif score == best:
            ties += 1
    pick = int(u * ties)
    for a in range(len(N)):
        if scores[a] == best:
            if pick == 0:
                return a
            pick -= 1
    return -1


@njit(cache=True)
def _update_amaf(amaf_N, amaf_W, sequence, movers, start, player, pass_action, win):
    """All moves as first: each action ``player`` made from ``start`` on
    (once each, the pass excepted) counts a simulation with result ``win``."""
    seen = np.zeros(len(amaf_N), np.bool_)
    for i in range(start, len(sequence)):
        a = sequence[i]
        if movers[i] == player and a != pass_action and not seen[a]:
            seen[a] = True
            amaf_N[a] += 1.0
            amaf_W[a] += win


# --------------------------------------------------------------------- tree


class UCTNode:
    """A state in the tree and the statistics of the actions out of it.

    Arrays of length ``num_actions``, from the view of the player to move
    here (``to_play``): ``N`` simulations through each action and ``W`` the
    wins among them (draws count half); ``amaf_N``/``amaf_W`` the same for
    the all-moves-as-first statistics (RAVE). ``untried``: the actions
    without a child yet, in the random order they will be tried (plain UCT).
    ``visits``: simulations through this node.
    """

    __slots__ = ("state", "to_play", "legal", "untried", "children", "N", "W",
                 "amaf_N", "amaf_W", "visits", "terminal", "value", "pass_action", "after_pass")

    def __init__(self, state, legal, rng, pass_action=None, after_pass=False):
        self.state = state
        self.to_play = state.to_play
        self.terminal = state.is_terminal()
        self.value = None  # a terminal state's result for to_play, once asked
        self.legal = legal
        if rng is None:  # RAVE scores every action: no order of first tries
            self.untried = []
        else:
            actions = np.flatnonzero(legal)
            rng.shuffle(actions)
            self.untried = list(actions)
        self.children = {}
        n = len(legal)
        self.N = np.zeros(n)
        self.W = np.zeros(n)
        self.amaf_N = np.zeros(n)
        self.amaf_W = np.zeros(n)
        self.visits = 0
        # Go's pass gets no AMAF statistics (passing "later" says nothing
        # about passing now); `after_pass`: the last move was a pass.
        self.pass_action = pass_action
        self.after_pass = after_pass

    def win_rate(self):
        """The share of this node's simulations won by its player to move."""
        total = self.N.sum()
        return float(self.W.sum() / total) if total else 0.5


class UCTSearch:
    """UCT (and, with ``rave``, UCT-RAVE) over any game of the Game protocol.

    ::

        search = UCTSearch(playouts=2000, rave=True, seed=0)
        root = search.new_root(GoGame(9))
        search.run(root)                    # or run(root, seconds=5)
        action = search.best_action(root)
        root = search.advance(root, action)  # keeps the subtree

    ``playouts``: simulations per :meth:`run` (unless ``seconds`` is given);
    ``exploration``: c in UCB1 (default 1.0 without RAVE, 0 with it);
    ``rave_equivalence``: k in beta; ``first_play_value``: the score of an
    untried action with no AMAF sample (RAVE only); ``max_playout_moves``:
    the playouts' move cap (default 3 * N * N for Go, 1000 otherwise);
    ``scoring_playouts``: the playouts that judge dead stones when two passes
    end a Go game in the tree; ``expand_after``: in Go, a move becomes a
    node of the tree at its ``expand_after``-th simulation (before, its
    playouts start with it from the parent: copying a board costs more than
    a playout, and most moves are never tried again). 1: every simulation
    adds a node, as in the textbook. ``heavy``: Go playouts follow MoGo's
    rules (capture or escape after an atari, no self-atari of two or more
    stones) before choosing at random: slower, and wiser. ``score_weight``:
    the share of a Go playout's value that is its margin
    (:func:`score_value`); 0 is pure win or loss, as in the textbook.
    ``playout``: a Go playout of one's own in place of the compiled ones, a
    function ``(state, rng) -> (value, actions)`` that plays the game out
    from ``state`` (a GoGame, to be left unchanged) with the search's
    generator ``rng`` (``self.rng``, the one its tree draws from) and gives
    the result for the player to move at ``state`` (+1 won, -1 lost, 0 a
    draw) and the moves played, players alternating from that one. For
    trying a playout policy, or checking a search written out in plain
    Python against this one (notebook 05 does, with the same function and
    seed on both sides: the same statistics); ``heavy``, ``score_weight``
    and ``max_playout_moves`` are then the function's business. The
    compiled playouts (None, the default) are many times faster.
    """

    def __init__(self, playouts=1000, exploration=None, rave=False, rave_equivalence=1000.0,
                 first_play_value=1.0, max_playout_moves=None, scoring_playouts=32,
                 expand_after=3, heavy=False, score_weight=0.0, playout=None, seed=None):
        if playouts < 1:
            raise ValueError(f"playouts must be at least 1, not {playouts}")
        self.playouts = int(playouts)
        self.rave = bool(rave)
        self.exploration = (0.0 if self.rave else 1.0) if exploration is None else float(exploration)
        self.rave_equivalence = float(rave_equivalence)
        self.first_play_value = float(first_play_value)
        self.max_playout_moves = max_playout_moves
        self.scoring_playouts = int(scoring_playouts)
        self.expand_after = int(expand_after)
        self.heavy = bool(heavy)
        if not 0.0 <= score_weight < 1.0:
            raise ValueError(f"score_weight must be in [0, 1), not {score_weight}")
        self.score_weight = float(score_weight)
        self.playout = playout
        self.rng = np.random.default_rng(seed)
        # The compiled playouts' own generator state (never 0 for xorshift),
        # drawn only when they play: a playout function of one's own draws
        # from self.rng, which then starts where a plain generator from
        # `seed` starts.
        self._playout_state = (np.array([self.rng.integers(1, 2**63)], np.uint64)
                               if playout is None else None)
        self.simulations = 0  # done in all, for the speed figures

    # ------------------------------------------------------------- nodes

    def _legal(self, state):
        if isinstance(state, GoGame):
            # The sensible moves (no filling its own one- or two-point eye
            # spaces) and, always, the pass.
            mask = state.board.sensible_moves(eye_space=2)
            mask[-1] = True
            return mask
        return np.asarray(state.legal_actions(), bool)

    def new_root(self, state):
        """A fresh tree for ``state``."""
        order_rng = None if self.rave else self.rng
        if isinstance(state, GoGame):
            return UCTNode(state, self._legal(state), order_rng,
                           pass_action=state.board.pass_index, after_pass=state.board.passes > 0)
        return UCTNode(state, self._legal(state), order_rng)

    def advance(self, root, action):
        """The node after ``action``, keeping its subtree (a new one if the
        search never tried it)."""
        child = root.children.get(action)
        return child if child is not None else self.new_root(root.state.play(action))

    # ------------------------------------------------------------ search

    def run(self, root, playouts=None, seconds=None):
        """Run ``playouts`` simulations (default ``self.playouts``) from
        ``root``, or as many as fit in ``seconds`` if that is given."""
        if root.terminal:
            return
        if seconds is None:
            for _ in range(self.playouts if playouts is None else playouts):
                self._simulate(root)
            return
        deadline = time.perf_counter() + seconds
        while True:
            for _ in range(16):
                self._simulate(root)
            if time.perf_counter() >= deadline:
                return

    def _simulate(self, root):
        node = root
        path = []  # (node, action) pairs taken in the tree
        while not node.terminal:
            action = self._select(node)
            path.append((node, action))
            child = node.children.get(action)
            if child is None:
                if isinstance(node.state, GoGame) and node.N[action] + 1 < self.expand_after:
                    # Not yet worth a node: the playout plays the action first.
                    value, actions = self._go_playout(node.state, first=action)
                    # The rest of the playout begins with the opponent's move.
                    self._backup(path, 3 - node.to_play, -value, actions[1:], None)
                    return
                child = node.children[action] = self.new_root(node.state.play(action))
                node = child
                break
            node = child
        # The value of the simulation for the player to move at `node`.
        state = node.state
        node.visits += 1
        if node.terminal:
            if node.value is None:
                node.value = self._terminal_value(state)
            value, actions, players = node.value, (), ()
        elif isinstance(state, GoGame):
            value, actions = self._go_playout(state)
            players = None  # Go's players alternate, passes included
        else:
            value, actions, players = game_playout(state, self.rng, self.max_playout_moves or 1000)
        self._backup(path, node.to_play, value, actions, players)

    def _go_playout(self, state, first=None):
        """One playout from a GoGame ``state``, beginning with the move
        ``first`` if given: ``(value for the player to move at state,
        actions)``, by the compiled playouts or by ``self.playout``."""
        if self.playout is None:
            return go_playout(state, self._playout_state, self.max_playout_moves, first=first,
                              heavy=self.heavy, score_weight=self.score_weight)
        if first is None:
            return self.playout(state, self.rng)
        value, actions = self.playout(state.play(first), self.rng)
        return -value, [first, *actions]

    def _terminal_value(self, state):
        """The result of a finished game for its player to move. A Go game
        that ended by two passes is scored as GnuGo scores it, after
        removing the dead stones, judged by random playouts
        (:func:`mockgo.go.ownership.area_score_without_dead`): Tromp-Taylor's count of
        every stone as alive would make the search pass too early, with the
        opponent's dead stones still spoiling its territory, or too late."""
        if isinstance(state, GoGame) and state.board.passes >= 2:
            score = area_score_without_dead(state.board, self.scoring_playouts, seed=0)
            return score_value(score, state.board, self.score_weight)
        return state.terminal_value()

    def _select(self, node):
        if not self.rave and node.untried:
            return int(node.untried.pop())
        p = -1 if node.pass_action is None else node.pass_action
        # The untried pass is tried first only in answer to a pass; else it
        # ties with the moves that never won (when all lose, pass then).
        opening = self.first_play_value if node.after_pass else 0.0
        return int(_select_action(node.N, node.W, node.amaf_N, node.amaf_W, node.legal,
                                  self.rave, self.exploration, self.rave_equivalence,
                                  self.first_play_value, p, opening,
                                  math.log(max(node.visits, 1)), self.rng.random()))

    def _backup(self, path, leaf_player, value, actions, players):
        """Count the simulation along the path; with RAVE, update the AMAF
        statistics of each node on it with the moves its player made later.
        ``value``: the result for ``leaf_player``, who made the first of the
        ``actions`` after the path (``players``: who made each, or None when
        the players alternate, as in Go)."""
        self.simulations += 1
        if self.rave:
            sequence = np.concatenate([np.fromiter((a for _, a in path), np.int64, len(path)),
                                       np.asarray(actions, np.int64)])
            if players is None:  # alternating from leaf_player
                tail = np.where(np.arange(len(actions)) % 2 == 0, leaf_player, 3 - leaf_player)
            else:
                tail = np.asarray(players, np.int64)
            movers = np.concatenate([np.fromiter((n.to_play for n, _ in path), np.int64,
                                                 len(path)), tail.astype(np.int64)])
        for depth in range(len(path) - 1, -1, -1):
            node, action = path[depth]
            v = value if node.to_play == leaf_player else -value
            win = 0.5 * (v + 1.0)
            node.visits += 1
            node.N[action] += 1
            node.W[action] += win
            if self.rave:
                _update_amaf(node.amaf_N, node.amaf_W, sequence, movers, depth, node.to_play,
                             -1 if node.pass_action is None else node.pass_action, win)

    # ----------------------------------------------------------- answers

    def best_action(self, root):
        """The most simulated action (ties: the higher win rate, then at random)."""
        if root.N.sum() == 0:
            legal = np.flatnonzero(root.legal)
            return int(self.rng.choice(legal))
        q = root.W / np.maximum(root.N, 1)
        key = np.where(root.legal, root.N + 1e-6 * q, -np.inf)
        best = np.flatnonzero(key == key.max())
        return int(best[0] if len(best) == 1 else self.rng.choice(best))

    def action_stats(self, root, top=5):
        """The ``top`` most simulated actions as (action, simulations, win
        rate) tuples, for showing what the search thought."""
        order = np.argsort(-root.N, kind="stable")[:top]
        return [(int(a), int(root.N[a]), float(root.W[a] / root.N[a]))
                for a in order if root.N[a] > 0]
