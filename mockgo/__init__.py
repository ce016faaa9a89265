"""mockgo: from supervised learning on expert Go games to AlphaGo Zero self-play.

The rules engine is :class:`mockgo.go.board.Board`; points are flat indices, and
:mod:`mockgo.go.coords` converts them to and from GTP and SGF coordinates.
"""

from mockgo.go import coords
from mockgo.go.board import BLACK, EMPTY, WHITE, Board, IllegalMove, opponent

__all__ = ["BLACK", "EMPTY", "WHITE", "Board", "IllegalMove", "coords", "opponent"]
__version__ = "0.1.0"
