"""What the silu_ffi tests share: the float64 SiLU references, the "is silu_ffi defined,
is it a custom_vjp" preambles, the kernel gate every graded value passes (no host
callback, output depending on the FFI kernels in every element, no transcendental op or
division in JAX), and the structural checks of the forward and backward kernels.

Every compiled program is judged from the program itself (`ask.program`): the witness hands
over the StableHLO text that jax.jit lowers to and which exported function each FFI target
was registered from; the grader's executor reads its custom_calls and runs it on the
grader's inputs with the C++ files the notebook wrote, compiled by the grader (never the
library the student's process loaded). The rest asks through `ask.run` (expressions evaluated where the
answer runs); verdicts use `checks`; the inputs each test uses stay in its cell.

Beyond the shapes a test runs, each path is proven at every shape without running
(every_shape.py: the program at each shape within the one checked by running); an eager call
is judged by the primitives it binds (witness.eager), lowered and read as the jitted path is;
and each kernel is called directly on 2^20 + 5 values (at_scale.py), for what C++ decides at
run time from the size; jax.jit(silu_ffi) and the VJP also run on inputs of rank 2 to 8 (past
2^18 values each), for what it decides from the rank (make mutants' survivors, issue 49).
"""
import hashlib

import numpy as np

from autograder.shared import checks, evidence, gates, poison, proofs
from autograder.assignments.silu_ffi import EXERCISE, at_scale, every_shape, ranks

NOT_DEFINED = ("silu_ffi is not defined; run the answer cell to the end without an error "
               "(a KernelBuildError means your C++ did not compile).")

# The loss the gradient tests differentiate (an expression for ask.run, of v and w).
LOSS = "lambda v, w: jnp.sum(silu_ffi(v) * w)"

GRAD_HINT = ("the gradient must come from the bwd rule of a custom_vjp that calls your backward kernel "
             "and returns a one-element tuple (an ffi_call cannot be differentiated)")
BACKWARD_HINT = "the backward kernel should compute ȳ·σ(x)·(1 + x·(1 − σ(x)))"
VMAP_BOTH_HINT = "check the backward kernel and the vmap_method of both ffi_calls"
VMAP_GRAD_HINT = ("every ffi_call needs a vmap_method, and the gradient must come from the bwd rule of a "
                  "custom_vjp (an ffi_call cannot be differentiated)")


# ---- float64 references ----

def sigmoid_np64(x):
    """σ(x) = 1 / (1 + e^-x), in float64 (0 where e^-x overflows, NaN at NaN)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return 1 / (1 + np.exp(-np.asarray(x, np.float64)))


def silu_np64(x):
    """silu(x) = x·σ(x), in float64."""
    x64 = np.asarray(x, np.float64)
    return x64 * sigmoid_np64(x64)


def silu_grad_np64(x, w=None):
    """The gradient of sum(silu(x) * w) with respect to x, w·σ(x)·(1 + x·(1 − σ(x))), in
    float64; without w, silu'(x) itself."""
    x64 = np.asarray(x, np.float64)
    s = sigmoid_np64(x64)
    if w is None:
        return s * (1 + x64 * (1 - s))
    return np.asarray(w, np.float64) * s * (1 + x64 * (1 - s))


def expect_gradient_close(actual, expected, *, what, hint="", at=None):
    """checks.expect_close at the tolerances of a float32 gradient (rtol 1e-4, atol 1e-5)."""
    checks.expect_close(actual, expected, what=what, hint=hint, rtol=1e-4, atol=1e-5, at=at)


# ---- preambles ----

def expect_defined(ask):
    """The notebook defined silu_ffi."""
    checks.expect(ask.defined("silu_ffi"), NOT_DEFINED)


def case(env, *, concept):
    """The test cells' ritual (EXERCISE.case): every test first needs silu_ffi defined."""
    return EXERCISE.case(env, concept=concept, before=expect_defined)


def expect_custom_vjp(ask, advice):
    """silu_ffi is a jax.custom_vjp; `advice` completes the failure message."""
    checks.expect(ask.run("isinstance(silu_ffi, jax.custom_vjp)", what="isinstance(silu_ffi, jax.custom_vjp)"),
                  "silu_ffi is not a jax.custom_vjp; " + advice)


# ---- the gates: what a program must be before its values count (gates.check fills {what}) ----

MATH_OPS = checks.TRANSCENDENTAL | {"divide"}   # "math in JAX": a transcendental op or a division
RAN = gates.Ran(
    "The grader could not run the compiled program of {what} with your kernels: {refused}. The grader runs "
    "the libraries your notebook loaded, byte for byte as it loaded them (nothing is compiled again), and runs "
    "each FFI target with the function your notebook registered it from.")

# Any graded value: the program's outputs are the answer's kernels' (kernel_values).
VALUES = (
    gates.NoHostCallback("{what} runs a host callback (pure_callback or io_callback), so its values are not "
                         "your kernels'; compute SiLU and its derivative in C++."),
    RAN,
    gates.DependsOn("{what} does not come from your FFI kernels, so there are no kernel values to check; "
                    "call your kernels with jax.ffi.ffi_call and return their outputs"),
    gates.NoOps("{what} computes math in JAX outside your kernels, so its values are not your kernels'; "
                "compute SiLU and its derivative in C++", forbidden=MATH_OPS),
)

# The forward pass ({pass_}: how the sentence names it).
FORWARD = (
    gates.NoHostCallback("{pass_} runs a host callback (pure_callback or io_callback); SiLU must be computed "
                         "by your C++ forward kernel, called with jax.ffi.ffi_call."),
    RAN,
    gates.DependsOn("The output of {what} does not come from your FFI kernel; return the forward kernel's "
                    "output, not a value computed beside it"),
    gates.NoOps("{what} computes math in JAX outside your kernels; SiLU must be computed inside your C++ "
                "forward kernel", forbidden=MATH_OPS),
)
FORWARD_CALLS_FFI = gates.CallsFfi(
    "The lowering of jax.jit(silu_ffi) calls no registered FFI handler (pure_callback and io_callback are "
    "not kernels); call your C++ forward kernel with jax.ffi.ffi_call.")
FORWARD_STRAIGHT = gates.StraightFrom(
    "{what} computes something in JAX after your kernel; return the forward kernel's output as it is "
    "(reshapes are fine)")

# The backward pass: the gradient of sum(silu_ffi(x) * w).
BACKWARD = (
    gates.NoHostCallback("The backward pass of silu_ffi runs a host callback (pure_callback or io_callback); "
                         "the gradient must be computed by your C++ backward kernel."),
    RAN,
    gates.DependsOn("The gradient of sum(silu_ffi(x) * w) does not come from your FFI kernels; the bwd rule "
                    "must return the output of your backward kernel"),
    gates.StraightFrom("The gradient of sum(silu_ffi(x) * w) is computed in JAX after your kernels (for "
                       "instance silu'(x) multiplied by the cotangent); the backward kernel must return "
                       "ȳ·silu'(x) itself"),
    gates.NoOps("The gradient of silu_ffi computes math in JAX outside your kernels; the derivative must be "
                "computed inside your C++ backward kernel", forbidden=MATH_OPS),
)


# ---- the kernel gate of every graded value ----

def kernel_values(ask, fn, what, hint, **inputs):
    """The outputs of jax.jit(fn) on the inputs, credited only when they come from the
    answer's FFI kernels in every element, with no host callback and no math in JAX."""
    return _kernel_report(ask, fn, what, hint, each=False, **inputs).value


def _kernel_report(ask, fn, what, hint, *, each, **inputs):
    """kernel_values' gate, on the program report (each call poisoned alone too, with `each`)."""
    report = ask.program(fn, *inputs, what=what, hint=hint, each=each, **inputs)
    return gates.check(report, VALUES, what=what)


# ---- the forward kernel ----

def expect_forward_from_ffi(report):
    """The jit program of silu_ffi (an Ask.program report) calls a registered FFI handler and
    passes FORWARD: no host callback, ran in the grader's executor, its output depending on
    the FFI kernel everywhere, no math in JAX (the task's "where the math happens": a kernel
    that merely copies JAX's SiLU is not a forward kernel)."""
    FORWARD_CALLS_FFI.check(report)
    gates.check(report, FORWARD, what="jax.jit(silu_ffi)", pass_="jax.jit(silu_ffi)")


def _straight_from(report, piece):
    """Whether every output element IS an output of `piece` (checks.expect_straight, as a bool)."""
    try:
        checks.expect_straight(report, piece, message="")
        return True
    except AssertionError:
        return False


def forward_kernel_calls(ask, x):
    """The indices of the answer's own FFI calls that each produce the whole output of
    jax.jit(silu_ffi) on x (at least one), after the forward pass's gate: no host callback,
    output depending on the FFI kernels and straight from them, no math in JAX.
    Returns (report, indices); the report is Ask.program(..., each=True)'s."""
    what = f"jax.jit(silu_ffi) on shape {tuple(x.shape)}"
    hint = "silu_ffi must trace under jit for any shape"
    report = ask.program("silu_ffi", "x", x=x, what=what, hint=hint, each=True)
    no_host, ran, depends, no_math = FORWARD
    gates.check(report, (no_host, ran, depends, FORWARD_STRAIGHT, no_math), what=what,
                pass_="The forward pass of silu_ffi")
    kernels = [i for i, c in enumerate(report.calls)
               if c.kind == evidence.FFI and not c.course and _straight_from(report, evidence.call_piece(i))]
    checks.expect(kernels, f"No single call of one of your kernels produces the whole output of {what}; "
                           "the forward kernel must compute silu(x) for all of x in one call.")
    return report, kernels


def expect_a_kernel_computes_silu(ask, x, report, kernels):
    """One of the calls `kernels` (from forward_kernel_calls), its kernel called directly by
    the grader on x (Ask.kernel_call, in the executor), returns silu(x) first; otherwise the
    failure of the first one tried."""
    shape = tuple(x.shape)
    want = silu_np64(x)
    tried = []
    for i in kernels:
        target = report.calls[i].target
        what = f"Your forward kernel (target {target!r}) called directly on x"
        direct = ask.kernel_call(report, i, (x,), what=what)
        checks.expect(not direct.refused, f"{what} could not run: {direct.refused}; it must take x as its "
                                          "only operand and return silu(x) first.")
        if direct.outputs is None:
            tried.append(f"Your forward kernel (target {target!r}) takes "
                         f"{len(direct.operand_types)} operands ({', '.join(direct.operand_types)}); "
                         "it must take x as its only operand (reshaped if you like) and return silu(x) first.")
            continue
        first = np.asarray(direct.outputs[0])
        if first.size == x.size and np.allclose(first.reshape(x.shape).astype(np.float64), want,
                                                rtol=1e-5, atol=1e-6, equal_nan=True):
            return
        tried.append((target, first))
    problem = tried[0]
    checks.expect(not isinstance(problem, str), problem if isinstance(problem, str) else "")
    target, first = problem
    checks.expect(first.size == x.size,
                  f"Your forward kernel (target {target!r}), called directly on x of shape {shape}, "
                  f"returns {first.size} values first, not silu(x).")
    checks.expect_close(first.reshape(x.shape), want, at=x,
                        what=f"Your forward kernel (target {target!r}) called directly on x of shape {shape}",
                        hint="it must return silu(x) = x·σ(x) as its first output, accurate for every finite x "
                             "and NaN where x is NaN")


# ---- the backward kernel ----

def _elements(tensor_type):
    """The element count of an MLIR tensor type such as 'tensor<4x6xf32>'."""
    return int(np.prod(evidence.dims(tensor_type)))


def _signature(call):
    """How a custom_call is made: its operands' element counts and its attributes."""
    return [_elements(t) for t in call.operand_types], repr(sorted(call.attributes.items()))


def forward_handlers(ask, x):
    """The handlers of the answer's own FFI calls in jax.jit(silu_ffi) on x, each with how
    silu_ffi calls it (see _signature). Returns (report, {handler: [signature, ...]})."""
    fwd = ask.program("silu_ffi", "x", x=x, what="jax.jit(silu_ffi)", hint="silu_ffi must trace under jit")
    forward = {}
    for call in fwd.calls:
        if call.kind == evidence.FFI and not call.course:
            forward.setdefault(call.handler, []).append(_signature(call))
    return fwd, forward


def backward_report(ask, x, w):
    """The program report (each call poisoned alone) of jax.jit(jax.grad(LOSS)) on (x, w),
    after the backward pass's gate: no host callback, gradient depending on the FFI kernels
    and straight from them, no math in JAX."""
    loss = f"jax.grad({LOSS})"
    what = "jax.jit(jax.grad(...)) through silu_ffi"
    hint = "an ffi_call cannot be differentiated: the bwd rule of the custom_vjp must return a one-element tuple"
    report = ask.program(loss, "x", "w", x=x, w=w, what=what, hint=hint, each=True)
    return gates.check(report, BACKWARD, what=what)


def _backward_coverage(report, k, forward, as_forward):
    """Of output `k` of a program report (each call poisoned alone): the elements that change
    when some call of a handler of the answer's own is poisoned that is not a forward one
    (`forward`: forward_handlers'), and the targets of the forward handlers' calls the output
    depends on that `as_forward(call)` rejects."""
    value = report.value[k]
    covered, misused = np.zeros(np.shape(value), bool), []
    for i, c in enumerate(report.calls):
        run = report.run(evidence.call_piece(i))
        if run is None or c.course:
            continue
        if not poison.changed(value, run.outputs[k]).any():
            continue                      # a call this output does not depend on
        mask = poison.covered(value, run.outputs[k], run.sizes)
        if c.handler in forward:
            if not as_forward(c):
                misused.append(c.target)
        else:
            covered |= mask
    return covered, misused


def gradient_values(ask, fn, what, hint, *, per_example, grads=(0,), **inputs):
    """kernel_values of a program whose outputs `grads` (indices) are gradients through
    silu_ffi, credited only when each comes from a backward kernel of the answer's own: every
    element of it changes when some call of a C++ handler other than the forward kernel's (and
    no course kernel) is poisoned, and the forward kernel's handler, where a gradient depends
    on it, is called as silu_ffi calls it on `per_example` (the input silu_ffi sees per
    example): one operand, no larger than the program's largest input, the same attributes.
    This is the task's core on the backward path: the gradient comes from the backward kernel."""
    report = _kernel_report(ask, fn, what, hint, each=True, **inputs)
    _, forward = forward_handlers(ask, per_example)
    attributes = {sig[1] for sigs in forward.values() for sig in sigs}
    limit = max(int(np.size(v)) for v in inputs.values())

    def as_forward(call):   # one operand, no larger than the program's inputs, silu_ffi's attributes
        sizes, attrs = _signature(call)
        return len(sizes) == 1 and sizes[0] <= limit and attrs in attributes
    for k in grads:
        covered, misused = _backward_coverage(report, k, forward, as_forward)
        checks.expect(covered.all() and not misused, (
            f"{what} does not come, in every element, from a backward kernel of your own (a C++ handler "
            "other than your forward kernel's, which may only recompute silu(x) there), so its values earn "
            "nothing here; see the test of the backward kernel"))
    return report.value


def expect_distinct_backward_kernel(report, fwd, forward, size):
    """Every element of the gradient (backward_report's) changes when some call is poisoned
    whose handler is neither a course kernel nor one of `forward` (forward_handlers'); a
    forward handler may appear only as silu_ffi calls it, on x alone (`size` elements)."""
    covered, misused = _backward_coverage(
        report, 0, forward, lambda c: _signature(c) in forward[c.handler] and _signature(c)[0] == [size])
    fwd_targets = sorted({c.target for c in fwd.calls if c.handler in forward})
    checks.expect(covered.all(), (
        "The gradient does not depend, in every element, on a backward kernel of your own: a C++ "
        "handler other than your forward kernel's"
        + (f" ({', '.join(fwd_targets)})" if fwd_targets else "")
        + "; one function registered under two target names, a mode attribute, or the course's "
          "kernels (rms_norm, rms_norm_fwd, rms_norm_bwd) do not count."))
    checks.expect(not misused, (
        f"The backward pass calls your forward kernel's handler (target {misused[0] if misused else ''!r}) "
        "with other operands or attributes than silu_ffi does; the forward kernel may only recompute "
        "silu(x) there, and the derivative belongs in your backward kernel."))


# ---- the kernels called directly at 2^20 + 5 values (at_scale.py), and at every rank ----

def expect_forward_kernel_at_scale(ask, x):
    """The forward kernel, called directly on x (at_scale.forward_inputs), returns silu(x) in
    every element; and jax.jit(silu_ffi) does at every rank from 2 to 8 (ranks.py)."""
    at_scale.expect_kernel(ask, "silu_ffi", [x], silu_np64(x), kernel="forward kernel",
                           path="jax.jit(silu_ffi)", rtol=1e-5, atol=1e-6, given=True,
                           hint="it must compute silu(x) for every element of x, in its place, whatever the size of x")
    ranks.expect_forward_at_every_rank(ask)


def expect_backward_kernel_at_scale(ask, x, ct):
    """The backward kernel, called directly on x and the cotangent ct (at_scale.backward_inputs)
    and on what else the VJP gives it, returns ct·silu'(x) in every element; and the VJP does,
    its primal too, at every rank from 2 to 8 and (the primal) at every shape (ranks.py)."""
    at_scale.expect_kernel(ask, "lambda v, c: jax.vjp(silu_ffi, v)[1](c)[0]", [x, ct],
                           silu_grad_np64(x, ct), kernel="backward kernel",
                           path="The VJP of silu_ffi with a random cotangent", rtol=1e-4, atol=1e-5, given=False,
                           hint="it must compute ȳ·σ(x)·(1 + x·(1 − σ(x))) for every element, in its place, whatever "
                                "the size of x")
    ranks.expect_vjp_at_every_rank(ask)


# ---- every shape (every_shape.py), and the eager calls ----

EVERY_SHAPE_HINT = ("{path} must call the same kernels at every shape and size: the grader lowers it at every "
                    "shape from 0 to 2^31 - 1 elements and ranks 0 to 8 (without running it), and a branch on "
                    "the shape to plain JAX shows there")


def expect_forward_at_every_shape(ask, base):
    """jax.jit(silu_ffi) at every shape is, shapes aside, the program checked at `base`."""
    every_shape.expect_within(ask, every_shape.forward(base), "your forward kernel",
                              hint=EVERY_SHAPE_HINT.format(path="silu_ffi"))


def expect_backward_at_every_shape(ask, base):
    """The gradient of sum(silu_ffi(x) * w) at every shape is the program checked at `base`'s."""
    every_shape.expect_within(ask, every_shape.backward(base), "your backward kernel",
                              hint=EVERY_SHAPE_HINT.format(path="the bwd rule of silu_ffi"), filler=True)


def expect_vmap_at_every_shape(ask, base):
    """jax.vmap(silu_ffi) with the batch at every position of every shape: the program checked at `base`'s."""
    every_shape.expect_within(ask, every_shape.vmap(base), "your forward kernel",
                              hint=EVERY_SHAPE_HINT.format(path="jax.vmap(silu_ffi), with the batch at any position,"))


def expect_vmap_grad_at_every_shape(ask, base):
    """jax.vmap of the gradient, batch at every position: the program checked at `base`'s."""
    every_shape.expect_within(ask, every_shape.vmap_grad(base), "your backward kernel",
                              hint=EVERY_SHAPE_HINT.format(path="jax.vmap of the gradient, with the batch at any position,"),
                              filler=True)


EAGER_HINT = ("called eagerly, silu_ffi must call the same kernels as under jax.jit (the grader reads an eager "
              "call as the primitives it binds, with jax.jit disabled inside it)")


def expect_eager(ask, fn, what, name, *, hint, base=None, **inputs):
    """The value of `fn` called eagerly on the inputs, once its call, read as the primitives it
    binds (witness.eager: lowered on the grader's own inputs, read without running), is found
    within jax.jit(`base`) (default `fn`) on them, a path whose values the test checked by
    running (every_shape.within: the output from the same kernels, no other JAX operation).
    `hint` completes the sentence when the call raises."""
    spec = [(np.shape(v), str(np.asarray(v).dtype)) for v in inputs.values()]
    key = hashlib.sha256(repr((fn, spec)).encode() + b"".join(np.ascontiguousarray(v).tobytes()
                                                              for v in inputs.values())).hexdigest()
    (jitted,) = ask.structures(base or fn, [spec], what=f"jax.jit of {what}", hint=hint)
    (eager,) = ask.structures(f"witness.eager({fn}, {', '.join(inputs)}, key={key!r})", [spec], what=what,
                              hint=hint, **inputs)
    proofs.expect_every([eager], [spec], every_shape.named_within(jitted, "under jax.jit", name, count=False),
                        what=what, hint=EAGER_HINT)
    return ask.run(f"witness.result({key!r})", what=what, hint=hint)
