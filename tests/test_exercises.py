"""The exercises' machinery (mockgo.exercises) and how every notebook uses it.
Each notebook's own exercises are tested in tests/test_exercises_NN.py: each
check fails on the skeleton the notebook shows and passes on the solution."""

import inspect
import textwrap
from pathlib import Path

import nbformat
import pytest

from mockgo.exercises import MODULES, BoundExercise, Exercise, Exercises, NotYet, exercises_of

NOTEBOOKS_DIR = Path(__file__).resolve().parent.parent / "notebooks"


def _double_checker(answer, numbers):
    got = [answer(n) for n in numbers]
    if got != [2 * n for n in numbers]:
        raise NotYet(f"double({numbers[0]}) gave {got[0]}")
    return f"{len(numbers)} numbers doubled"


def _double(n):
    return 2 * n


def _double_skeleton(n):
    raise NotImplementedError  # your code here


DOUBLE = Exercise("double", "doubling", _double_checker, _double, _double_skeleton,
                  "multiply by two")


def test_a_check_says_what_is_right_or_not_yet_and_never_raises_for_the_learner(capsys):
    learner = BoundExercise(DOUBLE, headless=False)
    learner.check(_double, numbers=[1, 2])
    assert "Correct (doubling): 2 numbers doubled" in capsys.readouterr().out
    learner.check(_double_skeleton, numbers=[1, 2])
    out = capsys.readouterr().out
    assert "Not yet (doubling): the function is not written yet" in out and "hint()" in out
    learner.check(lambda n: n + 1, numbers=[3])
    assert "double(3) gave 4" in capsys.readouterr().out
    learner.check(lambda n: 1 / 0, numbers=[3])
    assert "ZeroDivisionError" in capsys.readouterr().out


def test_headless_the_solution_stands_in_and_must_pass(capsys):
    BoundExercise(DOUBLE, headless=True).check(_double_skeleton, numbers=[5])
    assert "the solution stands in for the answer. 1 numbers doubled" in capsys.readouterr().out
    broken = Exercise("double", "doubling", _double_checker, lambda n: n, _double_skeleton, "")
    with pytest.raises(AssertionError, match="the solution fails its own check"):
        BoundExercise(broken, headless=True).check(lambda n: n, numbers=[5])


def test_hint_and_solution_print_text_and_code(capsys):
    bound = BoundExercise(DOUBLE, headless=False)
    bound.hint()
    bound.solution()
    out = capsys.readouterr().out
    assert "multiply by two" in out and "def _double(n):\n    return 2 * n" in out


def test_an_unknown_notebook_or_exercise_is_named():
    with pytest.raises(ValueError, match="no exercises for '09_go'"):
        Exercises("09_go")
    with pytest.raises(AttributeError, match="has no exercise 'nothing'"):
        Exercises("04_zero_selfplay").nothing


@pytest.mark.parametrize("notebook", sorted(MODULES))
def test_every_notebook_ends_with_its_exercises_each_skeleton_shown_and_checked(notebook):
    exercises = Exercises(notebook)
    found = exercises_of(exercises.module)
    assert 2 <= len(found) <= 4, f"{notebook}: {len(found)} exercises"
    cells = [c.source for c in nbformat.read(NOTEBOOKS_DIR / f"{notebook}.ipynb", as_version=4).cells
             if c.cell_type == "code"]
    code = "\n".join(cells)
    assert f'Exercises("{notebook}", headless=NB.quick)' in code
    for exercise in found:
        skeleton = textwrap.dedent(inspect.getsource(exercise.skeleton))
        # The notebook shows the skeleton under the name the learner fills in.
        body = skeleton.split("\n", 1)[1]
        assert body in code, f"{notebook}: the skeleton of {exercise.name} is not in a cell"
        assert f"EX.{exercise.name}.check(" in code, f"{notebook}: {exercise.name} is not checked"
