"""What a run says about itself: one line on each completed generation
(self-play, training, holdout losses, evaluation and strength matches), read
off the generation's record in the run's state (:mod:`mockgo.zero.run`), and
those lines again when a run resumes (:func:`resume_lines`); and the run's
Elo ladder (:func:`elo_chain`), read off the matches its folder
keeps in ``strength.json``."""

import math

from mockgo.play.results import elo_from_rate, wilson_interval
from mockgo.zero.layout import RunLayout, model_name, read_strength

__all__ = ["elo_chain", "generation_line", "resume_lines"]


def generation_line(rec):
    """One line on a completed generation."""
    sp, tr, va, ev = rec["selfplay"], rec["train"], rec["validate"], rec["evaluate"]
    rate = f"{sp['games_per_hour']:.0f} games/h"
    if sp.get("workers", 1) > 1:
        rate += f" a worker, {sp['job_games_per_hour']:.0f} on {sp['workers']} workers"
    line = (f"generation {rec['generation']}: {sp['games']} games by {sp['model']} "
            f"({sp['mean_moves']:.0f} moves, {rate}, "
            f"{sp['evals_per_s']:.0f} evals/s, resign FP {sp['false_positive_rate']:.0%} of "
            f"{sp['would_have_resigned']}"
            + (f", {sp['full_searches']} of {sp['full_searches'] + sp['fast_searches']} moves "
               f"searched in full" if sp.get("fast_searches") else "")
            + f"); trained on {tr['examples']} examples: "
            f"policy {tr['history']['policy_loss'][-1]:.3f} value {tr['history']['value_loss'][-1]:.3f}")
    if va.get("examples"):
        line += f" (holdout {va['policy_loss']:.3f} / {va['value_loss']:.3f})"
    if ev["games"]:
        line += (f"; vs {ev['opponent']}: {ev['wins']}/{ev['games']}"
                 f" -> {'promoted' if ev['promoted'] else 'kept ' + ev['opponent']}")
    for point in rec.get("strength", []):
        line += (f"; vs {point['opponent']}: {point['wins']}/{point['games']} after "
                 f"{point['cpu_hours']:.2f} CPU-hours")
    return line


def resume_lines(records, generations, source):
    """What the loop prints before it goes on to ``generations`` from a
    folder where the generations with ``records`` (oldest first) were made
    before (a notebook run again after an interruption): a line saying so,
    naming ``source`` (the state file), then each earlier generation's line,
    so that the output reads the same as one uninterrupted run's. Empty for
    a new run, or when there is nothing left to make."""
    if not 0 < len(records) < generations:
        return []
    lines = [f"generations 1 to {len(records)} were made before (from {source}); "
             f"going on to {generations}"]
    for g, rec in enumerate(records, 1):
        try:
            lines.append(generation_line(rec))
        except KeyError:  # a record from before the line's fields were kept
            lines.append(f"generation {g}: made (its record has no summary)")
    return lines


def elo_chain(base_dir, generations, games, readouts):
    """The Elo of each of ``generations`` (ascending, the first usually 0),
    with the random player at 0 Elo, from the matches of one run folder's
    ``strength.json`` (:meth:`mockgo.zero.run.ZeroRun.strength`): the first
    generation against ``"random"``, then each against the one before it,
    ``games`` games at ``readouts`` readouts a move.

    Each link is the Elo difference ``400 log10(p / (1 - p))`` of its win rate
    p (:func:`mockgo.play.results.elo_from_rate`), and a generation's Elo is
    the sum of the links up to it. A match won (or lost) in full gives an
    infinite difference; that link counts at the finite end of its 95%
    Wilson interval instead (a gap at least, or at most, that large), and it
    and every point after it are marked ``bound``. Win rates against a far
    weaker, fixed opponent stick at 100%; the differences of a chain keep
    moving as long as each generation beats the one before.

    Returns one dict a generation, in order: ``generation``, ``opponent``
    (the model name or ``"random"``), ``wins``, ``games``, ``win_rate``,
    ``link`` (the Elo over the opponent), ``elo`` and ``bound``. Raises
    ValueError naming the match that ``strength.json`` lacks."""
    path = RunLayout(base_dir).strength
    table = read_strength(path)
    played = {(entry.get("model"), entry.get("opponent"), entry.get("games"),
               entry.get("readouts")): entry for entry in table.values()}
    chain, elo, bound, previous = [], 0.0, False, "random"
    for generation in generations:
        name = model_name(generation)
        entry = played.get((name, previous, games, readouts))
        if entry is None:
            raise ValueError(f"{path} has no match of {name} against {previous} "
                             f"({games} games, {readouts} readouts): ZeroRun.elo_chain "
                             f"plays the matches a chain lacks")
        link = elo_from_rate(entry["win_rate"])
        if math.isinf(link):
            low, high = wilson_interval(entry["wins"], entry["games"])
            link = elo_from_rate(low if link > 0 else high)
            bound = True
        elo += link
        chain.append({"generation": generation, "opponent": previous, "wins": entry["wins"],
                      "games": entry["games"], "win_rate": entry["win_rate"], "link": link,
                      "elo": elo, "bound": bound})
        previous = name
    return chain
