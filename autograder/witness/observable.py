"""Everything the rest of the program could observe of this process, by name, as digests:
what autograder/witness/worlds.py compares between a world where a host function ran and
one where it did not (issue 48).

- every module's state, by deep reach from each of its globals (`Deep`: library classes'
  own attributes and library objects' attributes too, not only the student's), named
  "module.global";
- the context-local state: every ContextVar's value in this thread's context, the decimal
  context, what each threading.local holds for this thread (through the deep reach);
- the process's own attributes, as /proc/self shows them: the umask, signal dispositions and
  masks, resource limits, CPU affinity, priority, timers, the working directory;
- C-level state readable through a public API: NumPy's and SciPy's error states and NumPy's
  other settings (purity._settings), faulthandler, the threads alive, the functions
  registered to run at exit, queues by their size, ctypes objects by their bytes;
- files and descriptors: every open descriptor (what it points to, its size and position)
  and the names in the working and temp folders.

Digests are comparable between the two forks of one process only (they name objects by
address, which a fork keeps): they say "changed", never what a value is. What is left out
is the grader's own state, and caches that no result depends on (`_NOISE`)."""
from __future__ import annotations

# Everything observe() uses is imported here, before the fork: a module first imported in one
# world and not the other would sit at other addresses there (and the settings purity reads)
import atexit
import contextvars
import decimal
import faulthandler
import functools
import gc
import hashlib
import locale  # noqa: F401
import logging  # noqa: F401
import os
import random  # noqa: F401
import resource
import signal
import socket  # noqa: F401
import stat
import sys
import threading
import types
import warnings  # noqa: F401
from contextlib import suppress

from autograder.witness import fingerprint, hostcall, purity, reach

BUDGET = 3_000_000   # objects visited in all: the whole reach of a process with JAX, SciPy and a notebook

# Caches that change as code runs and that no result depends on (a library's lru_caches are
# walked by what they wrap, see Deep): the regular expression and
# source line caches, the warnings machinery's own bookkeeping (catch_warnings and
# np.errstate inside a host function are valid), each logger's cache of enabled levels, the
# import system's caches; the thread machinery's bookkeeping (threads alive are compared).
_NOISE = frozenset({
    "re._cache", "re._cache2", "linecache.cache", "warnings._filters_version", "warnings._onceregistry",
    "sys.path_importer_cache", "sys.modules", "sys.last_exc", "sys.last_type", "sys.last_value",
    "sys.last_traceback", "threading._active", "threading._limbo", "threading._counter",
    "threading._shutdown_locks", "threading._dangling", "threading._active_limbo_lock",
    "importlib._bootstrap._module_locks", "importlib._bootstrap._blocking_on", "abc._abc_registry",
    "tokenize._all_string_prefixes", "gc.garbage",
})
_NOISE_KEYS = frozenset({"__warningregistry__", "__loader__", "__spec__", "__builtins__"})
_REGISTRY = "__warningregistry__"   # a module's record of the warnings shown from it
_GRADER = ("autograder", "kernels")   # the grader's own modules: its bookkeeping, never the student's


class Deep(fingerprint.Walk):
    """A fingerprint walk into everything: library classes' own attributes, library objects'
    attributes (not only the code they wrap) and loggers' state, with objects met again named
    by address (stable between two forks of one process, whatever order they are met in). An
    object met first is told by its contents, never its address: objects the walk itself
    makes (a proxy's attribute dict) sit at other addresses in the two worlds."""
    IDS = False

    def _visit(self, value):
        if not isinstance(value, fingerprint.ATOMS) and id(value) in self.seen:
            return f"@{id(value)}".encode(), []
        kind = type(value)
        # a namespace (a dict, the notebook's module): the warnings machinery's bookkeeping aside
        if kind is dict and _REGISTRY in value:
            self.seen[id(value)] = (len(self.seen), value)
            return self._pairs("builtins.dict", {k: v for k, v in value.items() if k != _REGISTRY})
        if isinstance(value, types.ModuleType) and fingerprint.students(getattr(value, "__name__", None)):
            self.seen[id(value)] = (len(self.seen), value)
            return self._pairs(f"student module {value.__name__}",
                               {k: v for k, v in vars(value).items() if k != _REGISTRY})
        if isinstance(value, type) and not fingerprint.students(value.__module__) and value.__flags__ & (1 << 9):
            self.seen[id(value)] = (len(self.seen), value)   # a Python class of a library: its attributes
            own = {k: v for k, v in vars(value).items() if k not in ("__dict__", "__weakref__", "__doc__")}
            return self._pairs(f"class {value.__module__}.{value.__qualname__}", own)
        wrapped = value.__wrapped__ if isinstance(value, functools._lru_cache_wrapper) else None
        if wrapped is not None and not fingerprint.students(getattr(wrapped, "__module__", None)):
            # a library's memoization (JAX's, matplotlib's lru_caches): its statistics are no one's state
            self.seen[id(value)] = (len(self.seen), value)
            return f"cache {kind.__qualname__}".encode(), [wrapped]
        if isinstance(value, threading.Thread):   # its ids are the process's: a fork has its own
            self.seen[id(value)] = (len(self.seen), value)
            own = {k: v for k, v in fingerprint.attributes(value).items() if k not in ("_ident", "_native_id")}
            return self._pairs(f"thread {kind.__qualname__}", own)
        if (kind.__module__.partition(".")[0] in fingerprint.LIBRARIES or kind.__module__ in ("logging",)) \
                and not isinstance(value, (type, types.ModuleType, types.FunctionType)) \
                and fingerprint._public_state(value) is None:
            own = fingerprint.attributes(value)
            if own and kind.__name__ not in ("PjitFunction",):
                self.seen[id(value)] = (len(self.seen), value)
                own.pop("_cache", None)   # a logger's cache of enabled levels
                return self._pairs(f"object {kind.__module__}.{kind.__qualname__}", own)
        return super()._visit(value)


MODULE = "the globals of module "   # observe()'s name of one module's digest (the C walk's)


def _students(names) -> set[str]:
    """Which of the modules `names` are the student's (fingerprint.students)."""
    return {n for n in names if fingerprint.students(n)}


def _spaces(names, students: set[str]) -> dict[str, tuple[dict, set]]:
    """Each module observe() compares: its namespace and the names in it left out; the
    student's modules (`students`) first, the notebook's own among them, so that a value the
    notebook holds is named by the notebook's global (`__main__.CALLS`), not by a library's
    path to the notebook's namespace (IPython's shell holds it too)."""
    found = {}
    for name in sorted(names, key=lambda n: (n not in students, n)):
        module = sys.modules.get(name)
        if not isinstance(module, types.ModuleType) or name.partition(".")[0] in _GRADER:
            continue
        space = getattr(module, "__dict__", None)
        if isinstance(space, dict):
            noise = {k for k in space if f"{name}.{k}" in _NOISE} if name in _NOISY else set()
            found[name] = (space, _NOISE_KEYS | noise)
    return found


_NOISY = frozenset(n.rpartition(".")[0] for n in _NOISE)   # the modules _NOISE names globals of


def _modules_met(spaces: dict) -> list:
    """Every compared module and its namespace: met before any walk starts, so that one
    reached through another object (IPython's shell holds the notebook's module and its
    namespace) is named by address, its globals walked as their own."""
    return [x for name, (space, _) in spaces.items() for x in (sys.modules[name], space)]


def _namespaces_seen(walk: Deep, spaces: dict) -> None:
    for x in _modules_met(spaces):
        walk.seen[id(x)] = (len(walk.seen), x)


def _globals(names, walk: Deep | None = None) -> dict:
    """Every module global observe() compares, by its "module.global" name, in order (with
    `walk`, whose seen the namespaces are added to)."""
    found = {}
    spaces = _spaces(names, _students(names))
    if walk is not None:
        _namespaces_seen(walk, spaces)
    for name, (space, leave_out) in spaces.items():
        for key, value in list(space.items()):
            if key not in leave_out and not isinstance(value, types.ModuleType):
                found[f"{name}.{key}"] = value
    return found


def _modules(walk: Deep, found: dict, names, key: bytes | None) -> None:
    """The modules' digests: one per module by the C walk under `key` where it is built (a
    first pass: `confirm` decides), else one per global by Deep."""
    if key is None or reach.native is None:
        found.update((where, walk.digest(value).hex()) for where, value in _globals(names, walk).items())
        return
    students = _students(names)
    spaces = _spaces(names, students)
    digests, left = reach.namespaces([s for s, _ in spaces.values()], [set(o) for _, o in spaces.values()],
                                     _modules_met(spaces), key, students, walk._visit, walk.budget)
    walk.budget = left
    found.update((MODULE + name, f"{d:016x}") for name, d in zip(spaces, digests))


def confirm(modules: list[str]) -> dict[str, str]:
    """Deep's digest of each global of the `modules` (observe()'s), in one walk: what decides
    which globals changed where the C walk found a module changed."""
    walk = Deep(BUDGET)
    return {where: walk.digest(value).hex() for where, value in _globals(modules, walk).items()}


def _context(walk: Deep, found: dict) -> None:
    for var, value in contextvars.copy_context().items():
        if not var.name.startswith(("jax", "_jax", "numpy")):
            found[f"the ContextVar {var.name!r}"] = walk.digest(value).hex()
    c = decimal.getcontext()
    found["the decimal context (decimal.getcontext())"] = repr(
        (c.prec, c.rounding, c.Emin, c.Emax, c.capitals, c.clamp, sorted(k.__name__ for k, v in c.flags.items() if v),
         sorted(k.__name__ for k, v in c.traps.items() if v)))


# What /proc/self/status shows of the process's own attributes, in words.
_STATUS = {"Umask": "the process's umask (os.umask)", "SigBlk": "the blocked signals (signal.pthread_sigmask)",
           "SigIgn": "the ignored signals (signal.signal)",
           "SigCgt": "the signals the process catches (signal.signal, faulthandler.enable)",
           "NoNewPrivs": "the process's no-new-privileges flag", "Seccomp": "the process's seccomp mode",
           "CapEff": "the process's capabilities"}


def _process(found: dict, skip) -> None:
    with suppress(OSError), open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in _STATUS:
                found[_STATUS[key]] = value.strip()
    found["the process's resource limits (resource.setrlimit)"] = repr(
        [resource.getrlimit(getattr(resource, r)) for r in dir(resource) if r.startswith("RLIMIT_")])
    found["the signal handlers (signal.signal)"] = repr(
        [(s, id(signal.getsignal(s))) for s in sorted(signal.valid_signals()) if s not in (signal.SIGKILL, signal.SIGSTOP)])
    found["the interval timers (signal.setitimer)"] = repr(
        [signal.getitimer(t)[1] for t in (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF)])
    found["the process's priority (os.nice)"] = repr(os.getpriority(os.PRIO_PROCESS, 0))
    found["the process's CPU affinity (os.sched_setaffinity)"] = repr(sorted(os.sched_getaffinity(0)))
    found["faulthandler (faulthandler.enable)"] = repr(faulthandler.is_enabled())
    found["the functions run at exit (atexit.register)"] = repr(atexit._ncallbacks())
    held = hostcall.descriptors(skip)
    found["the open files (file descriptors)"] = repr(sorted(
        (fd, path, size, pos) for fd, (_, path, size, pos) in held.items()))
    found["the open descriptors (pipes, sockets)"] = repr(sorted(fd for fd in _fds() if fd[0] not in skip))
    found["the files in the working and temp folders"] = repr(sorted((k, sorted(v)) for k, v in hostcall.folders().items()))


def _fds() -> list[tuple[int, int]]:
    """(fd, its kind) of every open descriptor (the one listing /proc/self/fd, closed by then,
    left out)."""
    found = []
    with suppress(OSError):
        for name in os.listdir("/proc/self/fd"):
            with suppress(OSError):
                found.append((int(name), stat.S_IFMT(os.fstat(int(name)).st_mode)))
    return found


def observe(modules, skip=(), key: bytes | None = None) -> dict[str, str]:
    """Everything the rest of the program could observe, by name (the module docstring), of
    the modules named `modules` (those of both worlds: one a call imports is a cache, walked
    in neither, so that the others are walked alike), the descriptors in `skip` (the
    grader's own) aside. With `key` (16 random bytes, the same in both worlds), module
    globals are digested by the C walk (autograder/witness/reach.py), which `confirm` checks."""
    gc.collect()   # what is garbage in one world and not yet collected in the other is not state
    walk, found = Deep(BUDGET), {}
    special = sys.modules.get("scipy.special")
    if special is not None and "scipy.special" in modules:
        with suppress(Exception):
            found["SciPy's error state (scipy.special.seterr)"] = repr(sorted(special.geterr().items()))
    found.update({name: fingerprint.fingerprint(value) for name, value in purity._settings().items()})
    _context(walk, found)
    _process(found, skip)
    _modules(walk, found, modules, key)
    found["(everything reached)"] = "budget spent" if walk.budget <= 0 else ""
    return found



# ---- naming a difference: the path to the first value that differs ----

_MISSING = object()


def root(name: str):
    """The value a "module.global" name of observe()'s stands for (None: another kind of name,
    or gone)."""
    module, _, key = name.rpartition(".")
    while module and module not in sys.modules:
        module, _, rest = module.rpartition(".")
        key = f"{rest}.{key}"
    space = getattr(sys.modules.get(module), "__dict__", None) if module else None
    value = space.get(key, _MISSING) if isinstance(space, dict) else _MISSING
    return None if value is _MISSING or value is None else value


def traces(names: list[str]) -> dict[str, list[list[str]]]:
    """trace() of the value of each "module.global" name of `names` (root), the modules and
    their namespaces met already, as confirm walks them."""
    modules = sorted(sys.modules)
    spaces = _spaces(modules, _students(modules))
    return {n: trace(root(n), spaces=spaces) for n in names}


def trace(value, limit: int = 200_000, spaces: dict | None = None) -> list[list[str]]:
    """The Deep walk of `value` as [path, token digest] in visit order, at most `limit`
    objects, the modules of `spaces` (_spaces) met already: two worlds' traces first differ
    at the value that differs."""
    walk, out, stack = Deep(limit), [], [("", value)]
    _namespaces_seen(walk, spaces or {})
    while stack and walk.budget > 0:
        path, v = stack.pop()
        walk.budget -= 1
        try:
            token, children = walk._visit(v)
        except Exception:
            token, children = b"unreadable", []
        out.append([path, hashlib.blake2b(token, digest_size=8).hexdigest()])
        stack.extend(reversed(list(zip(_labels(path, v, token, children), children))))
    return out


def _labels(path: str, value, token: bytes, children: list) -> list[str]:
    """How each of `children` (of Walk._visit) is reached from `value`, as Python would write it."""
    if b"with public state" in token:   # its state, then its attributes
        return [path] + [f"{path}/{i}" for i in range(1, len(children))]
    if isinstance(value, dict) or token.startswith((b"student module", b"student class", b"object ",
                                                    b"library object", b"class ")):
        pairs = [(children[i], children[i + 1]) for i in range(0, len(children) - 1, 2)]
        keyed = isinstance(value, dict)
        out = []
        for k, _ in pairs:
            out += [f"{path} (a key)", f"{path}[{k!r}]" if keyed or not isinstance(k, str) else f"{path}.{k}"]
        return out + [f"{path}/{i}" for i in range(len(out), len(children))]
    if isinstance(value, tuple) and len(value) == 2 and value[0] in fingerprint.STATE_TAGS:
        return [f"{path} ({value[0]})", path]
    if isinstance(value, (list, tuple)):
        return [f"{path}[{i}]" for i in range(len(children))]
    if isinstance(value, types.MethodType):
        return [f"{path}.__self__", f"{path}.__func__"]
    return [f"{path}/{i}" for i in range(len(children))]


def first_difference(name: str, theirs: list, ours: list) -> str:
    """`name` with the path to the first value whose token differs between two traces."""
    for a, b in zip(theirs, ours):
        if a != b:
            return f"{name}{(a if a[0] == b[0] else b)[0]}"
    return name
