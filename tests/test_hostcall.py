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
    # the input's calls, JAX's, then twice on a writable copy, once read-only, once on other values
    assert [c.via for c in calls] == ["direct", "eager", "jit", "direct", "direct", "direct", "direct"]
    assert not any(c.changed or c.output or c.effects for c in calls), calls
    saved = np.geterr()
    try:
        for _ in range(2):   # the second grading question sees it as well as the first
            calls = witness.host_purity(ns["impure"], np.ones(2, np.float32), inputs, ns).calls
            assert all(c.changed == ["NumPy's error state (np.seterr)"] for c in calls), calls
    finally:
        np.seterr(**saved)


def _effects(source: str, name: str = "wrapper") -> list[str]:
    """Every effect witness.host_purity reports of `source`'s host function behind `name`."""
    ns: dict = {"__name__": "__main__", "np": np, "jax": jax}
    exec(source + "def wrapper(x):\n    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x)\n", ns)
    report = witness.host_purity(ns[name], np.ones(3, np.float32), [np.float32([1, 2, 3]), np.float32([4])], ns)
    return [e for c in report.calls for e in c.effects] + [n for c in report.calls for n in c.changed]


def test_purity_sees_bytes_written_to_a_file_held_open(tmp_path):
    """A handler's file opened before the call: its size is compared around each call."""
    path = tmp_path / "log.txt"
    found = _effects(f"log = open({str(path)!r}, 'a', buffering=1)\n"
                     "def host(a):\n    log.write('x\\n')\n    return np.asarray(a) * 2\n")
    assert any(e.startswith("file descriptors: wrote +2 bytes to " + str(path)) for e in found), found


def test_purity_sees_an_argument_changed_in_place():
    found = _effects("def host(a):\n    if isinstance(a, np.ndarray) and a.flags.writeable:\n"
                     "        a *= 2\n        return a\n    return np.asarray(a) * 2\n")
    assert any(e.startswith("arguments: changed the NumPy array it was given") for e in found), found


def test_purity_sees_an_earlier_result_changed():
    """A shared output buffer in a C store (an anonymous mmap) that no fingerprint reads."""
    found = _effects("import mmap\nSTORE = mmap.mmap(-1, 4096)\n"
                     "def host(a):\n    a = np.asarray(a)\n"
                     "    out = np.frombuffer(STORE, np.float32, count=a.size).reshape(a.shape)\n"
                     "    return np.multiply(a, np.float32(2), out=out)\n")
    assert any(e.startswith("results: changed the array an earlier call returned") for e in found), found


def test_purity_sees_c_objects_state_and_process_settings():
    """itertools.count (its repr), a NumPy Generator (its public state), warnings.simplefilter
    (hostcall.call's catch_warnings puts it back: seen inside), np.setbufsize, logging."""
    for source, name in [("import itertools\nN = itertools.count()\ndef host(a):\n    next(N)\n"
                          "    return np.asarray(a) * 2\n", "N"),
                         ("R = np.random.default_rng(0)\ndef host(a):\n    R.random()\n"
                          "    return np.asarray(a) * 2\n", "R"),
                         ("import warnings\ndef host(a):\n    warnings.simplefilter('ignore', UserWarning)\n"
                          "    return np.asarray(a) * 2\n", "the warning filters (warnings.simplefilter)"),
                         ("def host(a):\n    np.setbufsize(np.getbufsize() + 8192)\n"
                          "    return np.asarray(a) * 2\n", "NumPy's buffer size (np.setbufsize)"),
                         ("import logging\ndef host(a):\n    logging.getLogger('h38').setLevel(logging.ERROR - len(a))\n"
                          "    return np.asarray(a) * 2\n", "logging's configuration (logging.basicConfig, setLevel, addHandler)")]:
        saved = np.getbufsize()
        try:
            assert name in _effects(source), source
        finally:
            np.setbufsize(saved)


def test_purity_valid_hosts_have_no_effects():
    """Module constants, a fresh array, np.errstate as a context manager: nothing reported."""
    for source in ["F = np.float32(2)\ndef host(a):\n    a = np.asarray(a)\n    out = np.empty_like(a)\n"
                   "    np.multiply(a, F, out=out)\n    return out\n",
                   "def host(a):\n    with np.errstate(over='ignore'):\n        return np.asarray(a) * 2\n"]:
        assert _effects(source) == [], source


def test_descriptors_of_regular_files(tmp_path):
    from autograder.witness import hostcall
    with open(tmp_path / "f", "w") as f:
        fd = f.fileno()
        before = hostcall.descriptors()
        assert fd in before
        f.write("abc")
        f.flush()
        said = hostcall.descriptor_changes(before, hostcall.descriptors())
    assert said == [f"wrote +3 bytes to {tmp_path / 'f'} (file descriptor {fd}, open before the call)"]
