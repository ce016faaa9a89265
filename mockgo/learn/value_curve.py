"""The value network's data curve: how well it judges positions, phase by
phase, against the number of games it learned from (AlphaGo's recipe, one
position a game: :func:`mockgo.learn.value.value_dataset`).

The same held-out positions score every point of the curve, beside the
best constant guess (the mean outcome for each colour to move, on the
validation positions); the point for N games is a network trained on the
first N training positions. A
phase where the network's error falls below the constant's is one where it
has learned something about positions; where it does not, more games are
the remedy AlphaGo used (30 million positions)::

    data = saved_value_data("runs/value-curve/value_data")   # the batches played so far
    curve = value_data_curve(data, [1000, 2000, 4000], "runs/value-curve/fits")

    python -m mockgo.learn.value_curve --data runs/value-curve/value_data \\
        --out runs/value-curve/fits --sizes 1000,2000,4000,8000 [--no-symmetries]

Each point is saved as it is made (``curve.json``, atomically, with the
settings it was made with); run again, the curve goes on from the points it
has, and a point's training resumes from its last epoch. The split does not
move as the data grow, so that a curve begun on the first batches goes on
when more are played: the first ``test_positions + validation_positions``
positions played, shuffled by a seeded permutation, give the test set and
the validation set (which decides early stopping); every later position is
the training pool, taken in the order played. The games are independent
(each its own seeded generator), so the order of play favours none.

The data themselves, AlphaGo's recipe played by shipped policies (moves to U
by the first, the rest by ``--finish``, the same by default), resumable
batch by batch and stopped at any time with Ctrl-C, which keeps every
finished batch::

    python -m mockgo.learn.value_curve --data runs/value-curve/value_data \
        --play sl-19 [--finish rl-19] --games 32000 [--workers 2]

How low could the curve go? :func:`value_data_ideal` plays test positions
out many times with the policy that played the games out: the mean result is
a position's true value under that policy, and its error the least any value
network trained on those games can reach, phase by phase::

    python -m mockgo.learn.value_curve --data runs/value-curve/value_data \
        --out runs/value-curve/ideal --ideal sl-19 --per-phase 400 --rollouts 8
"""

import argparse
import json
import sys
import time
import zlib
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from mockgo.data.files import (atomic_path, atomic_write_text, check_same_settings, job_folder,
                               read_json, read_npz)
from mockgo.errors import positive_int
from mockgo.go.board import BLACK, WHITE
from mockgo.learn.value import (ValueData, colours_to_move, mse_by_phase, position_from_planes,
                                predict_values)
from mockgo.play.policy_player import PolicyPlayer
from mockgo.play.runner import play_games

__all__ = ["held_out_positions", "ideal_mse", "ideal_standard_error", "plot_value_data_curve",
           "policy_rollout_values", "positions_saved", "read_value_data_curve",
           "read_value_data_ideal", "saved_value_data", "value_data_curve", "value_data_ideal"]

CURVE = "curve.json"


def saved_value_data(folder):
    """The positions of the batches a :func:`~mockgo.learn.value.value_dataset`
    run has saved in ``folder`` so far (``batch_00000.npz``, ... in order,
    up to the first one missing), as :class:`~mockgo.learn.value.ValueData`:
    a run still playing, or stopped, gives its finished part."""
    parts = []
    for path in _batch_paths(folder):
        saved = read_npz(path)
        parts.append((saved["planes"], saved["outcomes"], saved["steps"], int(saved["played"]),
                      float(saved["seconds"])))
    if not parts:
        raise FileNotFoundError(f"{folder} holds no value data batches (batch_00000.npz...): "
                                f"value_dataset(..., folder=...) saves them")
    planes, outcomes, steps = (np.concatenate([p[i] for p in parts]) for i in range(3))
    played = sum(p[3] for p in parts)
    return ValueData(planes, outcomes, steps, played, played - len(outcomes),
                     sum(p[4] for p in parts))


def positions_saved(folder):
    """How many positions the batches :func:`saved_value_data` would read
    hold (their outcomes read, not their planes: a quick count of a run in
    progress); 0 for a folder with none."""
    return sum(len(read_npz(path, ["outcomes"])["outcomes"]) for path in _batch_paths(folder))


def held_out_positions(count, test_positions, validation_positions, seed):
    """The curve's split of ``count`` positions (module docstring): the
    indices of the test and of the validation positions, the first
    ``test_positions + validation_positions`` played, shuffled by ``seed``."""
    head = np.random.default_rng(seed).permutation(min(test_positions + validation_positions,
                                                       count))
    return head[:test_positions], head[test_positions:]


def _constant_guess(outcomes, movers, rows):
    """The curve's constant guess: the mean outcome for each colour to move
    (``{BLACK: c, WHITE: c}``) over ``rows``, the validation positions,
    which no point trains on, so that every point is judged beside one guess."""
    return {c: float(outcomes[rows][movers[rows] == c].mean()) for c in (BLACK, WHITE)}


def value_data_curve(data, sizes, folder, test_positions=3000, validation_positions=1000,
                     edges=(1, 151, 302, 452), layers=6, filters=64, epochs=30, batch_size=64,
                     learning_rate=1e-4, symmetries=True, patience=3, precision="float32", seed=0,
                     tries=3, progress=False):
    """The curve (module docstring) of ``data`` at each of ``sizes``
    training positions, kept in ``folder``; returns its points, one dict
    each: ``positions``, ``epochs`` (trained, of the most), the test
    ``count``, ``network`` and ``constant`` MSE of each phase (move numbers
    ``edges[i]`` to ``edges[i + 1] - 1``). The network is
    :func:`mockgo.learn.value.build_value` of ``layers`` x ``filters``,
    trained as notebook 02 trains it (Adam at ``learning_rate``, the 8
    symmetries, early stopping with ``patience``), in ``precision`` (float32
    unless asked: ``"auto"`` would pick bfloat16 on some CPUs, and a curve's
    points must be trained alike), its weights drawn from ``seed``; a network
    that dies in its training is trained anew from the next seed, ``tries``
    times in all (:func:`~mockgo.learn.trainers.train_value_on_positions`),
    and its point records the ``seed`` whose network lived."""
    # Keras: imported only when a network is trained (reading the batches needs none).
    from mockgo.learn.trainers import train_value_on_positions
    from mockgo.nets.io import save_for_play

    folder = Path(folder)
    held_out = test_positions + validation_positions
    test, validation = held_out_positions(len(data), test_positions, validation_positions, seed)
    pool = np.arange(held_out, max(held_out, len(data)))
    if max(sizes) > len(pool):
        raise ValueError(f"{len(data):,} positions leave {len(pool):,} to train on after "
                         f"{test_positions:,} test and {validation_positions:,} validation "
                         f"positions: fewer than {max(sizes):,}")
    settings = dict(test_positions=test_positions, validation_positions=validation_positions,
                    edges=list(edges), layers=layers, filters=filters, epochs=epochs,
                    batch_size=batch_size, learning_rate=learning_rate, symmetries=symmetries,
                    patience=patience, precision=precision, seed=seed)
    # One run at a time in the folder: a second would write curve.json over the first's points.
    with job_folder(folder, "training the value data curve"):
        saved = read_json(folder / CURVE, "the value data curve", missing_ok=True, schema=dict)
        if saved is not None:
            check_same_settings(folder, "value data curve", saved["settings"], settings)
        points = {} if saved is None else {p["positions"]: p for p in saved["points"]}
        movers = colours_to_move(data.planes)
        constant = _constant_guess(data.outcomes, movers, validation)
        for size in sorted(sizes):
            if size in points:
                continue
            rows = pool[:size]
            model, history = train_value_on_positions(
                data.planes[rows], data.outcomes[rows],
                (data.planes[validation], data.outcomes[validation]), data.planes.shape[1],
                layers, filters, encoder="alphago49", precision=precision, seed=seed,
                epochs=epochs, batch_size=batch_size, learning_rate=learning_rate,
                symmetries=symmetries, patience=patience, tries=tries,
                checkpoint_dir=folder / f"fit_{size:06d}",
                progress=progress and f"{size:,} positions", name=f"value_{size}")
            phases = mse_by_phase(predict_values(model, data.planes[test]), data.outcomes[test],
                                  data.steps[test], list(edges), constant, movers[test])
            points[size] = {"positions": size, "epochs": len(history["loss"]),
                            "seed": history["seed"],
                            **{key: [int(v) if key == "count" else round(float(v), 4)
                                     for v in values] for key, values in phases.items()}}
            save_for_play(model, folder / f"value_{size:06d}.keras", encoder="alphago49")
            atomic_write_text(folder / CURVE, json.dumps(
                {"settings": settings, "points": [points[s] for s in sorted(points)]}, indent=1))
    return [points[s] for s in sorted(sizes)]


def policy_rollout_values(policy, planes, rollouts=8, komi=7.5, seed=0, progress=False):
    """The judge a value network imitates: for each ``alphago49`` row of
    ``planes``, the mean result, for the player to move, of ``rollouts``
    games played from it to the end by ``policy`` against itself (at its
    temperature), all in lockstep (:func:`mockgo.play.runner.play_games`). The mean of
    infinitely many would be the position's true value under that policy,
    the best a value network trained on such games can learn (Silver et
    al. 2016 compared their value network with rollouts of their policy,
    Figure 2b). The position is rebuilt from its planes
    (:func:`position_from_planes`: no ko, no move history)."""
    boards = []
    for row in planes:
        board = position_from_planes(row, komi)
        boards += [board.copy() for _ in range(rollouts)]
    movers = [b.to_play for b in boards]
    games = play_games(policy, policy, len(boards), planes.shape[1], komi=komi, rng=seed,
                       boards=boards, progress=progress)
    results = np.array([g.outcome(c) for g, c in zip(games, movers)], np.float64)
    return results.reshape(len(planes), rollouts).mean(axis=1)


def ideal_mse(rollout_means, rollouts):
    """The mean squared error of a perfect judge of these positions, one
    that knew each one's true value m (the expected result under the policy
    that plays it out: its error on one game is 1 - m**2), estimated from
    ``rollout_means`` of ``rollouts`` games each without bias: the mean x
    of n results has E[x**2] = m**2 + (1 - m**2) / n. No value network
    trained on games of that policy can do better, on average, than this."""
    return float(np.mean(_perfect_judge_errors(rollout_means, rollouts)))


def ideal_standard_error(rollout_means, rollouts):
    """The standard error of :func:`ideal_mse` over these positions (the
    spread of its per-position terms over the square root of their count):
    the sampling noise of the positions and of their rollouts together."""
    terms = _perfect_judge_errors(rollout_means, rollouts)
    return float(terms.std(ddof=1) / np.sqrt(len(terms)))


def _perfect_judge_errors(rollout_means, rollouts):
    """Each position's term of :func:`ideal_mse`: 1 - m**2, with m**2
    estimated without bias from the mean x of n results as (n x**2 - 1) / (n - 1)."""
    x = np.asarray(rollout_means, np.float64)
    n = rollouts
    if n < 2:
        raise ValueError(f"the estimate needs 2 or more rollouts a position, got {n}")
    return 1.0 - (n * x**2 - 1.0) / (n - 1)


def value_data_ideal(data, policy, folder, per_phase=400, rollouts=8, test_positions=3000,
                     validation_positions=1000, edges=(1, 151, 302, 452), seed=0, chunk=64,
                     progress=False):
    """How much a value network could learn, phase by phase: for the first
    ``per_phase`` test positions of each phase (the curve's test set),
    ``rollouts`` games played out by ``policy`` (:func:`policy_rollout_values`).
    ``policy`` is the one that played the data's games out, or another one to
    ask what its games would teach (AlphaGo played its value games out with
    its RL policy). Kept in ``folder`` (``ideal.json``, and the rollouts
    ``chunk`` positions at a time, so that a stopped run goes on). Returns
    one dict a phase:

    - ``count``: the positions;
    - ``constant``: the curve's constant guess, against the data's results;
    - ``constant_played_out``: the constant guess's error on games that
      ``policy`` plays out from these positions (for the data's own policy,
      ``constant`` again, up to noise);
    - ``rollouts``: the error of the rollouts' mean as a judge of the data's
      results;
    - ``ideal``: :func:`ideal_mse`, the error of a judge that knew each
      position's true value under ``policy``, and ``ideal_se``, its standard
      error.

    ``constant_played_out - ideal`` is the most any network trained on games
    that ``policy`` plays out can gain over the constant guess in a phase,
    however many games it has."""
    if rollouts < 2 or per_phase < 1 or chunk < 1:
        raise ValueError(f"the ideal needs 2 or more rollouts a position (got {rollouts}), and "
                         f"1 or more positions a phase (got {per_phase}) and a chunk (got "
                         f"{chunk})")
    folder = Path(folder)
    test, validation = held_out_positions(len(data), test_positions, validation_positions, seed)
    movers = colours_to_move(data.planes)
    constant = _constant_guess(data.outcomes, movers, validation)
    phases = [test[(data.steps[test] >= low) & (data.steps[test] < high)][:per_phase]
              for low, high in zip(edges[:-1], edges[1:])]
    rows = np.concatenate(phases)
    settings = dict(per_phase=per_phase, rollouts=rollouts, test_positions=test_positions,
                    validation_positions=validation_positions, edges=list(edges), seed=seed,
                    chunk=chunk, policy=getattr(policy, "name", None), rows_crc=zlib.crc32(
                        rows.astype(np.int64).tobytes()))
    with job_folder(folder, "rolling out the value data's test positions"):
        saved = read_json(folder / "ideal_settings.json", "the ideal's settings", missing_ok=True,
                          schema=dict)
        if saved is not None:
            check_same_settings(folder, "value data ideal", saved, settings)
        else:
            atomic_write_text(folder / "ideal_settings.json", json.dumps(settings, indent=1))
        means = []
        for k in tqdm(range(0, len(rows), chunk), desc="rollouts", disable=not progress):
            path = folder / f"rollouts_{k // chunk:04d}.npy"
            if path.exists():
                means.append(np.load(path))
                continue
            part = policy_rollout_values(policy, data.planes[rows[k:k + chunk]], rollouts,
                                         seed=[seed, k // chunk])
            with atomic_path(path, suffix=".tmp.npy") as temporary:
                np.save(temporary, part)
            means.append(part)
        means = np.concatenate(means)
        # The constant guess for games that this policy plays out: the mean of
        # its results for each colour to move, over every position here. Its
        # error on one position of true value m is 1 - 2 c m + c**2, linear in
        # m, so the rollouts' mean estimates it without bias.
        own = {c: float(means[movers[rows] == c].mean()) for c in (BLACK, WHITE)}
        result, start = [], 0
        for (low, high), phase in zip(zip(edges[:-1], edges[1:]), phases):
            x, z = means[start:start + len(phase)], data.outcomes[phase]
            start += len(phase)
            guess = np.where(movers[phase] == BLACK, constant[BLACK], constant[WHITE])
            c = np.where(movers[phase] == BLACK, own[BLACK], own[WHITE])
            result.append({"moves": f"{low}-{high - 1}", "count": len(phase),
                           "constant": round(float(np.mean((guess - z) ** 2)), 4),
                           "constant_played_out": round(float(np.mean(1 - 2 * c * x + c**2)), 4),
                           "rollouts": round(float(np.mean((x - z) ** 2)), 4),
                           "ideal": round(ideal_mse(x, rollouts), 4),
                           "ideal_se": round(ideal_standard_error(x, rollouts), 4)})
        atomic_write_text(folder / "ideal.json", json.dumps(
            {"settings": settings, "phases": result}, indent=1))
    return result


def read_value_data_curve(path):
    """The curve saved at ``path`` (a :func:`value_data_curve` folder, or its
    ``curve.json``): ``(settings, points)``."""
    path = Path(path)
    saved = read_json(path / CURVE if path.is_dir() else path, "the value data curve",
                      schema=dict)
    return saved["settings"], saved["points"]


def read_value_data_ideal(path):
    """The phases :func:`value_data_ideal` saved at ``path`` (its folder, or
    its ``ideal.json``): one dict a phase."""
    path = Path(path)
    return read_json(path / "ideal.json" if path.is_dir() else path, "the value data ideal",
                     schema=dict)["phases"]


def plot_value_data_curve(points, edges, ax=None, ideal=None):
    """Test MSE by phase against training positions (a log axis): a line per
    phase for the network, and the constant guess of the same phase as a
    dashed line of its colour. ``edges`` are the curve's phase edges (its
    settings' ``edges``). ``ideal``: :func:`value_data_ideal`'s phases, drawn
    as a dotted line each, the least error a network could reach there."""
    import matplotlib.pyplot as plt  # matplotlib: imported only for a plot

    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4.2))
    sizes = [p["positions"] for p in points]
    for k, (low, high) in enumerate(zip(edges[:-1], edges[1:])):
        line, = ax.plot(sizes, [p["network"][k] for p in points], "o-",
                        label=f"moves {low}-{high - 1}")
        ax.axhline(points[0]["constant"][k], color=line.get_color(), linestyle="--", linewidth=1)
        if ideal is not None:
            ax.axhline(ideal[k]["ideal"], color=line.get_color(), linestyle=":", linewidth=1.5)
    ax.set_xscale("log")
    ax.set_xticks(sizes, [f"{s:,}" for s in sizes])
    ax.minorticks_off()
    ax.set_xlabel("training positions (one a game)")
    ax.set_ylabel("test MSE")
    ax.set_title("The value network and the number of games\n(dashed: the constant guess"
                 + (", dotted: a perfect judge)" if ideal is not None else ")"))
    ax.legend()
    return ax


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="a value_dataset folder (its batches)")
    parser.add_argument("--out", help="where the curve and its networks go (with --sizes or "
                                      "--ideal)")
    parser.add_argument("--sizes", help="training positions, e.g. 1000,2000,4000")
    parser.add_argument("--ideal", metavar="POLICY",
                        help="instead of networks: play the test positions out with this shipped "
                             "policy (the data's, e.g. sl-19) to measure the best a network could "
                             "do (value_data_ideal)")
    parser.add_argument("--per-phase", type=int, default=400,
                        help="with --ideal: test positions a phase (default 400)")
    parser.add_argument("--rollouts", type=int, default=8,
                        help="with --ideal: games a position (default 8)")
    parser.add_argument("--play", metavar="POLICY",
                        help="instead of networks: play value data into --data with this shipped "
                             "policy to move U (value_dataset), resumable; Ctrl-C keeps every "
                             "finished batch")
    parser.add_argument("--finish", metavar="POLICY",
                        help="with --play: the shipped policy that plays each game on from U "
                             "(default: the --play policy; AlphaGo's was its RL policy)")
    parser.add_argument("--games", type=positive_int, default=32000,
                        help="with --play: positions to have, one a game (default 32000)")
    parser.add_argument("--batch", type=positive_int, default=256,
                        help="with --play: games a batch, each saved as it ends (default 256)")
    parser.add_argument("--seed", type=int, default=0,
                        help="with --play: the games' random seed (default 0)")
    parser.add_argument("--restart", action="store_true",
                        help="with --play: delete the folder's batches and play anew")
    parser.add_argument("--workers", type=positive_int, default=1,
                        help="with --play: processes playing batches (default 1: this one)")
    parser.add_argument("--test", type=int, default=3000, help="test positions (default 3000)")
    parser.add_argument("--validation", type=int, default=1000,
                        help="validation positions (default 1000)")
    parser.add_argument("--no-symmetries", dest="symmetries", action="store_false",
                        help="train on each position as played, not on its 8 symmetries too "
                             "(an epoch 8 times shorter)")
    args = parser.parse_args(argv)
    if sum(option is not None for option in (args.sizes, args.ideal, args.play)) != 1:
        parser.error("give one of --sizes (the curve's networks), --ideal POLICY (its rollouts) "
                     "or --play POLICY (its data)")
    if args.play is not None:
        return _play_main(args)
    if args.out is None:
        parser.error("--sizes and --ideal need --out, the folder of what they make")
    if args.ideal is not None:
        return _ideal_main(args)
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
    except ValueError:
        parser.error(f"--sizes {args.sizes!r}: whole numbers separated by commas, e.g. 1000,2000")
    try:
        data = saved_value_data(args.data)
        points = value_data_curve(data, sizes, args.out, test_positions=args.test,
                                  validation_positions=args.validation,
                                  symmetries=args.symmetries, progress=True)
    except (FileNotFoundError, ValueError) as error:  # too few positions, or other settings
        print(f"value_curve: {error}", file=sys.stderr)
        return 2
    print(f"{len(data):,} positions from {data.games_played:,} games")
    for p in points:
        print(f"{p['positions']:>7,} positions: network {p['network']}, constant "
              f"{p['constant']} ({p['count']} test positions by phase)")
    return 0


PLAYERS = "players.json"  # beside value_data.json: the shipped policies that play the games


def _play_main(args):
    # Imported here: Keras and the worker pool only when games are played.
    from mockgo import pretrained
    from mockgo.cluster import Processes, share_one_gpu
    from mockgo.learn.value import value_dataset

    share_one_gpu()  # before the policies load: the workers share the GPU with this process
    folder = Path(args.data)
    players = {"play": args.play, "finish": args.finish or args.play}
    try:
        # value_data.json records whether a second policy finishes the games,
        # not which: the names are kept beside it, and checked.
        recorded = read_json(folder / PLAYERS, "the value data's policies", missing_ok=True,
                             schema=dict)
        if recorded is not None and not args.restart:
            check_same_settings(folder, "value data", recorded, players)
        policy = PolicyPlayer(pretrained.load(args.play), temperature=1.0, name=args.play)
        finish = None
        if players["finish"] != args.play:
            finish = PolicyPlayer(pretrained.load(players["finish"]), temperature=1.0,
                                  name=players["finish"])
    except ValueError as error:  # an unknown name, other policies than the folder's
        print(f"value_curve: {error}", file=sys.stderr)
        return 2
    cluster = Processes(args.workers) if args.workers > 1 else None
    started = time.perf_counter()
    try:
        if recorded is None or args.restart:
            folder.mkdir(parents=True, exist_ok=True)
            atomic_write_text(folder / PLAYERS, json.dumps(players, indent=1) + "\n")
        data = value_dataset(policy, args.games, 19, rl_policy=finish, batch=args.batch,
                             rng=args.seed, folder=folder, progress="value games",
                             restart=args.restart, cluster=cluster)
    except (FileNotFoundError, ValueError) as error:  # a folder, its settings
        print(f"value_curve: {error}".replace("pass restart=True to value_dataset",
                                              "run with --restart"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"value_curve: stopped with {positions_saved(folder):,} positions kept in "
              f"{folder}; the same command goes on from them", file=sys.stderr)
        return 130
    finally:
        if cluster is not None:
            cluster.close()
    print(f"{len(data):,} positions from {data.games_played:,} games in {folder} "
          f"(this call: {time.perf_counter() - started:.0f} s)")
    return 0


def _batch_paths(folder):
    """The batch files of a value_dataset folder in order, up to the first one missing."""
    k = 0
    while (Path(folder) / f"batch_{k:05d}.npz").exists():
        yield Path(folder) / f"batch_{k:05d}.npz"
        k += 1


def _ideal_main(args):
    from mockgo import pretrained  # Keras: imported only when a network is loaded

    try:
        data = saved_value_data(args.data)
        policy = PolicyPlayer(pretrained.load(args.ideal), temperature=1.0, name=args.ideal)
        phases = value_data_ideal(data, policy, args.out, per_phase=args.per_phase,
                                  rollouts=args.rollouts, test_positions=args.test,
                                  validation_positions=args.validation, progress=True)
    except (FileNotFoundError, KeyError, ValueError) as error:
        print(f"value_curve: {error}", file=sys.stderr)
        return 2
    for p in phases:
        print(f"moves {p['moves']}: constant {p['constant']}, {args.rollouts} rollouts "
              f"{p['rollouts']}, ideal {p['ideal']} (standard error {p['ideal_se']}; "
              f"{p['count']} positions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
