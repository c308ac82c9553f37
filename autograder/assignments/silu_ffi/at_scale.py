"""silu_ffi's kernels called directly at scale (issue 47, item 3: opaque code at scale).

The value tests run programs on a few hundred to a few thousand elements, and every_shape.py
reads the programs at larger shapes without running them. A branch inside C++ (a cruder exp,
a loop that stops short of the tail, a read from the wrong offset, from some size on) is
decided when the kernel runs, so neither sees it. Here the grader calls each kernel itself
(probe.Ask.kernel_call, in the executor) on SIZE values, in random order over the kernel's
whole domain, and compares every output element, in its place, with the float64 reference.

SIZE is 2^20 + 5 (4 MB of float32 an array), above the thresholds a kernel plausibly branches
at (1024, 4096, 65536, 2^18, 2^20). What bounds it is the container's memory (768 MB) and the
runner's limit on one reply (limits.message_bytes, 64 MiB): arrays cross as raw .npy blobs
(shared/wire.py), but the runner holds the reply, the arrays and their float64 references at
once. Measured (container peak): at 2^20 + 5, peaks of 430 to 510 MB; at 2^22 + 5, 683 MB for
the reference (measured earlier); at 2^23 + 5 (session 32), the direct call's reply passes the
64 MiB limit and the VJP's run is killed out of memory (880 MB).

What is called is the custom_call of the path lowered at SIZE at an abstract shape (the
witness allocates nothing: handover.lowered), so the call has the operand and result types
and the attributes silu_ffi gives it at that size; the path's structure there (Ask.structures,
read by the executor) says which call the output is moved from. The forward kernel takes x
alone (the task), so it is called on the grader's x, whatever the path computes from x, as
test 5's small direct calls call it. The backward kernel's operands are the answer's to choose:
the structure says where each comes from, the path's inputs (x, the cotangent), given as they
are, or the output of another call of the answer's (a residual such as σ(x)), itself called
directly on the inputs first. Where the grader cannot give them that way (an operand computed
in JAX, stacked from two sources, operands or outputs past MESSAGE_BYTES), it runs the VJP's
program at SIZE instead (Ask.program) and judges its output the same way.

The comparison is checks.expect_close's, on the whole float64 reference (its temporaries cost
the runner about 50 MB at SIZE).
"""
from __future__ import annotations

import itertools

import numpy as np

from autograder.shared import checks
from autograder.shared.evidence import FFI, LOOP_INIT, Lowered, Program, Report, Structure, tensor_shape

SIZE = 2**20 + 5      # odd: a tail of 5 past every multiple of 2, 4 and 8 (a vector loop's)
EDGE = 64             # the first and last values are ordinary ones, where silu(x) is far from 0
MESSAGE_BYTES = 16 << 20   # operands one direct call may take, and outputs it may return (4 arrays of SIZE)
MAX_CALLS = 4         # direct calls one check makes at most; past it, the program runs instead


# ---- the inputs ----

def _ordinary(rng, n: int) -> np.ndarray:
    """`n` values with 0.5 <= |x| <= 8, both signs: silu(x) and silu'(x) far from 0 there."""
    return (rng.choice(np.float32([-1, 1]), n) * (0.5 + 7.5 * rng.random(n, dtype=np.float32))).astype(np.float32)


def _bits(rng, n: int) -> np.ndarray:
    """`n` random bit patterns as float32: every magnitude from subnormal to 3.4e38, both
    signs, and 1 in 256 a NaN, made quiet (its payload kept: a signalling one makes NumPy's
    float64 cast warn); the infinities are quiet NaNs too."""
    bits = rng.integers(0, 2**32, n, dtype=np.uint32)
    bits[(bits & 0x7F800000) == 0x7F800000] |= 0x00400000
    return bits.view(np.float32)


def _place(rng, x: np.ndarray, values) -> np.ndarray:
    """`values` at random places of x, away from its edges."""
    values = np.asarray(values, np.float32)
    x[EDGE + rng.choice(x.size - 2 * EDGE, values.size, replace=False)] = values
    return x


def forward_inputs(rng, n: int = SIZE) -> np.ndarray:
    """`n` float32 values over the forward kernel's whole domain, in random order: half of
    them random bit patterns (_bits), half uniform on [-80, 80), with 0, -0, NaN and the
    extremes at random places, and EDGE ordinary values at each end."""
    x = _bits(rng, n)
    u = rng.random(n, dtype=np.float32)
    half = u < 0.5
    x[half] = u[half] * 320 - 80
    big, tiny = np.finfo(np.float32).max, np.float32(1e-45)
    _place(rng, x, [0.0, -0.0, np.nan, 3.4e38, -3.4e38, big, -big, tiny, -tiny, 88.72, -88.72, 103.9, -103.9])
    x[:EDGE], x[-EDGE:] = _ordinary(rng, EDGE), _ordinary(rng, EDGE)
    return x


def backward_inputs(rng, n: int = SIZE) -> tuple[np.ndarray, np.ndarray]:
    """(x, ct): `n` finite float32 values with |x| <= 1000 in random order (half random bit
    patterns, every magnitude from subnormal up; half uniform on [-80, 80)), with 0, -0 and
    ±1000 at random places and EDGE ordinary values at each end; ct standard normal."""
    x = _bits(rng, n)
    u = rng.random(n, dtype=np.float32)
    plain = (u < 0.5) | ~(np.abs(x) <= 1000)   # NaN, infinities and |x| > 1000 too
    x[plain] = (u[plain] % np.float32(0.5)) * 320 - 80
    _place(rng, x, [0.0, -0.0, 1000.0, -1000.0, 1e-45, -1e-45])
    x[:EDGE], x[-EDGE:] = _ordinary(rng, EDGE), _ordinary(rng, EDGE)
    ct = rng.standard_normal(n, dtype=np.float32)
    ct[:EDGE], ct[-EDGE:] = _ordinary(rng, EDGE), _ordinary(rng, EDGE)
    return x, ct


# ---- the program at SIZE, and where the operands of its kernel come from ----

def _type(text: str) -> tuple[int, str] | None:
    """(elements, NumPy dtype name) of an MLIR tensor type such as 'tensor<4194309xf32>'."""
    try:
        shape, dtype = tensor_shape(text)
    except TypeError:
        return None
    return int(np.prod(shape, dtype=np.int64)), dtype


def _bytes(types: list[str]) -> int:
    """What the arrays of these types take (a type that is not a tensor: past any budget)."""
    found = [_type(t) for t in types]
    return MESSAGE_BYTES + 1 if None in found else sum(n * np.dtype(d).itemsize for n, d in found)


def lowered(ask, fn: str, spec: list, *, what: str, hint: str) -> tuple[Structure, Program]:
    """`fn` lowered at the abstract `spec` (Ask.structures, read by the executor), and the
    text of that lowering with the witness's bindings, to call its kernels from."""
    (found,) = ask.structures(fn, [spec], what=what, hint=hint)
    checks.expect(not found.refused, f"{what} could not be read: {found.refused}; {hint}")
    got = ask.run(f"(handover.lowered({fn}, specs), registry.bindings())", what=what, hint=hint, specs=[spec])
    texts, bindings = got if isinstance(got, list) and len(got) == 2 else ([], None)
    checks.expect(isinstance(texts, list) and len(texts) == 1 and isinstance(texts[0], Lowered)
                  and isinstance(bindings, dict), f"Lowering {what} gave no program.")
    checks.expect(bool(texts[0].text), f"{what} could not be lowered: {texts[0].error}; {hint}")
    return found, Program(texts[0].text, bindings)


def _source(s: Structure, origin, type_text: str, sizes: list[int], caller: int, nested: bool):
    """Where an operand of call `caller` comes from, as the grader can give it: ("input", i),
    or ("call", k, inputs, outputs): output j (one of `outputs`, the last first) of call k,
    itself fed the inputs `inputs`; None when the grader cannot (math, two sources, a
    constant, sizes that differ, a chain of calls)."""
    want = _type(type_text)
    if want is None or origin.math or len(origin.sources) != 1:
        return None
    (source,) = origin.sources
    if source.startswith("input:"):
        i = int(source.removeprefix("input:"))
        return ("input", i) if i < len(sizes) and want == (sizes[i], "float32") else None
    if not source.startswith("call:") or nested:
        return None
    k = int(source.removeprefix("call:"))
    if k == caller or k >= len(s.calls) or s.calls[k].kind != FFI or k >= len(s.operands):
        return None
    call = s.calls[k]
    inputs = [_source(s, o, t, sizes, k, True) for o, t in zip(s.operands[k], call.operand_types)]
    outputs = [j for j, t in enumerate(call.result_types) if _type(t) == want][::-1]
    if len(inputs) != len(call.operand_types) or None in inputs or not outputs:
        return None
    return ("call", k, [i for _, i in inputs], outputs)


def plan(s: Structure, sizes: list[int], *, given: bool = False) -> tuple[int, list] | None:
    """The call the path's one output is moved from and, per operand of it, its _source
    (with `given`, the path's inputs themselves, in order, whatever the path computes from
    them: what the task says the kernel takes); None when the grader cannot call it directly
    so (then the program runs), or when that takes more than MAX_CALLS calls, or operands or
    outputs past MESSAGE_BYTES."""
    if len(s.outputs) != 1:
        return None
    calls = sorted(set(s.outputs[0].calls()))
    if len(calls) != 1 or not s.outputs[0].moved_from(set(calls)) or LOOP_INIT in s.outputs[0].sources:
        return None   # a buffer written over in part may keep its constants: the program runs
    (target,) = calls
    call = s.calls[target] if target < len(s.calls) else None
    if call is None or call.kind != FFI or target >= len(s.operands) or len(s.operands[target]) != len(call.operand_types):
        return None
    if given:
        fits = len(sizes) == len(call.operand_types) and all(
            _type(t) == (n, "float32") for t, n in zip(call.operand_types, sizes))
        sources = [("input", i) for i in range(len(sizes))] if fits else [None]
    else:
        sources = [_source(s, o, t, sizes, target, False) for o, t in zip(s.operands[target], call.operand_types)]
    if None in sources:
        return None
    fed = {src[1] for src in sources if src[0] == "call"}
    tries = int(np.prod([len(src[3]) for src in sources if src[0] == "call"]))
    if len(fed) + tries > MAX_CALLS or any(max(_bytes(s.calls[k].operand_types), _bytes(s.calls[k].result_types))
                                           > MESSAGE_BYTES for k in [target, *fed]):
        return None
    return target, sources


def _called(ask, program: Program, index: int, operands: list, what: str) -> list[np.ndarray]:
    """The outputs of call `index` of `program` called directly on `operands`."""
    direct = ask.kernel_call(Report([], None, {}, [], program=program), index, tuple(operands), what=what)
    checks.expect(not direct.refused and direct.outputs is not None,
                  f"{what} could not run: {direct.refused or 'its operands do not fit'}.")
    return direct.outputs


def expect_kernel(ask, fn: str, arrays: list[np.ndarray], expected, *, kernel: str, path: str, hint: str,
                  rtol: float, atol: float, given: bool) -> None:
    """The kernel that the one output of `fn` (an expression naming the path, of the arrays,
    1-d, float32) comes from, called directly at their size, returns `expected` (the float64
    reference) element by element. With `given` (the forward kernel: the task says it takes x
    alone, and returns silu(x) first), it is called on the arrays themselves, as the small
    direct calls of test 5 call it, and its first output is judged; otherwise on what the
    path gives it (see plan), any one of its outputs passing. `kernel` names it ("forward
    kernel"), `path` the path in the sentence of the program run when it cannot be called."""
    n = int(arrays[0].size)
    where = f"{path} at {n:,} elements"
    s, program = lowered(ask, fn, [((n,), "float32") for _ in arrays], what=where, hint=hint)
    planned = plan(s, [int(a.size) for a in arrays], given=given)
    if planned is None:
        names = [f"a{i}" for i in range(len(arrays))]
        report = ask.program(fn, *names, what=where, hint=hint, **dict(zip(names, arrays)))
        checks.expect(not report.refused, f"The grader could not run {where}: {report.refused}.")
        checks.expect_close(np.asarray(report.value[0]).reshape(-1), expected, what=f"{path} on {n:,} values",
                            at=arrays[0], hint=hint, rtol=rtol, atol=atol)
        return
    target, sources = planned
    what = f"Your {kernel} (target {s.calls[target].target!r}) called directly on {n:,} values"
    fed = {}
    for src in sources:
        if src[0] == "call" and src[1] not in fed:
            k = src[1]
            fed[k] = _called(ask, program, k, [arrays[i] for i in src[2]],
                             f"Your kernel (target {s.calls[k].target!r}) called directly on {n:,} values")
    failures = []
    choices = [src[3] if src[0] == "call" else [None] for src in sources]
    for picked in itertools.product(*choices):
        operands = [arrays[src[1]] if src[0] == "input" else fed[src[1]][j] for src, j in zip(sources, picked)]
        outputs = _called(ask, program, target, operands, what)
        for out in outputs[:1] if given else outputs:
            try:
                checks.expect_close(np.asarray(out).reshape(-1), expected, what=what, at=arrays[0], hint=hint,
                                    rtol=rtol, atol=atol)
                return
            except AssertionError as exc:
                failures.append(exc)
    checks.expect(bool(failures), f"{what} returns no output.")
    raise failures[0]
