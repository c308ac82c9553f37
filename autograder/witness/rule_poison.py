"""reduce_sum_rules' observations: what the primitive object is, and whether a result
depends on each rule registered for it (the JVP, transpose or batching rule, or the
primitive's own impl and lowering swapped in JAX's tables for a weighted poison for one
evaluation). Runs where the student's code runs; exposed to the tests' questions as
facts.primitive_state and facts.rule_dependence.
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable

import numpy as np

def primitive_state(primitive, example, axis: tuple) -> dict:
    """What `primitive` is, as data: {"type": its class ("module.QualName"), "plain": whether
    that class is jax.extend.core.Primitive itself (not a subclass), "attributes":
    the sorted names in its instance __dict__ (Primitive(name), def_impl and
    def_abstract_eval set exactly "abstract_eval", "impl" and "name"; anything else, such
    as bind or bind_with_trace, is an instance-level override), "name", and what its own
    pieces compute on `example` summed over `axis`: "impl" (its impl called directly),
    "lowering" (jax.jit of Primitive.bind, which runs the lowering), "abstract_eval"
    ({"shape", "dtype", "effects"}); each an "Error: message" string if it raised}."""
    import jax
    import jax.numpy as jnp
    from jax.extend.core import Primitive

    from autograder.shared.checks import describe
    cls = type(primitive)
    state = {"type": f"{cls.__module__}.{cls.__qualname__}", "plain": cls is Primitive,
             "attributes": sorted(str(k) for k in getattr(primitive, "__dict__", {})),
             "name": str(getattr(primitive, "name", ""))}
    if not isinstance(primitive, Primitive):
        return state
    x = jnp.asarray(example)
    for key, run in (("impl", lambda: np.asarray(primitive.impl(x, axis=axis))),
                     ("lowering", lambda: np.asarray(
                         jax.jit(lambda v: Primitive.bind(primitive, v, axis=axis))(x))),
                     ("abstract_eval", lambda: _aval_data(
                         primitive.abstract_eval(jax.typeof(x), axis=axis)))):
        try:
            state[key] = run()
        except BaseException as exc:  # student code may raise anything
            state[key] = describe(exc)
    return state


def _aval_data(result) -> dict:
    aval, effects = result if isinstance(result, tuple) else (result, ())
    return {"shape": [int(d) for d in aval.shape], "dtype": str(aval.dtype), "effects": len(effects)}


def _weights(shape, dtype):
    """Poison weights shaped like an operand: 2 * autograder.shared.poison.values, never 1 or 0."""
    import jax.numpy as jnp

    from autograder.shared import poison
    shape = tuple(int(d) for d in shape)
    return jnp.asarray(2 * poison.values(int(np.prod(shape, dtype=np.int64))).reshape(shape), dtype)


# The poisons follow the data: each is the sum (or its transpose) with every element of its
# operand weighted by a poison weight, computed with jnp. A piece whose operand was multiplied
# by zero, or whose result is, still gives zero and changes nothing downstream.

def _poison_impl(x, *, axis, **_):
    import jax.numpy as jnp
    return jnp.sum(x * _weights(np.shape(x), x.dtype), axis=axis)


def _poison_jvp(primals, tangents, *, axis, **_):
    from jax.interpreters import ad
    x, t = primals[0], ad.instantiate_zeros(tangents[0])
    return _poison_impl(x, axis=axis), _poison_impl(t, axis=axis)


def _poison_transpose(ct, x, *, axis, **_):
    import jax
    import jax.numpy as jnp
    from jax.interpreters import ad
    aval = x.aval if ad.is_undefined_primal(x) else jax.typeof(x)
    ct = ad.instantiate_zeros(ct) if type(ct) is ad.Zero else ct
    return (jnp.broadcast_to(jnp.expand_dims(ct, axis), aval.shape) * _weights(aval.shape, aval.dtype),)


def _poison_batch(args, dims, *, axis, **_):
    import jax.numpy as jnp
    x = jnp.moveaxis(args[0], dims[0], 0)
    return _poison_impl(x, axis=tuple(a + 1 for a in axis)), 0


@contextlib.contextmanager
def _rule_swapped(primitive, piece: str):
    """One piece of `primitive` swapped for a poison while the block runs, JAX's caches
    cleared on the way in and out (a cached trace or executable would hide the swap, or
    keep it afterwards); whatever happens, the tables are put back as they were."""
    import jax
    from jax._src.interpreters import ad, batching, mlir

    undo: list = []

    def put(table: dict, value) -> None:
        had, old = primitive in table, table.get(primitive)
        table[primitive] = value
        undo.append(lambda: table.__setitem__(primitive, old) if had else table.pop(primitive, None))

    try:
        if piece == "jvp":
            put(ad.primitive_jvps, _poison_jvp)
        elif piece == "transpose":
            put(ad.primitive_transposes, _poison_transpose)
        elif piece == "batching":
            table = batching.fancy_primitive_batchers
            had, old = primitive in table, table.get(primitive)
            undo.append(lambda: table.__setitem__(primitive, old) if had else table.pop(primitive, None))
            batching.primitive_batchers[primitive] = _poison_batch
        elif piece == "primitive":
            had, old = "impl" in vars(primitive), vars(primitive).get("impl")
            undo.append(lambda: vars(primitive).__setitem__("impl", old) if had
                        else vars(primitive).pop("impl", None))
            vars(primitive)["impl"] = _poison_impl
            entry = mlir.LoweringRuleEntry(mlir.lower_fun(_poison_impl, multiple_results=False), True)
            put(mlir._lowerings, entry)
            for table in list(mlir._platform_specific_lowerings.values()):
                if primitive in table:
                    put(table, entry)
        else:
            raise ValueError(f"unknown piece {piece!r}")
        jax.clear_caches()
        yield
    finally:
        for step in reversed(undo):
            step()
        jax.clear_caches()


def rule_dependence(fn: Callable, *args, primitive,
                    pieces: tuple[str, ...] = ("jvp", "transpose", "batching", "primitive")) -> dict:
    """Where the values of `fn(*args)` come from, for a primitive `primitive` with an `axis`
    parameter (a sum over axis): evaluate fn(*args) as it is ("value": flat outputs), then
    once per piece with that piece of the primitive swapped for a poison (the same sum, or
    its transpose, with every operand element weighted by 2 * autograder.shared.poison.values, so a
    piece fed zeros or whose result is multiplied by zero changes nothing): "jvp", "transpose",
    "batching" (the rule registered in ad.primitive_jvps, ad.primitive_transposes,
    batching.primitive_batchers) and "primitive" (its impl and every lowering registered
    for it). Returns {"value", "poisoned": {piece: {"outputs": flat outputs, "sizes": []}
    or None when the poisoned evaluation raised}, "errors": {piece: "Error: message"}}.
    `fn` is any path (eager or jitted; JAX's caches are cleared around each swap); the
    tables, impl and lowerings are put back whatever happens."""
    import jax

    from autograder.shared.checks import describe

    def flat(outputs):
        return [np.asarray(leaf) for leaf in jax.tree.leaves(outputs)]

    report = {"value": flat(fn(*args)), "poisoned": {}, "errors": {}}
    for piece in pieces:
        try:
            with _rule_swapped(primitive, piece):
                report["poisoned"][piece] = {"outputs": flat(fn(*args)), "sizes": []}
        except BaseException as exc:  # student code may raise anything under the swap
            report["poisoned"][piece] = None
            report["errors"][piece] = describe(exc)
    return report
