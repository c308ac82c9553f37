"""The C walk of the two worlds' first pass (autograder/witness/reach.c): a namespace's
digest is stable, and changes whenever something Deep reads of its reach changes, including
what the garbage collector's traversal does not report (dict keys, an attribute renamed in
an object's inline values) and what only Python can read (NumPy scalars, random generators,
itertools' counters); the warnings machinery's bookkeeping does not count."""
import itertools
import os
import random
import types

import numpy as np
import pytest

from autograder.witness import observable, reach

KEY = os.urandom(16)


@pytest.fixture(autouse=True)
def built():
    assert reach.native is not None, "the image has no C walk built from this reach.c: make image"


def digest(space: dict) -> int:
    walk = observable.Deep(observable.BUDGET)
    (d,), left = reach.namespaces([space], [set()], [], KEY, {"__main__"}, walk._visit, walk.budget)
    assert left > 0
    return d


class Settings:
    def __init__(self):
        self.a = 1


def changes(space: dict, change) -> bool:
    before = digest(space)
    assert digest(space) == before   # stable: a second walk reads the same
    change()
    return digest(space) != before


def test_a_value_deep_inside_changes_the_digest():
    space = {"CONFIG": [{"rate": 1.0, "names": ["a", "b"]}]}
    assert changes(space, lambda: space["CONFIG"][0]["names"].append("c"))


def test_an_attribute_renamed_with_its_value_kept_changes_the_digest():
    obj = Settings()

    def rename():
        del obj.a
        obj.b = 1
    assert changes({"OBJ": obj}, rename)


def test_a_dict_subclass_key_renamed_changes_the_digest():
    import collections
    table = collections.OrderedDict(a=1)
    assert changes({"TABLE": table}, lambda: table.update(b=table.pop("a")))


@pytest.mark.parametrize("make, change", [
    (lambda: [np.float32(1)], lambda box: box.__setitem__(0, np.float32(2))),
    (lambda: random.Random(0), lambda rng: rng.random()),
    (lambda: np.random.default_rng(0), lambda rng: rng.random()),
    (lambda: itertools.count(), next),
])
def test_state_only_python_reads_changes_the_digest(make, change):
    value = make()
    assert changes({"VALUE": value}, lambda: change(value))


def test_the_warnings_bookkeeping_does_not_count():
    namespace = {"x": 1}   # a namespace held in a global (a module's own is a root: observable._NOISE_KEYS)
    assert not changes({"NS": namespace}, lambda: namespace.update(__warningregistry__={"version": 3}))


def test_a_library_class_docstring_does_not_count_a_students_does():
    library = type("Library", (), {"__module__": "json", "__doc__": "a"})
    student = type("Student", (), {"__module__": "__main__", "__doc__": "a"})
    assert not changes({"C": library}, lambda: setattr(library, "__doc__", "b"))
    assert changes({"C": student}, lambda: setattr(student, "__doc__", "b"))


def test_a_library_module_counts_by_name_a_students_by_its_globals():
    student = types.ModuleType("__main__")
    library = types.ModuleType("json")
    assert changes({"M": [student]}, lambda: setattr(student, "X", 1))
    assert not changes({"M": [library]}, lambda: setattr(library, "X", 1))


def test_names_left_out_and_modules_do_not_count():
    walk = observable.Deep(observable.BUDGET)
    space = {"kept": 1, "left": 2, "os": os}
    (before,), _ = reach.namespaces([space], [{"left"}], [], KEY, set(), walk._visit, walk.budget)
    space["left"] = 3
    space["os"] = types
    walk = observable.Deep(observable.BUDGET)
    (after,), _ = reach.namespaces([space], [{"left"}], [], KEY, set(), walk._visit, walk.budget)
    assert before == after
