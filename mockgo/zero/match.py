"""The matches of an AlphaGo Zero run: its networks as players, and the
matches and analyses that measure them.

A side of a match is ``"random"`` or a dual network (a Keras model, its path,
or a :class:`~mockgo.search.evaluators.NetworkEvaluator`) searching under the
run's settings without noise (:func:`search_player`); :func:`play_match` plays
two sides through the one match engine (:func:`mockgo.play.match.match`),
here or on a cluster's workers. The run (:mod:`mockgo.zero.run`) uses them for
step 5's evaluation, its win rates and its strength curve against GnuGo;
:func:`equal_cost_matches` sets two runs' models of equal cost against each
other, and :func:`analyse_position` shows what a network and its search
think of one position.
"""

import math
from pathlib import Path

import numpy as np

from mockgo.cluster import Recipe, ShippedModel
from mockgo.play.match import match
from mockgo.play.random_player import RandomPlayer
from mockgo.search.evaluators import NetworkEvaluator
from mockgo.search.mcts import MCTSPlayer
from mockgo.zero.config import ENCODER, seed_of
from mockgo.zero.layout import model_name, read_strength, write_json
from mockgo.zero.selfplay import evaluator_for, searcher

__all__ = ["analyse_position", "equal_cost_matches", "match_figures", "play_match",
           "search_player", "win_rates"]


def search_player(side, config, readouts=None, name=None, resign_threshold=None,
                  batch_size=256, seed=None, answer_passes=False):
    """A side of a Zero match as a player: ``"random"`` (a
    :class:`~mockgo.play.random_player.RandomPlayer`), or a dual network (a Keras
    model, its path, or a :class:`~mockgo.search.evaluators.NetworkEvaluator`)
    searching with ``readouts`` (default ``config.match_readouts``) per move
    on the sensible moves, no Dirichlet noise, the first ``softpick_moves``
    moves sampled by visit count (so that games differ), resigning at
    ``resign_threshold`` (default None: every game is played out, so that a
    value head that is still wrong cannot lose a won game by resigning).
    ``answer_passes``: answer a pass with a pass when that cannot lose (as
    against GnuGo or a person; self-play passes only when nothing is left)."""

    if isinstance(side, str) and side == "random":
        return RandomPlayer(name=name)
    evaluator = evaluator_for(side, config, batch_size, seed)
    if seed is not None:
        # A kept evaluator (the run's, warm from self-play) would go on drawing
        # its symmetries where its generator got to, which a resumed process
        # never did: the match's seed starts them over, as self-play's batches do.
        evaluator.rng = np.random.default_rng(seed)
    return searcher(evaluator, config, config.match_readouts if readouts is None else readouts,
                    dirichlet=False, resign_threshold=resign_threshold,
                    name=name or _side_name(side), answer_passes=answer_passes)


def play_match(first, second, games, config, readouts=None, seed=0, sgf_dir=None,
               progress=False, names=None, resign_threshold=None, executor=None):
    """``games`` games between two sides (:func:`search_player`) through the
    one match engine (:func:`mockgo.play.match.match`), all in lockstep:
    ``first`` plays black in games 0, 2, 4...; all the games where one
    network is to move are searched together, one network call per search
    step. ``sgf_dir``: save the games there. ``executor``
    (:mod:`mockgo.cluster`): the games are shared out among its workers
    (each plays its share in lockstep, the networks shipped to it); the
    sides are then ``"random"``, models or their paths, or evaluators (their
    models are shipped). Returns the
    :class:`~mockgo.play.results.MatchResult` (``first`` is A)."""

    names = names or (None, None)
    if executor is None:
        sides = [search_player(side, config, readouts, names[k], resign_threshold,
                               games * config.parallel_readouts, seed_of(config.seed, seed, k))
                 for k, side in enumerate((first, second))]
        labels = [side.name for side in sides]
        games_per_task = 1
    else:
        games_per_task = -(-games // executor.workers)
        labels = [names[k] or _side_name(side) for k, side in enumerate((first, second))]
        sides = [Recipe(search_player, (_shipped(side), config, readouts, labels[k],
                                        resign_threshold, games_per_task * config.parallel_readouts,
                                        seed_of(config.seed, seed, k)), name=labels[k])
                 for k, side in enumerate((first, second))]
    return match(*sides, games=games, size=config.board_size, komi=config.komi,
                 max_moves=config.moves_cap, seed=seed_of(config.seed, seed), out_dir=sgf_dir,
                 progress=f"{labels[0]} vs {labels[1]}" if progress else False,
                 cluster=executor, workers=1 if executor is None else None,
                 games_per_task=games_per_task)


def _shipped(side):
    """A side of a match as it travels to workers: ``"random"``, or a model's bytes."""
    if isinstance(side, str) and side == "random":
        return side
    if isinstance(side, (str, Path)):
        return ShippedModel.from_path(side)
    if isinstance(side, NetworkEvaluator):
        side = side.predictor.model
    return ShippedModel.from_model(side, encoder=ENCODER)


def _side_name(side):
    if isinstance(side, str) and side == "random":
        return side
    if isinstance(side, (str, Path)):
        return Path(side).stem
    if isinstance(side, NetworkEvaluator):
        return side.predictor.model.name
    return side.name


def analyse_position(model, board, config, readouts=None, seed=0):
    """What the network and the search think of one position: the raw
    prior (masked to the legal moves), the network's value, and the root's
    visit counts and value after ``readouts`` simulations (no noise)."""
    readouts = config.match_readouts if readouts is None else readouts
    evaluator = evaluator_for(model, config, config.parallel_readouts, seed)
    state = config.game_class.from_board(board.copy(), max_moves=config.moves_cap)
    prior, value = evaluator([state])
    player = MCTSPlayer(evaluator, num_readouts=readouts, c_puct=config.c_puct, dirichlet=False,
                        parallel_readouts=config.parallel_readouts,
                        fpu_reduction=config.fpu_reduction, seed=seed)
    player.initialize(state, move_number=board.move_number)
    player.search()
    return {"prior": prior[0], "value": float(value[0]), "visits": player.root.child_N.copy(),
            "search_value": player.root_value, "best": player.pick_action()}


def equal_cost_matches(run, other, games, readouts=None, generations=None, progress=True):
    """Which run's settings make the stronger player for the same work:
    for each generation of ``other`` in ``generations`` (default: the
    generations of ``other``'s strength curve, or all of them when it has
    none), that model against the last
    model of ``run`` that cost no more CPU time
    (:meth:`~mockgo.zero.run.ZeroRun.generation_within`),
    ``games`` games with colours alternating, both searching with ``readouts``
    a move (default ``run.config.match_readouts``) under their own run's
    settings, no noise, answering a pass with a pass as against GnuGo, and
    dead stones marked by GnuGo when it is installed. A strength curve
    against GnuGo says nothing while both runs lose every game to it; a
    head-to-head match at equal cost does. Each match is a resumable folder
    of ``run`` (``sgf/equal-cost/``), so asking again replays nothing.
    Returns one dict a match, in order: the CPU-hours of both models,
    their generations, ``run``'s wins, the games, its win rate with the 95%
    Wilson interval, and its Elo over ``other``'s model with its interval."""
    readouts = run.config.match_readouts if readouts is None else readouts
    for field in ("board_size", "komi"):
        if getattr(run.config, field) != getattr(other.config, field):
            raise ValueError(f"{run.base_dir} and {other.base_dir} play different games: "
                             f"{field} {getattr(run.config, field)} against "
                             f"{getattr(other.config, field)}")
    if generations is None:
        generations = (sorted({p["generation"] for p in other.strength_curve()})
                       or range(1, other.latest + 1))
    label = other.base_dir.name
    points = []
    for other_g in generations:
        other_cpu = other.cost(other_g)["cpu_hours"]
        g = run.generation_within(other_cpu)
        # Recipes: a network is loaded only when its match has games left to play.
        # The readouts are in the names, so a match folder is never resumed at others.
        players = []
        for side, gen in ((run, g), (other, other_g)):
            name = f"{side.base_dir.name}-{model_name(gen)}-r{readouts}"
            players.append(Recipe(search_player, (str(side.model_path(gen)), side.config),
                                  {"readouts": readouts, "name": name,
                                   "batch_size": games * side.config.parallel_readouts,
                                   "seed": seed_of(side.config.seed, "equal-cost", gen),
                                   "answer_passes": True}, name=name))
        result = match(*players, games=games, size=run.config.board_size, komi=run.config.komi,
                       max_moves=run.config.moves_cap, scorer="auto",
                       out_dir=run.layout.equal_cost_sgf_dir(model_name(g), label,
                                                             model_name(other_g), readouts),
                       seed=seed_of(run.config.seed, "equal-cost", g, label, other_g),
                       progress=f"{players[0].name} vs {players[1].name}" if progress else False)
        points.append({"cpu_hours": run.cost(g)["cpu_hours"], "other_cpu_hours": other_cpu,
                       "generation": g, "other_generation": other_g,
                       **match_figures(result)})
    return points


def match_figures(result):
    """A match's figures as its records keep them (the strength curve, the
    equal-cost points): A's wins of the games, win rate with its 95% Wilson
    interval, and Elo over B with its interval (None where infinite)."""
    low, high = result.interval()
    elo_low, elo_high = result.elo_interval()
    return {"games": result.n, "wins": result.wins_a, "win_rate": result.win_rate,
            "wilson_95": [low, high], "elo": _finite(result.elo()),
            "elo_95": [_finite(elo_low), _finite(elo_high)]}


def _finite(value):
    """None for an infinite Elo (JSON has no infinity)."""
    return None if value is None or math.isinf(value) else value


def win_rates(table_path, side, config, opponent, games, generations, readouts=None,
              executor=None, progress=True):
    """The win rate of each of ``generations`` against ``opponent``
    (``"random"`` or a generation number) over ``games`` games at
    ``readouts`` a move (default ``config.match_readouts``), a generation's
    side of a match being ``side(generation)`` (its evaluator, or its file
    for ``executor``'s workers). The matches already played are read from
    the JSON table at ``table_path`` (a run's ``strength.json``) and each one
    played is added to it, keeping its model, opponent, readouts, wins and
    games (what :func:`mockgo.zero.report.elo_chain` reads back)."""
    table = read_strength(table_path)
    readouts = config.match_readouts if readouts is None else readouts
    other_name = opponent if opponent == "random" else model_name(opponent)
    rates = {}
    for g in generations:
        key = f"{model_name(g)} vs {other_name}, {games} games, {readouts} readouts"
        if key not in table:
            # Loaded only for a match still to play (evaluators are cached).
            other = opponent if opponent == "random" else side(opponent)
            result = play_match(side(g), other, games, config, readouts, executor=executor,
                                seed=seed_of("strength", g, other_name)[0], progress=progress,
                                names=(model_name(g), other_name))
            table[key] = {"win_rate": result.win_rate, "wins": result.wins_a, "games": result.n}
        if "model" not in table[key]:  # also a match kept before the fields were
            table[key].update(model=model_name(g), opponent=other_name, readouts=readouts)
            write_json(table_path, table)
        rates[g] = table[key]["win_rate"]
    return rates
