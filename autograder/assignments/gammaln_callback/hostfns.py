"""Where gammaln_callback's math happens: the ops of the compiled programs (the grader's
compile) and the host functions called directly in the student's process
(witness.host_functions, one evidence.HostFunction per host callback)."""
from dataclasses import dataclass

import numpy as np

from autograder.shared import checks, gates, probe
from autograder.shared.evidence import Report
from autograder.assignments.gammaln_callback.questions import FORWARD_HINT, GRAD, compiled_program

# What the compiled programs may hold besides the callbacks (the task text's list):
# moving data, +, -, *, comparisons and selects, control flow; JAX's own lgamma and
# digamma need rounding, division, bit tricks, table lookups or transcendental ops.
ALLOWED_OPS = frozenset({
    "parameter", "constant", "custom-call", "tuple", "get-tuple-element", "bitcast", "reshape",
    "copy", "transpose", "broadcast", "convert", "slice", "dynamic-slice", "dynamic-update-slice",
    "concatenate", "pad", "iota", "reverse", "fusion", "call", "while", "conditional",
    "opt-barrier", "add", "subtract", "multiply", "negate", "abs", "maximum", "minimum",
    "compare", "select", "and", "or", "not", "is-finite"})


@dataclass(frozen=True)
class OpsWithin(gates.Gate):
    """The optimized program holds none of `forbidden` and nothing outside `allowed` (HLO
    opcodes); the sentence is completed with the ones found."""
    allowed: frozenset = frozenset()
    forbidden: frozenset = frozenset()

    def check(self, report: Report, **words) -> None:
        ops = report.opcodes
        checks.expect_no_ops(ops, self.forbidden | (set(ops) - self.allowed), message=self.say(**words))


# ({what}: the program's function, {shape}: its input's shape)
NO_MATH = (OpsWithin(
    "The compiled program of {what} on a float32 input of shape {shape} computes math outside the callbacks: "
    "log-gamma and digamma must be computed by SciPy on the host, and around the callbacks only +, -, *, "
    "comparisons, selects, reshapes, copies, broadcasts, slices and dtype conversions are allowed",
    allowed=ALLOWED_OPS, forbidden=checks.TRANSCENDENTAL),)

# The hint for each of the two functions the shape test runs.
SHAPE_HINTS = {"gammaln_cb": FORWARD_HINT,
               "jax.grad(gammaln_cb)": "give gammaln_cb a JVP rule with defjvp whose tangent is a float32 "
                                       "array shaped like x"}


def expect_no_math_outside_callbacks(ask, *inputs):
    """The optimized programs of jax.jit(gammaln_cb) and jax.jit(jax.grad(gammaln_cb)), on
    each of `inputs`, hold no transcendental op and none outside ALLOWED_OPS (NO_MATH)."""
    for name, fn in (("jax.jit(gammaln_cb)", "gammaln_cb"), ("jax.jit(jax.grad(gammaln_cb))", GRAD)):
        for x in inputs:
            report = compiled_program(ask, fn, (x,), what=name, hint=FORWARD_HINT)   # the grader's compile
            gates.check(report, NO_MATH, what=name, shape=x.shape)


def host_functions(ask, fn, a, *, what, hint):
    """witness.host_functions of `fn` (an expression) on the NumPy array `a`: an
    evidence.HostFunction per host callback."""
    return ask.run(f"witness.host_functions({fn}, a)", a=probe.numpy(a), what=what, hint=hint)


def expect_host_functions_run_no_jax(ask, a):
    """Every host function of gammaln_cb and of its gradient, called directly on the NumPy
    array `a`, runs no JAX code."""
    for name, fn in (("gammaln_cb", "gammaln_cb"), ("jax.grad(gammaln_cb)", GRAD)):
        for entry in host_functions(ask, fn, a, what=f"Tracing {name}", hint=FORWARD_HINT):
            checks.expect(not entry.jax, (
                f"A host function of a callback in {name} runs JAX code when the grader calls it directly "
                "on a NumPy float32 array; compute on the host with SciPy and NumPy only (np.asarray, not "
                "jnp.asarray; scipy.special, not jax.scipy)."))


def expect_host_functions_pure(ask, a):
    """Every host function of gammaln_cb and of its gradient, called directly on NumPy
    arrays like `a` (witness.host_purity: twice on one writable array, once read-only, once
    on other values), is pure: no output, no files opened, created, removed or written
    through a descriptor held open, no processes or sockets, no state that outlives the
    call (globals, anything reachable from them, the host function itself, process-wide
    settings), its argument left as it was, no earlier result changed. One sentence names
    the first effect found."""
    report = ask.run(f"witness.host_purity([gammaln_cb, {GRAD}], a, __notebook__)", a=probe.numpy(a),
                     what="Tracing gammaln_cb and jax.grad(gammaln_cb)", hint=FORWARD_HINT)
    for call in report.calls:
        for kind, detail in call.findings():
            checks.fail(_SENTENCES.get(kind, _EFFECT)(_first(detail) if kind == "output" else detail, kind))


# evidence.PurityCall.findings' kinds -> the sentence (what was seen, its kind)
_SENTENCES = {
    "output": lambda what, kind: (
        f"Your host function writes output on every call: {what} {_ON}; {_PURE} (JAX may run a pure_callback "
        "any number of times, or not at all), so remove the print or logging."),
    "state": lambda what, kind: (
        f"Your host function changes state that outlives the call ({what}) {_ON}; {_PURE}: do not append to "
        "module-level lists, count calls, assign globals or attributes, or change process-wide settings such as "
        "np.seterr (np.errstate as a context manager is fine)."),
    "files": lambda what, kind: (
        f"Your host function opens files ({what}) {_ON}; {_PURE}: it reads and writes no files."),
    "made": lambda what, kind: (
        f"Your host function creates or removes files ({what}) {_ON}; {_PURE}: it does no I/O."),
    "events": lambda what, kind: (
        f"Your host function starts processes, opens sockets or removes files ({what}) {_ON}; {_PURE}."),
}


def _EFFECT(what, kind):   # the other effects (evidence.PurityCall.effects)
    lead = {"file descriptors": "writes to a file on every call: it "}.get(kind, "")
    return (f"Your host function {lead}{what} {_ON}; {_PURE}: it only reads its argument and returns a new array "
            "(no logging handler or file opened beforehand, no in-place update, no shared output buffer).")


_ON = "when the grader calls it directly on a NumPy float32 array"
_PURE = "the task asks the host functions to be pure"


def _first(output: str) -> str:
    line = next((ln for ln in output.splitlines() if ln.strip()), output)
    return repr(line[:60])


def check_host_functions_declared(ask, flat):
    """Every host function of gammaln_cb and of its gradient, called directly on NumPy
    float32 arrays of shapes (2, 3, 4), (), (0,) and (3, 0, 2) (JAX casts a callback's
    result silently and never calls the host for an empty output), raises nothing and
    returns exactly the number, dtypes and shapes of arrays it declares."""
    for shape in ((2, 3, 4), (), (0,), (3, 0, 2)):
        a = flat[:int(np.prod(shape))].reshape(shape)
        for name, fn in (("gammaln_cb", "gammaln_cb"), ("jax.grad(gammaln_cb)", GRAD)):
            found = host_functions(ask, fn, a, what=f"Tracing {name} on a float32 input of shape {shape}",
                                   hint=SHAPE_HINTS[name])
            on = f"when called directly on a NumPy float32 array of shape {shape}" + (" (empty)" if a.size == 0 else "")
            for entry in found:
                checks.expect(entry.error is None, (
                    f"A host function of a callback in {name} raised {entry.error} {on}; accept "
                    "NumPy arrays (np.asarray first) of any shape, empty and 0-d included."))
                declared, returned = entry.declared, entry.returned
                checks.expect(len(returned) == len(declared), (
                    f"A host function of a callback in {name} returns {len(returned)} arrays where "
                    f"{len(declared)} are declared, {on}."))
                for d, r in zip(declared, returned):
                    checks.expect(r.dtype == d.dtype, (
                        f"A host function of a callback in {name} returns {r.dtype} where {d.dtype} is "
                        f"declared, {on}; return exactly the declared dtype (end with .astype(np.float32)), "
                        "for every input."))
                    checks.expect(list(r.shape) == list(d.shape), (
                        f"A host function of a callback in {name} returns shape {tuple(r.shape)} where "
                        f"{tuple(d.shape)} is declared, {on}."))
