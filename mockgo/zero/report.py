"""What a run prints about itself: one line on each completed generation
(self-play, training, holdout losses, evaluation and strength matches), read
off the generation's record in the run's state (:mod:`mockgo.zero.run`)."""

__all__ = ["generation_line"]


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
