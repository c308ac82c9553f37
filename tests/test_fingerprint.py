"""Deep fingerprints of state (autograder/witness/fingerprint.py): a change at any depth,
in attributes, slots, closures and class attributes, is seen; cycles, shared objects and
big arrays cost a bounded walk; the libraries' own caches are not the notebook's state."""
import collections
import types

import jax
import numpy as np
import pytest

from autograder.witness.fingerprint import fingerprint


def test_fingerprints_see_nested_and_attribute_state():
    state = {"log": [[1, 2]]}

    def host(a):
        return a
    before = fingerprint(state), fingerprint(host)
    state["log"][0].append(3)
    host.calls = 1
    assert fingerprint(state) != before[0] and fingerprint(host) != before[1]


class _Record:
    __slots__ = ("seen",)

    def __init__(self):
        self.seen = []


def _deep(depth: int):
    """A list `depth` containers down in dicts and lists: (the outer container, the list)."""
    inner = outer = []
    for i in range(depth):
        outer = {"k": outer} if i % 2 else [outer]
    return outer, inner


_OBJECTS = types.SimpleNamespace


@pytest.mark.parametrize("make", [
    lambda: _deep(7), lambda: _deep(40), lambda: _deep(5000),       # beyond any fixed depth
    lambda: (lambda r: ({"a": [r]}, r.seen))(_OBJECTS(seen=[])),     # an attribute in a list in a dict
    lambda: (lambda r: ({"a": [[r]]}, r.seen))(_Record()),           # a slot
    lambda: (lambda d: ({"q": d}, d))(collections.deque()),
    lambda: (lambda d: ([d], d["x"]))(collections.defaultdict(list, x=[])),
    lambda: (lambda s: ({"s": s}, s))(set()),
])
def test_fingerprints_see_a_change_at_any_depth(make):
    root, target = make()
    before = fingerprint(root)
    assert fingerprint(root) == before   # the same state, the same digest
    target.append(1) if hasattr(target, "append") else target.add(1)
    assert fingerprint(root) != before


def test_fingerprints_handle_cycles_shared_objects_and_big_arrays():
    ring: list = [1]
    ring.append({"ring": ring, "again": ring})
    before = fingerprint(ring)
    ring[1]["n"] = 2
    assert fingerprint(ring) != before
    big = np.zeros(20_000_000, np.float32)      # 80 MB: hashed, never copied
    state = {"big": [big, big[::2]]}
    before = fingerprint(state)
    big[-1] = 1
    assert fingerprint(state) != before
    many = list(range(2_000_000))               # more than the budget: bounded, still stable
    assert fingerprint(many) == fingerprint(many)


def test_fingerprints_see_closures_of_many_functions_and_class_attributes():
    """Each function's closure is its own: state in the last one is seen (a closure walked
    through a temporary list once shared the id of another)."""
    def make():
        state: list = []
        return (lambda: state), state
    pairs = [make() for _ in range(20)]
    root = {"fns": [f for f, _ in pairs]}
    before = fingerprint(root)
    pairs[-1][1].append(1)
    assert fingerprint(root) != before
    ns: dict = {"__name__": "__main__"}
    exec("class Counter:\n    calls = []\n", ns)   # a class the notebook defines
    before = fingerprint(ns["Counter"])
    ns["Counter"].calls.append(1)
    assert fingerprint(ns["Counter"]) != before
    # an instance of a class that no global names: its class's attributes are its state
    exec("def make():\n    class Local:\n        n = 0\n    return Local()\nobj = make()\n", ns)
    before = fingerprint(ns["obj"])
    type(ns["obj"]).n += 1
    assert fingerprint(ns["obj"]) != before


def test_fingerprints_do_not_see_the_libraries_caches():
    """A jitted function and an np.vectorize fill their own caches when called: not the
    notebook's state."""
    jitted = jax.jit(lambda v: v * 2)
    vectorized = np.vectorize(lambda v: v * 2)
    root = {"jitted": jitted, "vectorized": vectorized}
    before = fingerprint(root)
    jitted(np.ones(3, np.float32)).block_until_ready()
    vectorized(np.ones(3))
    assert fingerprint(root) == before
