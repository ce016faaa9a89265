"""Monte Carlo tree search with PUCT, as in AlphaGo Zero (Silver et al. 2017).

The search knows nothing of Go: it plays through a state that follows
:class:`mockgo.search.games.Game` and asks an *evaluator* about positions::

    priors, values = evaluate(states)    # priors [B, num_actions], values [B]

``values[i]`` is the expected result for the player to move in ``states[i]``
(+1 win, -1 loss). A network wrapped in a batched predictor is one evaluator;
:mod:`mockgo.search.evaluators` has the evaluators: uniform priors and
value 0, random rollouts, a network.

Each node keeps the statistics of its edges in numpy arrays of length
``num_actions``: visit counts N(s, a), total values W(s, a), mean values
Q(s, a) = W / N and priors P(s, a), all from the view of the player to move
at s. A *simulation* (readout) does what the paper's Figure 2 shows:

Select
    From the root, take a_t = argmax_a Q(s, a) + U(s, a) with
    U(s, a) = c_puct * P(s, a) * sqrt(sum_b N(s, b)) / (1 + N(s, a)),
    a vectorised argmax over the node's arrays, until an unexpanded node (a
    leaf) or a terminal state. ``sqrt(max(1, sum_b N))`` keeps the first
    choice at a fresh node on the best prior instead of on action 0.
    *First-play value*: an unvisited edge has Q = the node's own evaluator
    value minus ``fpu_reduction`` (default 0): MiniGo's "initialise to parent"
    choice. With the uniform evaluator that is 0, the paper's Q = 0.
Expand and evaluate
    The evaluator's priors, restricted to the legal actions and renormalised,
    become P; illegal actions get Q = -inf and are never chosen.
Back up
    The leaf's value v (no rollouts) is added along the path, N += 1,
    W += v, with its sign flipped at each ply (each change of player to
    move). A terminal state backs up its exact ``terminal_value()``.

Throughput comes from batches. *Virtual loss* (Silver et al. 2016): while a
leaf waits for its evaluation, each edge on its path counts ``virtual_loss``
extra visits, each a loss for the player who chose the edge (N += vl,
W -= vl), so the next selection in the same tree goes elsewhere; a tree
gathers ``parallel_readouts`` leaves, then they are evaluated together and
the virtual losses undone as the real values are backed up.
:func:`search_many` runs many games' trees in lockstep so that one evaluator
call serves every game; :func:`search_step` makes one step of many searches,
so that a game whose search is done can move on while the others still
search (self-play: :class:`mockgo.play.search_player.SearchPlayer` ``stepwise``).
The edge choice and the backup along a path are compiled (numba): they run
once per level of every simulation. If a leaf is selected twice before it is
evaluated (a *duplicate*, common late in a game), it is evaluated and
expanded once, and its value is backed up once per selection: every
selection counts as a readout, so the root's visit counts grow by exactly
``num_readouts``.

At the root, Dirichlet noise mixes into the priors of the legal actions,
P = 0.75 P + 0.25 eta with eta ~ Dir(alpha). The paper used alpha = 0.03 on
19x19; we scale it by the number of legal actions, alpha = 0.03 * 361 /
num_legal (10.83 / num_legal: 0.13 on an empty 9x9 board, 1.2 in tic-tac-toe),
which works for any game. On an empty Go board it is MiniGo's 0.03 * 361 / N^2
(to within the pass); as the board fills, alpha grows with fewer legal moves.
Moves are chosen in proportion to the root's visit counts (temperature 1)
for the first ``softpick_moves`` moves of a game, then the most visited move.
A player that picks the most visited move can stop searching once no other
move can catch up in the readouts left (``stop_early``, Leela Zero's and
KataGo's time saver; :meth:`MCTSPlayer.decided`): the same move, sooner.

KataGo's changes to self-play search (Wu 2019, "Accelerating Self-Play
Learning in Go"), options of :class:`MCTSPlayer`, off by default:

*Playout cap randomization* (``full_search_share``, ``fast_readouts``)
    Before each move, a draw decides: with probability ``full_search_share``
    a full search of ``num_readouts`` with Dirichlet noise (its visits become
    a policy training target), else a fast search of ``fast_readouts`` with
    no noise, that only chooses the move. Games then get longer for the same
    cost, so more games (more value targets) per hour, while the policy
    targets keep the full search's quality. ``full_search`` says which the
    last search was.
*Forced playouts and policy target pruning* (``forced_playouts=k``, KataGo's k = 2)
    In a full search with noise, every root child c that the noise (or the
    prior) favours gets at least n_forced(c) = sqrt(k P(c) sum_b N(b))
    visits: a child below it is chosen before the PUCT choice
    (:func:`select_leaf`). Those extra visits would teach the network its
    own noise, so the policy target (:meth:`MCTSPlayer.visit_distribution`)
    takes them off again where PUCT would not have spent them
    (:func:`prune_forced_playouts`): from each child but the most visited
    one, up to n_forced(c) visits are subtracted as long as its PUCT value
    stays below the most visited child's, and a child left with one visit
    is removed.
"""

import contextlib
import dataclasses
import gc
import math
import time
from dataclasses import dataclass

import numpy as np
from numba import njit

DIRICHLET_WEIGHT = 0.25


def default_softpick_moves(num_actions):
    """MiniGo's cut-off, 30 moves on 19x19 and 6 on 9x9: N^2 / 12 rounded
    down to an even number (N^2 = num_actions - 1)."""
    return (num_actions - 1) // 12 // 2 * 2


# ---------------------------------------------------------------------- tree


class Node:
    """A state in the tree and the statistics of the edges out of it.

    A node's own visit count lives in its parent's ``child_N[action]``; its
    edges' counts sum to ``n_total``. Children are created when first
    selected. There are no parent links (selection returns the path), so a
    tree holds no reference cycles and is freed as soon as it is dropped.
    """

    __slots__ = ("state", "action", "to_play", "children", "terminal", "value",
                 "child_N", "child_W", "child_Q", "child_P", "n_total", "pending", "noised")

    def __init__(self, state, action=None):
        self.state = state
        self.action = action
        self.to_play = state.to_play
        self.children = {}
        self.terminal = state.is_terminal()
        # The evaluator's value once expanded; the exact result if terminal.
        self.value = state.terminal_value() if self.terminal else None
        self.child_N = self.child_W = self.child_Q = self.child_P = None
        self.n_total = 0.0
        self.pending = False  # selected in this batch, waiting for its evaluation
        self.noised = False  # Dirichlet noise already mixed into child_P

    @property
    def is_expanded(self):
        return self.child_P is not None

    def expand(self, prior, value, fpu_reduction=0.0):
        """Take the evaluator's output: P from the prior over legal actions."""
        assert not self.is_expanded and not self.terminal, "a node is expanded once"
        legal = np.asarray(self.state.legal_actions(), bool)
        self.value = float(value)
        self.child_P, self.child_N, self.child_W, self.child_Q = _edge_arrays(
            legal, np.asarray(prior, np.float64), self.value - fpu_reduction)

    def add_dirichlet_noise(self, rng, weight=DIRICHLET_WEIGHT):
        """P = (1 - weight) P + weight Dir(alpha) on the legal actions, with
        alpha = 0.03 * 361 / (number of legal actions)."""
        legal = np.flatnonzero(self.child_Q > -np.inf)
        eta = rng.dirichlet(np.full(len(legal), 0.03 * 361 / len(legal)))
        self.child_P[legal] = (1 - weight) * self.child_P[legal] + weight * eta
        self.noised = True

    @property
    def Q(self):
        """Mean value of the position for its player to move: the backed-up
        values of all simulations through it (its own evaluation if none)."""
        if self.n_total > 0:
            return float(self.child_W.sum() / self.n_total)
        return 0.0 if self.value is None else self.value


@njit(cache=True)
def _edge_arrays(legal, prior, first_play_value):
    """A new node's edge arrays P, N, W, Q: P is the prior on the legal
    actions, renormalised (uniform over them if the prior gives them
    nothing), N = W = 0, Q the first-play value on the legal actions and
    -inf on the others. Compiled: a search expands a node per evaluated
    position, and these were six numpy calls."""
    n = len(legal)
    p = np.zeros(n)
    q = np.full(n, -np.inf)
    total, count = 0.0, 0
    for a in range(n):
        if legal[a]:
            p[a] = prior[a]
            total += prior[a]
            count += 1
            q[a] = first_play_value
    if total > 0:
        for a in range(n):
            p[a] /= total
    else:
        for a in range(n):
            p[a] = 1.0 / count if legal[a] else 0.0
    return p, np.zeros(n), np.zeros(n), q


@njit(cache=True)
def _select_edge(child_Q, child_P, child_N, child_W, n_total, c_puct, virtual_loss, forced_k):
    """The edge a simulation takes from a node (argmax Q + U, the first of
    equals; with ``forced_k > 0`` among the children short of their forced
    playouts first, if any), with its virtual loss added to N, W and Q.
    Compiled: :func:`select_leaf` takes one per level of every simulation."""
    scale = c_puct * math.sqrt(n_total if n_total > 1 else 1.0)
    best, best_score = -1, -np.inf  # over all children
    short, short_score = -1, -np.inf  # over those short of their forced playouts
    for a in range(len(child_P)):
        score = child_Q[a] + scale * child_P[a] / (1.0 + child_N[a])
        if best < 0 or score > best_score:
            best, best_score = a, score
        if forced_k > 0.0 and child_N[a] < math.sqrt(forced_k * child_P[a] * n_total) and \
                (short < 0 or score > short_score):
            short, short_score = a, score
    if short >= 0:
        best = short
    if virtual_loss:
        n = child_N[best] + virtual_loss
        w = child_W[best] - virtual_loss
        child_N[best] = n
        child_W[best] = w
        child_Q[best] = w / n
    return best


@njit(cache=True)
def _back_up_edge(child_N, child_W, child_Q, a, step, value, virtual_loss):
    """Edge ``a``: N += step, W += value + virtual loss, Q = W / N (compiled,
    as :func:`_select_edge`)."""
    n = child_N[a] + step
    w = child_W[a] + value + virtual_loss
    child_N[a] = n
    child_W[a] = w
    child_Q[a] = w / n


def select_leaf(root, c_puct, virtual_loss, forced_k=0.0):
    """Walk down by argmax Q + U, adding virtual loss to each edge taken;
    return the path of nodes from the root to the leaf (an unexpanded or a
    terminal node). ``forced_k > 0``: forced playouts at the root
    (:func:`forced_playouts`): a child with fewer visits than its forced
    number is taken first (the best by Q + U among such children)."""
    node = root
    path = [node]
    while node.child_P is not None:
        a = _select_edge(node.child_Q, node.child_P, node.child_N, node.child_W, node.n_total,
                         c_puct, virtual_loss, forced_k if node is root else 0.0)
        node.n_total += virtual_loss
        child = node.children.get(a)
        if child is None:
            child = node.children[a] = Node(node.state.play(a), a)
        node = child
        path.append(node)
    return path


def backup(path, value, virtual_loss):
    """Add the leaf's value (from the view of its player to move) along the
    path to the root, undoing the virtual loss that selection added."""
    step = 1.0 - virtual_loss
    node = path[-1]
    for parent in reversed(path[:-1]):
        if parent.to_play != node.to_play:
            value = -value
        _back_up_edge(parent.child_N, parent.child_W, parent.child_Q, node.action, step,
                      value, virtual_loss)
        parent.n_total += step
        node = parent


def forced_playouts(prior, total, k=2.0):
    """KataGo's forced playouts of each root child: sqrt(k P(c) sum_b N(b))
    (0 for an illegal move, whose prior is 0)."""
    return np.sqrt(k * prior * total)


def prune_forced_playouts(root, c_puct, k=2.0):
    """The root's visit counts with the forced playouts taken off (policy
    target pruning, Wu 2019): c* is the most visited child; from each other
    visited child c, up to n_forced(c) (:func:`forced_playouts`, rounded
    down) visits are subtracted, but only as far as Q(c) + U(c) stays below Q(c*) + U(c*)
    with U from the full counts (the visits PUCT would have given c anyway
    stay); a child left with one visit or none gets 0. c* keeps all its
    visits, so the most visited move is never pruned."""
    n = root.child_N.astype(np.float64)
    total = n.sum()
    if total <= 0:
        return n
    best = int(n.argmax())
    p, q = root.child_P, root.child_Q
    scale = c_puct * math.sqrt(total if total > 1 else 1.0)
    best_score = q[best] + scale * p[best] / (1.0 + n[best])
    visited = n > 0
    visited[best] = False
    gap = np.where(visited, best_score - np.where(visited, q, 0.0), 0.0)
    # Below the best's score now, and so for any count down to the least
    # n with Q + scale P / (1 + n) < best_score, i.e. n > scale P / gap - 1.
    below = visited & (gap > 0) & (q + scale * p / (1.0 + n) < best_score)
    with np.errstate(divide="ignore", invalid="ignore"):
        least = np.where(below, np.floor(scale * p / np.where(below, gap, 1.0) - 1.0) + 1.0, n)
    forced = np.floor(forced_playouts(p, total, k))  # whole visits, so counts stay whole
    reduced = np.where(below, np.maximum(n - forced, np.maximum(least, 0.0)), n)
    reduced = np.minimum(reduced, n)
    reduced[below & (reduced <= 1)] = 0.0
    return reduced


def pick_action(root, temperature=0.0, rng=None):
    """An action from the root's visit counts: pi(a) ~ N(a)^(1/temperature),
    the most visited (ties to the higher Q) at temperature 0."""
    rng = np.random.default_rng() if rng is None else rng
    counts = root.child_N
    if counts is None or counts.sum() == 0:
        legal = np.flatnonzero(root.state.legal_actions())
        if counts is None:
            return int(legal[0]) if temperature == 0 else int(rng.choice(legal))
        counts = root.child_P  # no visits: follow the prior
    if temperature == 0:
        best = np.flatnonzero(counts == counts.max())
        return int(best[np.argmax(root.child_Q[best])])
    probs = counts ** (1.0 / temperature)
    return int(rng.choice(len(probs), p=probs / probs.sum()))


# -------------------------------------------------------------------- player


@dataclass
class ResignationCheck:
    """The false-positive rate of resignation (AlphaGo Zero, Methods): in a
    share of self-play games resignation is off; in those, did the player who
    would have resigned go on to win? The paper kept this under 5 %.

    ``resign_enabled(rng)`` draws whether a new game may resign; after a game
    with resignation off, ``record(player.would_have_resigned, winner)``.
    """

    disabled_share: float = 0.1
    games: int = 0  # games played with resignation off
    would_have_resigned: int = 0  # of those, games where someone fell below the threshold
    false_positives: int = 0  # of those, games that player went on to win

    def resign_enabled(self, rng):
        return bool(rng.random() >= self.disabled_share)

    def record(self, would_have_resigned, winner):
        self.games += 1
        if would_have_resigned is not None:
            self.would_have_resigned += 1
            self.false_positives += int(would_have_resigned == winner)

    @property
    def false_positive_rate(self):
        return self.false_positives / self.would_have_resigned if self.would_have_resigned else 0.0


@dataclass(frozen=True)
class SearchOptions:
    """The options of a tree search, with their defaults: what
    :class:`MCTSPlayer` takes (as one object, or as keywords) and what
    :class:`mockgo.play.search_player.SearchPlayer` gives each game's search.

    ``num_readouts`` simulations a search, gathered ``parallel_readouts`` at
    a time per evaluator call (``virtual_loss``: the visits, each a loss,
    that a leaf waiting for its evaluation adds along its path). ``c_puct``:
    the exploration constant in U (MiniGo uses about 1.25-2.5 in this
    constant form). ``dirichlet``: noise at the root, ``dirichlet_weight``
    of the priors. ``fpu_reduction``: the first-play value's reduction.
    ``softpick_moves``: moves sampled at temperature 1 at the start of a
    game (default :func:`default_softpick_moves`). ``resign_threshold``:
    resign when the root's value and its best child's value are both below
    it (None: never). ``full_search_share``, ``fast_readouts`` and
    ``forced_playouts`` (k): KataGo's playout cap randomization and forced
    playouts (module docstring); the defaults (1.0, None, 0) leave them off.
    ``stop_early``: :func:`search_many` ends a search once its pick is
    decided (:meth:`MCTSPlayer.decided`): the same move, sooner. Off by
    default: a training target (the visit distribution) needs the whole
    search. The options are checked when made.
    """

    num_readouts: int = 800
    c_puct: float = 1.5
    dirichlet: bool = True
    dirichlet_weight: float = DIRICHLET_WEIGHT
    parallel_readouts: int = 8
    virtual_loss: int = 3
    softpick_moves: int | None = None
    resign_threshold: float | None = -0.9
    fpu_reduction: float = 0.0
    full_search_share: float = 1.0
    fast_readouts: int | None = None
    forced_playouts: float = 0.0
    stop_early: bool = False

    def __post_init__(self):
        if self.parallel_readouts < 1 or self.num_readouts < 0:
            raise ValueError("parallel_readouts must be >= 1 and num_readouts >= 0")
        if not 0.0 <= self.full_search_share <= 1.0:
            raise ValueError(f"full_search_share must be in [0, 1], not {self.full_search_share}")
        if self.full_search_share < 1.0 and (self.fast_readouts is None
                                             or self.fast_readouts < 1):
            raise ValueError("playout cap randomization (full_search_share < 1) needs "
                             "fast_readouts >= 1")
        if self.forced_playouts < 0:
            raise ValueError(f"forced_playouts (k) must be >= 0, not {self.forced_playouts}")


class MCTSPlayer:
    """Plays one game by tree search; the tree is kept from move to move.

    ::

        player = MCTSPlayer(uniform_evaluator, num_readouts=200, seed=0)
        player.initialize(TicTacToe())
        while not player.state.is_terminal():
            player.search()
            player.play(player.pick_action())

    ``options``: a :class:`SearchOptions`, or its fields as keywords
    (``num_readouts`` simulations per ``search()``, ``c_puct``, ...), or
    both: the keywords replace the object's. ``resign_threshold``: resign
    when the root's value and its best child's value are both below it
    (None: never); set ``resign_enabled = False`` to play on and record in
    ``would_have_resigned`` the player who would have resigned. ``seed``:
    the generator of the noise and of the moves sampled by visits.
    """

    def __init__(self, evaluate, options=None, *, resign_enabled=True, seed=None, **overrides):
        if options is None:
            options = SearchOptions(**overrides)
        elif not isinstance(options, SearchOptions):
            raise TypeError(f"MCTSPlayer's options are a SearchOptions (or keywords), "
                            f"not {options!r}")
        elif overrides:
            options = dataclasses.replace(options, **overrides)
        # Each option an attribute of its own, as before SearchOptions: a
        # caller may change one between searches (softpick_moves, say).
        for field in dataclasses.fields(options):
            setattr(self, field.name, getattr(options, field.name))
        self.stop_early = bool(options.stop_early)
        self.resign_enabled = resign_enabled
        self.full_search = True  # what the last (or next) search is
        self.evaluate = evaluate
        self.stopped_early = False  # whether the last search ended because it was decided
        self.rng = np.random.default_rng(seed)
        self.root = None
        # The present search (start_search, search_step): readouts left, and
        # whether it is still going (its root may also wait for its evaluation).
        self.remaining = 0
        self.searching = False

    def initialize(self, state, move_number=0):
        """Start a game from ``state``, ``move_number`` moves into it."""
        self.root = Node(state)
        self.move_number = move_number
        self.would_have_resigned = None

    @property
    def state(self):
        return self.root.state

    def search(self):
        """Run ``num_readouts`` simulations from the root (or, with playout
        cap randomization, a full or a fast search, as drawn)."""
        search_many([self])

    def start_search(self):
        """Begin a search (:meth:`plan_search` draws its kind): ``remaining``
        readouts are left to run, by :func:`search_step` (0 at a terminal
        root, which has nothing to search)."""
        if self.root.terminal:  # nothing to search, nothing drawn (as search_many)
            self.remaining, self.searching = 0, False
            return
        self.remaining = self.plan_search()
        self.searching = True
        self.stopped_early = False

    def noise_root(self):
        """Mix Dirichlet noise into the root's priors if this search is a
        full one with noise and the root has none yet (the root must be
        expanded)."""
        if self.dirichlet and self.full_search and not self.root.noised:
            self.root.add_dirichlet_noise(self.rng, self.dirichlet_weight)

    def plan_search(self):
        """Draw whether the next search is a full one (playout cap
        randomization: with probability ``full_search_share``; always
        without it, drawing nothing); returns its readouts."""
        self.full_search = self.full_search_share >= 1.0 or \
            bool(self.rng.random() < self.full_search_share)
        return self.num_readouts if self.full_search else self.fast_readouts

    @property
    def forcing(self):
        """The k of forced playouts in the present search: only a full one
        with Dirichlet noise forces (0 otherwise)."""
        return self.forced_playouts if self.full_search and self.dirichlet else 0.0

    @property
    def temperature(self):
        """The next pick's: 1 (sampled by visits) for the first
        ``softpick_moves`` moves of a game, then 0 (the most visited)."""
        cutoff = self.softpick_moves
        if cutoff is None:
            cutoff = default_softpick_moves(self.root.state.num_actions)
        return 1.0 if self.move_number < cutoff else 0.0

    def pick_action(self):
        """Sample by visit count early in the game, then the most visited."""
        return pick_action(self.root, self.temperature, self.rng)

    def decided(self, readouts_left):
        """Whether ``readouts_left`` more readouts cannot change the pick:
        it is the most visited move (temperature 0), and the runner-up is
        more than ``readouts_left`` visits behind, so even every one of them
        could not make it overtake or tie. Leela Zero and KataGo stop
        searching there: the move is the one the whole search would pick,
        sooner."""
        counts = self.root.child_N
        if self.temperature != 0 or counts is None or len(counts) < 2:
            return False
        second, first = np.partition(counts, len(counts) - 2)[-2:]
        return first - second > readouts_left

    def play(self, action):
        """Move the root to the child for ``action``, keeping its subtree."""
        child = self.root.children.get(action)
        if child is None:
            child = Node(self.root.state.play(action))
        child.action = None
        self.root = child
        self.move_number += 1

    @property
    def root_value(self):
        """Q of the root: the expected result for the player to move."""
        return self.root.Q

    def visit_distribution(self):
        """pi, the root's visit counts normalised over all actions (the
        training target), after a search with forced playouts less those
        (:func:`prune_forced_playouts`); the legal moves' uniform
        distribution if unsearched."""
        counts = self.root.child_N
        if counts is None or counts.sum() == 0:
            counts = np.asarray(self.root.state.legal_actions(), float)
        elif self.forcing:
            counts = prune_forced_playouts(self.root, self.c_puct, self.forcing)
        return counts / counts.sum()

    def should_resign(self):
        """Whether the player to move should resign now: the root's value and
        its best (most visited) child's value are both below the threshold
        (Silver et al. 2017, Methods). With ``resign_enabled`` off, records
        the would-be resigner and says no."""
        root = self.root
        if self.resign_threshold is None or root.n_total == 0:
            return False
        best = root.child_Q[root.child_N.argmax()]  # the most visited child
        if max(self.root_value, best) >= self.resign_threshold:
            return False
        if not self.resign_enabled:
            if self.would_have_resigned is None:
                self.would_have_resigned = root.to_play
            return False
        return True


def search_many(players, evaluate=None, seconds=None, after_step=None):
    """Search every player's tree in lockstep: each step gathers up to
    ``parallel_readouts`` leaves from each tree and makes ONE evaluator call
    (``evaluate``, default the first player's) for all of them. Unexpanded
    roots are first expanded together in one call. Each player gets exactly
    its ``num_readouts`` new simulations (with playout cap randomization,
    those of the search it draws: :meth:`MCTSPlayer.plan_search`); Dirichlet
    noise goes on the roots of full searches only; terminal roots are
    skipped. Every search ends in the same step as the longest one: a tree
    whose search is done waits for the others (:func:`search_step` lets a
    caller move such a game on instead).

    ``seconds``: a time budget as well. No step begins that would end
    ``seconds`` after the start, judged by the length of the step before it
    (one step of readouts is always made), and the searches stop there, or
    when all their readouts are done if that comes first. Every step's
    leaves are backed up, so a stopped tree is as whole as a finished one,
    with fewer readouts.

    A player with ``stop_early`` stops once :meth:`MCTSPlayer.decided`: its
    pick can no longer change in the readouts it has left, or (with
    ``seconds``) in as many steps as the time left holds at the pace of the
    fastest step so far, plus one.

    ``after_step()``: called after every step, with no readout in flight (no
    virtual loss in the trees): live analysis reads them (:mod:`mockgo.gtp.analysis`)."""
    players = [p for p in players if not p.root.terminal]
    if not players:
        return
    deadline = None if seconds is None else time.perf_counter() + seconds
    evaluate = evaluate or players[0].evaluate
    for p in players:
        p.start_search()
    search_step([p for p in players if not p.root.is_expanded], evaluate)
    stopping_early = [p for p in players if p.stop_early]
    last_step = fastest_step = None
    while any(p.searching for p in players):
        now = time.perf_counter()
        if deadline is not None and last_step is not None and now + last_step > deadline:
            for p in players:
                p.remaining, p.searching = 0, False
            break
        search_step(players, evaluate)
        if after_step is not None:
            after_step()
        end = time.perf_counter()
        last_step = end - now
        fastest_step = last_step if fastest_step is None else min(fastest_step, last_step)
        if stopping_early:
            _stop_decided(stopping_early, deadline, end, fastest_step)


def _stop_decided(players, deadline, now, fastest_step):
    """End the searches of ``players`` (those with ``stop_early``) whose
    pick is decided (:meth:`MCTSPlayer.decided`) in the readouts they have
    left, or, with a ``deadline``, in the steps the time left holds at the
    ``fastest_step``'s pace, plus one."""
    steps_left = None
    if deadline is not None:
        steps_left = math.floor(max(deadline - now, 0.0) / max(fastest_step, 1e-9)) + 1
    for p in players:
        if not p.searching:
            continue
        left = p.remaining
        if steps_left is not None:
            left = min(left, steps_left * p.parallel_readouts)
        if p.decided(left):
            p.remaining, p.searching, p.stopped_early = 0, False, True


def search_step(players, evaluate=None):
    """One step of the players' searches (each begun with
    :meth:`MCTSPlayer.start_search`), with ONE evaluator call: a tree whose
    root is not expanded yet sends its root; the others gather up to
    ``parallel_readouts`` leaves each, of the readouts they have left
    (``remaining``). Leaves selected twice are evaluated once (module
    docstring); terminal leaves back up their exact value without a call.
    A root expanded here, or met for the first time in a full search, gets
    its Dirichlet noise before its first selection. A player's search is
    done when ``MCTSPlayer.searching`` is False: self-play then plays
    its move and begins the next search, so that a game with a fast search
    need not wait for the full searches of the games beside it."""
    players = [p for p in players if p.searching]
    if not players:
        return
    evaluate = evaluate or players[0].evaluate
    leaves, waiting, roots = [], [], []
    for p in players:
        root = p.root
        if not root.is_expanded:
            root.pending = True
            leaves.append((root, p))
            roots.append(p)
            continue
        p.noise_root()
        forcing = p.forcing
        for _ in range(min(p.parallel_readouts, p.remaining)):
            p.remaining -= 1
            path = select_leaf(root, p.c_puct, p.virtual_loss, forcing)
            leaf = path[-1]
            if leaf.terminal:
                backup(path, leaf.value, p.virtual_loss)
                continue
            if not leaf.pending:  # a duplicate is evaluated once
                leaf.pending = True
                leaves.append((leaf, p))
            waiting.append((path, p))
    if leaves:
        _evaluate_and_expand(evaluate, leaves)
    for path, p in waiting:
        backup(path, path[-1].value, p.virtual_loss)
    for p in roots:
        p.noise_root()
    for p in players:
        p.searching = p.remaining > 0 or not p.root.is_expanded


@contextlib.contextmanager
def fewer_collections(allocations=50_000):
    """Run the block with Python's cyclic garbage collector started every
    ``allocations`` allocations instead of every 700. A search allocates
    several objects per simulation (a node, a state, a board and its
    arrays), so the collector runs often and scans the trees, where it finds
    nothing: they hold no reference cycles (nodes have no parent links), and
    what a search drops is freed at once by reference counting. Self-play
    played the same 32 games 5% to 10% faster this way (``play_batch`` in
    turns, 2026-11-24)."""
    before = gc.get_threshold()
    gc.set_threshold(allocations, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _evaluate_and_expand(evaluate, nodes):
    """One evaluator call for (node, player) pairs; expand each node."""
    priors, values = evaluate([node.state for node, _ in nodes])
    for (node, player), prior, value in zip(nodes, priors, values):
        node.expand(prior, value, player.fpu_reduction)
        node.pending = False
