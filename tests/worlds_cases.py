"""Host functions judged in two worlds (autograder/witness/worlds.py), run by
tests/test_worlds.py in a process of their own, as the witness runs a notebook: JAX, NumPy
and SciPy imported first, each host function called once before (as the notebook would),
then judged on four calls. Prints {name: [names of what differs, output]} as JSON; with
`--threads`, of THREADED's cases judged while two threads of the notebook's own keep
changing state."""
import contextvars
import ctypes
import decimal
import faulthandler
import functools
import itertools
import json
import logging
import os
import queue
import sys
import threading
import warnings
from contextlib import redirect_stdout

import jax.numpy as jnp
import numpy as np
import scipy.special

from autograder.witness import atfork, hostcall, observable, reach, worlds
from autograder.witness.guard import ModuleGuard

hostcall.install()
atfork.snapshot()   # as the witness does before the notebook: the hooks below are the notebook's
_guard = ModuleGuard()
_guard.bind(worlds, "GUARD", _guard)   # as the witness does: the guard's own snapshot holds it
del _guard   # held by the grader's module alone (its bookkeeping is no one's state)
jnp.zeros(1).block_until_ready()
VAR = contextvars.ContextVar("cases_calls", default=0)
LOCAL = threading.local()
COUNT = (ctypes.c_long * 1)()
QUEUE = queue.SimpleQueue()
TABLE = {np.dtype(np.float32): np.float32(2)}
log = logging.getLogger("cases")
RNG = np.random.default_rng(0)
TICKETS = itertools.count()
BOX = [np.float32(1)]


def double(x):
    return np.asarray(x) * 2


def valid_errstate(x):
    with np.errstate(all="ignore"):
        return double(x)


def valid_catch_warnings(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return double(x)


def valid_lookup_table(x):
    return np.asarray(x) * TABLE[np.asarray(x).dtype]


def valid_thread_within(x):
    out = np.empty_like(x)
    t = threading.Thread(target=lambda: out.__setitem__(Ellipsis, double(x)))
    t.start()
    t.join()
    return out


def valid_lazy_import(x):
    import json as _json  # noqa: F401
    import scipy.special as _special  # noqa: F401
    return double(x)


def valid_debug_log(x):
    log.debug("called on %s", np.shape(x))
    return double(x)


def valid_library_cache(x):
    import typing
    typing.Tuple[int, str]   # typing's own lru_cache fills: a library's memoization, no one's state
    return double(x)


def umask(x):
    os.umask(0o077)
    return double(x)


def numpy_same_value(x):
    np.seterr(all="ignore")   # what the first call left: seen through the perturbation
    return double(x)


def scipy_default(x):
    scipy.special.seterr(all="ignore")   # SciPy's default value
    return double(x)


def decimal_default(x):
    decimal.getcontext().prec = 28
    return double(x)


def fault(x):
    faulthandler.enable()
    return double(x)


def contextvar(x):
    VAR.set(VAR.get() + 1)
    return double(x)


def thread_local(x):
    LOCAL.n = getattr(LOCAL, "n", 0) + 1
    return double(x)


def ctypes_counter(x):
    COUNT[0] += 1
    return double(x)


def simple_queue(x):
    QUEUE.put(1)
    return double(x)


def daemon(x):
    threading.Thread(target=threading.Event().wait, args=(5,), daemon=True).start()
    return double(x)


def prints_unwatched(x):
    if sys.stdout is sys.__stdout__:
        print("called")
    os.write(2, b"fd 2\n")
    return double(x)


# What the C walk (autograder/witness/reach.c) must hand to Deep or read past the traversal:
# state held in C, a C type's repr, a NumPy scalar inside a list, a library class's attribute.
def random_generator(x):
    RNG.random()
    return double(x)


def count_iterator(x):
    next(TICKETS)
    return double(x)


def scalar_in_list(x):
    BOX[0] = np.float32(BOX[0] + 1)
    return double(x)


def library_attribute(x):
    json.JSONDecoder.calls = getattr(json.JSONDecoder, "calls", 0) + 1
    return double(x)


UNMASKED = []


def patches_observer(x):
    """Sets the umask and rebinds the grader's own reading of it so that the world after the
    calls reports the umask the world before them saw (the perturbed one)."""
    old = os.umask(0o077)
    if old != 0o077:
        UNMASKED[:] = [old]
    real = observable._process

    def forged(found, skip):
        real(found, skip)
        found["the process's umask (os.umask)"] = f"{UNMASKED[0] if UNMASKED else old:04o}"
    observable._process = forged
    return double(x)


FORKED = [0]


def at_fork_hidden(x):
    """Counts its calls; the notebook's at-fork hook (below) zeroes the count in every fork."""
    FORKED[0] += 1
    return double(x)


os.register_at_fork(after_in_child=lambda: FORKED.__setitem__(0, 0))


class Ticker:
    """A notebook's own background thread (a progress bar's monitor) that keeps changing state."""
    ticks = 0


def _tick():
    while True:
        Ticker.ticks += 1
        threading.Event().wait(0.001)


def _toggle_umask():
    """Another of the notebook's threads: it keeps flipping the umask, which the host function
    `umask` writes too (issue 54: its write was excused as the thread's)."""
    while True:
        os.umask(os.umask(0o022) ^ 0o002)
        threading.Event().wait(0.001)


# With the notebook's own threads running (`--threads`), a case is judged again where they do
# not (worlds._still): twice the time, so only these cases run there, the rest in a process
# without them (tests/test_worlds.py runs both at once).
THREADED = {"valid_errstate", "valid_thread_within", "umask", "scalar_in_list", "daemon"}
threads = sys.argv[1:] == ["--threads"]
if threads:
    threading.Thread(target=_tick, daemon=True).start()
    threading.Thread(target=_toggle_umask, daemon=True).start()
INPUTS = [np.arange(5, dtype=np.float32), np.linspace(-3, 3, 100).astype(np.float32)]
found = {}
for name, host in list(globals().items()):
    if (callable(host) and getattr(host, "__module__", "") == "__main__" and (name in THREADED) == threads
            and name not in ("double", "_tick", "Ticker", "_toggle_umask")):
        with open(os.devnull, "w") as quiet, redirect_stdout(quiet):
            host(INPUTS[0])   # the notebook called it before
        found[name] = worlds.effects([functools.partial(host, a) for a in INPUTS + INPUTS])
found["(walked in C)" + " with threads" * threads] = reach.native is not None
json.dump(found, sys.__stdout__)
