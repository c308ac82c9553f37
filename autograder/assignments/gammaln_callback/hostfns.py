"""Where gammaln_callback's math happens: the ops of the compiled programs (the grader's
compile) and the host functions called directly in the student's process
(witness.host_functions, one records.HostFunction per host callback), on a huge input too
(witness.host_values: values element by element, and with SciPy poisoned)."""
from dataclasses import dataclass

import numpy as np

from autograder.shared import checks, gates, poison, probe, shapes
from autograder.shared.evidence import Report
from autograder.assignments.gammaln_callback import records  # noqa: F401  (its records decode in this process)
from autograder.assignments.gammaln_callback.questions import (
    DIGAMMA, FORWARD_HINT, GAMMALN, GRAD, JVP_HINT, compiled_program)
from autograder.assignments.gammaln_callback import references
from autograder.assignments.gammaln_callback.references import scipy32

# What the compiled programs may hold besides the callbacks (the task text's list):
# moving data, +, -, *, comparisons and selects, control flow; JAX's own lgamma and
# digamma need rounding, division, bit tricks, table lookups or transcendental ops.
ALLOWED_OPS = frozenset({
    "parameter", "constant", "custom-call", "tuple", "get-tuple-element", "bitcast", "reshape",
    "copy", "transpose", "broadcast", "convert", "slice", "dynamic-slice", "dynamic-update-slice",
    "concatenate", "pad", "iota", "reverse", "fusion", "call", "while", "conditional",
    "opt-barrier", "add", "subtract", "multiply", "negate", "abs", "maximum", "minimum",
    "compare", "select", "and", "or", "not", "is-finite",
    # moves by index (x[i], .at[i].set in a loop; jnp.take): a scatter's combiner is an
    # instruction of its own computation, listed and judged like any other; clamp is a
    # maximum and a minimum (XLA's form of an index kept in bounds)
    "gather", "scatter", "clamp",
    # the bounds test of such an index, all() of predicates (stablehlo.opcodes: a truth)
    "reduce-pred"})


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
    records.HostFunction per host callback."""
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
    settings), its argument left as it was, no earlier result changed; in the two worlds'
    comparison also on a million values (references.huge_input) and on an input of each rank
    from 2 to 8, each past 2^18 values (shapes.HOST_RANKED). One sentence names the first
    effect found."""
    big = references.huge_input(ask.rng(146))   # the two worlds also call them on a million values
    ranked = {f"r{k}": probe.numpy(r) for k, r in enumerate(shapes.host_ranked_inputs(big))}
    report = ask.run(f"witness.host_purity([gammaln_cb, {GRAD}], a, __notebook__, larger=[big, {', '.join(ranked)}])",
                     a=probe.numpy(a), big=probe.numpy(big), **ranked,
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
        f"Your host function starts processes, opens sockets, removes files or sets environment variables ({what}) "
        f"{_ON}; {_PURE}."),
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


# ---- every host function called directly on a huge input ----

@dataclass(frozen=True)
class Hosts:
    """The host functions of one side (the forward values, the derivative) as
    check_hosts_at_scale judges them."""
    fn: str              # the expression traced (questions: gammaln_cb, GRAD)
    name: str            # as the student reads it
    scipy: str           # SciPy's function, poisoned (GAMMALN, DIGAMMA)
    rtol: float
    atol: float
    hint: str


FORWARD_HOSTS = Hosts("gammaln_cb", "gammaln_cb", GAMMALN, 1e-5, 1e-6, FORWARD_HINT)
DERIVATIVE_HOSTS = Hosts(GRAD, "jax.grad(gammaln_cb)", DIGAMMA, 1e-4, 1e-5, JVP_HINT)


def _close(got, want, rtol, atol) -> bool:
    """checks.expect_close's verdict without its sentence: NaN and infinities exactly, the
    rest close."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    finite = np.isfinite(want)
    return bool(got.shape == want.shape and not np.any(checks.unequal(got, want) & ~finite)
                and np.all(np.isfinite(got[finite]))
                and np.all(np.isclose(got[finite], want[finite], rtol=rtol, atol=atol)))


def _roles(found, small, want, hosts: Hosts) -> dict[int, list[int]]:
    """{equation index: output positions} of the host functions (witness.host_values on
    `small`) whose output, on the grader's values, is `want` (the side's SciPy function): the
    outputs whose function the small call establishes. Others (another function's output, an
    operand that is not the input, a host function already wrong on small inputs) are other
    checks' business."""
    roles = {}
    for i, entry in enumerate(found):
        if not entry or entry.values is None or entry.from_example[:1] != [True]:
            continue
        for j, out in enumerate(entry.values):
            if np.size(out) == small.size and _close(np.ravel(out), want, hosts.rtol, hosts.atol):
                roles.setdefault(i, []).append(j)
    return roles


def check_hosts_at_scale(ask, hosts: Hosts, small, huge, reference):
    """Every host function of `hosts.fn`'s callbacks whose output is SciPy's `reference`
    (scipy.special.gammaln or digamma, from the test cell) when called directly on `small`,
    called directly on the `huge` input (references.huge_input: a million values over the
    whole domain, in random order), where the trace at that size calls it: its output is
    `reference` rounded to float32, element by element (a branch inside a host function is
    invisible to the lowering of the programs at that size, which are never run), and with
    SciPy's function poisoned, keyed on `huge`'s values (witness.host_values), every element
    changes; then on an input of each rank from 2 to 8, each past 2^18 values
    (shapes.HOST_RANKED), its values alike. Fails with the size and a counterexample."""
    small, huge = np.asarray(small), np.asarray(huge)
    found = ask.run(f"witness.host_values({hosts.fn}, a)", a=probe.numpy(small), what=f"Tracing {hosts.name}",
                    hint=hosts.hint)
    roles = _roles(found, small, scipy32(reference, small).ravel(), hosts)
    if not roles:
        return
    n = huge.size
    report = ask.run(f"witness.host_values({hosts.fn}, a, replace={hosts.scipy!r}, keep={sorted(roles)!r})",
                     a=probe.numpy(huge), what=f"Tracing {hosts.name} on shape ({n},)", hint=hosts.hint)
    want = scipy32(reference, huge).ravel()
    short = hosts.scipy.rpartition(".")[2]
    what = f"A host function of {hosts.name}, called directly on {n:,} values over the whole domain,"
    for entry, outputs in _called(report, roles):
        checks.expect(entry.values is not None, (
            f"{what} raised {entry.error}; accept float32 arrays of any size and hand them to "
            f"scipy.special.{short} whole."))
        for j in outputs:
            got = _expect_values(entry, j, want, hosts, what=what, at=huge,
                                 hint=f"return scipy.special.{short}(x) for every element, in place, "
                                      "whatever the input's size")
            _expect_from_scipy(entry, j, got, huge, hosts, what=what, whole="on the whole array, whatever its size")
    _check_hosts_at_rank(ask, hosts, huge, roles, reference, len(found))


def _check_hosts_at_rank(ask, hosts: Hosts, huge, roles: dict, reference, count: int) -> None:
    """Each host function of `roles` called directly on an input of each shape of
    shapes.HOST_RANKED (ranks 2 to 8, past 2^18 values each, as the trace at that shape calls
    it; a branch on the rank inside one; the values tests run programs to rank 4): its output
    is `reference` rounded to float32, element by element, and with SciPy's function poisoned
    (keyed on that input's values) every element changes, as on the 1-d input. Only where
    that trace holds as many callbacks as the small one (`count`): else its program differs,
    the every-shape tests' finding, and the roles would not match."""
    for x in shapes.host_ranked_inputs(huge):
        report = ask.run(f"witness.host_values({hosts.fn}, a, replace={hosts.scipy!r}, keep={sorted(roles)!r})",
                         a=probe.numpy(x), what=f"Tracing {hosts.name} on shape {x.shape}", hint=hosts.hint)
        if len(report) != count:
            continue
        want = scipy32(reference, x).ravel()
        what = f"A host function of {hosts.name}, called directly on an input of shape {x.shape},"
        for entry, outputs in _called(report, roles):
            if entry.values is None:
                continue   # it raised: the other tests' finding
            for j in outputs:
                got = _expect_values(entry, j, want, hosts, what=what, at=x.ravel(),
                                     hint="return the SciPy function's values for every element, whatever the rank")
                _expect_from_scipy(entry, j, got, x, hosts, what=what, whole="on the whole input, whatever its rank")


def _expect_from_scipy(entry, j: int, got, x, hosts: Hosts, *, what: str, whole: str) -> None:
    """Output `j` of a host function's direct call on `x` (`entry`, made with hosts.scipy
    poisoned on x's values: witness.host_values) changed in every element but those whose
    value is itself a poison value; fails naming the first element that did not."""
    short = hosts.scipy.rpartition(".")[2]
    checks.expect(entry.poisoned_error is None, (
        f"{what} raised {entry.poisoned_error} when the grader replaced {hosts.scipy}; hand the "
        f"input to scipy.special.{short} whole and return its result."))
    n = int(np.size(x))
    unchanged = entry.unchanged[j] if j < len(entry.unchanged) else None
    same = _unexcused(unchanged, n)
    if same.size:
        k, clean = int(same[0]), np.ravel(got)
        at = k if np.ndim(x) == 1 else tuple(int(i) for i in np.unravel_index(k, np.shape(x)))
        checks.fail(
            f"{what} does not take its values from {hosts.scipy}: with it replaced by the grader (on "
            f"these very values only), {same.size:,} of {n:,} values stayed the same: at x[{at}] = "
            f"{checks.number(np.ravel(x)[k])}, got {checks.number(clean[k])} both times; call "
            f"scipy.special.{short} {whole} (not math.lgamma, a series or a formula of your own).")


def _called(report, roles: dict):
    """(entry, its outputs of `roles`) of each host function of `roles` that the report's
    trace calls on the grader's input (the others: the trace at that shape calls no such host
    function, the every-shape tests' finding)."""
    for i, outputs in sorted(roles.items()):
        entry = report[i] if i < len(report) else None
        if entry and entry.from_example[:1] == [True]:
            yield entry, outputs


def _expect_values(entry, j: int, want: np.ndarray, hosts: Hosts, *, what: str, at, hint: str) -> np.ndarray:
    """Output `j` of a host function's direct call (`entry`) holds as many values as `want`,
    each close to it; returns that output."""
    got = entry.values[j] if j < len(entry.values) else np.zeros(0)
    checks.expect(np.size(got) == want.size, (
        f"{what} returned {np.size(got):,} values where {want.size:,} were expected (output {j})."))
    checks.expect_close(np.ravel(got), want, what=what, rtol=hosts.rtol, atol=hosts.atol, at=at, hint=hint)
    return got


def _unexcused(unchanged, n: int) -> np.ndarray:
    """The flat indices of the output entries that stayed the same with SciPy poisoned
    (witness._unchanged's record; None: the poisoned call gave no output of that size, so
    every entry), but those whose value is itself a poison value (poison.covered's excuse)."""
    if unchanged is None:
        return np.arange(n)
    at, got = np.asarray(unchanged.at, np.int64).ravel(), np.asarray(unchanged.got, np.float64).ravel()
    if at.size != got.size:
        return np.arange(n)
    inside = (at >= 0) & (at < n)
    at, got = at[inside], got[inside]
    if not at.size:
        return at
    excused = poison.covered(got, got, [n])   # unchanged by construction: only the excuse is read
    return at[~excused]


def check_forward_hosts_at_scale(ask, a, huge, gammaln):
    """check_hosts_at_scale for the forward values: the host functions of gammaln_cb that
    give scipy.special.gammaln (`gammaln`) on `a`, on `huge`."""
    check_hosts_at_scale(ask, FORWARD_HOSTS, a, huge, gammaln)


def check_derivative_hosts_at_scale(ask, a, huge, digamma):
    """check_hosts_at_scale for the derivative: the host functions of jax.grad(gammaln_cb)
    that give scipy.special.digamma (`digamma`) on `a`, on `huge`."""
    check_hosts_at_scale(ask, DERIVATIVE_HOSTS, a, huge, digamma)
