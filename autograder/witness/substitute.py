"""A host function replaced by a poison wherever the answer references it.

Runs where the student's code runs (the witness; the notebook itself under Otter's own
runs). While `poisoned("scipy.special.gammaln")` is active, every reference the answer holds
to that function (module and notebook globals, containers at any depth, closure cells,
default arguments, partials, object and class attributes, slots) is its poison: for a
NumPy ufunc a PoisonUfunc, called exactly as the ufunc is but writing poison values
(autograder.shared.poison) into every output element; for any other function poison values
shaped like its first argument. The witness serves the executor's runs of a program's host
callbacks so (autograder/witness/handover.py), and an exercise runs its eager paths so: an
output that does not change did not come from that function.
"""
from __future__ import annotations

import collections
import contextlib
import functools
import types
from collections.abc import Callable
from gc import get_referents, get_referrers  # bound at import, before any student code (see hostcall.py)

import numpy as np

from autograder.shared import poison


def _poison_function(*args, **kwargs):
    """Stands in for a host library function that is not a ufunc: poison values shaped and
    typed like its first argument."""
    first = np.asarray(args[0]) if args else np.zeros(())
    dtype = first.dtype if first.dtype.kind == "f" else np.float64
    return poison.values(first.size).reshape(first.shape).astype(dtype)


def _poison_values(n: int) -> np.ndarray:
    """poison.values(n), from one read-only pool grown to the largest n asked (entry i depends
    on i alone): a host function poisoned on a million values, or called once per element by
    np.vectorize, does not compute them again on every call."""
    if _POOL[0].size < n:
        values = poison.values(n)
        values.flags.writeable = False
        _POOL[0] = values
    return _POOL[0][:n]


_POOL = [np.zeros(0, np.float32)]


def _overwritten(result, where=True):
    """`result` (what a ufunc call returned: an array, which is `out` when one was given, a
    NumPy scalar, or a tuple of them) with every element the call produced replaced by
    poison values, cast as NumPy casts into it; elements `where` leaves out keep theirs."""
    if isinstance(result, tuple):
        return tuple(_overwritten(r, where) for r in result)
    if isinstance(result, np.ndarray):
        np.copyto(result, _poison_values(result.size).reshape(result.shape), casting="unsafe", where=where)
        return result
    if isinstance(result, np.generic) and np.all(where):
        return result.dtype.type(_poison_values(1)[0])
    return result


class Keys:
    """The values a keyed poison answers to: those of the grader's own inputs (`arrays`), as
    float64. A call on one of those very arrays (a host function that hands its input to
    SciPy whole: the common case, a million values at the largest) is answered by one
    comparison; any other by a binary search in the values sorted (once, when first
    needed), linear in the call's size however many keys."""

    def __init__(self, arrays: list[np.ndarray]):
        self._arrays = [a.astype(np.float64).ravel() for a in arrays]
        self._sorted = None
        self._nan = any(bool(np.isnan(a).any()) for a in self._arrays)

    def contains(self, x) -> np.ndarray:
        """Whether each element of `x` is one of the keys (NaN matching NaN)."""
        x = np.asarray(x, np.float64)
        flat = x.ravel()
        if any(a.size == flat.size and np.array_equal(a, flat, equal_nan=True) for a in self._arrays):
            return np.ones(x.shape, bool)
        if self._sorted is None:
            self._sorted = np.unique(np.concatenate(self._arrays)) if self._arrays else np.zeros(0)
        keys = self._sorted
        if keys.size == 0:
            return np.zeros(x.shape, bool)
        hit = keys[np.minimum(np.searchsorted(keys, x), keys.size - 1)] == x
        return hit | np.isnan(x) if self._nan else hit


def _keyed(args, kwargs, keys):
    """Where a ufunc call's output elements are poisoned: everywhere without `keys`; with
    `keys` (Keys: the grader's own input values), only the elements whose input (a
    one-input ufunc's, broadcast as the call broadcasts it) is one of them, NaN matching NaN;
    `where=` narrows it further."""
    where = kwargs.get("where", True)
    if keys is None or not args:
        return where
    try:
        x = np.asarray(args[0], dtype=np.float64)
    except (TypeError, ValueError):   # complex or object input: everywhere, as without keys
        return where
    hit = keys.contains(x)
    return hit & where if where is not True else hit


class PoisonUfunc:
    """Stands in for a NumPy ufunc (scipy.special.gammaln, digamma) while the grader proves
    that values depend on it. Every call first runs the real ufunc with the same arguments,
    so dtypes, casting, broadcasting, `out=` (positional, array or tuple), `where=` and the
    errors are exactly the original's; then every output element the call produced (in the
    returned array, which is `out` when one was given) becomes a poison value. Keyed (`keys`,
    the values of the grader's own input), only the elements computed from those very values
    are poisoned: everywhere else it returns the real ufunc's values, so a host function that
    tests SciPy at a point of its own choosing sees SciPy's values there and cannot tell it is
    poisoned. Attributes (nin, nout, types, __name__, ...) are the original's, and
    isinstance(it, np.ufunc) holds (its __class__); type() and id() still tell it apart (see
    docs/verdicts.md)."""
    __slots__ = ("_real", "_keys")

    def __init__(self, real: np.ufunc, keys: Keys | None = None):
        """`keys`: None, or keys_of's Keys."""
        object.__setattr__(self, "_real", real)
        object.__setattr__(self, "_keys", keys)

    @property
    def __class__(self):   # isinstance(poisoned, np.ufunc), as the original
        return type(self._real)

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and isinstance(args[0], (float, np.floating)):   # np.vectorize's element
            result = self._real(args[0])
            hit = self._keys is None or bool(self._keys.contains(np.float64(args[0])))
            return _overwritten(result) if hit else result
        where = _keyed(args, kwargs, self._keys) if self._real.nin == 1 else kwargs.get("where", True)
        return _overwritten(self._real(*args, **kwargs), where)

    def outer(self, *args, **kwargs):
        return _overwritten(self._real.outer(*args, **kwargs), kwargs.get("where", True))

    # reduce's `where` selects inputs, not outputs: every output element comes from the call
    def reduce(self, *args, **kwargs):
        return _overwritten(self._real.reduce(*args, **kwargs))

    def accumulate(self, *args, **kwargs):
        return _overwritten(self._real.accumulate(*args, **kwargs))

    def reduceat(self, *args, **kwargs):
        return _overwritten(self._real.reduceat(*args, **kwargs))

    def at(self, a, indices, *b):
        """In place, as ufunc.at: the elements at `indices` are the call's output."""
        self._real.at(a, indices, *b)
        chosen = np.asarray(a[indices])
        a[indices] = _poison_values(chosen.size).reshape(chosen.shape)

    def __getattr__(self, name):   # nin, nout, types, identity, signature, __name__, __doc__...
        if name == "_real":   # not set yet (a copy being built): no recursion
            raise AttributeError(name)
        return getattr(self._real, name)

    def __repr__(self):
        return repr(self._real)


def poison_for(original, keys=None):
    """What stands in for `original` while it is poisoned (a ufunc: only on `keys`' values,
    when given; see PoisonUfunc)."""
    return PoisonUfunc(original, keys) if type(original) is np.ufunc else _poison_function


def keys_of(arrays) -> Keys:
    """The keys of a keyed poison: every value of `arrays` (the grader's own inputs, as a
    callback's operands)."""
    return Keys([np.asarray(a) for a in arrays if np.asarray(a).dtype.kind in "fiub"])


@contextlib.contextmanager
def replaced(original, replacement):
    """Replace `original` by `replacement` wherever it is referenced (module and notebook
    globals, containers at any depth, closure cells, default arguments, a functools.partial's
    function and arguments, object and class attributes, slots; np.vectorize's cached ufunc
    is dropped), found by object with gc.get_referrers, and put it back afterwards. A tuple
    or frozenset holding it is rebuilt with the replacement and itself replaced, up to the
    mutable owner that holds it (a notebook global `FNS = (sps.gammaln, sps.digamma)`)."""
    if replacement is _poison_function:   # the generic poison named for a ufunc: the ufunc's own
        replacement = poison_for(original)
    keep = (original, replacement)   # neither this tuple nor the replacement is rewritten
    del original
    swap = _Swap(keep, replacement)
    refs = get_referrers(keep[0])   # one scan of every object serves both steps (each costs ~20 ms)
    _drop_vectorize_caches(keep[0], refs, swap.undo)
    swap.substitute(keep[0], keep[1], refs=refs)
    del refs
    try:
        yield
    finally:
        for step in reversed(swap.undo):
            step()


def _drop_vectorize_caches(original, refs: list, undo: list) -> None:
    """np.vectorize caches a ufunc made from its function: drop it while `original` (whose
    referrers are `refs`) is replaced."""
    # an instance's attribute dict that holds it as `pyfunc` (a second scan of every object,
    # ~20 ms, only for those: a module's or the notebook's namespace is not one)
    dicts = [r for r in refs if isinstance(r, dict) and dict.get(r, "pyfunc") is original]
    owners = [r for r in refs if not isinstance(r, dict)] + (get_referrers(*dicts) if dicts else [])
    for owner in owners:
        if isinstance(owner, np.vectorize) and vars(owner).get("pyfunc") is original:
            undo.append(functools.partial(setattr, owner, "_ufunc", owner._ufunc))
            owner._ufunc = {}


_TUPLE_DEPTH = 16   # tuples nested in tuples rebuilt, at most


class _Swap:
    """One replacement in progress: what to undo, and the objects of its own bookkeeping
    (the referrer lists it holds, which hold what is being replaced) that it must not touch."""

    def __init__(self, keep: tuple, replacement):
        self.undo: list[Callable[[], None]] = []
        self.held: list[list] = []   # referrer lists, alive so that their ids stay theirs
        self.skip = {id(keep), id(replacement), id(self.undo), id(self.held)}
        self.done: set[int] = set()
        self.replacement = replacement

    def substitute(self, old, new, depth: int = 0, refs: list | None = None) -> None:
        """Put `new` wherever `old` (whose referrers are `refs`, when known) is referenced.
        (No closure here may hold `old`: its cell would be a referrer, and rewriting it
        would rebind `old` itself.)"""
        if id(old) in self.done:
            return
        self.done.add(id(old))
        refs = get_referrers(old) if refs is None else refs
        self.held.append(refs)
        self.skip.add(id(refs))
        for ref in refs:
            if id(ref) in self.skip or isinstance(ref, (types.ModuleType, types.FrameType)):
                continue
            if isinstance(ref, dict):
                self._in_dict(ref, old, new)
            elif isinstance(ref, (list, collections.deque)):
                for i, value in enumerate(ref):
                    if value is old:
                        ref[i] = new
                        self.undo.append(functools.partial(ref.__setitem__, i, old))
            elif isinstance(ref, set):
                if _holds(ref, old):
                    _swap_member(ref, old, new)
                    self.undo.append(functools.partial(_swap_member, ref, new, old))
            elif isinstance(ref, types.CellType):
                ref.cell_contents = new
                self.undo.append(functools.partial(setattr, ref, "cell_contents", old))
            elif isinstance(ref, functools.partial):
                self._in_partial(ref, old, new)
            elif isinstance(ref, (tuple, frozenset)):
                if _holds(ref, self.replacement):   # our own call's arguments (the context manager's)
                    continue
                rebuilt = _rebuilt(ref, old, new) if depth < _TUPLE_DEPTH else None
                if rebuilt is not None:
                    self.substitute(ref, rebuilt, depth + 1)
            elif isinstance(ref, types.FunctionType):
                for attr in ("__defaults__", "__kwdefaults__"):
                    if getattr(ref, attr) is old:
                        setattr(ref, attr, new)
                        self.undo.append(functools.partial(setattr, ref, attr, old))
            elif not isinstance(ref, type):
                _replace_attributes(ref, old, new, self.undo)

    def _in_dict(self, d: dict, old, new) -> None:
        keys = [key for key, value in list(d.items()) if value is old]
        if not keys:
            return
        owner = _class_of_namespace(d) if "__module__" in d else None   # every class's namespace has one
        for key in keys:
            if owner is not None:   # setattr, so that the class's attribute cache sees it
                setattr(owner, key, new)
                self.undo.append(functools.partial(setattr, owner, key, old))
            else:
                d[key] = new
                self.undo.append(functools.partial(d.__setitem__, key, old))

    def _in_partial(self, ref: functools.partial, old, new) -> None:
        func, args, keywords, *rest = ref.__reduce__()[2]
        if func is not old and args is not old:
            return   # its keywords are a dict: rewritten as one
        ref.__setstate__((new if func is old else func, new if args is old else args, keywords, *rest))
        self.undo.append(functools.partial(ref.__setstate__, (func, args, keywords, *rest)))


def _holds(members, value) -> bool:
    return any(v is value for v in members)


def _swap_member(members: set, out, back) -> None:
    members.discard(out)
    members.add(back)


def _rebuilt(container, old, new):
    """A copy of a tuple (a namedtuple too) or frozenset with `new` in place of `old`; None
    for a tuple type that cannot be rebuilt from its items."""
    items = [new if v is old else v for v in container]
    if isinstance(container, frozenset):
        return frozenset(items)
    if type(container) is tuple:
        return tuple(items)
    if hasattr(type(container), "_make"):
        return type(container)._make(items)
    return None


def _class_of_namespace(d: dict):
    """The class whose __dict__ is `d`, if any (a class's namespace must be changed through
    the class, or its attribute cache keeps the old value)."""
    for owner in get_referrers(d):
        if isinstance(owner, type) and any(r is d for r in get_referents(owner.__dict__)):
            return owner
    return None


def _replace_attributes(owner, original, replacement, undo: list) -> None:
    """Slots (JAX keeps the host function given to pure_callback in a slotted object) and
    instance attributes that Python 3.13 keeps inline, where no dict is a referrer."""
    names = {n for cls in type(owner).__mro__ for n in getattr(cls, "__slots__", ())
             if isinstance(n, str) and n not in ("__dict__", "__weakref__")}
    for name in names:
        if getattr(owner, name, None) is original:
            object.__setattr__(owner, name, replacement)
            undo.append(functools.partial(object.__setattr__, owner, name, original))
    attrs = getattr(owner, "__dict__", None)
    if isinstance(attrs, dict):
        for key, value in list(attrs.items()):
            if value is original:
                attrs[key] = replacement
                undo.append(functools.partial(attrs.__setitem__, key, original))


def resolve(dotted: str):
    """The object a dotted name (scipy.special.gammaln) names."""
    module, _, name = dotted.rpartition(".")
    return getattr(__import__(module, fromlist=[name]), name)


def poisoned(dotted: str, keys=None):
    """A context in which the function a dotted name (scipy.special.gammaln) names is its
    poison wherever it is referenced (replaced); with `keys` (keys_of the grader's inputs), a
    ufunc's poison is keyed: real values everywhere but on those very inputs."""
    original = resolve(dotted)
    return replaced(original, poison_for(original, keys))
