"""mockgo: from supervised learning on expert Go games to AlphaGo Zero self-play.

A series of Jupyter notebooks (``notebooks/``) and this package, which they
share. The rules engine is :class:`mockgo.go.board.Board`; points are flat
indices, and :mod:`mockgo.go.coords` converts them to and from GTP and SGF
coordinates::

    from mockgo import Board, coords
    board = Board(9)
    board.play(coords.from_gtp("E5", board.size))

The notebooks, in order::

    01_supervised       a policy network learns expert moves from KGS games
    02_value_net        a value network predicts the winner; one position a game
    03_policy_gradient  REINFORCE from self-play, with a value baseline
    04_zero_selfplay    AlphaGo Zero: tree search and self-play from scratch
    05_arena            every player on one Elo scale, against GnuGo

The subpackages, one stage of the series each, in the order a learner meets them::

    mockgo.go            the game: rules engine, playouts, dead stones, feature planes
    mockgo.data          SGF reading and writing, KGS downloads, datasets, batches
    mockgo.nets          network architectures, saving and loading, inference
    mockgo.search        MCTS with PUCT, evaluators, UCT and RAVE, minimax
    mockgo.play          players (one protocol, many kinds), player specs, the game loop,
                         the match engine (Wilson intervals, Elo), the client of GnuGo
    mockgo.gtp           the GTP engine for Sabaki and GoGui (live analysis)
    mockgo.learn         supervised learning (01), value (02), REINFORCE (03), the recipe
    mockgo.zero          AlphaGo Zero's loop (04) and its tic-tac-toe warm-up
    mockgo.arena         the match command, the ladder (05), readout sweeps, move prediction
    mockgo.board_widget  the Go board for JupyterLab (play and review games), and in a terminal
    mockgo.pretrained    the networks that ship with mockgo, with their model cards
    mockgo.exercises     each notebook's exercises: check, hint and solution

Beside them: mockgo.presets (each notebook's quick and full settings),
mockgo.notebook (run folders, networks handed on), mockgo.exercises (the
exercises that end each notebook, with their checks), mockgo.plotting,
mockgo.cluster (worker processes or Ray), mockgo.notebook_folder (the
notebooks outside a clone: ``mockgo notebooks DIR``) and mockgo.cli (the
``mockgo`` command: ``mockgo --help``).
"""

from mockgo.go import coords
from mockgo.go.board import BLACK, EMPTY, WHITE, Board, IllegalMove, opponent

__all__ = ["BLACK", "EMPTY", "WHITE", "Board", "IllegalMove", "coords", "opponent"]
__version__ = "0.1.0"
