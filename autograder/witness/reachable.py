"""The state a host function can change, found from its code: what a purity check
fingerprints (autograder.witness.fingerprint) before and after each call, so that its cost
follows what the function reaches, not the notebook's unrelated globals (a benchmark cell's
lists of millions of numbers).

`fingerprints(host, namespace)` digests, by name, the host function itself (closure,
defaults, attributes, its object and class), then every global its code names (nested
code too; the names are co_names, attribute names included, and string constants) in the
module where that code was defined, transitively through the functions, classes and
objects those reach (each function's own module), a module of the student's it names, and
an attribute it names on a library object where it holds the student's data or code
(`np.saved = []` in a cell, then `np.saved.append` in the host function). Reached code that
names a route to state by text or by object (DYNAMIC) sends the check back to every notebook
global, as it was before; hostcall.call also reports which of the student's code ran, and
code this reach did not find (a logging handler, a pytree registry, a tracer) does too
(`fingerprints(..., whole=True)`).
"""
from __future__ import annotations

import functools
import os
import re
import sys
import types

import numpy as np

from autograder.witness import fingerprint, hostcall

# Routes from code to state it does not name. Namespaces: globals vars locals __dict__
# __globals__ __builtins__ builtins f_globals f_locals user_ns. Frames: sys inspect traceback
# f_back tb_frame gi_frame cr_frame ag_frame __traceback__ _getframe. Modules by text: sys
# importlib __import__ import_module __main__ runpy. Any object: gc ctypes pythonapi
# __subclasses__ __self__ (a builtin's module). Code from text: eval exec compile. Attributes by
# text: getattr setattr delattr attrgetter methodcaller operator __getattribute__ __setattr__.
# Objects by qualified name: pickle dill cloudpickle marshal copyreg loads load find_class
# allow_pickle. The shell: get_ipython IPython InteractiveShell. Handlers the host may fire:
# signal raise_signal.
DYNAMIC = frozenset("""
globals vars locals __dict__ __globals__ __builtins__ builtins f_globals f_locals user_ns
user_global_ns sys inspect traceback f_back tb_frame gi_frame cr_frame ag_frame
__traceback__ _getframe importlib __import__ import_module __main__ runpy gc ctypes _ctypes
pythonapi cffi __subclasses__ __self__ eval exec compile getattr setattr delattr attrgetter
methodcaller operator __getattribute__ __setattr__ __delattr__ pickle dill cloudpickle
marshal copyreg loads load find_class allow_pickle get_ipython IPython InteractiveShell
signal raise_signal autograder""".split())

_IPYTHON_NAMES = frozenset({"In", "Out", "exit", "quit", "get_ipython", "open", "_ih", "_oh", "_dh", "_exit_code"})
# What IPython binds for each cell it runs (_, __, ___, _i, _ii, _iii, _i3, _3), and dunders.
_IPYTHON_HISTORY = re.compile(r"_{1,3}|_i{1,3}|_i?\d+|__\w+__")
_GRADER = os.path.dirname(os.path.dirname(os.path.abspath(hostcall.__file__))) + os.sep


@functools.lru_cache(maxsize=4096)
def student_file(filename: str) -> bool:
    """Is `filename` (a code object's) the student's: a notebook cell or a file outside
    Python's installation and this package (a helpers.py the notebook wrote)?"""
    if filename.startswith("<"):
        return filename.startswith("<ipython-input")
    return not hostcall.python_files(filename) and not os.path.abspath(filename).startswith(_GRADER)


def _names(code: types.CodeType, into: set[str], codes: set) -> None:
    """The names and string constants of `code` and the code nested in it."""
    stack = [code]
    while stack:
        c = stack.pop()
        if c in codes:
            continue
        codes.add(c)
        into.update(c.co_names)
        consts = list(c.co_consts)
        while consts:
            k = consts.pop()
            if isinstance(k, str):
                into.add(k)
            elif isinstance(k, (tuple, frozenset)):   # a match pattern's attribute names, kwnames
                consts.extend(k)
            elif isinstance(k, types.CodeType):
                stack.append(k)


_NOT_OWNERS = (*fingerprint.ATOMS, np.ndarray)


class _Recording(fingerprint.Walk):
    """A fingerprint walk that also reports the functions and the library objects it meets."""

    def __init__(self, reach: "_Reach"):
        super().__init__(fingerprint.BUDGET)
        self.reach = reach

    def _visit(self, value):
        token, children = super()._visit(value)
        if type(value) is types.FunctionType:
            self.reach.functions.append(value)
        elif isinstance(value, _NOT_OWNERS):
            pass
        elif isinstance(value, types.ModuleType) or (
                isinstance(value, type) and not fingerprint.students(value.__module__)) or (
                type(value).__module__.partition(".")[0] in fingerprint.LIBRARIES):
            self.reach.owners.append(value)   # its attributes the code names may be the student's
        return token, children


class _Reach:
    def __init__(self, namespace: dict):
        self.namespace = namespace
        self.names: set[str] = set()
        self.codes: set = set()
        self.functions: list = []   # met by the walks, not yet read
        self.owners: list = []      # library modules, classes and objects met, not yet read
        self.spaces: dict[int, dict] = {}   # the globals dicts of the code reached (a helpers.py's too)
        self.read: set[int] = set()
        self.keep: list = []   # the owners read, kept alive so that their ids stay theirs

    def digest(self, value) -> str:
        return _Recording(self).digest(value).hex()

    def more(self, taken: dict) -> dict:
        """Roots the walks so far make reachable and not yet digested, by name (a name two
        modules give different objects: the second one with its id)."""
        found: dict = {}

        def add(name: str, value) -> None:
            for candidate in (name, f"{name} ({id(value)})"):
                held = taken.get(candidate, found.get(candidate, _MISSING))
                if held is value:
                    return
                if held is _MISSING:
                    found[candidate] = value
                    return
        for fn in self.functions:
            _names(fn.__code__, self.names, self.codes)
            space = fn.__globals__
            if isinstance(space, dict) and id(space) not in self.spaces:
                self.spaces[id(space)] = space
        self.functions = []
        for space in list(self.spaces.values()):
            for name in sorted(self.names.intersection(space)):
                add(name, space[name])
        for name in sorted(self.names):
            module = sys.modules.get(name)
            if module is not None and name != "__main__" and fingerprint.students(name):
                add(f"module {name}", module)
        owners, self.owners = self.owners, []
        for owner in owners:
            if id(owner) in self.read:
                continue
            self.read.add(id(owner))
            self.keep.append(owner)
            for name in sorted(self.names):
                value = _static(owner, name)
                if value is not _MISSING and _students_thing(value):
                    add(f"{_label(owner)}.{name}", value)
        return found

    def everything(self) -> list[tuple[str, object]]:
        """Every notebook global (IPython's own names aside) and every global of the
        student's modules reached or loaded."""
        found = [(n, v) for n, v in list(self.namespace.items())
                 if n not in _IPYTHON_NAMES and not _IPYTHON_HISTORY.fullmatch(n)]
        found += [(f"module {n}", m) for n, m in list(sys.modules.items())
                  if isinstance(m, types.ModuleType) and n != "__main__" and fingerprint.students(n)]
        return found


_MISSING = object()


def _label(owner) -> str:
    if isinstance(owner, types.ModuleType):
        return owner.__name__
    kind = owner if isinstance(owner, type) else type(owner)
    return f"{kind.__module__}.{kind.__qualname__}"


def _static(owner, name: str):
    """owner.name without running code: a module's or object's own attributes, a class's
    through its MRO."""
    if isinstance(owner, type):
        for cls in owner.__mro__:
            if name in vars(cls):
                return vars(cls)[name]
        return _MISSING
    return fingerprint.attributes(owner).get(name, _MISSING)


def _students_thing(value) -> bool:
    """Is a library object's attribute the student's data or code (not the library's own)?"""
    if isinstance(value, types.FunctionType):
        return student_file(value.__code__.co_filename)
    if isinstance(value, (types.ModuleType, types.BuiltinFunctionType, types.MethodType)):
        return False
    if isinstance(value, type):
        return fingerprint.students(value.__module__)
    return type(value).__module__.partition(".")[0] not in fingerprint.LIBRARIES


def fingerprints(host, namespace: dict, whole: bool = False) -> tuple[dict[str, str], set]:
    """({name: digest} of the state `host` can reach, "(the host function)" first; the code
    objects of that reach). Every notebook global too when `whole` or when the code reached
    names a DYNAMIC route."""
    reach = _Reach(namespace)
    digests = {"(the host function)": reach.digest(host)}
    taken = {"(the host function)": host}
    # The notebook's own names for the host function (or its object, or the function a
    # partial wraps) are said too: "_host" is what the student reads.
    own = [host, getattr(host, "__self__", None), getattr(host, "__func__", None), getattr(host, "func", None)]
    for name, value in list(namespace.items()):
        if value is not None and any(value is o for o in own) and not _IPYTHON_HISTORY.fullmatch(name):
            taken[name] = value
            digests[name] = digests["(the host function)"] if value is host else reach.digest(value)
    while found := reach.more(taken):
        for name, value in found.items():
            taken[name] = value
            digests[name] = reach.digest(value)
    if whole or not DYNAMIC.isdisjoint(reach.names):
        for name, value in reach.everything():
            if name not in taken:
                digests[name] = fingerprint.fingerprint(value)
    return digests, reach.codes
