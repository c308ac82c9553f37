"""What a JAX program is made of, read from its jaxpr and its StableHLO.

Hidden tests ask structural questions through this module, never through strings:
- jaxpr: every equation, recursively through nested jaxprs (jit, custom_jvp_call,
  custom_vjp_call, closed_call, cond branches, scan/while bodies, remat, ...), matched
  by primitive object (or name), so a jitted helper that merely is *called*
  `pure_callback` is a `jit` equation and never counts as a pure_callback;
- StableHLO: every stablehlo.custom_call of `lowered.compiler_ir("stablehlo")`, walked
  as MLIR operations, with its target and typed attributes, classified as a registered
  FFI handler, a host callback (what pure_callback/io_callback/debug.callback lower to)
  or one of jaxlib's own built-in targets (LAPACK, ...);
- the JVP, transpose and batching rules registered for a primitive.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np
from jax.extend import core as jex_core
from jax.extend.mlir import ir
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


def primitive_names(jaxpr) -> list[str]:
    """Names of every primitive in `jaxpr`, nested ones included, in walk order."""
    return [eqn.primitive.name for eqn in iter_eqns(jaxpr)]


def callback_function(eqn: jex_core.JaxprEqn) -> Callable[..., list[np.ndarray]]:
    """The host function behind a pure_callback/io_callback equation, callable on NumPy
    arrays (flattened operands in, flat list of outputs back)."""
    if eqn.primitive not in (pure_callback_p, io_callback_p):
        raise TypeError(f"not a callback equation: {eqn.primitive.name}")
    flat = eqn.params["callback"]
    return lambda *args: list(flat(*args))


def ffi_call_targets(jaxpr) -> list[str]:
    """Target names of the jax.ffi.ffi_call equations, without lowering anything."""
    return [eqn.params["target_name"] for eqn in find_eqns(jaxpr, ffi_call_p)]


# ------------------------------------------------------------- StableHLO ----------

# What JAX's host callbacks lower to (jax/_src/callback.py: xla_ffi_python_cpu_callback,
# xla_ffi_partitioned_python_cpu_callback, and the older buffer/untyped variants).
_HOST_CALLBACK_TARGET = re.compile(r"^xla_(ffi_|buffer_)?(partitioned_)?python_(cpu|gpu)_callback$")
# Targets XLA or JAX itself emits that no student registers.
_XLA_INTERNAL_TARGETS = frozenset({
    "Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape", "MoveToHost", "MoveToDevice",
    "annotate_device_placement", "dce_sink", "LayoutConstraint", "PartialReduce",
    "X64Combine", "X64SplitLow", "X64SplitHigh", "tpu_custom_call", "mosaic_gpu",
})


def jaxlib_builtin_targets() -> frozenset[str]:
    """FFI targets that jaxlib registers for itself (LAPACK and sparse kernels)."""
    names = set(_XLA_INTERNAL_TARGETS)
    for module_name in ("jaxlib.lapack", "jaxlib.cpu_sparse"):
        try:
            module = __import__(module_name, fromlist=["registrations"])
            for targets in module.registrations().values():
                names.update(t[0] for t in targets)
        except (ImportError, AttributeError):
            pass
    return frozenset(names)


@dataclass(frozen=True)
class Attribute:
    value: Any          # Python value: float, int, bool, str, np.ndarray, or the MLIR text
    type: str           # MLIR type, e.g. "f32", "i64", "ui64"; "" for strings and others


@dataclass(frozen=True)
class CustomCall:
    target: str
    kind: str                                   # "ffi", "host_callback" or "builtin"
    attributes: dict[str, Attribute] = field(default_factory=dict)  # FFI attributes (eps=...)
    operand_types: tuple[str, ...] = ()
    result_types: tuple[str, ...] = ()


def classify_target(target: str) -> str:
    if _HOST_CALLBACK_TARGET.match(target):
        return "host_callback"
    if target in jaxlib_builtin_targets() or target.startswith(("xla.", "mhlo.", "sdy.")):
        return "builtin"
    return "ffi"


def _attribute(attr: ir.Attribute) -> Attribute:
    # The MLIR bindings return attributes already downcast to their concrete class.
    if isinstance(attr, (ir.FloatAttr, ir.IntegerAttr)):
        return Attribute(attr.value, str(attr.type))
    if isinstance(attr, (ir.BoolAttr, ir.StringAttr)):
        return Attribute(attr.value, "")
    if isinstance(attr, ir.DenseElementsAttr):
        return Attribute(np.array(attr), str(attr.type))
    return Attribute(str(attr), "")


def _custom_call(op: ir.Operation) -> CustomCall:
    attrs = op.attributes
    target = attrs["call_target_name"].value
    ffi_attrs = {}
    # Typed FFI: the handler's attributes (eps = ... : f32), where jax.ffi puts them
    # (mhlo.backend_config) or, in a custom_call written by hand, in backend_config.
    for key in ("backend_config", "mhlo.backend_config"):
        config = attrs[key] if key in attrs else None
        if isinstance(config, ir.DictAttr):
            for i in range(len(config)):
                ffi_attrs[config[i].name] = _attribute(config[i].attr)
    return CustomCall(
        target=target, kind=classify_target(target), attributes=ffi_attrs,
        operand_types=tuple(str(v.type) for v in op.operands),
        result_types=tuple(str(r.type) for r in op.results))


def walk(op: ir.Operation) -> Iterator[ir.Operation]:
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                yield child.operation
                yield from walk(child.operation)


def stablehlo_module(lowered_or_module) -> ir.Module:
    if isinstance(lowered_or_module, ir.Module):
        return lowered_or_module
    return lowered_or_module.compiler_ir("stablehlo")


def custom_calls(lowered_or_module) -> list[CustomCall]:
    """Every stablehlo.custom_call in the module (all functions), in program order."""
    module = stablehlo_module(lowered_or_module)
    with module.context:
        return [_custom_call(op) for op in walk(module.operation)
                if op.name == "stablehlo.custom_call"]


def ffi_custom_calls(lowered_or_module) -> list[CustomCall]:
    """custom_calls of registered FFI handlers only: no host callbacks, no jaxlib built-ins."""
    return [c for c in custom_calls(lowered_or_module) if c.kind == "ffi"]


def lower(fn: Callable, *args, **kwargs):
    """`jax.jit(fn).lower(*args)`: the Lowered object that custom_calls() reads."""
    return jax.jit(fn).lower(*args, **kwargs)


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
