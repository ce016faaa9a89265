"""Notebook 05's line-ups: who takes part in each ladder, and what the
ladders' results say.

A line-up (:class:`Lineup`) is what a ladder (:func:`mockgo.arena.ladder.ladder`)
rates: its anchors (the first fixed at 0 Elo), its players as specs
(:func:`mockgo.play.specs.format_spec` writes them), and a note for every
player or anchor left out or replaced, and why (GnuGo not installed, a
network a notebook's full run has not made yet, and then the network that
ships with mockgo in its place). Players that depend on other notebooks'
runs come last, so that a ladder resumed after they appear keeps the
numbering (and the folders) of the matches it already played.

:func:`arena_lineup` is the 9x9 ladder's, :func:`big_board_lineup` the
19x19 one's (with :func:`recorded_matches`, finished matches that join its
fit). The other notebooks' runs are named by their paths (notebook 05 finds
them with :func:`mockgo.notebook.zero_dir` and its neighbours).
:func:`what_search_buys` and :func:`what_a_bigger_network_buys` read a
ladder's result: what AlphaGo's search adds to its policy network, and what
a bigger network adds to both.
"""

import dataclasses
from pathlib import Path

from mockgo import pretrained
from mockgo.data.files import read_json
from mockgo.play.gtp_engine import find_gnugo
from mockgo.play.match_folder import MATCH_SETTINGS, read_match
from mockgo.play.results import format_elo
from mockgo.play.specs import format_spec, parse_spec
from mockgo.zero.layout import RunLayout

__all__ = ["Lineup", "arena_lineup", "big_board_lineup", "recorded_matches",
           "what_a_bigger_network_buys", "what_search_buys", "zero_network"]


@dataclasses.dataclass
class Lineup:
    """A ladder's anchors (the first fixed at 0 Elo) and players, with a
    note for each one left out or replaced, saying why; ``recorded``: the
    finished matches (:class:`~mockgo.play.results.MatchResult`, read back)
    whose games join the fit without being played; ``root``: the repository,
    which :meth:`describe` writes the players' files relative to."""

    size: int
    anchors: list
    players: list
    notes: list
    recorded: list = dataclasses.field(default_factory=list)
    root: Path | None = None

    def describe(self):
        players = [_spec_shown(spec, self.root) for spec in self.players]
        lines = [f"{self.size}x{self.size}: anchors {', '.join(self.anchors)} "
                 f"({self.anchors[0]} = 0 Elo)",
                 f"players: {', '.join(players) or 'none'}"]
        lines += [f"recorded, not played here: {m.name_a} vs {m.name_b}, {m.n} games "
                  f"({m.out_dir})" for m in self.recorded]
        return "\n".join(lines + [f"  - {note}" for note in self.notes])


def recorded_matches(folders, root, notes, rated):
    """The finished matches in ``folders`` (paths relative to the repository
    ``root``), read back (:func:`~mockgo.play.match_folder.read_match`) and
    named by those relative paths, so that tables print no machine's path.
    Left out, with a note in ``notes``: a folder this checkout lacks, and a
    match linked by no chain of records to ``rated`` (the specs the ladder
    plays), which nothing would tie to the ladder's scale (GnuGo's record,
    when GnuGo is not installed and so not on the ladder)."""
    matches = []
    for folder in folders:
        if not (Path(root) / folder / MATCH_SETTINGS).exists():
            notes.append(f"the recorded match {folder} is not in this checkout: left out")
            continue
        match = read_match(Path(root) / folder)
        match.out_dir = str(folder)
        matches.append(match)
    linked, grew = set(rated), True
    while grew:  # a record joins when one of its players is linked; it links the other
        grew = False
        for match in matches:
            if linked & {match.spec_a, match.spec_b} and not {match.spec_a, match.spec_b} <= linked:
                linked |= {match.spec_a, match.spec_b}
                grew = True
    for match in [m for m in matches if m.spec_a not in linked]:
        notes.append(f"the recorded match {match.out_dir} ({match.name_a} vs {match.name_b}) "
                     f"shares no player with this ladder: left out")
        matches.remove(match)
    return matches


def _shown(path, root):
    """``path`` relative to ``root`` when it is under it (for notes)."""
    try:
        return Path(path).resolve().relative_to(Path(root).resolve())
    except ValueError:
        return path


def _spec_shown(spec, root):
    """The player ``spec`` with every option that names a file under
    ``root`` written relative to it (a listing shows no machine's path; the
    spec that plays keeps its absolute path, for worker processes)."""
    if root is None:
        return spec
    kind, options = parse_spec(spec)
    return format_spec(kind, **{key: _shown(value, root) if Path(value).is_absolute() else value
                                for key, value in options.items()})


def _gnugo_available(gnugo):
    return bool(find_gnugo() if gnugo is None else gnugo)


def _anchors(anchors, gnugo, notes):
    """The anchors that can play: GnuGo's only when it is installed."""
    if _gnugo_available(gnugo):
        return list(anchors)
    kept = [a for a in anchors if not a.startswith("gnugo")]
    left = [a for a in anchors if a.startswith("gnugo")]
    if left:
        notes.append(f"GnuGo is not installed (apt-get install gnugo): {', '.join(left)} left "
                     f"out, so {' and '.join(kept) or 'nothing'} is the only anchor and the "
                     f"ratings say only how far each player is from it")
    return kept


def _met(result, spec, opponent):
    """Whether ``spec`` played ``opponent`` on the ladder ``result``."""
    return result.record(spec, opponent)[1] > 0


def _built_on(search, policy):
    """Whether the ``alphago:`` spec ``search`` searches with the policy
    network of the ``policy:`` spec ``policy`` (the same shipped name, or
    the same file)."""
    kind, options = parse_spec(search)
    own_kind, own = parse_spec(policy)
    if kind != "alphago" or own_kind != "policy":
        return False
    if "pretrained" in own:
        return options.get("policy_pretrained") == own["pretrained"]
    return "path" in own and options.get("policy") == own["path"]


def _searches_that_met(result, policy, opponent):
    """The ``alphago:`` searches built on ``policy`` (:func:`_built_on`) on
    the ladder ``result`` that played ``opponent``, best-rated first (the
    order of the ratings)."""
    return [spec for spec in result.ratings
            if _built_on(spec, policy) and _met(result, spec, opponent)]


def what_search_buys(result, policy, opponent):
    """What AlphaGo's search buys on a ladder ``result``
    (:class:`~mockgo.arena.ladder.LadderResult`): ``policy`` alone and each
    ``alphago:`` search built on it that met ``opponent``, each with its score against
    it and its rating (:meth:`~mockgo.arena.ladder.LadderResult.against`),
    then the gap between the best-rated search and the policy. Returns
    ``(text, gap in Elo)``; the gap is None, and the text says why, when the
    ladder has no such search or the policy never met ``opponent``."""
    searches = _searches_that_met(result, policy, opponent)
    if opponent not in result.ratings or not _met(result, policy, opponent) or not searches:
        return (f"no AlphaGo search built on {policy} and that policy alone both met "
                f"{opponent} on this ladder: nothing to compare"), None
    best = searches[0]  # the ratings are best first
    gap = result.ratings[best].elo - result.ratings[policy].elo
    return (result.against(opponent, [policy, *searches])
            + f"\nthe best-rated search, {result.ratings[best].name}, against "
              f"{result.ratings[policy].name} alone: {format_elo(gap)} Elo"), gap


def what_a_bigger_network_buys(result, small, large, opponent):
    """What a bigger policy network buys on a ladder ``result``: ``small``
    and ``large`` (two policies, no search) with their scores against
    ``opponent`` and their ratings, then the gap between ``large`` and the
    best-rated of ``small`` and every ``alphago:`` search built on ``small``
    that met ``opponent`` (searches over ``large`` do not count). Returns ``(text,
    gap in Elo)``; the gap is None, and the text says why, when the two did
    not both meet ``opponent`` on this ladder."""
    if opponent not in result.ratings or not all(_met(result, spec, opponent)
                                                 for spec in (small, large)):
        return (f"{small} and {large} did not both meet {opponent} on this ladder: nothing "
                f"to compare"), None
    best = max([small, *_searches_that_met(result, small, opponent)],
               key=lambda spec: result.ratings[spec].elo)
    gap = result.ratings[large].elo - result.ratings[best].elo
    return (result.against(opponent, [small, large])
            + f"\n{result.ratings[large].name} alone against the best-rated of "
              f"{result.ratings[small].name} and its searches, {result.ratings[best].name}: "
              f"{format_elo(gap)} Elo"), gap


def zero_network(zero_run, root):
    """The best network of notebook 04's full run in the folder ``zero_run``
    (``runs/04_zero/full/katago``, :func:`mockgo.notebook.zero_dir`): its
    ``state.json``'s best model, as :class:`mockgo.zero.layout.RunLayout`
    lays it out. ``(path, None)``, or ``(None, why not)``; the notes name
    paths relative to the repository ``root``."""
    folder = Path(zero_run)
    layout = RunLayout(folder)
    if not layout.state.exists():
        return None, (f"no 9x9 Zero network: notebook 04's full run ({_shown(folder, root)}) "
                      f"has not started (run it in full mode first)")
    # Only "best" is read (a run of an earlier mockgo may lack it: no model):
    # checked, so that a damaged state is named, not a TypeError.
    state = read_json(layout.state, "the run's progress", schema={"best?": int})
    best = state.get("best", 0)
    path = layout.model(best)
    if best == 0:
        return None, (f"no 9x9 Zero network: notebook 04's full run ({_shown(folder, root)}) "
                      f"has not trained a generation yet (its best model is generation 0, "
                      f"random weights)")
    if not path.exists():
        return None, (f"no 9x9 Zero network: {_shown(path, root)}, the run's best model, "
                      f"is missing")
    return path, None


def arena_lineup(preset, root, zero_run, gnugo=None):
    """The 9x9 ladder's :class:`Lineup` for notebook 05's ``preset``
    (:class:`~mockgo.presets.ArenaPreset`): ``preset.anchors`` (GnuGo's left
    out when it is not installed; ``gnugo``: True/False to say so instead of
    looking), ``preset.players``, and last, with ``preset.zero_readouts``,
    the best network of notebook 04's full run in ``zero_run``
    (:func:`zero_network`, or else the shipped ``zero-9``) as an ``mcts:``
    player with that many readouts a move. ``root``: the repository, which
    the notes name paths relative to."""
    notes = []
    anchors = _anchors(preset.anchors, gnugo, notes)
    players = list(preset.players)
    if preset.zero_readouts is None:
        notes.append("the Zero agent (notebook 04) is left out in quick mode")
    else:
        path, why = zero_network(zero_run, root)
        readouts = preset.zero_readouts
        if path is not None:
            players.append(format_spec("mcts", path=Path(path).resolve(), readouts=readouts,
                                       name=f"zero-{path.stem}-{readouts}"))
        elif "zero-9" in pretrained.names():
            shipped = pretrained.stand_in_note("zero-9", "Zero agent", "04")
            notes.append(f"{shipped}; used because {why}")
            players.append(format_spec("mcts", pretrained="zero-9", readouts=readouts,
                                       name=f"zero-9-{readouts}"))
        else:
            notes.append(why + "; the Zero agent is left out")
    return Lineup(preset.size, anchors, players, notes, root=Path(root))


def big_board_lineup(preset, root, rl_policy, value_network, gnugo=None):
    """The 19x19 ladder's :class:`Lineup` (None when ``preset.big_size`` is
    None): ``preset.big_anchors``; the shipped SL policy ``sl-19``; with
    ``preset.big_networks``, notebook 03's RL policy, the file ``rl_policy``
    (or else the shipped ``rl-19``) and an AlphaGo search (the SL policy's
    priors, notebook 02's value network, the file ``value_network``, or
    else the shipped ``value-19``, mixed with rollouts at
    ``preset.alphago_mix``, ``preset.alphago_readouts`` a move), each when
    its network exists; and ``preset.big_recorded``, the finished matches
    that join the fit (:func:`recorded_matches`), folders relative to the
    repository ``root``."""
    if preset.big_size is None:
        return None
    notes = []
    anchors = _anchors(preset.big_anchors, gnugo, notes)
    players = []
    if "sl-19" in pretrained.names():
        players.append(format_spec("policy", pretrained="sl-19"))
    else:
        notes.append("the shipped SL policy sl-19 is missing from this installation")
    if not preset.big_networks:
        notes.append("notebook 03's RL policy and the AlphaGo search with notebook 02's value "
                     "network are left out in quick mode")
        return Lineup(preset.big_size, anchors, players, notes,
                      recorded_matches(preset.big_recorded, root, notes, anchors + players),
                      Path(root))
    rl_policy = Path(rl_policy)
    if rl_policy.exists():
        players.append(format_spec("policy", path=rl_policy.resolve(), name="rl-policy"))
    elif "rl-19" in pretrained.names():
        shipped = pretrained.stand_in_note("rl-19", "RL policy", "03")
        notes.append(f"{shipped}; used because this machine's "
                     f"{_shown(rl_policy, root)} does not exist yet")
        players.append(format_spec("policy", pretrained="rl-19", name="rl-policy"))
    else:
        notes.append(f"no RL policy: {_shown(rl_policy, root)} does not exist (run notebook 03 "
                     f"in full mode)")
    value = Path(value_network)
    search = dict(readouts=preset.alphago_readouts, mix=float(preset.alphago_mix),
                  name=f"alphago-{preset.alphago_readouts}")
    if value.exists():
        players.append(format_spec("alphago", policy_pretrained="sl-19", value=value.resolve(),
                                   **search))
    elif "value-19" in pretrained.names():
        shipped = pretrained.stand_in_note("value-19", "value network", "02")
        notes.append(f"AlphaGo's search judges with {shipped}; used because this machine's "
                     f"{_shown(value, root)} does not exist yet")
        players.append(format_spec("alphago", policy_pretrained="sl-19",
                                   value_pretrained="value-19", **search))
    else:
        notes.append(f"no AlphaGo search: notebook 02's value network {_shown(value, root)} "
                     f"does not exist (run notebook 02 in full mode)")
    return Lineup(preset.big_size, anchors, players, notes,
                  recorded_matches(preset.big_recorded, root, notes, anchors + players), Path(root))
