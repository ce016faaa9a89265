"""Player specs: players made from strings, for command lines and worker
processes (:func:`make_player`), and the registry of spec kinds.

Command lines and worker processes make players from strings
(:func:`make_player`)::

    spec    := kind [":" option ("," option)*]
    option  := key "=" value

    random                              RandomPlayer(seed=None)
    random:seed=3                       RandomPlayer(seed=3)
    policy:path=models/sl.keras,temperature=0.5,seed=1
    policy:pretrained=sl-19             a network that ships with mockgo (mockgo models)
    policy:pretrained=zero-9,softpick=6 its first 6 moves drawn from the policy, then greedy
    gnugo                               GnuGo level 10 (its default)
    gnugo:level=1,seed=0                GnuGo at level 1 (binary=PATH: another GnuGo)
    gtp:cmd=/usr/games/gnugo --mode gtp --level 3
    uct:playouts=10000,rave=1           classic Monte Carlo tree search, random playouts
    alphago:policy_pretrained=sl-19,value_pretrained=value-19,readouts=800,mix=0
                                        AlphaGo's search: policy priors, value network
    alphago:policy_pretrained=zero-9,value_pretrained=zero-9,mix=0.5,softpick=6
                                        the same with a dual network's two heads
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
:class:`~mockgo.play.lazy_player.PlayerLoadError` naming the cause.
"""

import os
import shlex

from mockgo import pretrained as shipped_networks
from mockgo.nets.io import read_info
from mockgo.play.gtp_engine import find_gnugo, gnugo_command
from mockgo.play.gtp_player import GTPPlayer, gnugo_player
from mockgo.play.lazy_player import LazyPlayer, PlayerPlan
from mockgo.play.player import Player
from mockgo.play.policy_player import PolicyPlayer
from mockgo.play.random_player import RandomPlayer
from mockgo.play.sampling import check_temperature
from mockgo.play.search_player import SearchPlayer, UCTPlayer, budget_label, check_seconds
from mockgo.search import evaluators
from mockgo.search.games import CarefulGoGame

__all__ = ["PLAYER_KINDS", "as_player", "engine_command", "format_spec", "lazy_player",
           "make_player", "parse_spec", "plan_player", "register_player_kind", "spec_help"]


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


def _make_policy(path=None, pretrained=None, encoder=None, temperature="0", softpick="0",
                 seed=None, name=None):
    if (path is None) == (pretrained is None):
        raise ValueError("a policy player needs path=MODEL.keras or pretrained=NAME "
                         "(mockgo models lists the names)")
    file = _network_file(path, pretrained)
    temperature = check_temperature(float(temperature))
    softpick = int(softpick)
    if softpick < 0:
        raise ValueError(f"policy: softpick is a number of moves >= 0, not {softpick}")
    seed = None if seed is None else int(seed)
    name = name or (f"policy:{pretrained}" if pretrained is not None
                    else f"policy:{os.path.basename(path)}")

    def build():
        return PolicyPlayer(file, encoder=encoder, temperature=temperature, seed=seed, name=name,
                            answer_passes=True, softpick_moves=softpick)

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
                  parallel="16", softpick="0", stop_early="0", resign="none", seed=None,
                  name=None):
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
                            dirichlet=False, parallel_readouts=parallel,
                            softpick_moves=int(softpick),
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


#: ``kind: (the function that makes it from a spec's options, one line of help)``.
PLAYER_KINDS = {
    "random": (_make_random, "uniform over the sensible moves; options: seed"),
    "policy": (_make_policy, "a policy network; options: path (a .keras file) or pretrained "
                             "(a shipped network: mockgo models), encoder (default: what the "
                             "file records), temperature (0 = greedy), softpick (the first "
                             "moves drawn at temperature 1, as a search's by visits; 0), seed"),
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
                               "16), softpick (moves drawn by visits at the start of a game, 0), "
                               "stop_early (0 or 1: end a move's search once its pick cannot "
                               "change), resign (a value, or none), seed; either network may be "
                               "a dual one (its policy head, its value head)"),
    "mcts": (_make_mcts, "tree search (mockgo.search); options: readouts (200) or seconds (a "
                         "move), evaluator "
                         "(uniform) or path (a dual network) or pretrained (a shipped one: "
                         "mockgo models), c_puct (1.5), "
                         "softpick (moves sampled by visits), stop_early (0 or 1: end a move's "
                         "search once its pick cannot change), resign (a value threshold, or "
                         "none), seed"),
}


def engine_command(spec):
    """The command line that a spec of an external engine (``gnugo:...``,
    ``gtp:cmd=...``) runs, as a list, without starting it; None for the
    other kinds. A match prints it (``gnugo:level=1`` is ``--level 1``)."""
    if not isinstance(spec, str):
        return None
    kind, options = parse_spec(spec)
    if kind == "gnugo":
        return gnugo_command(level=int(options.get("level", 10)),
                             seed=int(options.get("seed", 0)),
                             binary=options.get("binary") or find_gnugo())
    if kind == "gtp" and options.get("cmd"):
        return shlex.split(options["cmd"])
    return None


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


def format_spec(kind, **options):
    """The spec string of a player of ``kind`` with ``options``, in the
    order given, the inverse of :func:`parse_spec`:
    ``format_spec("mcts", pretrained="zero-9", readouts=800)`` is
    ``"mcts:pretrained=zero-9,readouts=800"``. Options that are None are
    left out; a float is written as ``{:g}`` writes it (``mix=0.5``), a path
    or anything else as ``str`` writes it. A value that the grammar cannot
    carry (a comma, or a ``cmd`` that is not last) is a ValueError."""
    items = [(key, value) for key, value in options.items() if value is not None]
    parts = []
    for index, (key, value) in enumerate(items):
        text = f"{value:g}" if isinstance(value, float) else str(value)
        last_command = key == "cmd" and index == len(items) - 1
        if not last_command and ("," in text or key == "cmd"):
            raise ValueError(f"player spec option {key}={text!r}: "
                             + ("cmd must come last" if key == "cmd" else "a value has no commas"))
        parts.append(f"{key}={text}")
    return kind + (":" + ",".join(parts) if parts else "")


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
