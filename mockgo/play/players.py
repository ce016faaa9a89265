"""Players: anything that chooses moves, behind one interface that plays one
game or many in lockstep.

The lockstep runner (:mod:`mockgo.play.runner`), matches
(:mod:`mockgo.arena.matches`), the GTP engine (:mod:`mockgo.arena.gtp`),
REINFORCE and AlphaGo Zero all drive players the same way::

    player.start_game(game, board, rng)   # game: a number; rng: this game's generator
    choices = player.choose(turns)         # one Turn per game in which it is to move
    player.observe(game, board, move)      # after every move of the game, both colours
    player.end_game(game)
    player.close()                         # engines and other resources

``choose`` answers *many positions in one call*, one :class:`Turn` per game
in which the player is to move: a network player encodes them all and calls
its network once; a tree search searches all its games' trees in lockstep,
one evaluator call per step for all of them; a GTP engine (GnuGo) answers one
position at a time (``one_at_a_time``: the runner then plays its games one
after another). Players whose :meth:`~Player.group_key` is equal answer
together: the same network at two temperatures shares one call.
``select_move(board)`` is the same for a single position (Sabaki through
GTP, a notebook cell).

A move is a flat index, ``board.pass_index`` to pass, or :data:`RESIGN`.
``choose`` must leave the boards unchanged. ``observe`` follows the game
(``board.history[-1]`` is the move just played; ``move`` is RESIGN when a
player resigned): players that keep state from move to move (a search tree,
an engine's board) follow it there; they must also cope with a board that
did not come from the moves they observed (``undo`` in GTP, ``loadsgf``): the
search starts a new tree, the GTP player sets its engine up again.

Random numbers: the runner gives each player in each game its own generator,
made by :meth:`Player.game_rng` from a seed that depends on the match's seed
and the game's number only, so a match replays exactly however its games are
spread over processes or batches.

The players here:

- :class:`RandomPlayer`: uniform over ``board.sensible_moves()`` (legal and
  not filling its own single-point eyes); passes when there is none.
- :class:`PolicyPlayer`: a Keras policy network (or the policy head of a
  dual network) through a compiled :class:`mockgo.nets.inference.Predictor`,
  masked to the sensible moves; greedy at temperature 0, else sampled from
  ``p ** (1 / T)``.
- :class:`GTPPlayer`: an external engine (GnuGo, or any GTP program) run
  through :class:`mockgo.play.gtp_client.GTPEngine`.
- :class:`UCTPlayer`: classic Monte Carlo tree search with random playouts
  and, as an option, RAVE (:mod:`mockgo.search.uct`).
- :class:`SearchPlayer`: Monte Carlo tree search (:mod:`mockgo.search.mcts`)
  with any evaluator (:mod:`mockgo.search.evaluators`), one tree per game,
  kept from move to move.

Player specs
------------
Command lines and worker processes make players from strings
(:func:`make_player`)::

    spec    := kind [":" option ("," option)*]
    option  := key "=" value

    random                              RandomPlayer(seed=None)
    random:seed=3                       RandomPlayer(seed=3)
    policy:path=models/sl.keras,temperature=0.5,seed=1
    policy:pretrained=sl-19             a network that ships with mockgo (mockgo models)
    gnugo                               GnuGo level 10 (its default)
    gnugo:level=1,seed=0                GnuGo at level 1 (binary=PATH: another GnuGo)
    gtp:cmd=/usr/games/gnugo --mode gtp --level 3
    uct:playouts=10000,rave=1           classic Monte Carlo tree search, random playouts
    alphago:policy_pretrained=sl-19,value_pretrained=value-19,readouts=800,mix=0
                                        AlphaGo's search: policy priors, value network
    mcts:readouts=200,evaluator=uniform  tree search, uniform priors
    mcts:path=models/zero.keras,readouts=100,resign=-0.9   guided by a dual network
    mcts:pretrained=zero-9,readouts=800  the 9x9 Zero network that ships with mockgo

Every kind also takes ``name=...`` (the name written into SGF files and
tables). Values are plain text: no quoting, no commas, except that ``cmd=``
takes everything after it, commas and ``=`` included, so it must come last;
``cmd`` is split into words as a POSIX shell would (``shlex.split``).
Keys a kind does not know are an error. A network's encoder is the one its
file records (``encoder=`` overrides it for files saved before mockgo
recorded it). More kinds can be added with :func:`register_player_kind` (a
factory taking the options as keyword arguments, all strings).

Players whose networks load later
---------------------------------
Loading a network means importing TensorFlow (or another Keras backend):
seconds, and a screenful of the runtime's start-up lines on stderr. A GTP
controller asks ``name`` and ``version`` the moment it starts the engine and
should not wait for that. So the kinds with networks (``policy``,
``alphago``, ``mcts`` with a network) first make a :class:`PlayerPlan`:
every option checked, the network files found (a shipped one checked against
its card), the board size read off the file's record, the player's name
worked out, and nothing imported. :func:`make_player` builds the plan at
once; :func:`lazy_player` wraps it in a :class:`LazyPlayer`, which answers
``name``, ``size``, ``check_size``... from the plan and builds the player
when it must first choose a move. A failure then is a
:class:`PlayerLoadError` naming the cause.
"""

import contextlib
import dataclasses
import math
import os
import shlex
import subprocess
import time

import numpy as np

from mockgo import pretrained as shipped_networks
from mockgo.data.gametree import SearchSummary
from mockgo.go import coords
from mockgo.go.board import BLACK, COLOR_NAMES, EMPTY, WHITE
from mockgo.go.ownership import should_pass
from mockgo.nets.io import read_info
from mockgo.play.gtp_client import GTPEngine, GTPError, find_gnugo, gnugo_command
from mockgo.play.sampling import check_temperature, sample_moves, temper
from mockgo.search import evaluators
from mockgo.search.games import CarefulGoGame, GoGame
from mockgo.search.mcts import MCTSPlayer, ResignationCheck, search_many, search_step
from mockgo.search.uct import UCTSearch

__all__ = ["RESIGN", "THINKING", "Choices", "GTPPlayer", "LazyPlayer", "Player", "PlayerLoadError",
           "PlayerPlan", "PolicyPlayer", "RandomPlayer", "SearchPlayer", "Turn", "UCTPlayer",
           "as_player", "gnugo_player", "lazy_player", "make_player", "parse_spec", "plan_player",
           "register_player_kind", "spec_help"]

RESIGN = -1  # the move that resigns the game
# Not decided yet: a step-wise search goes on (SearchPlayer(stepwise=True));
# the runner offers the same turn again at its next step.
THINKING = -2


@dataclasses.dataclass
class Turn:
    """One position a player must answer: game ``game``'s ``board`` (not to
    be changed), its sensible moves (``mask``, N*N + 1 booleans, pass
    last), the moving player's generator in that game, and the player (the
    members of one group may differ, in temperature say)."""

    game: int
    board: object
    mask: np.ndarray
    rng: np.random.Generator
    player: "Player"


@dataclasses.dataclass
class Choices:
    """The answers to a list of turns: ``moves`` (flat index, pass, or
    RESIGN), ``log_probs`` (of each move under the distribution it was drawn
    from; 0 for a move that was not drawn), and, for a network player,
    ``evaluated`` (the rows its network saw) and ``planes`` (the encoded
    positions of the evaluated rows, uint8, in row order); the work done:
    ``calls`` (network calls), ``encode_s``, ``network_s``."""

    moves: np.ndarray
    log_probs: np.ndarray
    evaluated: np.ndarray | None = None
    planes: np.ndarray | None = None
    calls: int = 0
    encode_s: float = 0.0
    network_s: float = 0.0


class Player:
    """The interface (module docstring). Subclasses set ``name`` and
    implement :meth:`choose`; the rest has defaults."""

    name = "player"
    size = None  # the one board size it plays (a network's), or None for any
    one_at_a_time = False  # True: follows one game at a time (GTP engines)
    keep_planes = False  # the runner keeps the planes its network saw (REINFORCE)
    seed = None  # a player's own seed, mixed into every game's (random:seed=3)

    def group_key(self):
        """Players with equal keys answer their turns in one :meth:`choose` call."""
        return ("player", id(self))

    def game_rng(self, seed):
        """The generator of one game, from the game's ``seed`` (and the player's own)."""
        if self.seed is None:
            return np.random.default_rng(seed)
        if seed is None:
            return np.random.default_rng(self.seed)
        return np.random.default_rng([self.seed, *np.atleast_1d(seed).tolist()])

    def check_size(self, size):
        """ValueError when the player cannot play on ``size`` x ``size``."""
        if self.size is not None and size != self.size:
            raise ValueError(f"{self.name} plays {self.size}x{self.size} only, not {size}x{size}")

    def start_game(self, game, board, rng):
        """Game ``game`` starts (or goes on) from ``board``; ``rng`` is its
        generator. (Whoever starts games checks :meth:`check_size` first: the
        runner once for all its games, the GTP engine at each new board.)"""

    def choose(self, turns):
        """A :class:`Choices` for ``turns`` (module docstring)."""
        raise NotImplementedError

    def observe(self, game, board, move):
        """``move`` has just been played in game ``game`` (on ``board``)."""

    def end_game(self, game):
        """Game ``game`` is over: free what the player kept for it."""

    def select_move(self, board, rng=None, game=0):
        """The move for one position (``rng``: the game's generator; default
        a fresh one)."""
        self.check_size(board.size)
        rng = self.game_rng(None) if rng is None else rng
        turn = Turn(game, board, board.sensible_moves(), rng, self)
        move = int(self.choose([turn]).moves[0])
        while move == THINKING:  # a step-wise search: step it to its end
            move = int(self.choose([turn]).moves[0])
        return move

    def close(self):
        """Free what the player holds (an engine process, say)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __repr__(self):
        return f"<{type(self).__name__} {self.name}>"


def _answers_pass(turns):
    """For each turn, whether its player answers the opponent's pass with a
    pass now (:func:`mockgo.go.ownership.should_pass`, for players with
    ``answer_passes``)."""
    return np.array([bool(getattr(t.player, "answer_passes", False)) and t.board.passes > 0
                     and should_pass(t.board) for t in turns], bool)


def _uniform_over_points(masks):
    """Rows of move probabilities: uniform over each mask's points, all on
    pass for a row with none."""
    points = masks[:, :-1]
    counts = points.sum(axis=1, keepdims=True)
    out = np.zeros(masks.shape, np.float64)
    out[:, :-1] = points / np.maximum(counts, 1)
    out[:, -1] = counts[:, 0] == 0
    return out


# ------------------------------------------------------------------ random


class RandomPlayer(Player):
    """Uniform over the sensible moves (legal, not filling its own
    single-point eye); passes only when there is none. The usual baseline:
    rated 0 on the ladder. ``seed``: mixed into every game's seed."""

    def __init__(self, seed=None, name=None):
        self.seed = seed
        self.name = name or "random"

    def group_key(self):
        return ("random",)

    def choose(self, turns):
        masks = np.stack([turn.mask for turn in turns])
        moves, log_probs = sample_moves(_uniform_over_points(masks), [t.rng for t in turns])
        return Choices(moves, log_probs)


# ------------------------------------------------------------------ policy


class PolicyPlayer(Player):
    """Moves from a policy network, many positions in one network call.

    ``model``: a Keras model, the path of a ``.keras`` file, or a
    :class:`~mockgo.nets.inference.Predictor` to share. A one-output model
    is a policy; of a two-output model (a dual network) the first output,
    the policy, is used. The policy may cover the N*N points (AlphaGo's) or
    N*N + 1 moves (pass last). ``encoder``: the feature planes the network
    was trained on (a name for :func:`mockgo.go.features.get_encoder`), or
    None: the encoder the network records (:mod:`mockgo.nets.io`).

    The policy is masked to the sensible moves and renormalised
    (:func:`~mockgo.nets.inference.masked_policy`); with nothing sensible
    left but the pass, the player passes without asking the network. At
    temperature 0 it plays the most probable move; otherwise it samples from
    ``p ** (1 / temperature)``, normalised; a network without a pass output
    therefore passes only when nothing else is sensible. ``keep_planes``:
    the runner keeps the planes of the positions this player moved in
    (REINFORCE replays them for its update). ``answer_passes``: answer the
    opponent's pass with a pass when playing on cannot gain
    (:func:`mockgo.go.ownership.should_pass`; players made from specs do,
    for matches and GTP; the learning loops' players keep playing until
    nothing sensible is left). TensorFlow is imported when the first
    PolicyPlayer is made, not before.
    """

    def __init__(self, model, encoder=None, temperature=0.0, seed=None, name=None,
                 keep_planes=False, batch_size=1024, answer_passes=False):
        from mockgo.nets.inference import \
            network_input  # TensorFlow: imported only when a network is used

        self.predictor, self.encoder = network_input(model, encoder, batch_size)
        self.model = self.predictor.model
        self.size = self.encoder.size
        self.temperature = check_temperature(temperature)
        self.keep_planes = bool(keep_planes)
        self.answer_passes = bool(answer_passes)
        self.seed = seed
        if isinstance(model, (str, bytes)) or hasattr(model, "__fspath__"):
            default_name = f"policy:{os.path.basename(str(model))}"
        else:
            default_name = self.model.name
        self.name = name or default_name
        self._batch = np.zeros((0, *self.encoder.shape), np.uint8)

    def group_key(self):
        return ("network", id(self.predictor), self.encoder.name)

    def with_temperature(self, temperature, name=None, keep_planes=None):
        """The same network (the same Predictor: no new graph) at another temperature."""
        return PolicyPlayer(self.predictor, self.encoder.name, temperature, seed=self.seed,
                            name=name or self.name,
                            keep_planes=self.keep_planes if keep_planes is None else keep_planes,
                            answer_passes=self.answer_passes)

    def probabilities(self, planes):
        """The network's raw policy for a batch of planes (one compiled call)."""
        outputs = self.predictor.predict(planes)
        return outputs[0] if isinstance(outputs, tuple) else outputs

    def policy(self, board):
        """The masked, renormalised move probabilities of one position (N*N + 1, pass last)."""
        from mockgo.nets.inference import \
            masked_policy  # TensorFlow: imported only when a network is used

        self.check_size(board.size)
        return masked_policy(self.probabilities(self.encoder.encode(board)[None])[0],
                             board.sensible_moves())

    def choose(self, turns):
        from mockgo.nets.inference import \
            masked_policy  # TensorFlow: imported only when a network is used

        n = len(turns)
        masks = np.stack([turn.mask for turn in turns])
        if self.answer_passes:  # a real game: no filling its own two-point eyes either
            for j, turn in enumerate(turns):
                masks[j] &= turn.board.sensible_moves(eye_space=2)
        moves = np.full(n, masks.shape[1] - 1, np.int64)  # pass unless decided otherwise
        log_probs = np.zeros(n)
        rows = np.flatnonzero(masks[:, :-1].any(axis=1) & ~_answers_pass(turns))
        evaluated = np.zeros(n, bool)
        if not len(rows):
            return Choices(moves, log_probs, evaluated)
        if len(self._batch) < len(rows):
            self._batch = np.zeros((max(len(rows), 2 * len(self._batch)), *self.encoder.shape),
                                   np.uint8)
        batch = self._batch[:len(rows)]
        began = time.perf_counter()
        for k, j in enumerate(rows):
            self.encoder.encode_into(turns[j].board, batch[k])
        middle = time.perf_counter()
        raw = self.probabilities(batch)
        ended = time.perf_counter()
        distributions = temper(masked_policy(raw, masks[rows]),
                               [turns[j].player.temperature for j in rows])
        moves[rows], log_probs[rows] = sample_moves(distributions, [turns[j].rng for j in rows])
        evaluated[rows] = True
        return Choices(moves, log_probs, evaluated, batch, calls=1, encode_s=middle - began,
                       network_s=ended - middle)


# ------------------------------------------------------------- GTP engines


class GTPPlayer(Player):
    """An external GTP engine as a player, one position at a time.

    The engine's board is kept in step with the game's: before each
    ``genmove``, the moves it has not seen yet are sent with ``play``. If
    the board is not a continuation of what the engine saw (a new game, an
    undo, another size or komi, a loaded position), the engine is set up
    again: ``boardsize``, ``clear_board``, ``komi``, the set-up stones
    (``set_free_handicap``; white set-up stones, which GTP cannot express,
    are sent as ``play`` moves), then every move. The engine's ``resign``
    becomes :data:`RESIGN` and ``pass`` ``board.pass_index``. Engines that
    know ``set_random_seed`` (GnuGo) get one from each game's generator.

    ``command``: the engine's command line, a list or a string (split as a
    shell would). ``name``: default ``"<engine name> <version>"`` as the
    engine reports them.
    """

    one_at_a_time = True

    def __init__(self, command, name=None, stderr=None):
        if isinstance(command, str):
            command = shlex.split(command)
        self.engine = GTPEngine(command, stderr=subprocess.DEVNULL if stderr is None else stderr)
        if name is None:
            engine_name = self.engine.send("name")
            try:
                version = self.engine.send("version")
            except Exception:  # version is optional in practice
                version = ""
            name = f"{engine_name} {version}".strip()
        self.name = name
        self._size = self._komi = None
        self._setup = None  # (black points, white points) the engine was given
        self._sent = []  # (color, move) the engine has played, in order
        self._knows_seed = None

    def start_game(self, game, board, rng):
        if self._knows_seed is None:
            try:
                self._knows_seed = self.engine.send("known_command set_random_seed") == "true"
            except GTPError:
                self._knows_seed = False
        if self._knows_seed:
            self.engine.send(f"set_random_seed {int(rng.integers(2**31))}")
        self._new_game(board.size, board.komi, *_setup_stones(board))

    def _new_game(self, size, komi, black, white):
        commands = [f"boardsize {size}", "clear_board", f"komi {komi:g}"]
        if black:
            commands.append("set_free_handicap " +
                            " ".join(coords.to_gtp(p, size) for p in black))
        commands += [f"play white {coords.to_gtp(p, size)}" for p in white]
        self._send_all(commands)
        self._size, self._komi = size, komi
        self._setup = (tuple(black), tuple(white))
        self._sent = []

    def _send_all(self, commands):
        for answer in self.engine.send_many(commands):
            if isinstance(answer, GTPError):
                raise answer

    def _sync(self, board):
        """Bring the engine to the board's position."""
        history = [(int(c), int(m)) for c, m in board.history]
        setup = _setup_stones(board)
        same_setup = setup == self._setup or (
            # set-up stones captured in the moves the engine has seen
            self._setup is not None and self._sent
            and set(setup[0]) <= set(self._setup[0]) and set(setup[1]) <= set(self._setup[1]))
        same_game = (board.size == self._size and board.komi == self._komi and same_setup
                     and history[:len(self._sent)] == self._sent)
        if not same_game:
            self._new_game(board.size, board.komi, *setup)
        new = history[len(self._sent):]
        if new:
            self._send_all([f"play {COLOR_NAMES[c]} {coords.to_gtp(m, board.size)}"
                            for c, m in new])
            self._sent += new

    def _genmove(self, board):
        self._sync(board)
        color = board.to_play
        answer = self.engine.send(f"genmove {COLOR_NAMES[color]}").strip().lower()
        if answer == "resign":
            return RESIGN
        move = coords.from_gtp(answer, board.size)
        self._sent.append((color, move))  # the engine has played it on its board
        return move

    def choose(self, turns):
        moves = np.array([self._genmove(turn.board) for turn in turns], np.int64)
        return Choices(moves, np.zeros(len(turns)))

    def close(self):
        self.engine.close()


def _setup_stones(board):
    """The set-up stones of the game on ``board``: stones no move put
    there. (Set-up stones captured since are not found: the engine is then
    set up anew from what is left, which is what matters for its next move
    in all but superko corner cases.)"""
    setup = (board.stones != EMPTY) & (board.played_at < 0)
    black = tuple(int(p) for p in np.flatnonzero(setup & (board.stones == BLACK)))
    white = tuple(int(p) for p in np.flatnonzero(setup & (board.stones == WHITE)))
    return black, white


def gnugo_player(level=10, seed=None, binary=None, name=None):
    """GnuGo as a player: Chinese rules and positional superko, like mockgo.
    ``seed``: its start-up seed (each game then gets one from its generator)."""

    binary = binary or find_gnugo()
    if binary is None:
        raise RuntimeError("GnuGo is not installed (apt-get install gnugo), or pass binary=PATH")
    level = int(level)
    seed = 0 if seed is None else int(seed)
    return GTPPlayer(gnugo_command(level=level, seed=seed, binary=binary),
                     name=name or f"gnugo-l{level}")


# -------------------------------------------------------------------- search


class _TreePerGame(Player):
    """What the search players share: one tree per game, kept from move to
    move. A tree has ``root.state.board`` (the position at its root) and
    ``play(move)`` (go down to the subtree under the move); subclasses make
    one with ``_new_tree(board, rng)``. When a turn's board is not the
    position at the root of its game's tree (a new game, an undo, a loaded
    position), the search starts afresh from it, with the game's generator."""

    def __init__(self):
        self.trees = {}  # game -> its tree
        self._rngs = {}  # game -> the game's generator, for trees started later

    def start_game(self, game, board, rng):
        self._rngs[game] = rng
        self.trees[game] = self._new_tree(board, rng)

    def _tree_at(self, game, board):
        """Game ``game``'s tree if its root is the position ``board``, else None."""
        tree = self.trees.get(game)
        mine = None if tree is None else tree.root.state.board
        if mine is None or mine.hash != board.hash or mine.history != board.history \
                or mine.to_play != board.to_play:
            return None
        return tree

    def _tree_for(self, turn):
        tree = self._tree_at(turn.game, turn.board)
        if tree is None:
            rng = self._rngs.setdefault(turn.game, turn.rng)
            tree = self.trees[turn.game] = self._new_tree(turn.board, rng)
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
    The other options are :class:`~mockgo.search.mcts.MCTSPlayer`'s.
    ``resign_disabled_share``: the share of games in which resigning is off
    (drawn from each game's generator; AlphaGo Zero's check of the
    threshold). ``answer_passes``: as :class:`PolicyPlayer`'s.
    ``full_search_share``, ``fast_readouts``, ``forced_playouts``: KataGo's
    self-play search options (:mod:`mockgo.search.mcts`; off by default).
    ``on_search(game, tree)``: called after each search that does not end in
    a resignation, before the move is picked (self-play records its training
    examples there); ``on_end_game(game, tree)``: when a game ends, with its
    last tree (self-play reads whether resigning was on).

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

    def __init__(self, evaluate, readouts=200, c_puct=1.5, dirichlet=False,
                 parallel_readouts=8, fpu_reduction=0.0, softpick_moves=None,
                 resign_threshold=None, resign_disabled_share=0.0, size=None, game=None,
                 max_moves=None, on_search=None, on_end_game=None, name="mcts", seed=None,
                 answer_passes=False, full_search_share=1.0, fast_readouts=None,
                 forced_playouts=0.0, stepwise=False, seconds=None, stop_early=False):
        if stop_early and stepwise:
            raise ValueError("stop_early ends a move's search in search_many; a step-wise "
                             "search (self-play's) runs each search to its end")
        if seconds is not None:
            check_seconds(seconds)
            if stepwise:
                raise ValueError("a time budget (seconds) searches each move to its end: "
                                 "it cannot be step-wise")
            readouts = _UNLIMITED_READOUTS
        self.seconds = seconds
        self.evaluate = evaluate
        self.stepwise = bool(stepwise)
        self.answer_passes = bool(answer_passes)
        self.options = dict(num_readouts=readouts, c_puct=c_puct, dirichlet=dirichlet,
                            parallel_readouts=parallel_readouts, fpu_reduction=fpu_reduction,
                            softpick_moves=softpick_moves, resign_threshold=resign_threshold,
                            full_search_share=full_search_share, fast_readouts=fast_readouts,
                            forced_playouts=forced_playouts, stop_early=stop_early)
        self.resign_disabled_share = resign_disabled_share
        self.size = size
        self.game = game or GoGame
        self.max_moves = max_moves
        self.on_search = on_search
        self.on_end_game = on_end_game
        self.name = name
        self.seed = seed
        self._warmed_up = False
        super().__init__()  # game -> its MCTSPlayer

    def _new_tree(self, board, rng):
        enabled = True
        if self.options["resign_threshold"] is not None:
            enabled = ResignationCheck(self.resign_disabled_share).resign_enabled(rng)
        tree = MCTSPlayer(self.evaluate, resign_enabled=enabled,
                          seed=int(rng.integers(2**63)), **self.options)
        cap = self.max_moves or board.move_number + 3 * board.pass_index
        tree.initialize(self.game.from_board(board.copy(), max_moves=cap),
                        move_number=board.move_number)
        return tree

    def choose(self, turns):
        if self.stepwise:
            return self._choose_stepwise(turns)
        moves = np.empty(len(turns), np.int64)
        passing = _answers_pass(turns)
        for i in np.flatnonzero(passing):
            moves[i] = turns[i].board.pass_index
        searching = np.flatnonzero(~passing)
        trees = [self._tree_for(turns[i]) for i in searching]
        if self.seconds is None:
            search_many(trees, self.evaluate)
        else:  # each game's move gets the whole budget
            self._warm_up(trees)
            for tree in trees:
                search_many([tree], self.evaluate, seconds=self.seconds)
        for i, tree in zip(searching, trees):
            moves[i] = self._answer(turns[i], tree)
        return Choices(moves, np.zeros(len(turns)))

    def _warm_up(self, trees):
        """Before the first timed search: a search of two steps on a
        throw-away tree, charged to no move. A process's first search
        compiles what it runs: the networks' graphs, and the numba
        functions of the search wherever their cache is not valid (numba
        rebuilds it when a module's source changes; the headline match's
        first move after such a change took 11.98 s of its 9.5)."""
        if trees and not self._warmed_up:
            options = dict(self.options, num_readouts=2 * self.options["parallel_readouts"],
                           stop_early=False)
            throw_away = MCTSPlayer(self.evaluate, seed=0, **options)
            throw_away.initialize(trees[0].root.state)
            search_many([throw_away], self.evaluate)
            self._warmed_up = True

    def _choose_stepwise(self, turns):
        """One search step for every game (``stepwise`` in the class docstring)."""
        moves = np.full(len(turns), THINKING, np.int64)
        going_on = [self._searching(turn) for turn in turns]
        new = [i for i, searching in enumerate(going_on) if not searching]
        for i, answers_pass in zip(new, _answers_pass([turns[i] for i in new])):
            if answers_pass:  # no search, and the game's tree stays as it was
                moves[i] = turns[i].board.pass_index
        stepping = [i for i in range(len(turns)) if moves[i] == THINKING]
        trees = {i: self._tree_for(turns[i]) for i in stepping}
        for i in stepping:
            if not going_on[i]:
                trees[i].start_search()
        search_step(list(trees.values()), self.evaluate)
        for i, tree in trees.items():
            if not tree.searching:
                moves[i] = self._answer(turns[i], tree)
        return Choices(moves, np.zeros(len(turns)))

    def _searching(self, turn):
        """Whether the turn's game has a step-wise search going on at its
        position (begun at an earlier step)."""
        tree = self._tree_at(turn.game, turn.board)
        return tree is not None and tree.searching

    def _answer(self, turn, tree):
        """The move after a finished search: RESIGN, or the tree's pick
        (after ``on_search``)."""
        if tree.should_resign():
            return RESIGN
        if self.on_search is not None:
            self.on_search(turn.game, tree)
        return tree.pick_action()

    def end_game(self, game):
        tree = super().end_game(game)
        if self.on_end_game is not None and tree is not None:
            self.on_end_game(game, tree)

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

    def _new_tree(self, board, rng):
        search = UCTSearch(seed=int(rng.integers(2**63)), **self.options)
        cap = board.move_number + 3 * board.pass_index
        return _UCTTree(search, search.new_root(GoGame.from_board(board.copy(), max_moves=cap)))

    def choose(self, turns):
        moves = np.empty(len(turns), np.int64)
        passing = _answers_pass(turns)
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


# ------------------------------------------------------------------- specs


# ------------------------------------------------------------ lazy players


@dataclasses.dataclass
class PlayerPlan:
    """A player checked but not built (module docstring): ``build()`` makes
    it (loading its networks); ``name``, ``size`` (None: any, or not
    recorded), ``seed`` and ``seconds`` (a search's time a move, or None)
    are what the player will have."""

    build: object  # () -> Player
    name: str
    size: int = None
    seed: int = None
    seconds: float = None


class PlayerLoadError(RuntimeError):
    """A :class:`LazyPlayer` could not build its player: the message names
    the player and the cause."""


class LazyPlayer(Player):
    """A player built the first time it must choose a move, from a
    :class:`PlayerPlan`: until then ``name``, ``size``, ``seed`` and
    ``seconds`` come from the plan, and the games it is told of are
    remembered, to be started in the player once it is built (a search
    player then starts its tree at the position it is asked about).

    ``loading``: a function returning the context manager the build and
    the first move run in (the GTP engine's keeps TensorFlow's native
    start-up lines, printed at the first network operation, off stderr);
    None for none. A failed build raises :class:`PlayerLoadError`, this time
    and every later time (the cause is not tried again: an import that
    failed would take as long to fail again).
    """

    def __init__(self, plan, loading=None):
        self.plan = plan
        self.name, self.size, self.seed = plan.name, plan.size, plan.seed
        self._seconds = plan.seconds
        self.loading = loading
        self.player = None  # the player, once built
        self.failure = None  # the PlayerLoadError of a failed build
        self._games = {}  # game -> (board, rng) of games started before the build

    @property
    def loaded(self):
        return self.player is not None

    @property
    def seconds(self):
        return self._seconds if self.player is None else getattr(self.player, "seconds", None)

    @seconds.setter
    def seconds(self, value):  # the GTP engine lends a search a clock's budget
        self._seconds = value
        if self.player is not None:
            self.player.seconds = value

    def _load(self):
        """Build the player (once); PlayerLoadError if it cannot be."""
        if self.failure is not None:
            raise self.failure
        try:
            player = self.plan.build()
        except Exception as error:  # a damaged file, TensorFlow missing, out of memory...
            cause = str(error).replace("\n", " ") or type(error).__name__
            self.failure = PlayerLoadError(f"cannot load {self.name}: {cause}")
            raise self.failure from error
        if self._seconds is not None:
            player.seconds = self._seconds
        for game, (board, rng) in self._games.items():
            player.start_game(game, board, rng)
        self._games.clear()
        self.player = player

    def _first(self, call):
        """``call()`` (the first move), with the player built first, both in
        the ``loading`` context."""
        with self.loading() if self.loading is not None else contextlib.nullcontext():
            self._load()
            return call()

    def check_size(self, size):
        if self.player is not None:
            return self.player.check_size(size)
        return super().check_size(size)

    def game_rng(self, seed):
        return super().game_rng(seed) if self.player is None else self.player.game_rng(seed)

    def start_game(self, game, board, rng):
        if self.player is None:
            self._games[game] = (board, rng)
        else:
            self.player.start_game(game, board, rng)

    def choose(self, turns):
        if self.player is None:
            return self._first(lambda: self.player.choose(turns))
        return self.player.choose(turns)

    def select_move(self, board, rng=None, game=0):
        if self.player is None:
            return self._first(lambda: self.player.select_move(board, rng=rng, game=game))
        return self.player.select_move(board, rng=rng, game=game)

    def observe(self, game, board, move):
        if self.player is not None:
            self.player.observe(game, board, move)

    def end_game(self, game):
        self._games.pop(game, None)
        if self.player is not None:
            self.player.end_game(game)

    def close(self):
        if self.player is not None:
            self.player.close()


def as_player(player, temperature=1.0, **options):
    """A Player from a Player (returned as is), a spec string
    (:func:`make_player`), or a Keras model (a :class:`PolicyPlayer` at
    ``temperature``, with ``options``)."""
    if isinstance(player, Player):
        return player
    if isinstance(player, str):
        return make_player(player)
    return PolicyPlayer(player, temperature=temperature, **options)


def _make_random(seed=None, name=None):
    return RandomPlayer(seed=None if seed is None else int(seed), name=name)


def _make_policy(path=None, pretrained=None, encoder=None, temperature="0", seed=None, name=None):
    if (path is None) == (pretrained is None):
        raise ValueError("a policy player needs path=MODEL.keras or pretrained=NAME "
                         "(mockgo models lists the names)")
    file = _network_file(path, pretrained)
    temperature = check_temperature(float(temperature))
    seed = None if seed is None else int(seed)
    name = name or (f"policy:{pretrained}" if pretrained is not None
                    else f"policy:{os.path.basename(path)}")

    def build():
        return PolicyPlayer(file, encoder=encoder, temperature=temperature, seed=seed, name=name,
                            answer_passes=True)

    return PlayerPlan(build, name, size=_recorded_size(file), seed=seed)


def _check_flag(kind, key, flag):
    """A spec's on/off option is 0 or 1."""
    if flag not in ("0", "1"):
        raise ValueError(f"{kind}: {key} is 0 or 1, not {flag!r}")


def _make_uct(playouts=None, seconds=None, rave="0", exploration=None, rave_k="1000",
              heavy="0", score="0", resign="none", seed=None, name=None):
    _check_flag("uct", "rave", rave)
    _check_flag("uct", "heavy", heavy)
    playouts, seconds = _budget("uct", "playouts", playouts, seconds, default=10000)
    return UCTPlayer(playouts=playouts, seconds=seconds,
                     rave=rave == "1", exploration=None if exploration is None else float(exploration),
                     rave_equivalence=float(rave_k), heavy=heavy == "1",
                     score_weight=float(score),
                     resign=None if resign == "none" else float(resign),
                     seed=None if seed is None else int(seed), name=name)


def _network_file(path, pretrained):
    """The file of a network given as ``path=`` or ``pretrained=``: checked
    to exist (a shipped one: to be the file its card describes), not loaded,
    so a mistyped spec is reported before TensorFlow is imported."""
    if pretrained is not None:
        return shipped_networks.checked_path(pretrained)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no model file {path}")
    return path


def _recorded_size(file):
    """The board size a network file records (:mod:`mockgo.nets.io`), read
    without loading it; None for a file saved before mockgo recorded it."""
    info = read_info(file)
    return None if info is None else info.board_size


def _network(path, pretrained, what):
    """The file of an alphago network from ``path=`` or ``pretrained=``
    (:func:`_network_file`)."""
    if (path is None) == (pretrained is None):
        raise ValueError(f"alphago: give the {what} network as {what}=PATH or "
                         f"{what}_pretrained=NAME (mockgo models lists the names)")
    return _network_file(path, pretrained)


def _budget(kind, key, count, seconds, default):
    """A search spec's budget: ``(count, seconds)``, from its ``key=``
    option (readouts or playouts; None: ``default``) or its ``seconds=``
    (then ``count`` is ``default``, unused), not both."""
    if seconds is None:
        return (default if count is None else int(count)), None
    if count is not None:
        raise ValueError(f"{kind}: give {key}= or seconds=, not both")
    try:
        value = float(seconds)
        check_seconds(value)
    except ValueError:
        raise ValueError(f"{kind}: seconds= is the time a move, a number > 0, "
                         f"not {seconds!r}") from None
    return default, value


def _make_alphago(policy=None, policy_pretrained=None, value=None, value_pretrained=None,
                  readouts=None, seconds=None, mix="0", heavy="0", precision="auto", c_puct="5",
                  parallel="16", stop_early="0", resign="none", seed=None, name=None):
    readouts, seconds = _budget("alphago", "readouts", readouts, seconds, default=800)
    _check_flag("alphago", "heavy", heavy)
    _check_flag("alphago", "stop_early", stop_early)
    mix, c_puct, parallel = float(mix), float(c_puct), int(parallel)
    resign = None if resign == "none" else float(resign)
    seed = None if seed is None else int(seed)
    value_file = None
    if mix < 1.0 or value is not None or value_pretrained is not None:
        value_file = _network(value, value_pretrained, "value")
    policy_file = _network(policy, policy_pretrained, "policy")
    name = name or (f"alphago-{budget_label(readouts, seconds)}-mix{mix:g}"
                    f"{'-heavy' if heavy == '1' and mix > 0 else ''}")

    def build():
        evaluate = evaluators.AlphaGoEvaluator(policy_file, value_file, mix=mix,
                                               heavy=heavy == "1", precision=precision, seed=seed)
        return SearchPlayer(evaluate, readouts=readouts, seconds=seconds, c_puct=c_puct,
                            dirichlet=False, parallel_readouts=parallel, softpick_moves=0,
                            resign_threshold=resign, size=evaluate.size, game=CarefulGoGame,
                            name=name, seed=seed, answer_passes=True,
                            stop_early=stop_early == "1")

    return PlayerPlan(build, name, size=_recorded_size(policy_file), seed=seed, seconds=seconds)


def _make_gtp(cmd=None, name=None):
    if not cmd:
        raise ValueError("a gtp player needs cmd=COMMAND LINE")
    return GTPPlayer(cmd, name=name)


def _make_mcts(readouts=None, seconds=None, evaluator="uniform", path=None, pretrained=None,
               encoder=None, c_puct="1.5", softpick=None, stop_early="0", resign="none", seed=None,
               name=None):
    readouts, seconds = _budget("mcts", "readouts", readouts, seconds, default=200)
    _check_flag("mcts", "stop_early", stop_early)
    if path is not None and pretrained is not None:
        raise ValueError("mcts: give the dual network as path=MODEL.keras or pretrained=NAME, "
                         "not both")
    options = dict(readouts=readouts, seconds=seconds, c_puct=float(c_puct), dirichlet=False,
                   softpick_moves=None if softpick is None else int(softpick),
                   resign_threshold=None if resign == "none" else float(resign),
                   game=CarefulGoGame, seed=None if seed is None else int(seed),
                   answer_passes=True, stop_early=stop_early == "1")
    if path is not None or pretrained is not None:
        file = _network_file(path, pretrained)
        default_name = f"mcts:{pretrained}" if pretrained is not None \
            else f"mcts:{os.path.basename(path)}"
        options["name"] = name or f"{default_name}-{budget_label(readouts, seconds)}"

        def build():
            evaluate = evaluators.NetworkEvaluator(file, random_symmetry=False, encoder=encoder)
            return SearchPlayer(evaluate, size=evaluate.size, **options)

        return PlayerPlan(build, options["name"], size=_recorded_size(file),
                          seed=options["seed"], seconds=seconds)
    if evaluator == "uniform":
        evaluate, default_name = evaluators.uniform_evaluator, "mcts-uniform"
    elif evaluator == "rollout":
        # PUCT's first-play value is the parent's value, one rollout's +-1
        # here: after a lost first rollout every untried move looked lost and
        # the visits piled onto the lowest index (issue 21). The classic
        # search with playouts is its own player.
        raise ValueError("mcts: random rollouts are the classic search, a player of its own: "
                         "use uct:playouts=N (and rave=1), mockgo.search.uct")
    else:
        raise ValueError(f"mcts evaluator must be uniform (or give path= a dual network), "
                         f"not {evaluator!r}; for random playouts use uct:playouts=N")
    return SearchPlayer(evaluate, name=name or f"{default_name}-{budget_label(readouts, seconds)}",
                        **options)


PLAYER_KINDS = {
    "random": (_make_random, "uniform over the sensible moves; options: seed"),
    "policy": (_make_policy, "a policy network; options: path (a .keras file) or pretrained "
                             "(a shipped network: mockgo models), encoder (default: what the "
                             "file records), temperature (0 = greedy), seed"),
    "gnugo": (gnugo_player, "GnuGo through GTP; options: level (default 10), seed, binary"),
    "gtp": (_make_gtp, "any GTP engine; option: cmd=COMMAND LINE (last: takes the rest)"),
    "uct": (_make_uct, "classic Monte Carlo tree search with random playouts (mockgo.search.uct); "
                       "options: playouts (10000 a move) or seconds (a move), rave (0 or 1), "
                       "exploration (UCB1's c; default 1, 0 with RAVE), rave_k (1000), heavy (0 or 1: "
                       "MoGo's playout rules), score (the share of a playout's value that is its "
                       "margin, 0), resign "
                       "(a win rate, or none), seed"),
    "alphago": (_make_alphago, "AlphaGo's search (Silver et al. 2016): PUCT with a policy "
                               "network's priors, leaves judged by a value network mixed with "
                               "random rollouts, V = (1 - mix) v + mix z; options: policy "
                               "(a path) or policy_pretrained (a name), value or "
                               "value_pretrained (not needed at mix=1), readouts (800) or "
                               "seconds (a move), mix "
                               "(lambda, 0), heavy (0 or 1: MoGo's rules in the rollouts), "
                               "precision (auto: bfloat16 where the CPU has it, else float32; "
                               "float32; bfloat16), c_puct (5), parallel (leaves per network call, "
                               "16), stop_early (0 or 1: end a move's search once its pick cannot "
                               "change), resign (a value, or none), seed"),
    "mcts": (_make_mcts, "tree search (mockgo.search); options: readouts (200) or seconds (a "
                         "move), evaluator "
                         "(uniform) or path (a dual network) or pretrained (a shipped one: "
                         "mockgo models), c_puct (1.5), "
                         "softpick (moves sampled by visits), stop_early (0 or 1: end a move's "
                         "search once its pick cannot change), resign (a value threshold, or "
                         "none), seed"),
}


def register_player_kind(kind, factory, description=""):
    """Teach :func:`make_player` a new kind: ``factory(**options)`` gets the
    spec's options as strings (and ``name``) and returns a Player, or a
    :class:`PlayerPlan` for one whose building takes long (a network)."""
    PLAYER_KINDS[kind] = (factory, description)


def parse_spec(spec):
    """``"kind:k=v,k=v"`` to ``(kind, {k: v})``; see the module docstring."""
    kind, _, rest = spec.strip().partition(":")
    kind = kind.strip().lower()
    if not kind:
        raise ValueError(f"player spec {spec!r} has no kind")
    options = {}
    while rest.strip():
        item = rest.lstrip()
        if item.startswith("cmd="):  # the command line takes the rest, commas included
            key, value, rest = "cmd", item[4:].strip(), ""
        else:
            item, _, rest = item.partition(",")
            key, eq, value = item.partition("=")
            key, value = key.strip(), value.strip()
            if not eq or not key:
                raise ValueError(f"player spec {spec!r}: expected key=value, got {item!r}")
        if key in options:
            raise ValueError(f"player spec {spec!r} gives {key} twice")
        options[key] = value
    return kind, options


def make_player(spec, **overrides):
    """A Player from a spec string (module docstring), e.g. ``"random:seed=3"``
    or ``"gnugo:level=1"``. ``overrides`` add or replace options (values
    that are None are ignored), so a command line's ``--model`` can fill in
    ``path``."""
    made = plan_player(spec, **overrides)
    return made.build() if isinstance(made, PlayerPlan) else made


def lazy_player(spec, loading=None, **overrides):
    """A Player from a spec, as :func:`make_player`, except that a player
    with a network is a :class:`LazyPlayer` (``loading``: its context, see
    there), built when it first chooses a move. The spec is checked now: a
    bad option or a missing network file is a ValueError or
    FileNotFoundError here, not at the first move. (A network file that
    records no board size is loaded now: the size is needed at once.)"""
    made = plan_player(spec, **overrides)
    if not isinstance(made, PlayerPlan):
        return made
    if made.size is None:
        return made.build()
    return LazyPlayer(made, loading=loading)


def plan_player(spec, **overrides):
    """What a spec makes (:func:`make_player`'s arguments): a Player, or for
    the kinds with networks a :class:`PlayerPlan`, checked but not built."""
    if isinstance(spec, Player):
        return spec
    kind, options = parse_spec(spec)
    options.update({k: str(v) for k, v in overrides.items() if v is not None})
    if kind not in PLAYER_KINDS:
        raise ValueError(f"unknown player kind {kind!r} in {spec!r}; "
                         f"known: {', '.join(PLAYER_KINDS)}")
    factory = PLAYER_KINDS[kind][0]
    try:
        return factory(**options)
    except TypeError as error:
        if "unexpected keyword" in str(error):
            raise ValueError(f"player spec {spec!r}: {error}") from None
        raise


def spec_help():
    """One line per known kind, for --help texts."""
    return "\n".join(f"  {kind}: {description}" for kind, (_, description) in PLAYER_KINDS.items())
