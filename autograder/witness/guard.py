"""Undo what a notebook did to the modules the grading questions rely on.

The witness (the student's process) takes a snapshot of JAX, NumPy, SciPy, builtins and
this package before the notebook runs, and restores it after the notebook and after each
question (so before the next one):
module attributes rebound (`np.isclose = ...`, `jax.test_util.check_grads = ...`),
`sys.modules` entries swapped, function code replaced (`f.__code__ = ...`) and class
attributes patched (`Lowered.as_text = ...`) are put back. This is defence in depth,
not a sandbox: the process is the student's, so state kept in C (registered FFI
targets, jax.config) and JAX's rule tables stay as the notebook left them (they are
part of the answer), and the values it reports are still checked by the grader.
"""
from __future__ import annotations

import sys
import types
from operator import is_, is_not

GUARDED = ("jax", "jaxlib", "numpy", "scipy", "ml_dtypes", "autograder", "builtins")
_MISSING = object()

# Every write to a function's __code__, __defaults__ or __kwdefaults__ raises the audit event
# object.__setattr__ (or __delattr__): counting them tells restore() whether the ~10,000
# functions need to be compared at all. Reading those attributes is audited too, so the
# comparison itself costs ~8 ms per question once the witness's audit hook is installed.
_function_writes = [0]


def _count_function_writes(event: str, args: tuple) -> None:
    if event in ("object.__setattr__", "object.__delattr__") and type(args[0]) is types.FunctionType:
        _function_writes[0] += 1


sys.addaudithook(_count_function_writes)


class ModuleGuard:
    """restore() runs after every question, so the common case, nothing changed, is
    checked at C speed: each namespace's values are compared by identity, in order, with
    the values it held after the last restore (a sequential walk of the dict's entries;
    looking up ~60,000 names one by one cost ~25 ms per question), and the functions are
    compared only when the audit hook above saw a write to one. Only a namespace that
    differs is walked name by name and put back."""

    def __init__(self, prefixes: tuple[str, ...] = GUARDED):
        self.prefixes = prefixes
        self.modules = {name: m for name, m in list(sys.modules.items())
                        if m is not None and name.split(".")[0] in prefixes}
        self.functions: list[tuple] = []
        # [owner, live namespace (a module's dict or a class's mappingproxy), saved copy,
        #  its values in order as of the last restore]
        self.namespaces: list[list] = []
        seen: set[int] = set()
        for module in self.modules.values():
            self._watch(module, vars(module))
        for module in self.modules.values():
            for value in list(vars(module).values()):
                self._remember(value, seen)
        self._names, self._objects = list(self.modules), list(self.modules.values())
        self._function_writes = _function_writes[0]

    def _watch(self, owner, namespace) -> None:
        saved = dict(namespace)
        self.namespaces.append([owner, namespace, saved, list(saved.values())])

    def _remember(self, value, seen: set[int]) -> None:
        if id(value) in seen:
            return
        seen.add(id(value))
        if isinstance(value, types.FunctionType):
            self.functions.append((value, value.__code__, value.__defaults__, value.__kwdefaults__))
        elif isinstance(value, type) and value.__module__.split(".")[0] in self.prefixes \
                and value.__flags__ & (1 << 9):  # Py_TPFLAGS_HEAPTYPE: Python classes only
            self._watch(value, vars(value))
            for member in list(vars(value).values()):
                if isinstance(member, types.FunctionType):
                    self._remember(member, seen)

    def bind(self, module: types.ModuleType, name: str, value) -> None:
        """Set `module`.`name` to `value` as part of what restore() puts back (the grader's own
        settings made after the snapshot: worlds.GUARD)."""
        setattr(module, name, value)
        for entry in self.namespaces:
            if entry[0] is module:
                entry[2][name] = value
                entry[3] = list(entry[1].values())

    def restore(self) -> int:
        """Put everything back; returns how many things had been changed."""
        changed = 0
        if any(map(is_not, map(sys.modules.get, self._names), self._objects)):
            for name, module in self.modules.items():
                if sys.modules.get(name) is not module:
                    sys.modules[name], changed = module, changed + 1
        for entry in self.namespaces:
            owner, namespace, saved, values = entry
            if len(namespace) != len(values) or not all(map(is_, namespace.values(), values)):
                changed += _put_back(owner, namespace, saved)
                entry[3] = list(namespace.values())
        if _function_writes[0] != self._function_writes:
            for fn, code, defaults, kwdefaults in self.functions:
                if fn.__code__ is not code or fn.__defaults__ is not defaults \
                        or fn.__kwdefaults__ is not kwdefaults:
                    fn.__code__, fn.__defaults__, fn.__kwdefaults__ = code, defaults, kwdefaults
                    changed += 1
            self._function_writes = _function_writes[0]
        return changed


def _put_back(owner, namespace, saved: dict) -> int:
    """Rebind every name of `saved` that `namespace` no longer holds (names the notebook
    added stay: they are not what the questions use)."""
    changed = 0
    for key, value in saved.items():
        if namespace.get(key, _MISSING) is not value:
            if isinstance(owner, types.ModuleType):
                namespace[key] = value
            elif key == "__dict__":
                continue
            else:
                try:
                    setattr(owner, key, value)
                except (AttributeError, TypeError):
                    continue
            changed += 1
    return changed
