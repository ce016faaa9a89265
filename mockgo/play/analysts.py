"""What a player thinks of a position, as a player reports it: its analyst.

A player that can say what it thinks answers
:meth:`mockgo.play.player.Player.analyst` with an *analyst* for a position;
one that cannot (an external GTP engine, say) answers None, the protocol's
default. The GTP engine's live analysis (:mod:`mockgo.gtp.analysis`,
``lz-analyze``) and the board widget draw what analysts say; each kind of
player makes its own, beside its kind: the search players' trees
(:mod:`mockgo.play.search_player`), a policy's priors
(:mod:`mockgo.play.policy_player`, :mod:`mockgo.play.random_player`).

An analyst has

- ``searches``: whether it grows a tree (a policy does not);
- ``grow()``: search one slice more; False when there is nothing more to
  search (a finished game, or the visits it may grow to);
- ``infos()``: the candidate moves as :class:`MoveInfo` s, read now;
- optionally ``after_each_step(callback)``: call ``callback()`` after each
  step of the player's own search while it chooses a move (None: stop), for
  a search whose tree must not be read in the middle of a step; an analyst
  without it is read by a thread while the player searches.

This module holds what they share: :class:`MoveInfo`, the win rate's
:func:`lower_bound`, the principal variation of a tree
(:func:`principal_variation`), a policy's analyst (:class:`PolicyAnalyst`)
and :func:`first_look`.
"""

import dataclasses
import math

import numpy as np

__all__ = ["LCB_Z", "MAX_PV", "MoveInfo", "POLICY_VISITS", "PolicyAnalyst", "first_look",
           "lower_bound", "principal_variation"]

#: A policy's prior is shown as so many visits (:class:`PolicyAnalyst`).
POLICY_VISITS = 1000
#: The principal variation stops after this many moves.
MAX_PV = 40
#: z of the one-sided lower bound of a win rate (about 97.5 %).
LCB_Z = 1.96


@dataclasses.dataclass
class MoveInfo:
    """One candidate move: ``move`` (flat index), ``visits``, ``winrate``
    and ``prior`` (0 to 1; the win rate for the side the analysis is for),
    ``lcb`` (:func:`lower_bound`), ``pv`` (flat moves, the first being
    ``move``)."""

    move: int
    visits: int
    winrate: float
    prior: float
    lcb: float
    pv: list


def lower_bound(winrate, visits):
    """A lower confidence bound of a win rate measured over ``visits``
    readouts: ``winrate - 1.96 * 0.5 / sqrt(visits)``, the normal bound with
    the largest spread a result between 0 and 1 can have (0.5), at least 0;
    0 without visits. Leela Zero reports one from the readouts' own spread;
    the trees here keep no spread, so this one is wider, never narrower."""
    if visits <= 0:
        return 0.0
    return max(0.0, winrate - LCB_Z * 0.5 / math.sqrt(visits))


def principal_variation(root, action, visits_of):
    """The most visited line below ``action``: ``visits_of(node)`` is the
    visit counts of a node's moves, None for a node not searched below."""
    pv, node = [], root.children.get(action)
    while node is not None and len(pv) < MAX_PV - 1:
        visits = visits_of(node)
        if visits is None:
            break
        best = int(np.argmax(visits))
        if visits[best] <= 0:
            break
        pv.append(best)
        node = node.children.get(best)
    return pv


class PolicyAnalyst:
    """A policy's priors as candidates: ``priors(board)`` gives N*N + 1
    probabilities (pass last). There is no search, so there are no visits;
    but Sabaki scales its heatmap by ``visits * winrate`` and a line of zero
    visits would draw nothing (0 / 0). So a policy's ``visits`` are its
    prior scaled to :data:`POLICY_VISITS` (rounded; the moves that round to
    0 are left out), about what a search that followed the prior alone would
    give them, and its ``winrate`` is 0.5: a policy has no opinion of who
    wins. Its infos never change."""

    searches = False

    def __init__(self, priors, board):
        self.priors, self.board = priors, board
        self._infos = None

    def grow(self):
        return False  # no search: nothing grows

    def infos(self):
        if self._infos is None:
            p = np.asarray(self.priors(self.board), np.float64)
            self._infos = [MoveInfo(int(a), int(round(p[a] * POLICY_VISITS)), 0.5, float(p[a]),
                                    0.0, [int(a)]) for a in np.flatnonzero(p > 0)]
        return self._infos


def first_look(analyst):
    """``analyst`` after its first network call (a policy's priors; a
    search's root expanded: no readout yet, as a move's search begins), so
    that a player built on first use makes that call in its loading context
    (:class:`~mockgo.play.lazy_player.LazyPlayer`). None stays None."""
    if analyst is None:
        return None
    if analyst.searches and hasattr(analyst, "tree"):  # a search player's tree
        tree = analyst.tree(start=True)
        if not tree.root.terminal and getattr(tree.root, "child_P", True) is None:
            analyst.grow()  # a fresh MCTS root: this step only evaluates it
    else:
        analyst.infos()
    return analyst
