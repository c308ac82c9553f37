"""A StableHLO module read as MLIR operations: every stablehlo.custom_call with its target
and typed attributes, classified as a registered FFI handler, a host callback (what
pure_callback/io_callback/debug.callback lower to) or one of jaxlib's own built-in targets;
custom_calls retargeted (to the grader's poison); tensor types as shapes and dtypes; and the
opcodes of a compiled program.

The executor reads the program a witness handed over with it (autograder.executor), before
any kernel library is loaded; the tests read the modules JAX lowers to with it.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
from jax.extend.mlir import ir

from autograder.shared.evidence import MLIR_ELEMENTS, Attribute, tensor_shape

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
class CustomCall:
    target: str
    kind: str                                   # "ffi", "host_callback" or "builtin"
    attributes: dict[str, Attribute] = field(default_factory=dict)  # FFI attributes (eps=...)
    operand_types: tuple[str, ...] = ()
    result_types: tuple[str, ...] = ()
    side_effect: bool = False                   # has_side_effect: io_callback's, never pure_callback's


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


def custom_call(op: ir.Operation) -> CustomCall:
    """One stablehlo.custom_call operation read (inside its module's context)."""
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
        result_types=tuple(str(r.type) for r in op.results),
        side_effect="has_side_effect" in attrs and bool(attrs["has_side_effect"].value))


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
        return [custom_call(op) for op in walk(module.operation)
                if op.name == "stablehlo.custom_call"]

def retarget(module: ir.Module, indices, target: str) -> list[int]:
    """Make custom_calls number `indices` (program order) of `module` call `target`, in place
    (inside the module's context); the element counts of their results."""
    calls = [op for op in walk(module.operation) if op.name == "stablehlo.custom_call"]
    sizes = []
    for i in indices:
        calls[i].attributes["call_target_name"] = ir.StringAttr.get(target)
        sizes += [int(np.prod(r.type.shape)) for r in calls[i].results if hasattr(r.type, "shape")]
    return sizes


MLIR_DTYPES = {k: np.dtype(v) for k, v in MLIR_ELEMENTS.items()}


def tensor_type(text: str) -> tuple[tuple[int, ...], np.dtype]:
    """"tensor<3x7xf32>" -> ((3, 7), float32); "tensor<f32>" -> ((), float32). TypeError for
    anything else (evidence.tensor_shape)."""
    shape, dtype = tensor_shape(text)
    return shape, np.dtype(dtype)


def ints(op, name) -> list[int]:
    """An operation's integer-list attribute: "array<i64: 1, 0>" or "dense<[1, 0]> : ..." -> [1, 0]."""
    text = str(op.attributes[name])
    text = text.partition(":")[2] if text.startswith("array<") else text.split(" : ")[0]
    return [int(x) for x in re.findall(r"-?\d+", text)]


def opcodes(compiled) -> list[str]:
    """The sorted opcodes of every instruction in a compiled program's optimized modules
    (fusions included; XLA has dropped dead code), e.g. ["custom-call", "exp", "multiply"]. A
    reduce whose result is a predicate (jnp.all of an index's bounds test, which x[i] and
    .at[i].set at a loop's counter keep) is listed as "reduce-pred": a truth, not arithmetic."""
    names = set()
    for module in compiled.runtime_executable().hlo_modules():
        for computation in module.computations():
            for instruction in computation.instructions():
                camel = str(instruction.opcode).removeprefix("HloOpcode.k")   # kExpm1 -> "expm1"
                name = "".join("-" + c.lower() if c.isupper() else c for c in camel).lstrip("-")
                names.add("reduce-pred" if name == "reduce" and str(instruction.shape).startswith("pred[") else name)
    return sorted(names)
