"""Players: anything that chooses moves, behind one small interface.

The GTP engine (:mod:`mockgo.arena.gtp`), matches (:mod:`mockgo.arena.matches`) and the
ladder (:mod:`mockgo.arena.ladder`) all drive players the same way::

    player = make_player("policy:path=models/sl.keras,temperature=0.5")
    player.reset(9, 7.5)                 # a new game: board size and komi
    move = player.select_move(board)     # a flat index, board.pass_index, or RESIGN
    board.play(move)
    player.observe(board, move)          # every move of the game, both colours
    player.close()                       # engines and other resources

and, optionally, ``player.seed_game(seed)`` before ``reset``: matches give
every game its own seed so that games differ and can be replayed (the
default ignores it; GTPPlayer sends ``set_random_seed`` to engines that
know it).

``select_move`` chooses a move for ``board.to_play`` and must not change the
board (it may copy it). ``observe`` is called after every move of the game
has been played on the board (the opponent's and the player's own, passes
too; ``board.history[-1]`` is the move, with its colour): a player that keeps
state from move to move (a search tree, an external engine's board) follows
the game there; the default does nothing. Players that keep such state must
also cope with being handed a board that did not come from the moves they
observed (``undo`` in GTP, ``loadsgf``): :class:`GTPPlayer` compares the
board's history with what it sent its engine and starts over if they differ.

The players here:

- :class:`RandomPlayer`: uniform over ``board.sensible_moves()`` (legal and
  not filling its own single-point eyes); passes when there is none.
- :class:`PolicyPlayer`: a Keras policy network (or the policy head of a
  dual network), evaluated through :class:`mockgo.nets.inference.Predictor`,
  masked to the sensible moves; greedy at temperature 0, else sampled.
- :class:`GTPPlayer`: an external engine (GnuGo, or any GTP program) run
  through :class:`mockgo.play.gtp_client.GTPEngine`.
- :class:`MCTSAdapter`: a :class:`mockgo.search.mcts.MCTSPlayer` (AlphaGo Zero's
  tree search) as a Player, its tree kept from move to move.

Player specs
------------
Command lines and worker processes make players from strings
(:func:`make_player`)::

    spec    := kind [":" option ("," option)*]
    option  := key "=" value

    random                              RandomPlayer(seed=None)
    random:seed=3                       RandomPlayer(seed=3)
    policy:path=models/sl.keras,temperature=0.5,encoder=alphago48,seed=1
    gnugo                               GnuGo level 10 (its default)
    gnugo:level=1,seed=0                GnuGo at level 1 (binary=PATH: another GnuGo)
    gtp:cmd=/usr/games/gnugo --mode gtp --level 3
    mcts:readouts=200,evaluator=uniform  tree search (mockgo.search.mcts), uniform priors
    mcts:path=models/zero.keras,readouts=100,resign=-0.9   guided by a dual network

Every kind also takes ``name=...`` (the name written into SGF files and
tables). Values are plain text: no quoting, no commas, except that ``cmd=``
takes everything after it, commas and ``=`` included, so it must come last;
``cmd`` is split into words as a POSIX shell would (``shlex.split``).
Keys a kind does not know are an error. More kinds can be added with
:func:`register_player_kind` (a factory taking the options as keyword
arguments, all strings).
"""

import os
import shlex

import numpy as np

from mockgo.go import coords
from mockgo.go.board import BLACK, COLOR_NAMES, EMPTY, WHITE
from mockgo.play.runner import check_temperature, temper

RESIGN = -1  # what select_move returns to resign the game


class Player:
    """The interface. Subclasses set ``name`` and implement ``select_move``."""

    name = "player"

    def reset(self, size, komi):
        """A new game is starting on a ``size`` x ``size`` board with ``komi``.
        Raise ValueError if the player cannot play that size."""

    def select_move(self, board):
        """A move for ``board.to_play``: a flat index, ``board.pass_index``
        to pass, or :data:`RESIGN`. Must leave ``board`` unchanged."""
        raise NotImplementedError

    def observe(self, board, move):
        """``move`` (by ``board.history[-1][0]``) has just been played on
        ``board``. ``move`` is RESIGN when a player resigned (the board then
        has ``resigned`` set and no new history entry)."""

    def seed_game(self, seed):
        """Optional: reseed for the next game (matches give every game its
        own seed, so games differ and can be replayed). Default: ignored."""

    def close(self):
        """Free what the player holds (an engine process, say)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __repr__(self):
        return f"<{type(self).__name__} {self.name}>"


def _sensible_points(board):
    """The sensible moves other than pass, as flat indices."""
    mask = board.sensible_moves()
    return np.flatnonzero(mask[:-1])


# ------------------------------------------------------------------ random


class RandomPlayer(Player):
    """Uniform over the sensible moves (legal, not filling its own
    single-point eye); passes only when there is none. The usual baseline:
    rated 0 on the ladder."""

    def __init__(self, seed=None, name=None):
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.name = name or "random"

    def seed_game(self, seed):
        self.rng = np.random.default_rng(seed if self.seed is None else (self.seed, seed))

    def select_move(self, board):
        points = _sensible_points(board)
        if len(points) == 0:
            return board.pass_index
        return int(self.rng.choice(points))


# ------------------------------------------------------------------ policy


class PolicyPlayer(Player):
    """Moves from a policy network.

    ``model_or_path``: a Keras model, or the path of a ``.keras`` file
    (``mockgo.nets.models`` is imported first, which registers its custom layer).
    A one-output model is a policy; of a two-output model (a dual network)
    the first output, the policy, is used. The policy may cover the N*N
    points (AlphaGo's) or N*N + 1 moves (pass last).

    ``encoder``: the feature planes the network was trained on (a name for
    :func:`mockgo.go.features.get_encoder`), or None: the encoder the network
    records (:mod:`mockgo.nets.io`).

    The policy is masked to ``board.sensible_moves()`` (legal and not
    filling the player's own single-point eyes) and renormalised; with
    nothing sensible left but the pass, the player passes. At temperature 0
    it plays the most probable move; otherwise it samples from
    ``p ** (1 / temperature)``, normalised. A network whose policy has no
    pass output therefore passes only when nothing else is sensible.
    TensorFlow is imported when the first PolicyPlayer is made, not before.
    """

    def __init__(self, model_or_path, encoder=None, temperature=0.0, seed=None,
                 name=None, batch_size=16):
        from mockgo.nets.inference import network_input

        self.predictor, self.encoder = network_input(model_or_path, encoder, batch_size)
        self.model = self.predictor.model
        self.size = self.encoder.size
        if isinstance(model_or_path, (str, bytes)) or hasattr(model_or_path, "__fspath__"):
            default_name = f"policy:{os.path.basename(str(model_or_path))}"
        else:
            default_name = f"policy:{self.model.name}"
        self.temperature = check_temperature(temperature)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.name = name or default_name

    def seed_game(self, seed):
        self.rng = np.random.default_rng(seed if self.seed is None else (self.seed, seed))

    def reset(self, size, komi):
        if size != self.size:
            raise ValueError(f"{self.name} plays {self.size}x{self.size} only, not {size}x{size}")

    def policy(self, board):
        """The masked, renormalised move probabilities (N*N + 1, pass last)."""
        from mockgo.nets.inference import masked_policy

        if board.size != self.size:
            raise ValueError(f"{self.name} plays {self.size}x{self.size} only")
        outputs = self.predictor.predict(self.encoder.encode(board))
        probabilities = outputs[0] if isinstance(outputs, tuple) else outputs
        return masked_policy(probabilities, board.sensible_moves())

    def select_move(self, board):
        p = self.policy(board)
        if p[-1] == 1.0:  # nothing sensible but the pass
            return board.pass_index
        if self.temperature == 0:
            return int(np.argmax(p))
        return int(self.rng.choice(len(p), p=temper(p[None], self.temperature)[0]))


# ------------------------------------------------------------- GTP engines


class GTPPlayer(Player):
    """An external GTP engine as a player.

    The engine's board is kept in step with the game's: before each
    ``genmove``, the moves it has not seen yet are sent with ``play``. If
    the board is not a continuation of what the engine saw (a new game, an
    undo, another size or komi, a loaded position), the engine is set up
    again: ``boardsize``, ``clear_board``, ``komi``, the set-up stones
    (``set_free_handicap``; white set-up stones, which GTP cannot express,
    are sent as ``play`` moves), then every move. The engine's ``resign``
    becomes :data:`RESIGN` and ``pass`` ``board.pass_index``.

    ``command``: the engine's command line, a list or a string (split as a
    shell would). ``name``: default ``"<engine name> <version>"`` as the
    engine reports them.
    """

    def __init__(self, command, name=None, stderr=None):
        import subprocess

        from mockgo.play.gtp_client import GTPEngine

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

    def reset(self, size, komi):
        self._new_game(size, komi, (), ())

    def seed_game(self, seed):
        """Sent as ``set_random_seed`` to engines that know it (GnuGo)."""
        from mockgo.play.gtp_client import GTPError

        if self._knows_seed is None:
            try:
                self._knows_seed = self.engine.send("known_command set_random_seed") == "true"
            except GTPError:
                self._knows_seed = False
        if self._knows_seed:
            self.engine.send(f"set_random_seed {seed % 2**31}")

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
        from mockgo.play.gtp_client import GTPError

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

    def select_move(self, board):
        self._sync(board)
        color = board.to_play
        answer = self.engine.send(f"genmove {COLOR_NAMES[color]}").strip().lower()
        if answer == "resign":
            return RESIGN
        move = coords.from_gtp(answer, board.size)
        self._sent.append((color, move))  # the engine has played it on its board
        return move

    def observe(self, board, move):
        # Moves are sent lazily, in select_move; nothing to do here.
        pass

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


def gnugo_player(level=10, seed=0, binary=None, name=None):
    """GnuGo as a player: Chinese rules and positional superko, like mockgo."""
    from mockgo.play.gtp_client import find_gnugo, gnugo_command

    binary = binary or find_gnugo()
    if binary is None:
        raise RuntimeError("GnuGo is not installed (apt-get install gnugo), or pass binary=PATH")
    level, seed = int(level), int(seed)
    player = GTPPlayer(gnugo_command(level=level, seed=seed, binary=binary),
                       name=name or f"gnugo-l{level}")
    return player


# -------------------------------------------------------------------- MCTS


class MCTSAdapter(Player):
    """A tree search (:class:`mockgo.search.mcts.MCTSPlayer`, or anything with its
    ``root``, ``initialize``, ``search``, ``pick_action``, ``play`` and
    ``should_resign``) as a Player.

    The search state is a :class:`mockgo.search.games.GoGame` on a copy of the
    board. The tree is kept from move to move: ``observe`` moves the root
    along the game's moves; when the board handed to ``select_move`` is not
    the root's position (a new game, an undo), the search starts afresh from
    it. ``max_moves``: the move cap the search sees (default: the board's
    move number plus 3 * size * size, beyond any match's cap).
    """

    def __init__(self, mcts_player, name="mcts", max_moves=None, size=None):
        self.mcts = mcts_player
        self.name = name
        self.max_moves = max_moves
        self.size = size  # the one size it plays (a network's), or None for any

    def reset(self, size, komi):
        if self.size is not None and size != self.size:
            raise ValueError(f"{self.name} plays {self.size}x{self.size} only, not {size}x{size}")
        self.mcts.root = None

    def seed_game(self, seed):
        self.mcts.rng = np.random.default_rng(seed)

    def _root_board(self):
        root = getattr(self.mcts, "root", None)
        return None if root is None else root.state.board

    def select_move(self, board):
        from mockgo.search.games import GoGame

        mine = self._root_board()
        if mine is None or mine.hash != board.hash or mine.history != board.history \
                or mine.to_play != board.to_play:
            cap = self.max_moves or board.move_number + 3 * board.pass_index
            self.mcts.initialize(GoGame.from_board(board.copy(), max_moves=cap),
                                 move_number=board.move_number)
        self.mcts.search()
        if self.mcts.should_resign():
            return RESIGN
        return int(self.mcts.pick_action())

    def observe(self, board, move):
        mine = self._root_board()
        if move != RESIGN and mine is not None and mine.history == board.history[:-1]:
            self.mcts.play(move)  # keeps the subtree under the move


def _make_mcts(readouts="200", evaluator="uniform", path=None, encoder=None, c_puct="1.5",
               softpick=None, resign="none", seed=None, name=None):
    from mockgo.search import evaluators, mcts

    size = None
    if path is not None:
        evaluate = evaluators.NetworkEvaluator(path, random_symmetry=False, encoder=encoder)
        size = evaluate.size
        default_name = f"mcts:{os.path.basename(path)}"
    elif evaluator == "uniform":
        evaluate, default_name = evaluators.uniform_evaluator, "mcts-uniform"
    elif evaluator == "rollout":
        rng = np.random.default_rng(None if seed is None else int(seed))
        evaluate, default_name = evaluators.random_rollout_evaluator(rng), "mcts-rollout"
    else:
        raise ValueError(f"mcts evaluator must be uniform or rollout (or give path=), "
                         f"not {evaluator!r}")
    player = mcts.MCTSPlayer(
        evaluate, num_readouts=int(readouts), c_puct=float(c_puct), dirichlet=False,
        softpick_moves=None if softpick is None else int(softpick),
        resign_threshold=None if resign == "none" else float(resign),
        seed=None if seed is None else int(seed))
    return MCTSAdapter(player, name=name or f"{default_name}-{int(readouts)}", size=size)


# ------------------------------------------------------------------- specs


def _make_random(seed=None, name=None):
    return RandomPlayer(seed=None if seed is None else int(seed), name=name)


def _make_policy(path=None, encoder=None, temperature="0", seed=None, name=None):
    if path is None:
        raise ValueError("a policy player needs path=MODEL.keras")
    return PolicyPlayer(path, encoder=encoder, temperature=float(temperature),
                        seed=None if seed is None else int(seed), name=name)


def _make_gtp(cmd=None, name=None):
    if not cmd:
        raise ValueError("a gtp player needs cmd=COMMAND LINE")
    return GTPPlayer(cmd, name=name)


PLAYER_KINDS = {
    "random": (_make_random, "uniform over the sensible moves; options: seed"),
    "policy": (_make_policy, "a policy network; options: path (required), encoder "
                             "(default: what the file records), temperature (0 = greedy), seed"),
    "gnugo": (gnugo_player, "GnuGo through GTP; options: level (default 10), seed, binary"),
    "gtp": (_make_gtp, "any GTP engine; option: cmd=COMMAND LINE (last: takes the rest)"),
    "mcts": (_make_mcts, "tree search (mockgo.search.mcts); options: readouts (200), evaluator "
                         "(uniform or rollout) or path (a dual network), "
                         "c_puct (1.5), softpick (moves sampled by visits), resign "
                         "(a value threshold, or none), seed"),
}


def register_player_kind(kind, factory, description=""):
    """Teach :func:`make_player` a new kind: ``factory(**options)`` gets the
    spec's options as strings (and ``name``) and returns a Player."""
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
