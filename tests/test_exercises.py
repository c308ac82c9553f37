"""The exercises' registry: one package per exercise under autograder/assignments/, whose
names are those of the master notebooks' and the catalogues' folders (the three places an
exercise lives), each holding its record and its grader module."""
import importlib

from autograder import assignments as exercises
from autograder.shared import paths


def test_every_exercise_lives_in_three_folders_spelled_alike():
    root = paths.repo_root()
    names = [e.name for e in exercises.ALL]
    assert names == list(paths.NAMES) and names
    for name in names:
        assert (root / "assignments" / name / f"{name}.ipynb").exists()
        assert (root / "solutions" / name / "reference.py").exists()
        assert importlib.import_module(f"autograder.assignments.{name}.grader")


def test_a_record_says_what_the_platform_reads():
    assert exercises.get("gammaln_callback").witness_imports == ("scipy.special",)
    assert [e.name for e in exercises.ALL if e.answer_kernels] == ["silu_ffi"]
    assert all(e.core for e in exercises.ALL)
    # an Otter assignment of no exercise (the runner's tests grade one) asks for nothing
    toy = exercises.record("q")
    assert (toy.witness_imports, toy.answer_kernels) == ((), False)
