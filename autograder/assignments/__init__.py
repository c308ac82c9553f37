"""The exercises, one package each: `autograder/assignments/<name>/` holds everything of an
exercise that is not secret. Its `__init__.py` is the exercise's record (`EXERCISE`, what the
platform needs to know of it); `grader.py` is what its test cells share (run in the grader,
and in the student's process under grader.check: it asks only through `probe` and judges
with `checks`). The master notebook (assignments/<name>/) and the answer catalogue
(solutions/<name>/) stay outside the package.

The platform names no exercise: it reads them through `ALL` and `get(name)`. Adding one
means three folders spelled `<name>`: assignments/, autograder/assignments/, solutions/.
"""
from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field

from autograder.shared import paths, probe


@dataclass(frozen=True)
class Exercise:
    """What the platform reads of one exercise."""
    name: str
    core: str                              # the core requirement, as the task text names it
    witness_imports: tuple[str, ...] = ()  # imported (and guarded) in the witness before the notebook
    answer_kernels: bool = False           # the answer writes C++: the executor runs the libraries its notebook loaded
    sections: Mapping[str, str] = field(default_factory=dict)   # concept -> the chapter section teaching it

    def case(self, env, *, concept: str, before=None, after=None):
        """The test cells' one ritual: `with kit.case(env, concept="...") as ask:` connects to
        the answer with this exercise's observations (probe.case); a failure names the chapter
        section that teaches `concept` (tests/test_point_tables.py: every concept has one)."""
        return probe.case(env, concept=concept, exercise=self.name, before=before, after=after,
                          section=self.sections.get(concept, ""))


def get(name: str) -> Exercise:
    """The record of exercise `name` (ValueError for a name that is none)."""
    if name not in paths.NAMES:
        raise ValueError(f"{name!r} is not an assignment; choose one of: {', '.join(paths.NAMES)}")
    return importlib.import_module(f"{__name__}.{name}").EXERCISE


def record(name: str) -> Exercise:
    """The record of `name`, or, for an Otter assignment that is none of these (the runner's
    tests grade a toy one), a record that asks for nothing: no witness imports, no C++."""
    return get(name) if name in paths.NAMES else Exercise(name=name, core="")


ALL: tuple[Exercise, ...] = tuple(get(name) for name in paths.NAMES)
