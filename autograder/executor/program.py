"""Run the program an answer built, as data, with no student Python: the StableHLO text of
`jax.jit(fn).lower(*args)` that the witness handed over, read and run here on the grader's
inputs, with only the course's kernels loaded (autograder/executor/__main__.py runs this in
its own unprivileged process; Otter's in-process checks call it directly).

`report(text, args)` gives what autograder.witness.provenance.trace gives, plus the optimized
program's opcodes, all computed from the program itself:
- "calls": every custom_call in program order ({"target", "kind", "course", "attributes":
  the FFI attributes, {name: {"value", "type"}}}), read from the parsed module before
  anything runs;
- "value": the flat outputs of the program run as it is, on `args`;
- "poisoned": the outputs with every FFI custom_call (and, with `each`, each one alone)
  retargeted to the poison handler (autograder.shared.poison), so the verdicts can say
  whether the output depends on a call and leaves it unchanged;
- "opcodes": the operations of the compiled module after XLA dropped dead code;
- "refused": why the program was not run (a host callback: its backend_config points into
  the witness's memory; an FFI target the grader does not hold; inputs that do not match),
  with "value" None.
The program is run through jax.export (an Exported whose metadata the grader writes from
its own inputs and the module's signature, so nothing but the module comes from the
student's side), with the custom-call safety check disabled for the course's targets only.
"""
from __future__ import annotations

import jax
import numpy as np
from jax._src.export import _export  # module_to_bytecode: semi-internal, pinned jax
from jax._src.interpreters import mlir as jax_mlir
from jax.extend.mlir import ir

from autograder.shared import poison, stablehlo

# The course's FFI targets registered in this process (once).
_loaded: set[str] = set()


def course_targets() -> set[str]:
    """Register the course's kernels and the poison handler (once); their target names."""
    if not _loaded:
        import os

        import kernels
        from kernels import rms_norm  # registers rms_norm, rms_norm_fwd, rms_norm_bwd
        from kernels.build import load_and_register
        load_and_register(os.path.join(os.path.dirname(kernels.__file__), "poison.cc"),
                          {poison.TARGET: poison.SYMBOL})
        _loaded.update(rms_norm.TARGETS)
    return set(_loaded)


def _module(text: str) -> ir.Module:
    return ir.Module.parse(text)


def _tensor(type_text: str) -> jax.ShapeDtypeStruct | None:
    try:
        return jax.ShapeDtypeStruct(*stablehlo.tensor_type(type_text))
    except TypeError:
        return None


def _main(module: ir.Module):
    for op in module.body.operations:
        if op.operation.name == "func.func" and op.attributes["sym_name"].value == "main":
            return op
    raise ValueError("the program has no main function")


def _exported(module: ir.Module, args: list[np.ndarray], targets: set[str]) -> jax.export.Exported:
    """An Exported for `module` whose inputs are the grader's `args` (checked against the
    module's main signature) and whose outputs are the main's results."""
    main = _main(module)
    ftype = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
    ins = [_tensor(str(t)) for t in ftype.inputs]
    outs = [_tensor(str(t)) for t in ftype.results]
    if len(ins) != len(args) or any(i is None or i.shape != a.shape or i.dtype != a.dtype
                                    for i, a in zip(ins, args)):
        raise ValueError("the program does not take the grader's inputs "
                         f"({', '.join(map(str, ftype.inputs))})")
    if not outs or any(o is None for o in outs):
        raise ValueError(f"the program's results ({', '.join(map(str, ftype.results))}) are not arrays")
    in_avals = tuple(jax.core.ShapedArray(a.shape, a.dtype) for a in args)
    out_avals = tuple(jax.core.ShapedArray(o.shape, o.dtype) for o in outs)
    none_in, none_out = (None,) * len(in_avals), (None,) * len(out_avals)
    return jax.export.Exported(
        fun_name="program", in_tree=jax.tree.structure((tuple(args), {})), in_avals=in_avals,
        out_tree=jax.tree.structure(tuple(out_avals)), out_avals=out_avals,
        in_shardings_hlo=none_in, out_shardings_hlo=none_out, nr_devices=1, platforms=("cpu",),
        ordered_effects=(), unordered_effects=(),
        disabled_safety_checks=tuple(jax.export.DisabledSafetyCheck.custom_call(t) for t in sorted(targets)),
        mlir_module_serialized=_export._module_to_bytecode(module),
        calling_convention_version=jax.export.maximum_supported_calling_convention_version,
        module_kept_var_idx=tuple(range(len(args))), uses_global_constants=False, _get_vjp=None,
        _in_named_shardings=none_in, _out_named_shardings=none_out)


def _flat(outputs) -> list[np.ndarray]:
    return [np.asarray(leaf) for leaf in jax.tree.leaves(outputs)]


def report(text: str, args: list, *, each: bool = False) -> dict:
    """Read and run the program `text` on `args` (see the module docstring)."""
    args = [np.asarray(a) for a in args]
    targets = course_targets()
    with jax_mlir.make_ir_context():
        module = _module(text)
        calls = [{"target": c.target, "kind": c.kind, "course": c.kind == "ffi" and c.target in targets,
                  "attributes": c.attributes} for c in stablehlo.custom_calls(module)]
        out = {"calls": calls, "value": None, "poisoned": {}, "opcodes": [], "refused": ""}
        if any(c["kind"] == "host_callback" for c in calls):
            out["refused"] = "it runs a host callback"
            return out
        foreign = sorted({c["target"] for c in calls if c["kind"] == "ffi" and not c["course"]})
        if foreign:
            out["refused"] = f"it calls the FFI target {', '.join(foreign)}, which the grader does not run"
            return out
        try:
            exported = _exported(module, args, targets)
        except ValueError as exc:
            out["refused"] = str(exc)
            return out
        try:
            compiled = jax.jit(exported.call).lower(*args).compile()   # once: the value and the opcodes
            value = _flat(compiled(*args))
        except Exception as exc:  # the kernel rejected its operands or attributes: the answer's
            out["refused"] = f"running it raised {type(exc).__name__}: {str(exc)[:300]}"
            return out
        out["value"] = value
        out["opcodes"] = stablehlo.opcodes(compiled)
        ffi = [i for i, c in enumerate(calls) if c["kind"] == "ffi"]
        pieces = {"ffi": ffi, **({f"call:{i}": [i] for i in ffi} if each else {})}
        for piece, indices in pieces.items():
            out["poisoned"][piece] = _poisoned(text, indices, args, targets) if indices else None
        out["poisoned"].setdefault("host_callback", None)
    return out


def _poisoned(text: str, indices: list[int], args, targets: set[str]) -> dict:
    """The outputs with custom_calls number `indices` retargeted to the poison handler, and
    the element counts of the poisoned buffers."""
    module = _module(text)
    sizes = stablehlo.retarget(module, indices, poison.TARGET)
    exported = _exported(module, args, targets | {poison.TARGET})
    return {"outputs": _flat(exported.call(*args)), "sizes": sizes}


def run_safely(text: str, args: list, *, each: bool = False) -> dict:
    """report(), with a program that cannot be read or run described instead of raised."""
    try:
        return report(text, args, each=each)
    except Exception as exc:  # a malformed module, an XLA error: the answer's, reported
        return {"calls": [], "value": None, "poisoned": {}, "opcodes": [],
                "refused": f"the program could not be read or run ({type(exc).__name__}: {str(exc)[:200]})"}
