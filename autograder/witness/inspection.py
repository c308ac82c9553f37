"""What a JAX program is made of, read from its jaxpr.

Hidden tests ask structural questions through this module, never through strings:
- jaxpr: every equation, recursively through nested jaxprs (jit, custom_jvp_call,
  custom_vjp_call, closed_call, cond branches, scan/while bodies, remat, ...), matched
  by primitive object (or name), so a jitted helper that merely is *called*
  `pure_callback` is a `jit` equation and never counts as a pure_callback;
- the JVP, transpose and batching rules registered for a primitive.
The StableHLO a program lowers to (its custom_calls, classified as FFI handlers, host
callbacks or jaxlib built-ins) is read by autograder/shared/stablehlo.py, on the
executor's side.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import jax
from jax.extend import core as jex_core
from jax.interpreters import ad, batching

# The primitive objects themselves: matching by identity cannot be fooled by a name.
from jax._src.callback import io_callback_p, pure_callback_p  # noqa: E402  (semi-internal)
from jax._src.debugging import debug_callback_p  # noqa: E402
from jax._src.ffi import ffi_call_p  # noqa: E402

PrimitiveLike = jex_core.Primitive | str


# ---------------------------------------------------------------- jaxpr ----------

def make_jaxpr(fn: Callable, *args, **kwargs) -> jex_core.ClosedJaxpr:
    return jax.make_jaxpr(fn)(*args, **kwargs)


def _sub_jaxprs(value: Any) -> Iterator[jex_core.Jaxpr]:
    """Jaxprs held in one equation parameter (a jaxpr, a closed jaxpr, or a sequence)."""
    if isinstance(value, jex_core.ClosedJaxpr):
        yield value.jaxpr
    elif isinstance(value, jex_core.Jaxpr):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _sub_jaxprs(item)


def iter_eqns(jaxpr: jex_core.Jaxpr | jex_core.ClosedJaxpr) -> Iterator[jex_core.JaxprEqn]:
    """Every equation of `jaxpr` and of every jaxpr nested in an equation's params."""
    if isinstance(jaxpr, jex_core.ClosedJaxpr):
        jaxpr = jaxpr.jaxpr
    for eqn in jaxpr.eqns:
        yield eqn
        for value in eqn.params.values():
            for sub in _sub_jaxprs(value):
                yield from iter_eqns(sub)


def _matches(eqn: jex_core.JaxprEqn, primitive: PrimitiveLike) -> bool:
    if isinstance(primitive, str):
        return eqn.primitive.name == primitive
    return eqn.primitive is primitive


def find_eqns(jaxpr, primitive: PrimitiveLike) -> list[jex_core.JaxprEqn]:
    """Equations whose primitive IS `primitive` (an object), or is named `primitive`."""
    return [eqn for eqn in iter_eqns(jaxpr) if _matches(eqn, primitive)]


# ------------------------------------------------------------------ rules ----------

def jvp_rule(primitive: jex_core.Primitive):
    return ad.primitive_jvps.get(primitive)


def transpose_rule(primitive: jex_core.Primitive):
    return ad.primitive_transposes.get(primitive)


def batching_rule(primitive: jex_core.Primitive):
    # batching.primitive_batchers is a write-only proxy in 0.12 (`in` raises TypeError);
    # it stores wrapped rules in fancy_primitive_batchers, which can be read.
    return batching.fancy_primitive_batchers.get(primitive)


def registered_rules(primitive: jex_core.Primitive) -> dict[str, bool]:
    """{"JVP rule": bool, "transpose rule": bool, "batching rule": bool}."""
    return {"JVP rule": jvp_rule(primitive) is not None,
            "transpose rule": transpose_rule(primitive) is not None,
            "batching rule": batching_rule(primitive) is not None}
