"""Run the program an answer built, as data, with no student Python: the StableHLO text of
`jax.jit(fn).lower(*args)` that the witness handed over, read and run here on the grader's
inputs, with only handlers the grader chose loaded (autograder/executor/handlers.py: the
course's kernels; the C++ files the answer wrote, compiled by the grader). __main__.py runs this
in its own unprivileged process; Otter's in-process checks call it directly.

`report(text, args)` gives what autograder.witness.provenance.trace gives, plus the optimized
program's opcodes, all computed from the program itself:
- "calls": every custom_call in program order ({"target", "kind", "handler", "course",
  "attributes": the FFI attributes, {name: {"value", "type"}}, "operand_types",
  "result_types"}), read from the parsed module before anything runs;
- "value": the flat outputs of the program run as it is, on `args`;
- "poisoned": the outputs with every FFI custom_call (and, with `each`, each one alone)
  retargeted to the poison handler (autograder.shared.poison), so the verdicts can say
  whether the output depends on a call and leaves it unchanged;
- "opcodes": the operations of the compiled module after XLA dropped dead code;
- "refused": why the program was not run (a host callback: its backend_config points into
  the witness's memory; an FFI target the grader does not hold; inputs that do not match),
  with "value" None.
`call(text, index, operands)` calls one custom_call's kernel directly on the grader's operands.
The program is run through jax.export (an Exported whose metadata the grader writes from
its own inputs and the module's signature, so nothing but the module comes from the
student's side), with the custom-call safety check disabled for the program's own FFI
targets, once the handlers have accepted them.
"""
from __future__ import annotations

import jax
import numpy as np
from jax._src.export import _export  # module_to_bytecode: semi-internal, pinned jax
from jax._src.interpreters import mlir as jax_mlir
from jax.extend.mlir import ir

from autograder.executor.handlers import Handlers
from autograder.shared import poison, stablehlo

_handlers = Handlers()   # this process's: the course's kernels, the answer's C++ as compiled here


def course_targets() -> set[str]:
    """Register the course's kernels and the poison handler (once); their target names."""
    return _handlers.course()


def answer_cpp(sources: dict, headers: dict, skipped: list) -> None:
    """The C++ files the answer wrote, for this process's handlers (handlers.Handlers.answer_cpp)."""
    _handlers.answer_cpp(sources, headers, skipped)


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


def _read(text: str, handlers: Handlers, bindings: dict):
    """The parsed module, its calls as data, and why it will not be run ("" when it will)."""
    module = _module(text)
    found = stablehlo.custom_calls(module)
    if any(c.kind == "host_callback" for c in found):
        refused = "it runs a host callback"
    else:
        refused = handlers.resolve(sorted({c.target for c in found if c.kind == "ffi"}), bindings)
    calls = [{"target": c.target, "kind": c.kind, "attributes": c.attributes,
              "operand_types": list(c.operand_types), "result_types": list(c.result_types),
              **(handlers.describe(c.target) if c.kind == "ffi" else {"handler": "", "course": False})}
             for c in found]
    return module, calls, refused


def report(text: str, args: list, *, each: bool = False, handlers: Handlers | None = None,
           bindings: dict | None = None) -> dict:
    """Read and run the program `text` on `args` (see the module docstring); `bindings` is the
    witness's word on which function each of the answer's FFI targets is (handlers.py)."""
    handlers = handlers or _handlers
    args = [np.asarray(a) for a in args]
    with jax_mlir.make_ir_context():
        module, calls, refused = _read(text, handlers, bindings or {})
        out = {"calls": calls, "value": None, "poisoned": {}, "opcodes": [], "refused": refused}
        if refused:
            return out
        targets = {c["target"] for c in calls if c["kind"] == "ffi"}
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


def call(text: str, index: int, operands: list, *, handlers: Handlers | None = None,
         bindings: dict | None = None) -> dict:
    """Call custom_call number `index` (program order) of the program `text` directly: its
    target, with that custom_call's result types and FFI attributes (typed as written), on
    the grader's `operands`, each reshaped to the custom_call's operand in the same position
    (a kernel fed a flattened x gets the grader's x flattened). Returns {"operand_types",
    "outputs": the flat outputs, or None when the operands do not fit (count, sizes, dtypes),
    "refused": why the call was not made}."""
    handlers = handlers or _handlers
    with jax_mlir.make_ir_context():
        _, calls, refused = _read(text, handlers, bindings or {})
    if not 0 <= index < len(calls) or calls[index]["kind"] != "ffi":
        return {"operand_types": [], "outputs": None, "refused": "there is no such FFI call"}
    c = calls[index]
    out = {"operand_types": c["operand_types"], "outputs": None, "refused": refused}
    if refused or len(operands) != len(c["operand_types"]):
        return out
    shaped = []
    for operand, type_text in zip(operands, c["operand_types"]):
        operand = np.asarray(operand)
        try:
            shape, dtype = stablehlo.tensor_type(type_text)
        except TypeError:
            return out
        if operand.size != int(np.prod(shape)) or operand.dtype != dtype:
            return out
        shaped.append(operand.reshape(shape))
    try:
        results = [jax.ShapeDtypeStruct(*stablehlo.tensor_type(t)) for t in c["result_types"]]
        attributes = {name: _attribute_value(a) for name, a in c["attributes"].items()}
        outputs = jax.ffi.ffi_call(c["target"], results)(*shaped, **attributes)
        out["outputs"] = _flat(jax.block_until_ready(outputs))
    except Exception as exc:  # the kernel rejected the call: the answer's
        out["refused"] = f"calling it raised {type(exc).__name__}: {str(exc)[:300]}"
    return out


def _attribute_value(attribute: stablehlo.Attribute):
    """An FFI attribute as the lowering typed it (f32 -> np.float32, i64 -> np.int64, ...)."""
    if attribute.type in stablehlo.MLIR_DTYPES:
        return stablehlo.MLIR_DTYPES[attribute.type](attribute.value)
    if isinstance(attribute.value, (bool, str, np.ndarray)):
        return attribute.value
    raise TypeError(f"an FFI attribute of type {attribute.type or type(attribute.value).__name__} "
                    "cannot be passed again")


def _poisoned(text: str, indices: list[int], args, targets: set[str]) -> dict:
    """The outputs with custom_calls number `indices` retargeted to the poison handler, and
    the element counts of the poisoned buffers."""
    module = _module(text)
    sizes = stablehlo.retarget(module, indices, poison.TARGET)
    exported = _exported(module, args, targets | {poison.TARGET})
    return {"outputs": _flat(exported.call(*args)), "sizes": sizes}


def handle(request: dict, handlers: Handlers | None = None) -> dict:
    """One request of the executor's protocol, answered with data; a program that cannot be
    read or run is described, never raised:
    {"op": "run", "text", "args", "each", "bindings"} -> report();
    {"op": "call", "text", "index", "operands", "bindings"} -> call()."""
    handlers = handlers or _handlers
    text, bindings = str(request.get("text", "")), request.get("bindings") or {}
    try:
        if request.get("op") == "call":
            return call(text, int(request["index"]), list(request["operands"]), handlers=handlers,
                        bindings=bindings)
        return report(text, list(request["args"]), each=bool(request.get("each")), handlers=handlers,
                      bindings=bindings)
    except Exception as exc:  # a malformed module, an XLA error: the answer's, reported
        return {"calls": [], "value": None, "poisoned": {}, "opcodes": [], "operand_types": [],
                "outputs": None,
                "refused": f"the program could not be read or run ({type(exc).__name__}: {str(exc)[:200]})"}
