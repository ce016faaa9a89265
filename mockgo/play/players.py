"""Players: anything that chooses moves, behind one interface that plays one
game or many in lockstep. This module is the one import for all of them::

    from mockgo.play.players import RandomPlayer, make_player

Each part lives in a module of its own, and every name is importable from
here as it always was:

- :mod:`mockgo.play.player`: the interface every player follows
  (:class:`Player`, :class:`Turn`, :class:`Choices`, :data:`RESIGN`,
  :data:`THINKING`): how the runner, matches, the GTP engine, REINFORCE and
  AlphaGo Zero drive players, many positions in one ``choose`` call.
- :mod:`mockgo.play.random_player`: :class:`RandomPlayer`, uniform over
  ``board.sensible_moves()`` (legal and not filling its own single-point
  eyes); passes when there is none.
- :mod:`mockgo.play.policy_player`: :class:`PolicyPlayer`, a Keras policy
  network (or the policy head of a dual network) through a compiled
  :class:`mockgo.nets.inference.Predictor`, masked to the sensible moves;
  greedy at temperature 0, else sampled from ``p ** (1 / T)``.
- :mod:`mockgo.play.gtp_player`: :class:`GTPPlayer`, an external engine
  (GnuGo, or any GTP program) run through
  :class:`mockgo.play.gtp_engine.GTPEngine`; :func:`gnugo_player`.
- :mod:`mockgo.play.search_player`: the tree searches, one tree per game,
  kept from move to move: :class:`SearchPlayer`, Monte Carlo tree search
  (:mod:`mockgo.search.mcts`) with any evaluator
  (:mod:`mockgo.search.evaluators`), and :class:`UCTPlayer`, classic Monte
  Carlo tree search with random playouts and, as an option, RAVE
  (:mod:`mockgo.search.uct`).
- :mod:`mockgo.play.lazy_player`: :class:`LazyPlayer`, a player built at
  its first move from a checked :class:`PlayerPlan` (the GTP engine answers
  at once and loads its network when it must move).
- :mod:`mockgo.play.specs`: players from strings (:func:`make_player`,
  ``"random:seed=3"``, ``"gnugo:level=1"``, ``"mcts:pretrained=zero-9"``):
  the spec grammar, every kind's options, and :func:`register_player_kind`.
"""

# The old single module's contents, now in their own modules; the names
# past __all__ are shared helpers (PLAYER_KINDS, passes_now,
# budget_label, check_seconds), importable from here too.
from mockgo.play.gtp_player import GTPPlayer, gnugo_player
from mockgo.play.lazy_player import LazyPlayer, PlayerLoadError, PlayerPlan
from mockgo.play.player import RESIGN, THINKING, Choices, Player, Turn, passes_now  # noqa: F401
from mockgo.play.policy_player import PolicyPlayer, portable_player
from mockgo.play.random_player import RandomPlayer
from mockgo.play.search_player import (SearchPlayer, UCTPlayer, budget_label,  # noqa: F401
                                       check_seconds)
from mockgo.play.specs import (PLAYER_KINDS, as_player, lazy_player, make_player,  # noqa: F401
                               parse_spec, plan_player, register_player_kind, spec_help)

__all__ = ["RESIGN", "THINKING", "Choices", "GTPPlayer", "LazyPlayer", "Player", "PlayerLoadError",
           "PlayerPlan", "PolicyPlayer", "RandomPlayer", "SearchPlayer", "Turn", "UCTPlayer",
           "as_player", "gnugo_player", "lazy_player", "make_player", "parse_spec", "plan_player",
           "portable_player", "register_player_kind", "spec_help"]
