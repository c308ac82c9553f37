"""The first pass of the two worlds' comparison (autograder/witness/observable.py): a digest
of each module's globals and their whole reach, computed in C (reach.c), several times faster
than observable.Deep's walk in Python. Deep then compares again, global by global, only the
modules whose digests differ, and decides: this pass may see more than Deep (a false alarm costs one Deep walk of
that module), never less, because every type whose state Deep reads through Python is
handed to Deep's own visit (`how`).

The library is built when the image is built (Dockerfile, stage `reach`), named by the hash
of reach.c; a source that changed since (a checkout mounted over the image's) finds no
library, and observable.py walks in Python alone, with the same verdicts.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.machinery
import importlib.util
import threading
import types
from pathlib import Path

import numpy as np

from autograder.witness import fingerprint

FOLDER = Path("/opt/jax-interop/reach")   # the image's (Dockerfile)
_HAVE_GC = 1 << 14   # Py_TPFLAGS_HAVE_GC: the garbage collector's traversal reports its references
# What Deep walks by its structure, as the traversal sees it (their reprs say no more)
_STRUCTURAL = (list, tuple, dict, set, frozenset, types.FunctionType, types.MethodType, functools.partial, type)


def _load():
    try:
        key = hashlib.sha256(Path(__file__).with_name("reach.c").read_bytes()).hexdigest()[:16]
    except OSError:
        return None
    path = FOLDER / f"_reach-{key}.so"
    if not path.is_file():
        return None
    loader = importlib.machinery.ExtensionFileLoader("_reach", str(path))
    spec = importlib.util.spec_from_file_location("_reach", str(path), loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


native = _load()


ALL, BY_PYTHON, ATTRIBUTES = 0, 1, 2   # how reach.c reads an object of a type (`how`)


def how(kind: type) -> int:
    """How the C walk reads objects of `kind`: BY_PYTHON, Deep's own visit, where Deep reads
    them through Python (objects the garbage collector cannot traverse: arrays, NumPy
    scalars, capsules; state kept in C that only an API says: a random generator, a queue's
    size, ctypes bytes, threading.local; the standard library's C types whose repr says
    their state, itertools.count(3); modules; what Deep reads with a filter: threads, a
    library's lru_cache); ATTRIBUTES, only its attribute dict, for a library's object without
    slots (Deep reads no more of it; the collector's traversal would go into JAX's caches of
    compiled programs); else ALL it holds."""
    if issubclass(kind, (fingerprint.ATOMS, types.ModuleType, threading.Thread, functools._lru_cache_wrapper,
                         np.ndarray, bytearray, memoryview)) or fingerprint.state_reader(kind) is not None:
        return BY_PYTHON
    if issubclass(kind, _STRUCTURAL + (staticmethod, classmethod, types.MappingProxyType)):
        return ALL
    if _library(kind) and not issubclass(kind, (list, tuple, dict, set, frozenset)) and not any(
            "__slots__" in vars(c) for c in kind.__mro__):
        return ATTRIBUTES
    if not kind.__flags__ & _HAVE_GC:
        return BY_PYTHON
    if kind.__module__ in fingerprint.REPR_MODULES and kind.__repr__ is not object.__repr__:
        return BY_PYTHON
    return ALL


def _library(kind: type) -> bool:
    """Is `kind` a library's class (Deep reads its objects' attributes only)?"""
    module = kind.__module__ if isinstance(kind.__module__, str) else ""
    return module.partition(".")[0] in fingerprint.LIBRARIES or module == "logging"


def namespaces(spaces: list[dict], leave_out: list[set], met: list, key: bytes, students: set[str], visit,
               budget: int) -> tuple[list[int], int]:
    """The digest of each of the module namespaces `spaces` (walked in order, an object met
    again told by its address, those of `met` from the start; in each, the names in its
    `leave_out` and the entries naming a module left out), under `key` (16 random bytes);
    `students`: the student's module names (walked into; others are told by name);
    `visit(obj) -> (token, children)`: Deep's visit, for the types `how` hands to it.
    Returns the digests and the visits left of `budget`."""
    return native.namespaces(spaces, leave_out, met, key, students, how, _safe(visit), budget)


def _safe(visit):
    def read(value):
        try:
            token, children = visit(value)
            return token, list(children)
        except Exception:   # an object that cannot be read (a released memoryview): its type only
            return f"unreadable {type(value).__qualname__}".encode(), []
    return read
