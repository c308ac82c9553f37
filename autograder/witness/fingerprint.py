"""A digest of everything reachable from a value, so that a change anywhere in it is seen.

Runs in the witness. A purity check (autograder/assignments/pure_callback_doubler/witness.py)
fingerprints the state a host function can reach (autograder/witness/reachable.py) before
and after each observed call (autograder/witness/hostcall.py): nested containers, arrays,
object and function attributes, slots, closures, defaults and the classes the notebook
defines, not only the rebinding of a global. The libraries' own objects (JAX's jit caches,
np.vectorize's cached ufunc) count by identity and the student's code they wrap, never by
their data, which changes as they cache.
"""
from __future__ import annotations

import _thread
import collections
import functools
import hashlib
import sys
import types
from contextlib import suppress

import numpy as np

from autograder.witness.hostcall import python_files

# Objects of these packages are the libraries' own (JAX's jit caches, np.vectorize's cached
# ufunc): a fingerprint follows only the student's functions they wrap, never their data,
# which changes as they cache.
LIBRARIES = frozenset({"jax", "jaxlib", "numpy", "scipy", "ml_dtypes", "IPython", "traitlets", "autograder",
                        "kernels"})
ATOMS = (int, float, complex, str, bytes, bool, type(None), np.generic, range, slice, type(Ellipsis))
_PLAIN_ATOMS = frozenset({int, float, bool, type(None)})   # exact types: digested in place, not visited
BUDGET = 200_000   # objects visited per fingerprint: the cost stays bounded whatever the notebook holds
_NOTEBOOK = "__main__"   # the module name of what notebook cells define
_PLAIN = frozenset({list, tuple, dict, set, frozenset, collections.deque, np.ndarray})   # no attributes


def fingerprint(value, budget: int = BUDGET) -> str:
    """A digest of `value` and everything reachable from it at any depth: containers
    (lists, tuples, dicts, sets, deques and their subclasses' attributes), arrays (their
    bytes), objects' attributes and slots, the classes the notebook defines (class
    attributes), functions' defaults, closures and attributes, partials, bound methods. A
    change anywhere in it changes the digest. Each object is visited once (a shared or
    cyclic reference is a back-reference), at most `budget` objects in all."""
    return Walk(budget).digest(value).hex()


class Walk:
    IDS = True   # an opaque or library object counts by its identity too (Deep: not, see there)

    def __init__(self, budget: int):
        self.budget = budget
        self.seen: dict[int, tuple[int, object]] = {}   # id -> (visit number, the object: kept alive)

    def digest(self, root) -> bytes:
        h = hashlib.blake2b(digest_size=16)
        stack = [root]
        while stack:
            value = stack.pop()
            if self.budget <= 0:
                h.update(b"\0(budget spent)")
                break
            self.budget -= 1
            try:
                token, children = self._visit(value)
            except Exception:  # an object that cannot be read (a released memoryview): its type only
                token, children = f"unreadable {type(value).__qualname__}".encode(), []
            h.update(token)
            h.update(b"\0")
            # the plainest atoms (most of what a walk meets: names, None, small numbers) go into
            # the digest here, in place, without a visit of their own; "*" marks the place of
            # each other child, walked after
            later = []
            for child in children:
                kind = type(child)
                if kind is str:
                    data = child.encode("utf-8", "surrogatepass")
                    h.update(b"s%d:" % len(data))
                    h.update(data)
                elif kind in _PLAIN_ATOMS:
                    h.update(b"a" + repr(child).encode() + b"\0")
                else:
                    h.update(b"*")
                    later.append(child)
            stack.extend(reversed(later))
        return h.digest()

    def _visit(self, value) -> tuple[bytes, list]:
        """A token for `value` itself (its type, size, content) and the objects it holds."""
        kind = type(value)
        if isinstance(value, ATOMS):
            data = value if isinstance(value, bytes) else repr(value).encode("utf-8", "surrogatepass")
            return f"{kind.__qualname__}:{len(data)}:".encode() + data, []
        if id(value) in self.seen:
            return f"@{self.seen[id(value)][0]}".encode(), []
        self.seen[id(value)] = (len(self.seen), value)
        name = f"{kind.__module__}.{kind.__qualname__}"
        if isinstance(value, types.ModuleType):
            if not students(value.__name__):
                return f"module {value.__name__}".encode(), []
            return self._pairs(f"student module {value.__name__}", dict(vars(value)))
        if isinstance(value, type):
            if not students(value.__module__):
                return f"class {value.__module__}.{value.__qualname__}".encode(), []
            token, children = self._pairs(f"student class {value.__qualname__}", dict(vars(value)))
            return token, children + list(value.__bases__)   # a base's class attributes too
        if isinstance(value, np.ndarray):
            return self._array(value)
        if isinstance(value, (bytearray, memoryview)) or kind.__module__ == "array":
            return f"{name}:".encode() + bytes(value), []
        if isinstance(value, (list, tuple, collections.deque)):
            return f"{name} {len(value)}".encode(), [*value, *self._extra(value)]
        if isinstance(value, dict):
            token, children = self._pairs(name, value)
            return token, children + self._extra(value)
        if isinstance(value, (set, frozenset)):
            members = sorted(self.digest(v) for v in list(value))
            return f"{name} {len(members)}:".encode() + b"".join(members), self._extra(value)
        if isinstance(value, types.FunctionType):
            cells = [c.cell_contents if _filled(c) else "(empty cell)" for c in value.__closure__ or ()]
            return (f"function {value.__qualname__} code {id(value.__code__)} {len(cells)}".encode(),
                    [value.__defaults__, value.__kwdefaults__, *cells, vars(value)])
        if isinstance(value, types.MethodType):
            return f"method {name}".encode(), [value.__self__, value.__func__]
        if isinstance(value, functools.partial):
            return f"partial {name}".encode(), [value.func, value.args, value.keywords, *self._extra(value)]
        public = _public_state(value)
        if public is not None:   # state kept in C that the object says through its own API
            return f"object {name} with public state".encode(), [public, *attributes(value).values()]
        if kind.__module__.partition(".")[0] in LIBRARIES:   # its identity, and the code it wraps
            wrapped = {k: v for k, v in attributes(value).items() if _carries_code(v)}
            return self._pairs(f"library object {name}{self._identity(value)}", wrapped)
        own = attributes(value)
        if students(kind.__module__):   # its class's attributes are its state too (a class-level counter)
            token, children = self._pairs(f"object {name}", own)
            return token, children + [kind]
        if not own:   # nothing Python can see inside: its identity, and what the C type's repr says
            return f"opaque {name}{self._identity(value)} {_c_repr(value)}".encode(), []
        return self._pairs(f"object {name}", own)

    def _identity(self, value) -> str:
        return f" {id(value)}" if self.IDS else ""

    def _array(self, value: np.ndarray) -> tuple[bytes, list]:
        head = f"ndarray {value.shape} {value.dtype.str}".encode()
        if value.dtype.hasobject:
            return head, [*value.flat, *self._extra(value)]
        data = np.ascontiguousarray(value).reshape(-1).view(np.uint8)   # a copy only if not contiguous
        return head + hashlib.blake2b(data, digest_size=16).digest(), self._extra(value)

    @staticmethod
    def _pairs(head: str, mapping: dict) -> tuple[bytes, list]:
        items = list(mapping.items())
        return f"{head} {len(items)}".encode(), [x for pair in items for x in pair]

    @staticmethod
    def _extra(value) -> list:
        """The instance attributes of a container or array subclass (a defaultdict's factory too)."""
        if type(value) in _PLAIN:
            return []
        extra = list(attributes(value).values())
        # only a defaultdict's: getattr on another mapping runs its __getattr__ (traitlets'
        # Config makes a new entry for any name; a student's class, any code)
        if isinstance(value, collections.defaultdict) and value.default_factory is not None:
            extra.append(value.default_factory)
        return extra


def _public_state(value):
    """The state a C-implemented object of the libraries keeps and says through its public
    API (a random generator's state, an lru_cache's statistics), or None."""
    read = state_reader(type(value))
    return None if read is None else read(value)


def state_reader(kind: type):
    """How _public_state reads an object of `kind` (None: it does not): by its type alone."""
    import random
    if issubclass(kind, random.Random):
        return lambda value: value.getstate()
    if issubclass(kind, np.random.RandomState):
        return lambda value: value.get_state(legacy=False)
    if issubclass(kind, (np.random.Generator, np.random.BitGenerator)):
        return lambda value: getattr(value, "bit_generator", value).state
    if kind.__module__ in ("_queue", "queue") and hasattr(kind, "qsize"):   # SimpleQueue keeps its items in C
        return lambda value: ("queue of size", value.qsize())
    if issubclass(kind, _thread._local):   # what it holds for this thread
        return lambda value: ("thread-local", dict(_thread._local.__getattribute__(value, "__dict__")))
    if _ctypes_type(kind):   # a ctypes array, structure or number: its bytes
        return lambda value: ("ctypes bytes", bytes(memoryview(value).cast("B")))
    info = getattr(kind, "cache_info", None)
    if kind.__module__ == "functools" and callable(info):
        return lambda value: tuple(value.cache_info())
    return None


STATE_TAGS = ("queue of size", "ctypes bytes", "thread-local")   # _public_state's own tuples


def _ctypes_type(kind: type) -> bool:
    ctypes = sys.modules.get("ctypes")
    return ctypes is not None and issubclass(kind, ctypes._SimpleCData.__mro__[1])


# C types of the standard library whose repr says their state (itertools.count(3)); other
# reprs are left out: object.__repr__ says only the identity, already in the token.
REPR_MODULES = frozenset({"itertools", "collections", "_collections", "functools", "operator", "builtins",
                           "array", "decimal", "fractions", "datetime"})


def _c_repr(value) -> str:
    kind = type(value)
    if kind.__module__ not in REPR_MODULES or kind.__repr__ is object.__repr__:
        return ""
    try:
        return repr(value)[:300]
    except Exception:
        return ""


def students(module_name) -> bool:
    """Is `module_name` the notebook's, or a module of the student's own (one made in the
    notebook, or a file outside Python's installation, such as a helper.py it wrote)?"""
    if not isinstance(module_name, str):
        return False
    if module_name == _NOTEBOOK:
        return True
    if module_name.partition(".")[0] in LIBRARIES or module_name.partition(".")[0] in sys.stdlib_module_names:
        return False
    module = sys.modules.get(module_name)
    if module is None:
        return False
    path = getattr(module, "__file__", None)
    return path is None or not python_files(path)


def attributes(value) -> dict:
    """An object's instance attributes and slots, read without running its code."""
    found = {}
    try:
        found.update(object.__getattribute__(value, "__dict__"))
    except (AttributeError, TypeError):
        pass
    for cls in type(value).__mro__:
        slots = vars(cls).get("__slots__", ())
        for slot in (slots,) if isinstance(slots, str) else slots:
            descriptor = vars(cls).get(_mangled(cls, slot))
            if isinstance(descriptor, types.MemberDescriptorType):
                with suppress(AttributeError):
                    found[f"{cls.__qualname__}.{slot}"] = descriptor.__get__(value, cls)
    return found


def _mangled(cls: type, name: str) -> str:
    if name.startswith("__") and not name.endswith("__"):
        return f"_{cls.__name__.lstrip('_')}{name}"
    return name


def _carries_code(value) -> bool:
    """Does a library object's attribute hold code the notebook may have written (jit's or
    custom_jvp's function, np.vectorize's pyfunc)?"""
    return isinstance(value, (types.FunctionType, types.MethodType, functools.partial)) or (
        not isinstance(value, type) and type(value).__module__ == _NOTEBOOK)


def _filled(cell) -> bool:
    try:
        cell.cell_contents
        return True
    except ValueError:
        return False
