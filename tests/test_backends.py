"""Every learner trains on JAX as on TensorFlow: a few training steps of the
SL policy, the value network, REINFORCE, the Zero loop and the recipe, run
by their own tests in a process with ``KERAS_BACKEND=jax`` that cannot
import TensorFlow (as on a GPU machine set up for JAX alone). The rest of
the suite runs on the default backend, TensorFlow; a process has one Keras
backend, so the JAX run is a pytest of its own, in one child process (a
second would import JAX and Keras again)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# A machine with JAX and no TensorFlow (a GPU machine set up for JAX): here
# TensorFlow is installed, so the child process is made unable to import it.
# (Keras itself imports TensorFlow wherever it can, e.g. to serialise a
# model, so "not imported" would test Keras, not mockgo.)
WITHOUT_TENSORFLOW = """
import sys
class NoTensorFlow:
    def find_spec(self, name, path=None, target=None):
        if name == "tensorflow" or name.startswith("tensorflow."):
            raise ModuleNotFoundError("No module named 'tensorflow'")
sys.meta_path.insert(0, NoTensorFlow())
"""

# A few tests of each learner: training, and resuming where it matters.
LEARNER_TESTS = [
    "tests/test_recipe.py::test_the_tiny_recipe_runs_every_stage_and_resumes",
    "tests/test_training.py::test_a_tiny_net_overfits_64_positions",
    "tests/test_training.py::test_a_dual_network_learns_the_moves_and_the_result_of_a_game_and_resumes",
    "tests/test_training.py::test_an_interrupted_run_resumes_at_the_next_epoch",
    "tests/test_reinforce.py::test_rewarded_moves_get_more_likely_and_punished_ones_less",
    "tests/test_reinforce.py::test_update_is_the_same_in_chunks_and_with_packed_planes",
    "tests/test_reinforce.py::test_halves_give_the_same_step_and_measure_the_gradients_spread",
    "tests/test_reinforce.py::test_a_partner_of_another_architecture_is_played_and_learned_from",
    "tests/test_reinforce.py::test_value_fit_resumes_where_it_stopped",
    # Self-play, training (stopped and resumed), validation, promotion and a
    # second generation: the Zero loop's steps, without test_zero's
    # two-generation run of the command line (a minute of JAX compiling for
    # the same steps, which the TensorFlow run tests).
    "tests/test_zero.py::test_train_resumes_from_its_last_epoch",
]


@pytest.mark.slow
def test_the_learners_train_under_jax_without_tensorflow(tmp_path):
    script = WITHOUT_TENSORFLOW + (
        "import pytest\n"
        f"code = pytest.main(['-q', '-p', 'no:cacheprovider', '--basetemp', {str(tmp_path)!r}, "
        f"*{LEARNER_TESTS!r}])\n"
        "import keras\n"
        "assert keras.backend.backend() == 'jax', keras.backend.backend()\n"
        "assert 'tensorflow' not in sys.modules\n"
        "sys.exit(code)\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True,
                          text=True, timeout=900, env={**os.environ, "KERAS_BACKEND": "jax"})
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    summary = done.stdout.strip().splitlines()[-1]
    passed = re.search(r"(\d+) passed", summary)
    # Some of them are parametrised: at least one run each, none skipped.
    assert passed and int(passed.group(1)) >= len(LEARNER_TESTS), summary
    assert "skipped" not in summary and "failed" not in summary, summary
