"""Provenance: the answer's compiled program re-run with pieces poisoned, and host functions
observed from below Python. Each decoy of issue 9's list that these observations must see
through has a test here; the assignments' catalogues test the verdicts built on them."""
import collections
import functools
import math
import os
import sys
import types
import uuid

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special as sps

from autograder.shared import checks, poison
from autograder.assignments.pure_callback_doubler import witness
from autograder.witness import hostcall, provenance
from kernels import build as kb

provenance.install()
hostcall.install()
import kernels.rms_norm as rn  # noqa: E402  (registered after install: its handler is recorded)

X = jnp.asarray(np.random.default_rng(0).uniform(0.5, 6.0, (3, 5)).astype(np.float32))


def _cb(fn, v):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(np.float32),
                             jax.ShapeDtypeStruct(v.shape, v.dtype), v, vmap_method="expand_dims")


def _verdicts(report, piece):
    entry = report["poisoned"][piece]
    if entry is None:
        return None
    return (bool(np.all(poison.changed(report["value"][0], entry["outputs"][0]))),
            bool(np.all(poison.straight(entry["outputs"][0], entry["sizes"]))))


def test_poison_values_are_what_the_kernel_writes():
    out = jax.ffi.ffi_call(poison.TARGET, (jax.ShapeDtypeStruct((7, 3), jnp.float32),
                                           jax.ShapeDtypeStruct((2,), jnp.float32)))(X)
    np.testing.assert_array_equal(np.asarray(out[0]).ravel(), poison.values(21))
    np.testing.assert_array_equal(np.asarray(out[1]), poison.values(2))
    pool = poison.values(10000)   # 23 random bits: a few birthday collisions, no pattern
    assert len(set(pool.tolist())) > 9990 and np.all((np.abs(pool) >= 1) & (np.abs(pool) < 2))


def test_a_callback_the_output_is_made_of_is_seen_everywhere():
    report = provenance.trace(lambda v: _cb(sps.gammaln, v), X)
    assert _verdicts(report, "host_callback") == (True, True)
    assert _verdicts(report, "ffi") is None
    np.testing.assert_allclose(report["value"][0], sps.gammaln(np.asarray(X, np.float64)), rtol=1e-5)


@pytest.mark.parametrize("decoy", [
    lambda v: _cb(sps.gammaln, v) * 0 + jax.scipy.special.gammaln(v),          # times zero
    lambda v: (_cb(sps.gammaln, v), jax.scipy.special.gammaln(v))[1],            # dead code
    lambda v: jnp.where(jnp.isfinite(_cb(sps.gammaln, v)), jax.scipy.special.gammaln(v), 0.0),
])
def test_a_decoy_callback_changes_nothing(decoy):
    report = provenance.trace(decoy, X)
    assert _verdicts(report, "host_callback") in (None, (False, False))


def test_arithmetic_after_the_piece_is_not_straight():
    report = provenance.trace(lambda v: _cb(np.sin, v) * 2.0, X)
    assert _verdicts(report, "host_callback") == (True, False)
    report = provenance.trace(lambda v: _cb(np.sin, v.ravel()).reshape(v.shape).T, X)
    assert _verdicts(report, "host_callback") == (True, True)


def test_structure_is_read_on_the_inputs_graded():
    """A program that calls back only for small shapes is seen on the large input."""
    fn = lambda v: _cb(sps.gammaln, v) if v.size < 10 else jax.scipy.special.gammaln(v)  # noqa: E731
    assert _verdicts(provenance.trace(fn, X[0, :3]), "host_callback") == (True, True)
    assert _verdicts(provenance.trace(fn, X), "host_callback") is None


def test_ffi_kernels_each_call_alone_and_course_handlers():
    grad = jax.grad(lambda v: jnp.sum(rn.rms_norm(v) * v))
    report = provenance.trace(grad, X, each=True)
    targets = [c["target"] for c in report["calls"] if c["kind"] == "ffi"]
    assert targets == ["rms_norm_fwd", "rms_norm_bwd"]
    assert all(c["course"] for c in report["calls"] if c["kind"] == "ffi")
    assert _verdicts(report, "ffi")[0] is True
    live = [k for k in report["poisoned"] if k.startswith("call:")
            and _verdicts(report, k)[0]]
    assert len(live) == 2


def test_poisoning_never_leaks_into_the_cached_program():
    f = jax.jit(rn.rms_norm)
    before = np.asarray(f(X))
    provenance.trace(rn.rms_norm, X)
    np.testing.assert_array_equal(np.asarray(f(X)), before)
    np.testing.assert_array_equal(np.asarray(jax.jit(rn.rms_norm)(X)), before)


SAME_HANDLER_TWICE = r"""
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
static ffi::Error CopyImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (size_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i];
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(Copy, CopyImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
"""


def test_two_names_for_one_handler_are_one_handler(tmp_path):
    src = tmp_path / "copy.cc"
    src.write_text(SAME_HANDLER_TWICE)
    a, b = f"copy_a_{uuid.uuid4().hex[:6]}", f"copy_b_{uuid.uuid4().hex[:6]}"
    kb.load_and_register(src, {a: "Copy"})
    kb.load_and_register(src, {b: "Copy"})
    ha, hb = provenance.handler(a), provenance.handler(b)
    assert ha["handler"] == hb["handler"] and not ha["course"]
    assert provenance.handler("rms_norm")["course"] and provenance.handler("rms_norm")["handler"] != ha["handler"]


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
    vectorized = np.vectorize(sps.gammaln)
    vectorized(np.ones(2))          # caches a ufunc made from the function
    uses = (lambda a: alias(a), part, with_default, lambda a: holder["inner"][0](a), closure(),
            lambda a: sps.gammaln(a), lambda a: obj.fn(a), lambda a: slotted.fn(a), with_args,
            vectorized)   # as host functions reach it: globals, cells, defaults, attributes
    one = np.ones(3)
    with provenance.replaced(sps.gammaln, provenance.poison_for(sps.gammaln)):
        for use in uses:   # np.vectorize calls it one element at a time
            assert np.all(poison.straight(use(one), [3])), use
    for use in uses:
        np.testing.assert_array_equal(use(one), np.zeros(3))
    assert sps.gammaln is alias and holder["inner"][0] is alias


# ---- the poison of a ufunc: called as the ufunc is, every output element a poison value ----

POISONED = provenance.PoisonUfunc(sps.gammaln)
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
    both = provenance.PoisonUfunc(np.add)   # a binary ufunc's methods write poison too
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
    with provenance.replaced(sps.gammaln, provenance.poison_for(sps.gammaln)):
        for name, use in ns["USES"].items():
            assert _all_poison(use(one)), name
        assert ns["FNS"][1] is sps.digamma and ns["PAIRS"][1] == ("d", sps.digamma)   # the rest as it was
    for name, use in ns["USES"].items():
        np.testing.assert_array_equal(use(one), np.zeros(3))
    assert all(ns[name] is value for name, value in before.items())   # the very objects, not copies
    assert ns["FNS"] == (sps.gammaln, sps.digamma) and ns["Kept"].fn is sps.gammaln
    assert ns["MEMBERS"] == {sps.gammaln} and ns["SLOTTED_ONE"].fns == ((sps.gammaln,),)


def test_a_host_function_writing_into_out_depends_on_scipy():
    def host(a):
        buf = np.empty_like(np.asarray(a))
        sps.gammaln(np.asarray(a), out=buf)
        return buf

    fns = (sps.gammaln,)
    in_tuple = lambda a: fns[0](np.asarray(a)).astype(np.float32)  # noqa: E731
    for fn in (host, in_tuple, sps.gammaln):
        cb = lambda v, fn=fn: jax.pure_callback(fn, jax.ShapeDtypeStruct(v.shape, v.dtype), v)  # noqa: E731
        report = provenance.trace(cb, X, kinds=(), replace=("scipy.special.gammaln",))
        assert _verdicts(report, "scipy.special.gammaln") == (True, True), fn


def test_a_host_function_that_avoids_scipy_is_seen():
    lgamma = np.vectorize(math.lgamma)
    honest = provenance.trace(lambda v: _cb(sps.gammaln, v), X, kinds=(), replace=("scipy.special.gammaln",))
    other = provenance.trace(lambda v: _cb(lgamma, v), X, kinds=(), replace=("scipy.special.gammaln",))
    assert _verdicts(honest, "scipy.special.gammaln") == (True, True)
    assert _verdicts(other, "scipy.special.gammaln") == (False, False)
    assert sps.gammaln(1.0) == 0.0


def test_hlo_opcodes_are_read_after_dead_code_is_gone():
    assert "exp" in provenance.hlo_opcodes(lambda v: jax.nn.silu(v), X)
    assert "exp" not in provenance.hlo_opcodes(lambda v: (jnp.exp(v), v * 2)[1], X)
    ops = provenance.hlo_opcodes(rn.rms_norm, X)
    assert "custom-call" in ops and not set(ops) & checks.TRANSCENDENTAL


def _prints_dunder(a):
    print("x", file=sys.__stdout__)
    return a


def _writes_fd(a):
    os.write(1, b"raw\n")
    return a


def _reads_file(a):
    with open("/etc/hostname") as f:
        f.read()
    return a


@pytest.mark.parametrize("host, field", [
    (_prints_dunder, "output"), (_writes_fd, "output"),
    (lambda a: (print("p"), a)[1], "output"),
    (_reads_file, "files"),
    (lambda a: np.asarray(jnp.asarray(a) * 2), "jax"),
])
def test_a_host_call_is_observed_below_python(host, field):
    seen = hostcall.call(host, np.ones(3, np.float32))
    assert seen[field], seen
    clean = hostcall.call(lambda a: np.asarray(a) * 2, np.ones(3, np.float32))
    assert not clean["output"] and not clean["files"] and not clean["jax"] and not clean["events"]
    np.testing.assert_array_equal(clean["result"], 2 * np.ones(3))


_CACHED = jax.jit(lambda v: v * 2)


@pytest.mark.parametrize("host, computes", [
    (lambda a: (np.asarray(a) * 2).astype(jnp.float32), False),     # naming a JAX dtype
    (lambda a: np.zeros(np.shape(a), dtype=jnp.float32) + a, False),
    (lambda a: np.asarray(jnp.asarray(a)) * 2, True),                # a device_put
    (lambda a: np.asarray(a) * jnp.float32(2), True),
    (lambda a: np.asarray(_CACHED(np.asarray(a))), True),            # a cached jit: no Python of JAX's runs
])
def test_jax_counts_where_jax_computes(host, computes):
    _CACHED(np.ones(3, np.float32)).block_until_ready()
    assert hostcall.call(host, np.ones(3, np.float32))["jax"] is computes


def test_warnings_are_not_output():
    seen = hostcall.call(lambda a: a * np.float32(2), np.float32([3e38]))
    assert not seen["output"] and "overflow" in seen["warnings"][0]


def test_a_raising_host_function_is_reported_not_raised():
    seen = hostcall.call(lambda a: (_ for _ in ()).throw(ValueError("no NaN please")), 1)
    assert seen["error"].startswith("ValueError: no NaN please")


def test_fingerprints_see_nested_and_attribute_state():
    state = {"log": [[1, 2]]}

    def host(a):
        return a
    before = hostcall.fingerprint(state), hostcall.fingerprint(host)
    state["log"][0].append(3)
    host.calls = 1
    assert hostcall.fingerprint(state) != before[0] and hostcall.fingerprint(host) != before[1]


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
    before = hostcall.fingerprint(root)
    assert hostcall.fingerprint(root) == before   # the same state, the same digest
    target.append(1) if hasattr(target, "append") else target.add(1)
    assert hostcall.fingerprint(root) != before


def test_fingerprints_handle_cycles_shared_objects_and_big_arrays():
    ring: list = [1]
    ring.append({"ring": ring, "again": ring})
    before = hostcall.fingerprint(ring)
    ring[1]["n"] = 2
    assert hostcall.fingerprint(ring) != before
    big = np.zeros(20_000_000, np.float32)      # 80 MB: hashed, never copied
    state = {"big": [big, big[::2]]}
    before = hostcall.fingerprint(state)
    big[-1] = 1
    assert hostcall.fingerprint(state) != before
    many = list(range(2_000_000))               # more than the budget: bounded, still stable
    assert hostcall.fingerprint(many) == hostcall.fingerprint(many)


def test_fingerprints_see_closures_of_many_functions_and_class_attributes():
    """Each function's closure is its own: state in the last one is seen (a closure walked
    through a temporary list once shared the id of another)."""
    def make():
        state: list = []
        return (lambda: state), state
    pairs = [make() for _ in range(20)]
    root = {"fns": [f for f, _ in pairs]}
    before = hostcall.fingerprint(root)
    pairs[-1][1].append(1)
    assert hostcall.fingerprint(root) != before
    ns: dict = {"__name__": "__main__"}
    exec("class Counter:\n    calls = []\n", ns)   # a class the notebook defines
    before = hostcall.fingerprint(ns["Counter"])
    ns["Counter"].calls.append(1)
    assert hostcall.fingerprint(ns["Counter"]) != before
    # an instance of a class that no global names: its class's attributes are its state
    exec("def make():\n    class Local:\n        n = 0\n    return Local()\nobj = make()\n", ns)
    before = hostcall.fingerprint(ns["obj"])
    type(ns["obj"]).n += 1
    assert hostcall.fingerprint(ns["obj"]) != before


def test_purity_observes_each_host_call_on_its_own():
    """witness.host_purity: the wrapper's own state between calls is not the host function's;
    a process-wide setting the host function changes is seen on every call."""
    ns: dict = {"__name__": "__main__", "np": np, "jax": jax}
    exec("TRACED = []\n"
         "def host(a):\n    return np.asarray(a) * 2\n"
         "def wrapper(x):\n    TRACED.append(x.shape)\n"
         "    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x)\n"
         "def noisy(a):\n    np.seterr(over='ignore')\n    return np.asarray(a) * 2\n"
         "def impure(x):\n    return jax.pure_callback(noisy, jax.ShapeDtypeStruct(x.shape, x.dtype), x)\n", ns)
    inputs = [np.float32([1, 3e38])]
    calls = witness.host_purity(ns["wrapper"], np.ones(2, np.float32), inputs, ns)["calls"]
    assert [c["via"] for c in calls] == ["direct", "eager", "jit"]
    assert not any(c["changed"] or c["output"] for c in calls), calls
    saved = np.geterr()
    try:
        for _ in range(2):   # the second grading question sees it as well as the first
            calls = witness.host_purity(ns["impure"], np.ones(2, np.float32), inputs, ns)["calls"]
            assert all(c["changed"] == ["NumPy's error state (np.seterr)"] for c in calls), calls
    finally:
        np.seterr(**saved)


def test_fingerprints_do_not_see_the_libraries_caches():
    """A jitted function and an np.vectorize fill their own caches when called: not the
    notebook's state."""
    jitted = jax.jit(lambda v: v * 2)
    vectorized = np.vectorize(lambda v: v * 2)
    root = {"jitted": jitted, "vectorized": vectorized}
    before = hostcall.fingerprint(root)
    jitted(X).block_until_ready()
    vectorized(np.ones(3))
    assert hostcall.fingerprint(root) == before
