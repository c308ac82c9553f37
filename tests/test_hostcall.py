"""One call of a host function observed from below Python (autograder/witness/hostcall.py):
output on fds 1 and 2, files opened, JAX computing inside it, warnings and errors; and a
purity check that observes each call on its own."""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autograder.assignments.pure_callback_doubler import witness
from autograder.witness import hostcall

hostcall.install()


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
    assert getattr(seen, field), seen
    clean = hostcall.call(lambda a: np.asarray(a) * 2, np.ones(3, np.float32))
    assert not clean.output and not clean.files and not clean.jax and not clean.events
    np.testing.assert_array_equal(clean.result, 2 * np.ones(3))


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
    assert hostcall.call(host, np.ones(3, np.float32)).jax is computes


def test_warnings_are_not_output():
    seen = hostcall.call(lambda a: a * np.float32(2), np.float32([3e38]))
    assert not seen.output and "overflow" in seen.warnings[0]


def test_a_raising_host_function_is_reported_not_raised():
    seen = hostcall.call(lambda a: (_ for _ in ()).throw(ValueError("no NaN please")), 1)
    assert seen.error.startswith("ValueError: no NaN please")


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
    calls = witness.host_purity(ns["wrapper"], np.ones(2, np.float32), inputs, ns).calls
    assert [c.via for c in calls] == ["direct", "eager", "jit"]
    assert not any(c.changed or c.output for c in calls), calls
    saved = np.geterr()
    try:
        for _ in range(2):   # the second grading question sees it as well as the first
            calls = witness.host_purity(ns["impure"], np.ones(2, np.float32), inputs, ns).calls
            assert all(c.changed == ["NumPy's error state (np.seterr)"] for c in calls), calls
    finally:
        np.seterr(**saved)
