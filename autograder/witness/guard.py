"""Undo what a notebook did to the modules the grading questions rely on.

The witness (the student's process) takes a snapshot of JAX, NumPy, SciPy, builtins and
this package before the notebook runs, and restores it before answering each question:
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

GUARDED = ("jax", "jaxlib", "numpy", "scipy", "ml_dtypes", "autograder", "builtins")
_MISSING = object()


class ModuleGuard:
    def __init__(self, prefixes: tuple[str, ...] = GUARDED):
        self.prefixes = prefixes
        self.modules = {name: m for name, m in list(sys.modules.items())
                        if m is not None and name.split(".")[0] in prefixes}
        self.attrs = {name: dict(vars(m)) for name, m in self.modules.items()}
        self.functions: list[tuple] = []
        self.classes: list[tuple[type, dict]] = []
        seen: set[int] = set()
        for values in self.attrs.values():
            for value in values.values():
                self._remember(value, seen)

    def _remember(self, value, seen: set[int]) -> None:
        if id(value) in seen:
            return
        seen.add(id(value))
        if isinstance(value, types.FunctionType):
            self.functions.append((value, value.__code__, value.__defaults__, value.__kwdefaults__))
        elif isinstance(value, type) and value.__module__.split(".")[0] in self.prefixes \
                and value.__flags__ & (1 << 9):  # Py_TPFLAGS_HEAPTYPE: Python classes only
            saved = dict(vars(value))
            self.classes.append((value, saved))
            for member in saved.values():
                if isinstance(member, types.FunctionType):
                    self._remember(member, seen)

    def restore(self) -> int:
        """Put everything back; returns how many things had been changed."""
        changed = 0
        for name, module in self.modules.items():
            if sys.modules.get(name) is not module:
                sys.modules[name], changed = module, changed + 1
            current = vars(module)
            for key, value in self.attrs[name].items():
                if current.get(key, _MISSING) is not value:
                    current[key], changed = value, changed + 1
        for fn, code, defaults, kwdefaults in self.functions:
            if fn.__code__ is not code or fn.__defaults__ is not defaults \
                    or fn.__kwdefaults__ is not kwdefaults:
                fn.__code__, fn.__defaults__, fn.__kwdefaults__ = code, defaults, kwdefaults
                changed += 1
        for cls, saved in self.classes:
            current = vars(cls)
            for key, value in saved.items():
                if key != "__dict__" and current.get(key, _MISSING) is not value:
                    try:
                        setattr(cls, key, value)
                        changed += 1
                    except (AttributeError, TypeError):
                        pass
        return changed
