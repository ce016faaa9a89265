"""Exercises for the notebooks, each with ``check``, ``hint`` and ``solution``
(after Kaggle's learntools and the exercises that end each section of
*Dive into Deep Learning*).

Every notebook ends with a few exercises. Each has a skeleton cell, where the
learner writes a function, and a line that checks it::

    from mockgo.exercises import Exercises
    EX = Exercises("01_supervised", headless=NB.quick)

    def capture_plane(board):
        ...  # your code here

    EX.capture_plane.check(capture_plane, boards=BOARDS)
    # EX.capture_plane.hint()       a nudge
    # EX.capture_plane.solution()   the answer, as code

``check`` runs the learner's function on the notebook's data and says what is
right or what is not yet; it never raises for a wrong answer, so a notebook
with exercises left undone still runs to its end. A notebook executed
headless (quick mode: ``make notebooks``, the tests) has nobody to write the
answers, so with ``headless=True`` an answer that is not right yet is
replaced by the solution, which must then pass the same check (an
AssertionError if not: a broken exercise fails the notebook's test).

The exercises of notebook ``NN_name`` live in the module of this package
named in :data:`MODULES`; each defines :class:`Exercise` objects at its top
level, with the skeleton the notebook shows (``skeleton``: the tests check
that it fails the check and that the solution passes).
"""

import dataclasses
import importlib
import inspect
import textwrap
import typing

__all__ = ["BoundExercise", "Exercise", "Exercises", "MODULES", "NotYet", "exercises_of"]

#: Notebook -> the module of this package that holds its exercises.
MODULES = {"01_supervised": "supervised", "02_value_net": "value_net",
           "03_policy_gradient": "policy_gradient", "04_zero_selfplay": "zero_selfplay",
           "05_arena": "arena"}


class NotYet(Exception):
    """Raised by an exercise's checker: the answer is not right yet, and why
    (the message is what the learner reads)."""


@dataclasses.dataclass(frozen=True)
class Exercise:
    """One exercise. ``checker(answer, **context)`` raises :class:`NotYet`
    with what is wrong, or returns a sentence saying what the answer got
    right (with its numbers). ``solution`` and ``skeleton`` are functions
    with the signature the notebook's skeleton cell asks for: the skeleton is
    what the learner starts from (it must not pass), the solution what
    :meth:`solution` shows and a headless run uses."""

    name: str
    title: str
    checker: typing.Callable
    solution_function: typing.Callable
    skeleton: typing.Callable
    hint_text: str

    def run_check(self, answer, **context):
        """``(passed, message)`` for ``answer``; an exception raised by the
        answer itself counts as not passed, with its message."""
        try:
            return True, self.checker(answer, **context)
        except NotYet as not_yet:
            return False, str(not_yet)
        except NotImplementedError:
            return False, "the function is not written yet (it raises NotImplementedError)"
        except Exception as error:  # the learner's code failed: say how, do not stop
            return False, f"the answer raised {type(error).__name__}: {error}"

    def hint(self):
        print(f"Hint ({self.title}): {self.hint_text}")

    def solution(self):
        """Print the solution's code."""
        print(textwrap.dedent(inspect.getsource(self.solution_function)))


@dataclasses.dataclass(frozen=True)
class BoundExercise:
    """An :class:`Exercise` as a notebook uses it: ``check``, ``hint`` and
    ``solution``, with the notebook's ``headless`` setting."""

    exercise: Exercise
    headless: bool

    def check(self, answer, **context):
        """Check ``answer`` (module docstring) and say what is right or not
        yet; nothing is returned, so a notebook cell shows the sentence
        only. Headless, an answer that does not pass is replaced by the
        solution, whose check must pass."""
        passed, message = self.exercise.run_check(answer, **context)
        if passed:
            print(f"Correct ({self.exercise.title}): {message}")
            return
        print(f"Not yet ({self.exercise.title}): {message}")
        if not self.headless:
            print(f"EX.{self.exercise.name}.hint() gives a hint, "
                  f"EX.{self.exercise.name}.solution() the answer.")
            return
        # Nobody writes answers in a headless run: the solution stands in, and must pass.
        try:
            message = self.exercise.checker(self.exercise.solution_function, **context)
        except NotYet as not_yet:
            raise AssertionError(f"exercise {self.exercise.name}: the solution fails its own "
                                 f"check: {not_yet}") from None
        print(f"Headless run: the solution stands in for the answer. {message}")

    def hint(self):
        self.exercise.hint()

    def solution(self):
        self.exercise.solution()


class Exercises:
    """A notebook's exercises, each an attribute: ``Exercises("01_supervised",
    headless=NB.quick).capture_plane.check(...)``."""

    def __init__(self, notebook, headless=False):
        if notebook not in MODULES:
            raise ValueError(f"no exercises for {notebook!r}; known: {', '.join(MODULES)}")
        self.notebook = notebook
        self.headless = bool(headless)
        self.module = importlib.import_module(f"{__name__}.{MODULES[notebook]}")
        self._exercises = {e.name: e for e in exercises_of(self.module)}

    def __getattr__(self, name):
        exercises = self.__dict__.get("_exercises", {})
        if name in exercises:
            return BoundExercise(exercises[name], self.headless)
        raise AttributeError(f"notebook {self.__dict__.get('notebook')} has no exercise "
                             f"{name!r}; it has: {', '.join(exercises)}")

    def __dir__(self):
        return [*super().__dir__(), *self._exercises]

    def __repr__(self):
        return f"Exercises({self.notebook!r}: {', '.join(self._exercises)})"


def exercises_of(module):
    """The :class:`Exercise` objects a module defines, in order."""
    return [value for value in vars(module).values() if isinstance(value, Exercise)]
