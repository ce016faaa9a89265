"""Crash consistency with many kills: each long job is run to
the end once, then again with ``--kills`` SIGKILLs at random moments
(resumed with the same command after each), and the two runs' products
are compared (tests/crash_harness.py: how, and what "the same" means for
each job). Prints one JSON line per job, then a table.

    python benchmarks/crash_consistency.py --kills 10          # all seven jobs: 16 minutes
    python benchmarks/crash_consistency.py --kills 3 --jobs match dataset --match-games 24

At the default sizes all ten kills of every job landed, one job at a
time on 2 cores shared with other work (value training 213 s, REINFORCE
196 s, the Zero generation 255 s, SL training 89 s, value data 151 s, the
match 24 s, the dataset build 33 s).

``tests/test_crash_consistency.py`` runs the same jobs with one kill,
smaller, in the test suite. A job that is not the same after kills is a
finding, not an error: the script exits 1 and says what differed.
"""

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

import crash_harness as harness  # noqa: E402

# Each job's size, from the options: more work gives more checkpoints
# between the kills (and takes longer; README: the times with ten kills).
JOBS = {
    "dataset": lambda inputs, a: harness.dataset_job(inputs, games=a.dataset_games),
    "training": lambda inputs, a: harness.training_job(inputs, epochs=a.training_epochs, steps=3),
    "value": lambda inputs, a: harness.value_job(inputs, games=a.value_games),
    "value-training": lambda inputs, a: harness.value_training_job(inputs,
                                                                   epochs=a.value_epochs),
    "reinforce": lambda inputs, a: harness.reinforce_job(inputs, iterations=a.rl_iterations),
    "zero": lambda inputs, a: harness.zero_job(inputs, games=a.zero_games),
    "match": lambda inputs, a: harness.match_job(inputs, games=a.match_games),
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=10, help="SIGKILLs per job (default 10)")
    parser.add_argument("--jobs", nargs="+", choices=list(JOBS), default=list(JOBS))
    parser.add_argument("--seed", type=int, default=0, help="the kill points' seed")
    sizes = parser.add_argument_group("sizes (more work: more checkpoints between kills)")
    sizes.add_argument("--dataset-games", type=int, default=48, help="SGF games (default 48)")
    sizes.add_argument("--training-epochs", type=int, default=8,
                       help="SL training epochs of 3 batches (default 8)")
    sizes.add_argument("--value-games", type=int, default=32,
                       help="value data positions, in batches of 4 (default 32)")
    sizes.add_argument("--value-epochs", type=int, default=12,
                       help="value training epochs (default 12)")
    sizes.add_argument("--rl-iterations", type=int, default=10,
                       help="REINFORCE iterations of 4 games (default 10)")
    sizes.add_argument("--zero-games", type=int, default=12,
                       help="self-play games of the Zero generation, 2 at a time (default 12)")
    sizes.add_argument("--match-games", type=int, default=24, help="match games (default 24)")
    args = parser.parse_args(argv)
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="crash-") as scratch:
        inputs = Path(scratch) / "inputs"
        for name in args.jobs:
            try:
                outcome = harness.crash_test(JOBS[name](inputs, args), Path(scratch) / name,
                                             kills=args.kills, seed=args.seed)
            except (harness.JobFailed, TimeoutError) as error:
                # A run that would not resume (or hung) is a finding too.
                outcome = harness.Outcome(name, -1, -1, False, [str(error)[-2000:]], 0.0, 0.0,
                                          {"failed": True})
            print(outcome.line(), flush=True)
            outcomes.append(outcome)
    print()
    print(f"{'job':<16} {'kills':>5} {'resumed':>7} {'identical':>9} {'seconds':>8}  notes")
    for o in outcomes:
        notes = ", ".join(f"{k}={v}" for k, v in o.notes.items())
        print(f"{o.job:<16} {o.kills:>5} {o.resumed:>7} {'yes' if o.identical else 'no':>9} "
              f"{o.seconds:>8.1f}  {notes}")
    for o in outcomes:
        if not o.identical:
            print(f"\n{o.job}: not the same after {o.kills} kills:\n  " +
                  "\n  ".join(o.differences[:10]))
    return 0 if all(o.identical for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
