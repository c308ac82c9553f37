"""Run the program an answer built, as data, with no student Python: the StableHLO text of
`jax.jit(fn).lower(*args)` that the witness handed over, read and run here on the grader's
inputs, with only handlers the grader chose loaded (autograder/executor/handlers.py: the
course's kernels; the library the notebook loaded, as it loaded it). __main__.py runs this
in its own unprivileged process; Otter's in-process checks call it directly.

`report(text, args)` gives an evidence.Report, all computed from the program itself:
- calls: every custom_call in program order (evidence.Call), read from the parsed module
  before anything runs;
- value: the flat outputs of the program run as it is, on `args`;
- poisoned: the outputs with every FFI custom_call (and, with `each`, each one alone), and
  every host callback ("host_callback"; "pure_callback": those without side effects, what
  jax.pure_callback lowers to), retargeted to the poison handler (autograder.shared.poison), and
  with each host function the request names (`replace`: scipy.special.gammaln) poisoned
  where the witness serves the callbacks, so the verdicts can say whether the output
  depends on a piece and leaves it unchanged;
- opcodes: the operations of the compiled module after XLA dropped dead code;
- refused: why the program was not run (a host callback and nobody to serve it; an FFI
  target the grader does not hold; inputs that do not match), with value None.

A host callback (what jax.pure_callback lowers to) is the only student Python a program
holds. The executor runs the program itself; each callback the run reaches is served by
`serve(index, operands, context)`: the witness's host function, asked through the runner
(autograder/witness/handover.py), whose results are checked here against the shapes and
dtypes the program declares for that custom_call.
`call(text, index, operands)` calls one custom_call's kernel directly on the grader's operands.
The program is run through jax.export (an Exported whose metadata the grader writes from
its own inputs and the module's signature, so nothing but the module comes from the
student's side), with the custom-call safety check disabled for the program's own FFI
targets, once the handlers have accepted them.
"""
from __future__ import annotations

import functools
import time

import jax
import numpy as np
from jax._src.export import _export  # module_to_bytecode: semi-internal, pinned jax
from jax._src.interpreters import mlir as jax_mlir
from jax.extend.mlir import ir

from autograder.executor.handlers import Handlers
from autograder.shared import dataflow, errors, evidence, poison, stablehlo
from autograder.shared.evidence import Call, KernelCall, Report, Run

_handlers = Handlers()   # this process's: the course's kernels, the answer's libraries as loaded


def course_targets() -> set[str]:
    """Register the course's kernels and the poison handler (once); their target names."""
    return _handlers.course()


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


def _read(text: str, handlers: Handlers, bindings: dict, serve=None):
    """The parsed module, its calls as data, and why it will not be run ("" when it will)."""
    module = _module(text)
    found = stablehlo.custom_calls(module)
    if serve is None and any(c.kind == "host_callback" for c in found):
        refused = "it runs a host callback and nobody serves it"
    else:
        refused = handlers.resolve(sorted({c.target for c in found if c.kind == "ffi"}), bindings)
    calls = [Call(c.target, c.kind, dict(c.attributes), list(c.operand_types), list(c.result_types),
                  c.side_effect, **(handlers.describe(c.target) if c.kind == "ffi" else {}))
             for c in found]
    return module, calls, refused


MAX_CALLBACKS = 64   # host callbacks one program may hold


def _records(recorded) -> dict:
    """The witness's record of its own run's callback calls ([[context, [[index, operands,
    results], ...]], ...]) as {context: {(index, operands' bytes): [results, ...]}}."""
    table: dict = {}
    for context, calls in recorded or ():
        for index, operands, results in calls:
            key = (int(index), _operand_key(operands))
            table.setdefault(int(context), {}).setdefault(key, []).append([np.asarray(r) for r in results])
    return table


def _operand_key(operands) -> tuple:
    return tuple((str(a.dtype), a.shape, a.tobytes()) for a in map(np.asarray, operands))


class _Served:
    """The host callbacks to compile a program with: position i serves the custom_calls whose
    `index` attribute is i (JAX numbers a module's callbacks so), each result checked
    against the shapes and dtypes the custom_call declares. A call whose operands are
    exactly those of a call in the witness's record (`recorded`, its own run) gets that
    call's results; any other is asked of `serve` (the witness, live). `context`: which of
    the request's `replace` names the witness poisons while serving (-1: none). `problem`
    keeps the first failure's sentence (XLA wraps it in a traceback)."""

    def __init__(self, calls: list[Call], serve, context: int, recorded: dict | None = None) -> None:
        self.declared: dict[int, list] = {}
        for c in calls:
            if c.kind == "host_callback":
                index = c.attribute("index")
                self.declared[int(index if index is not None else 0)] = [
                    stablehlo.tensor_type(t) for t in c.result_types]
        if self.declared and not 0 <= min(self.declared) <= max(self.declared) < MAX_CALLBACKS:
            raise ValueError(f"the program numbers its host callbacks beyond {MAX_CALLBACKS}")
        self.serve, self.context, self.problem = serve, context, ""
        self.recorded = {key: list(results) for key, results in (recorded or {}).get(context, {}).items()}
        self.functions = [functools.partial(self._call, i) for i in range(max(self.declared, default=-1) + 1)]

    def _call(self, index: int, *operands):
        try:
            if index not in self.declared:
                raise RuntimeError("the program calls a host callback it does not declare")
            operands = [np.asarray(o) for o in operands]
            kept = self.recorded.get((index, _operand_key(operands)))
            results = kept.pop(0) if kept else [np.asarray(r) for r in self._live(index, operands)]
            want = self.declared[index]
            if len(results) != len(want):
                raise RuntimeError(f"a host callback returned {len(results)} arrays where the program "
                                   f"declares {len(want)}")
            for i, (r, (shape, dtype)) in enumerate(zip(results, want)):
                if r.shape != shape or r.dtype != dtype:
                    raise RuntimeError(f"a host callback returned {r.dtype}{list(r.shape)} as result {i} "
                                       f"where the program declares {np.dtype(dtype)}{list(shape)}")
        except Exception as exc:
            self.problem = self.problem or str(exc)
            raise
        return tuple(results)

    def _live(self, index: int, operands: list) -> list:
        if self.serve is None:
            raise RuntimeError("a host callback was reached that the witness's record does not hold")
        return self.serve(index, operands, self.context)


# Programs without host callbacks, compiled once per process: the tests of one grading ask
# for the same program (or the same poisoned run) again, about a quarter of silu_ffi's
# compiles. The key is what fixes the executable: the text, the operand types and which
# function each FFI target is bound to (handlers.describe: in the notebook's own process a
# name could be registered anew between two checks).
_COMPILED: dict[tuple, object] = {}
_COMPILED_MAX = 256


def _compile(module: ir.Module, args, targets: set[str], served: _Served, bound: tuple = ()):
    """The program compiled on the grader's `args`, its host callbacks served by `served`
    (jax.export inlines the module; its callback custom_calls keep their indices, so the
    compiled program's host callbacks are given in that order). `bound`: the program's
    (target, handler) pairs, for the cache."""
    key = None if served.functions else (str(module), tuple((a.shape, a.dtype.str) for a in args),
                                         frozenset(targets), bound)
    if key in _COMPILED:
        return _COMPILED[key]
    lowered = jax.jit(_exported(module, args, targets).call).lower(*args)
    if served.functions:
        lowered._lowering.compile_args["host_callbacks"] = served.functions   # semi-internal, pinned jax
    compiled = lowered.compile()
    if key is not None:
        if len(_COMPILED) >= _COMPILED_MAX:
            del _COMPILED[next(iter(_COMPILED))]   # the oldest
        _COMPILED[key] = compiled
    return compiled


def report(text: str, args: list, *, each: bool = False, handlers: Handlers | None = None,
           bindings: dict | None = None, serve=None, replace: int = 0, recorded=None,
           kernels: bool = True) -> Report:
    """Read and run the program `text` on `args` (see the module docstring); `bindings` is the
    witness's word on which function each of the answer's FFI targets is (handlers.py);
    `serve` answers its host callbacks, `recorded` (the witness's record of its own run's
    calls) the ones it already made; `replace`: how many host functions the request names
    to poison (each a run of its own, poisoned[f"replace:{i}"]); `kernels=False`: the FFI
    calls are not poisoned (no poisoned[FFI] nor, with `each`, per call)."""
    handlers = handlers or _handlers
    args = [np.asarray(a) for a in args]
    recorded = _records(recorded)
    with jax_mlir.make_ir_context():
        module, calls, refused = _read(text, handlers, bindings or {}, serve)
        if refused:
            return Report(calls, None, {}, [], refused)
        targets = {c.target for c in calls if c.kind in ("ffi", "host_callback")}
        bound = tuple(sorted({(c.target, c.handler) for c in calls if c.kind == "ffi"}))
        try:
            served = _Served(calls, serve, -1, recorded)
            compiled = _compile(module, args, targets, served, bound)   # once: the value and the opcodes
        except (ValueError, TypeError) as exc:
            return Report(calls, None, {}, [], str(exc))
        try:
            value = _flat(compiled(*args))
        except Exception as exc:  # the kernel rejected its operands or attributes, a callback failed: the answer's
            return Report(calls, None, {}, [], f"running it failed: {served.problem[:500]}" if served.problem
                          else f"running it raised {errors.describe(exc)}")
        ffi = [i for i, c in enumerate(calls) if c.kind == "ffi"] if kernels else []
        host = [i for i, c in enumerate(calls) if c.kind == "host_callback"]
        pure = [i for i in host if not calls[i].side_effect]   # pure_callback's, not io_callback's
        pieces = {evidence.FFI: ffi, evidence.HOST_CALLBACK: host, evidence.PURE_CALLBACK: pure,
                  **({evidence.call_piece(i): [i] for i in ffi} if each else {})}
        poisoned: dict[str, Run | None] = {}
        runs: dict[tuple, Run] = {}   # pieces of the same calls (pure_callback = host_callback, call:0 = ffi) share one run
        for piece, indices in pieces.items():
            if indices and tuple(indices) not in runs:
                runs[tuple(indices)] = _poisoned(text, indices, args, targets, calls, serve, recorded, bound, value)
            poisoned[piece] = runs[tuple(indices)] if indices else None
        size = max((v.size for v in value), default=0)
        for i in range(replace if host else 0):   # the same program, the witness serving with a poisoned host function
            outputs = _flat(_compile(_module(text), args, targets, _Served(calls, serve, i, recorded))(*args))
            poisoned[f"replace:{i}"] = Run(outputs, [int(size)])
        return Report(calls, value, poisoned, stablehlo.opcodes(compiled))


def call(text: str, index: int, operands: list, *, handlers: Handlers | None = None,
         bindings: dict | None = None) -> KernelCall:
    """Call custom_call number `index` (program order) of the program `text` directly: its
    target, with that custom_call's result types and FFI attributes (typed as written), on
    the grader's `operands`, each reshaped to the custom_call's operand in the same position
    (a kernel fed a flattened x gets the grader's x flattened). The KernelCall's outputs are
    None when the operands do not fit (count, sizes, dtypes) or the call was refused."""
    handlers = handlers or _handlers
    with jax_mlir.make_ir_context():
        _, calls, refused = _read(text, handlers, bindings or {})
    if not 0 <= index < len(calls) or calls[index].kind != "ffi":
        return KernelCall([], None, "there is no such FFI call")
    c = calls[index]
    unfit = KernelCall(c.operand_types, None, refused)
    if refused or len(operands) != len(c.operand_types):
        return unfit
    shaped = []
    for operand, type_text in zip(operands, c.operand_types):
        operand = np.asarray(operand)
        try:
            shape, dtype = stablehlo.tensor_type(type_text)
        except TypeError:
            return unfit
        if operand.size != int(np.prod(shape)) or operand.dtype != dtype:
            return unfit
        shaped.append(operand.reshape(shape))
    try:
        results = [jax.ShapeDtypeStruct(*stablehlo.tensor_type(t)) for t in c.result_types]
        attributes = {name: _attribute_value(a) for name, a in c.attributes.items()}
        outputs = jax.ffi.ffi_call(c.target, results)(*shaped, **attributes)
        return KernelCall(c.operand_types, _flat(jax.block_until_ready(outputs)))
    except Exception as exc:  # the kernel rejected the call: the answer's
        return KernelCall(c.operand_types, None, f"calling it raised {errors.describe(exc)}")


def _attribute_value(attribute: evidence.Attribute):
    """An FFI attribute as the lowering typed it (f32 -> np.float32, i64 -> np.int64, ...)."""
    if attribute.type in stablehlo.MLIR_DTYPES:
        return stablehlo.MLIR_DTYPES[attribute.type].type(attribute.value)
    if isinstance(attribute.value, (bool, str, np.ndarray)):
        return attribute.value
    raise TypeError(f"an FFI attribute of type {attribute.type or type(attribute.value).__name__} "
                    "cannot be passed again")


def _poisoned(text: str, indices: list[int], args, targets: set[str], calls: list[Call], serve,
              recorded: dict, bound: tuple, clean: list) -> Run:
    """The outputs with custom_calls number `indices` retargeted to the poison handler, and
    the element counts of the poisoned buffers (the other host callbacks still served). Where
    an entry equals the `clean` output's, the program runs again with the other salt's
    handler (poison.again): a chance equality is not a verdict."""
    outputs, sizes = _poisoned_with(poison.TARGET, text, indices, args, targets, calls, serve, recorded, bound)
    if any(not np.all(poison.changed(c, o)) for c, o in zip(clean, outputs)):
        second, _ = _poisoned_with(poison.TARGET_AGAIN, text, indices, args, targets, calls, serve, recorded, bound)
        outputs = [poison.again(c, o, t) for c, o, t in zip(clean, outputs, second)]
    return Run(outputs, sizes)


def _poisoned_with(target: str, text: str, indices: list[int], args, targets: set[str], calls: list[Call],
                   serve, recorded: dict, bound: tuple) -> tuple[list, list[int]]:
    module = _module(text)
    sizes = stablehlo.retarget(module, indices, target)
    kept = [c for i, c in enumerate(calls) if i not in indices]
    compiled = _compile(module, args, targets | {target}, _Served(kept, serve, -1, recorded), bound)
    return _flat(compiled(*args)), [int(n) for n in sizes]


# What one "structure" request may cost (every text of it together): the programs are the
# answer's, lowered at shapes the grader chose, and one that is huge only at some shape must
# cost that shape's verdict, not the grading's time.
READ_S = 20.0


def _structures(texts: list[str]) -> list[evidence.Structure]:
    """dataflow.structure of each text, each within READ_S seconds of its own (a request of
    many small programs, a path's shapes one by one, is not one budget: 138 while loops shared
    20 s on a busy machine and the last ones were refused); a text beyond the bounds is
    refused with a sentence saying which. The question's time limit bounds the request."""
    return [_structure(str(t), _deadline()) for t in texts]


def _deadline():
    """A check that raises dataflow.TooLarge once READ_S seconds have passed from now."""
    end = time.monotonic() + READ_S

    def deadline() -> None:
        if time.monotonic() > end:
            raise dataflow.TooLarge(f"reading the program took more than {READ_S:.0f} s")
    return deadline


def _structure(text: str, deadline) -> evidence.Structure:
    if len(text) > dataflow.MAX_TEXT_BYTES:
        return _unread(f"the program is too large for the grader to read ({len(text) >> 20} MB of text, more "
                       f"than {dataflow.MAX_TEXT_BYTES >> 20} MB)")
    try:
        deadline()
        return dataflow.structure(text, deadline)
    except dataflow.TooLarge as exc:
        return _unread(f"the program is too large for the grader to read ({exc})")
    except Exception as exc:  # a malformed module: the answer's, reported
        return _unread(f"the program could not be read ({errors.describe(exc)})")


def _unread(why: str) -> evidence.Structure:
    return evidence.Structure([], [], [], [], [], why)


def handle(request: dict, handlers: Handlers | None = None, serve=None) -> Report | KernelCall:
    """One request of the executor's protocol, answered with a record; a program that cannot
    be read or run is described, never raised:
    {"op": "run", "text", "args", "each", "bindings", "replace": n, "recorded", "kernels"} -> report();
    {"op": "call", "text", "index", "operands", "bindings"} -> call();
    {"op": "structure", "texts"} -> an evidence.Structure per text (dataflow.structure: read, never run).
    `serve(index, operands, context)` serves the program's host callbacks (None: a program
    holding one is refused)."""
    if request.get("op") == "structure":
        return _structures(list(request.get("texts") or []))
    handlers = handlers or _handlers
    text, bindings = str(request.get("text", "")), request.get("bindings") or {}
    is_call = request.get("op") == "call"
    try:
        if is_call:
            return call(text, int(request["index"]), list(request["operands"]), handlers=handlers,
                        bindings=bindings)
        return report(text, list(request["args"]), each=bool(request.get("each")), handlers=handlers,
                      bindings=bindings, serve=serve, replace=int(request.get("replace") or 0),
                      recorded=request.get("recorded"), kernels=request.get("kernels", True) is not False)
    except Exception as exc:  # a malformed module, an XLA error: the answer's, reported
        refused = f"the program could not be read or run ({errors.describe(exc)})"
        return KernelCall([], None, refused) if is_call else Report([], None, {}, [], refused)
