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
  :class:`mockgo.play.gtp_client.GTPEngine`; :func:`gnugo_player`.
- :mod:`mockgo.play.search_player`: the tree searches, one tree per game,
  kept from move to move: :class:`SearchPlayer`, Monte Carlo tree search
  (:mod:`mockgo.search.mcts`) with any evaluator
  (:mod:`mockgo.search.evaluators`), and :class:`UCTPlayer`, classic Monte
  Carlo tree search with random playouts and, as an option, RAVE
  (:mod:`mockgo.search.uct`).
- :mod:`mockgo.play.specs`: players from strings (:func:`make_player`,
  ``"random:seed=3"``, ``"gnugo:level=1"``, ``"mcts:pretrained=zero-9"``):
  the spec grammar, every kind's options, and :func:`register_player_kind`.
"""

# The old single module's contents, now in their own modules; the names
# past __all__ are shared helpers (PLAYER_KINDS, passes_now,
# budget_label, check_seconds), importable from here too.
from mockgo.play.gtp_player import GTPPlayer, gnugo_player
from mockgo.play.player import RESIGN, THINKING, Choices, Player, Turn, passes_now  # noqa: F401
from mockgo.play.policy_player import PolicyPlayer
from mockgo.play.random_player import RandomPlayer
from mockgo.play.search_player import (SearchPlayer, UCTPlayer, budget_label,  # noqa: F401
                                       check_seconds)
from mockgo.play.specs import (PLAYER_KINDS, as_player, make_player, parse_spec,  # noqa: F401
                               register_player_kind, spec_help)

# Before the split this module imported these for its own use, so they were
# reachable as its attributes: kept, so that code which found them here
# still does. Nothing in mockgo imports them from here.
import dataclasses  # noqa: F401, E402, I001
import math  # noqa: F401, E402
import os  # noqa: F401, E402
import shlex  # noqa: F401, E402
import subprocess  # noqa: F401, E402
import time  # noqa: F401, E402

import numpy as np  # noqa: F401, E402

from mockgo import pretrained as shipped_networks  # noqa: F401, E402
from mockgo.data.gametree import SearchSummary  # noqa: F401, E402
from mockgo.go import coords  # noqa: F401, E402
from mockgo.go.board import BLACK, COLOR_NAMES, EMPTY, WHITE  # noqa: F401, E402
from mockgo.go.ownership import should_pass  # noqa: F401, E402
from mockgo.play.gtp_client import (GTPEngine, GTPError, find_gnugo,  # noqa: F401, E402
                                    gnugo_command)
from mockgo.play.sampling import check_temperature, sample_moves, temper  # noqa: F401, E402
from mockgo.search import evaluators  # noqa: F401, E402
from mockgo.search.games import CarefulGoGame, GoGame  # noqa: F401, E402
from mockgo.search.mcts import (MCTSPlayer, ResignationCheck, search_many,  # noqa: F401, E402
                                search_step)
from mockgo.search.uct import UCTSearch  # noqa: F401, E402

__all__ = ["RESIGN", "THINKING", "Choices", "GTPPlayer", "Player", "PolicyPlayer", "RandomPlayer",
           "SearchPlayer", "Turn", "UCTPlayer", "as_player", "gnugo_player", "make_player",
           "parse_spec", "register_player_kind", "spec_help"]
