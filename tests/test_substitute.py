"""A host function replaced by its poison wherever the answer references it
(autograder/witness/substitute.py): the poison of a ufunc is called as the ufunc is and
writes poison values wherever the ufunc writes; every reference is reached, and put back."""
import functools

import numpy as np
import pytest
import scipy.special as sps

from autograder.shared import poison
from autograder.witness import substitute


def test_named_functions_are_replaced_wherever_they_are_referenced():
    from scipy.special import gammaln as alias
    part = functools.partial(sps.gammaln)
    with_default = lambda a, f=sps.gammaln: f(a)  # noqa: E731
    holder = {"inner": [sps.gammaln]}

    def closure():
        g = sps.gammaln
        return lambda a: g(a)
    class Holder:
        def __init__(self):
            self.fn = sps.gammaln

    class Slotted:
        __slots__ = ("fn",)

        def __init__(self):
            self.fn = sps.gammaln
    obj, slotted = Holder(), Slotted()
    with_args = functools.partial(lambda f, a: f(a), sps.gammaln)
    # with otypes, np.vectorize caches a ufunc made from the function; `read` has its
    # attributes in a dict of their own (vars), which is then what holds the function
    vectorized, read = (np.vectorize(sps.gammaln, otypes=[np.float64]) for _ in range(2))
    vectorized(np.ones(2))
    read(np.ones(2))
    assert vars(read)["pyfunc"] is sps.gammaln
    uses = (lambda a: alias(a), part, with_default, lambda a: holder["inner"][0](a), closure(),
            lambda a: sps.gammaln(a), lambda a: obj.fn(a), lambda a: slotted.fn(a), with_args,
            vectorized, read)   # as host functions reach it: globals, cells, defaults, attributes
    one = np.ones(3)
    with substitute.poisoned("scipy.special.gammaln"):
        for use in uses:   # np.vectorize calls it one element at a time
            assert np.all(poison.straight(use(one), [3])), use
    for use in uses:
        np.testing.assert_array_equal(use(one), np.zeros(3))
    assert sps.gammaln is alias and holder["inner"][0] is alias


# ---- the poison of a ufunc: called as the ufunc is, every output element a poison value ----

POISONED = substitute.PoisonUfunc(sps.gammaln)
A32 = np.linspace(0.5, 6.0, 12, dtype=np.float32).reshape(3, 4)


def _all_poison(values, size: int | None = None) -> bool:
    """Is every element a poison value (of the first `size`, default: as many as elements)?"""
    values = np.asarray(values)
    return bool(np.all(poison.straight(values, [values.size if size is None else size])))


@pytest.mark.parametrize("call", [
    lambda f, a: f(a),
    lambda f, a: f(a, out=np.empty_like(a)),
    lambda f, a: f(a, out=(np.empty_like(a),)),
    lambda f, a: f(a, np.empty_like(a)),                      # out given by position
    lambda f, a: f(a, dtype=np.float64),
    lambda f, a: f(a.astype(np.float64), out=np.empty_like(a), casting="same_kind"),
    lambda f, a: f(a.tolist()),
    lambda f, a: f(np.asfortranarray(a)),
    lambda f, a: f(a[:, ::2]),
    lambda f, a: np.vectorize(f, otypes=[np.float32])(a),
])
def test_the_poison_is_called_like_the_ufunc(call):
    real = call(sps.gammaln, A32)
    got = call(POISONED, A32)
    assert (type(got), got.dtype, got.shape) == (type(real), real.dtype, real.shape)
    assert _all_poison(got) and not np.any(got == real)


def test_the_poison_writes_where_the_ufunc_writes():
    buf = np.full_like(A32, 7.0)
    assert POISONED(A32, out=buf) is buf and _all_poison(buf)
    buf[:] = 7.0
    assert POISONED(A32, buf) is buf and _all_poison(buf)
    buf[:] = 7.0
    mask = A32 > 3
    POISONED(A32, out=buf, where=mask)   # elements where leaves out keep what out held
    assert _all_poison(buf[mask], buf.size) and np.all(buf[~mask] == 7.0)
    into = A32.copy()
    POISONED(into, out=into)                  # in place
    assert _all_poison(into)
    at = A32.copy()
    POISONED.at(at, [0, 2])                   # ufunc.at: rows 0 and 2 in place, row 1 untouched
    assert _all_poison(at[[0, 2]], at.size) and np.array_equal(at[1], A32[1])


def test_the_poison_of_a_scalar_is_a_numpy_scalar():
    for x in (2.5, 3, np.float32(2.5)):
        real, got = sps.gammaln(x), POISONED(x)
        assert type(got) is type(real) and _all_poison(got) and got != real


def test_the_poison_fails_where_the_ufunc_fails_and_has_its_attributes():
    def error(call):
        try:
            call()
        except Exception as exc:  # noqa: BLE001
            return type(exc)
        return None
    for call in (lambda f: f(A32, out=np.empty(3)), lambda f: f(A32, out=np.empty_like(A32, dtype=np.int32)),
                 lambda f: f(A32, A32, A32), lambda f: f("x"), lambda f: f.reduce(A32),
                 lambda f: f.outer(A32, A32), lambda f: f.accumulate(A32)):
        assert error(lambda: call(sps.gammaln)) is not None
        assert error(lambda: call(POISONED)) is error(lambda: call(sps.gammaln))
    for name in ("nin", "nout", "nargs", "ntypes", "types", "identity", "signature", "__name__"):
        assert getattr(POISONED, name) == getattr(sps.gammaln, name), name
    assert repr(POISONED) == repr(sps.gammaln)
    both = substitute.PoisonUfunc(np.add)   # a binary ufunc's methods write poison too
    assert _all_poison(both.reduce(A32, axis=0)) and _all_poison(both.outer(A32[0], A32[1]))
    assert _all_poison(both.accumulate(A32, axis=1))


# ---- replaced(): wherever the answer holds the original, containers of any kind included ----

NOTEBOOK = """
import collections, dataclasses, functools, types
import numpy as np
import scipy.special as sps

FNS = (sps.gammaln, sps.digamma)
PAIRS = (("g", sps.gammaln), ("d", sps.digamma))
TABLE = [{"g": sps.gammaln}]
NAMED = collections.namedtuple("Named", "g d")(sps.gammaln, sps.digamma)
SPACE = types.SimpleNamespace(fns=(sps.gammaln,))
FROZEN = frozenset({sps.gammaln})
MEMBERS = {sps.gammaln}
QUEUE = collections.deque([sps.gammaln])
DEEP = {"a": [{"b": ((((sps.gammaln,),),),)}]}
DEFAULTS = functools.partial(lambda a, fns: fns[0](a), fns=(sps.gammaln,))


@dataclasses.dataclass(frozen=True)
class Frozen:
    fns: tuple


@dataclasses.dataclass(frozen=True, slots=True)
class Slotted:
    fns: tuple


class Kept:
    fn = sps.gammaln   # a class attribute: read through the class and its instances


FROZEN_ONE, SLOTTED_ONE, KEPT = Frozen((0, sps.gammaln)), Slotted(((sps.gammaln,),)), Kept()


def with_default(a, fns=(sps.digamma, sps.gammaln)):
    return fns[1](a)


USES = {
    "tuple": lambda a: FNS[0](a), "tuple in tuple": lambda a: PAIRS[0][1](a),
    "dict in list": lambda a: TABLE[0]["g"](a), "namedtuple": lambda a: NAMED.g(a),
    "namespace": lambda a: SPACE.fns[0](a), "frozenset": lambda a: next(iter(FROZEN))(a),
    "set": lambda a: next(iter(MEMBERS))(a), "deque": lambda a: QUEUE[0](a),
    "deep": lambda a: DEEP["a"][0]["b"][0][0][0][0](a), "partial keyword": DEFAULTS,
    "frozen dataclass": lambda a: FROZEN_ONE.fns[1](a), "slotted dataclass": lambda a: SLOTTED_ONE.fns[0][0](a),
    "class attribute": lambda a: Kept.fn(a), "class attribute via instance": lambda a: KEPT.fn(a),
    "default tuple": with_default,
}
"""


def test_replaced_reaches_the_original_in_any_container_and_puts_everything_back():
    ns: dict = {}
    exec(NOTEBOOK, ns)   # a notebook's globals
    kept = ("FNS", "PAIRS", "TABLE", "NAMED", "SPACE", "FROZEN", "MEMBERS", "DEEP", "FROZEN_ONE", "SLOTTED_ONE")
    before = {name: ns[name] for name in kept}
    one = np.ones(3)
    for name, use in ns["USES"].items():   # once, before: every class attribute cache is warm
        np.testing.assert_array_equal(use(one), np.zeros(3))
    with substitute.poisoned("scipy.special.gammaln"):
        for name, use in ns["USES"].items():
            assert _all_poison(use(one)), name
        assert ns["FNS"][1] is sps.digamma and ns["PAIRS"][1] == ("d", sps.digamma)   # the rest as it was
    for name, use in ns["USES"].items():
        np.testing.assert_array_equal(use(one), np.zeros(3))
    assert all(ns[name] is value for name, value in before.items())   # the very objects, not copies
    assert ns["FNS"] == (sps.gammaln, sps.digamma) and ns["Kept"].fn is sps.gammaln
    assert ns["MEMBERS"] == {sps.gammaln} and ns["SLOTTED_ONE"].fns == ((sps.gammaln,),)
