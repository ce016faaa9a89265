"""Who owns each point at the end: Monte Carlo ownership and dead stones.

When a game ends by two passes, the stones that cannot live are removed
before counting. Deciding which they are is the hard part of scoring, and
the method of simple playout engines is to ask random games: from the
position, ``playouts`` random games are played to the end by both sides
(:meth:`mockgo.go.board.Board.random_playout`: each side chooses uniformly
among its sensible moves, legal and not filling its own single-point eye,
and passes when it has none). At the end of each playout every point
belongs to black, to white, or to no one (Tromp-Taylor, ``Board.owner_map``:
a stone's point is its colour's; an empty region belongs to the colour that
alone surrounds it). A group is *dead* when, averaged over its stones and the playouts, its
points end up its own colour's in fewer than half of the playouts.

It is honest about what it is: stones that would die if both sides played
at random. Groups with two eyes, and stones in an opponent's area that
cannot live, are judged right; a seki usually breaks in random play and one
side is called dead. The playouts have a seed, so the same position always
gets the same answer. The GTP engine's ``final_score`` and
``final_status_list`` (:mod:`mockgo.gtp.server`) and the UCT search's end of
game (:mod:`mockgo.search.uct`) use it, and so do the players that answer
a pass (:func:`should_pass`).
"""

import numpy as np

from mockgo.go.board import BLACK, EMPTY, WHITE

__all__ = ["area_score_without_dead", "estimate_dead", "final_owners", "ownership",
           "should_pass"]


def final_owners(board, dead=(), seki=()):
    """Who owns each point at the end of a game: the training label of the
    dual network's ownership head (:mod:`mockgo.zero.selfplay`). An array of
    ``size * size`` BLACK, WHITE or EMPTY (no one), the Tromp-Taylor owner
    map (``Board.owner_map``) of the position with the ``dead`` stones taken
    off: a stone's point is its colour's, a dead stone's point the
    opponent's, an empty region the colour's that alone borders it, one
    that borders both no one's. ``seki``: stones in seki (as GnuGo's
    ``final_status_list seki`` lists them); the empty regions touching them
    (shared liberties, and the eyes of groups in seki) are no one's, as
    GnuGo counts them. The stones and the dead stones are what GnuGo's
    ``final_status_list`` gives for a finished game; self-play, which plays
    on until no sensible move is left, ends with none dead and no seki."""
    stones = board.stones.copy()
    if len(dead):
        stones[np.asarray(list(dead), np.int64)] = EMPTY
    owners = board.owner_map(stones)
    if len(seki):
        # The empty regions next to a seki group: flood fill from its liberties.
        todo = [q for p in seki for q in board.neighbors[p] if q >= 0 and stones[q] == EMPTY]
        seen = set(todo)
        while todo:
            point = todo.pop()
            owners[point] = EMPTY
            for q in board.neighbors[point]:
                if q >= 0 and stones[q] == EMPTY and q not in seen:
                    seen.add(q)
                    todo.append(q)
    return owners


def ownership(board, playouts=64, seed=0):
    """For each point, the share of ``playouts`` random playouts from
    ``board`` at whose end it belongs to black, and to white:
    ``(black_share, white_share)``, arrays of ``size * size``."""
    rng = np.random.default_rng(seed)
    state = np.array([rng.integers(1, 2**63)], np.uint64)
    black = np.zeros(board.pass_index)
    white = np.zeros(board.pass_index)
    # The question is asked when the game has ended (or is about to) by
    # passes: the playouts play on as if no one had passed.
    start = board.copy()
    start.passes = 0
    for _ in range(playouts):
        owner = board.owner_map(start.random_playout(state).stones)
        black += owner == BLACK
        white += owner == WHITE
    return black / playouts, white / playouts


def estimate_dead(board, playouts=64, seed=0, shares=None):
    """The stones judged dead (module docstring), as a sorted list of flat
    points. ``shares``: :func:`ownership`'s answer if already known."""
    if not (board.stones != EMPTY).any():
        return []
    black, white = ownership(board, playouts, seed) if shares is None else shares
    own = np.where(board.stones == BLACK, black, white)
    dead = []
    for head in np.unique(board.group[board.stones != EMPTY]):
        members = np.flatnonzero(board.group == head)
        if own[members].mean() < 0.5:
            dead += members.tolist()
    return sorted(dead)


def area_score_without_dead(board, playouts=64, seed=0):
    """Black's area minus white's minus komi after removing the stones
    :func:`estimate_dead` calls dead: the score of a game that ended now."""
    return board.area_score(estimate_dead(board, playouts, seed))


def should_pass(board, playouts=64, seed=0, settled=0.8):
    """Whether the player to move should answer the opponent's pass with a
    pass, ending the game: when playing on cannot gain. That is when

    - the game, ended now and scored with the dead stones removed (as GnuGo
      scores it), is won;
    - or every sensible move left (legal, not filling its own one- or
      two-point eye space) lies in the player's own settled area, a point
      that is the player's at the end of at least ``settled`` of the
      playouts (filling one's own territory gains nothing under area
      scoring, and filling an eye can kill the group);
    - or the game is lost by more than playing on could change: even if
      every point not settled for either side (owned by neither in at least
      ``settled`` of the playouts) turned the player's way, each moving the
      margin by at most 2, the player would still lose. Playing on then
      only fills its own area or throws stones into the opponent's, and the
      game would drag on for nothing (issue 21: a lost search played 15
      moves after GnuGo's pass).

    False when the last move was not a pass: a player that passes first
    gives the opponent the last word."""
    if board.passes < 1 or board.is_over:
        return False
    me = board.to_play
    black, white = shares = ownership(board, playouts, seed)
    margin = board.area_score(estimate_dead(board, playouts, seed, shares=shares))
    if me != BLACK:
        margin = -margin
    if margin > 0:
        return True
    mine = black if me == BLACK else white
    points = np.flatnonzero(board.sensible_moves(eye_space=2)[:-1])
    if np.all(mine[points] >= settled):
        return True
    unsettled = np.count_nonzero((black < settled) & (white < settled))
    return bool(margin + 2 * unsettled < 0)
