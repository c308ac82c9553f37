"""What the pure_callback_doubler tests share: the "is pure_callback_doubler defined"
preamble, the questions they ask (the call's result eagerly and under jax.jit, the
callback equations of its trace, the host function called directly or between two
snapshots of the notebook's state) and the judgements of those answers (a jax.Array that
is the callback's output, exactly one pure_callback, a host function computing NumPy's
float32 `arr * 2` without errors, output, state changes or I/O).

Where the verdict is computed: the compiled program of jax.jit(pure_callback_doubler) is run
by the grader's executor (`ask.program`: its value, and its value with the callback's
output poisoned), its host callback served by the witness's host function. What only the
student's process can observe (the eager path, the jaxpr's callback equations, the host
function called directly, its purity) is asked through `ask.run`; every test that rests on
it also requires the executor's verdict (`expect_program_from_callback`), so a notebook that
forges its process's replies gains at most those tests, and only where its program is right.
Verdicts use `checks` and the gates declared below (gates.RAN, FROM_CALLBACK); each test's
inputs stay in its cell; the witness answers with evidence records (CallResult, HostCalls).
"""
import dataclasses

import numpy as np

from autograder.shared import checks, evidence, gates, probe, shapes
from autograder.assignments.pure_callback_doubler import EXERCISE
from autograder.assignments.pure_callback_doubler import records  # noqa: F401  (its records decode in this process)
from autograder.assignments.pure_callback_doubler.purity import (  # noqa: F401  (the test cells' kit.expect_*)
    expect_no_state_changes, expect_same_results, expect_silent)


NOT_DEFINED = "pure_callback_doubler is not defined; define it in the answer cell and run that cell."

# (name for the student, expression of x) for the two ways the tests call the answer.
EAGER_AND_JIT = (("pure_callback_doubler", "pure_callback_doubler(x)"),
                 ("jax.jit(pure_callback_doubler)", "jax.jit(pure_callback_doubler)(x)"))

# The two kinds of array the host function is called on directly: (kind, tag), where the
# tag starts the input's name ("n": a NumPy array, "j": a CPU jax.Array).
KINDS = (("a NumPy array", "n"), ("a CPU jax.Array", "j"))

CALL_HINT = "return jax.pure_callback(host function, declaration, x)"
DECLARE_HINT = "declare the result with jax.ShapeDtypeStruct(x.shape, x.dtype)"
EMPTY_HINT = "an empty input returns an empty result of shape (0,)"
TRACING = "Tracing pure_callback_doubler"
TRACING_HINT = "pure_callback_doubler must accept a float32 JAX array"


# ---- preamble ----

def expect_defined(ask):
    """The notebook defined pure_callback_doubler."""
    checks.expect(ask.defined("pure_callback_doubler"), NOT_DEFINED)


def case(env, *, concept):
    """The test cells' ritual (EXERCISE.case): every test first needs pure_callback_doubler defined."""
    return EXERCISE.case(env, concept=concept, before=expect_defined)


# ---- the gates: what a report must be before its result counts (gates.check fills {what}) ----

# The result is the pure_callback's output itself, on the executor's report; on an eager
# trace's, which cannot tell pure_callback from io_callback, the host callbacks' (from_callback).
FROM_CALLBACK = (
    gates.HasPiece("{what} calls no jax.pure_callback (io_callback, a callback with side effects, is not one); the "
                   "result must be the output of jax.pure_callback for every input shape, eagerly and under "
                   "jax.jit.", evidence.PURE_CALLBACK),
    gates.DependsOn("{what} does not take its result from the pure_callback: the grader replaced the "
                    "callback's output and the result stayed the same; return the callback's output, not a "
                    "value computed beside it", evidence.PURE_CALLBACK),
    gates.StraightFrom("{what} computes on the pure_callback's output before returning it; the doubling must "
                       "happen in the host function, and the result must be the callback's output itself "
                       "(reshaping it is fine)", evidence.PURE_CALLBACK))


def from_callback(report):
    """FROM_CALLBACK on the piece `report` tells the callback by (checks.callback_piece)."""
    piece = checks.callback_piece(report)
    return tuple(dataclasses.replace(gate, piece=piece) for gate in FROM_CALLBACK)


# ---- the answer's result ----

def compiled_program(ask, x, *, what):
    """The executor's report on the compiled program of jax.jit(pure_callback_doubler) on x
    (run as it is, and with the host callback's output poisoned); failing when it was not run."""
    report = ask.program("pure_callback_doubler", "x", x=x, what=what, hint=CALL_HINT)
    return gates.check(report, (gates.RAN,), what=what)


def expect_program_from_callback(ask):
    """The gate of the tests whose facts only the student's process can observe: the
    grader's own run of jax.jit(pure_callback_doubler), on 7 values it draws, returns the
    pure_callback's output, exactly x doubled (the tests' "where the result comes from")."""
    x = ask.normal(99, (7,), scale=10)
    what = "jax.jit(pure_callback_doubler) on shape (7,)"
    expect_callback_output(compiled_program(ask, x, what=what), x.astype(np.float64) * 2, what)


def call_result(ask, expr, x, *, what, hint=CALL_HINT):
    """witness.call_result of `expr` (an expression of x, e.g. one of EAGER_AND_JIT): an
    records.CallResult, the result's value, whether it is a jax.Array, its type name and shape."""
    return ask.run(f"witness.call_result({expr})", x=x, what=what, hint=hint)


def shape_of(got):
    """The shape of a call_result as a tuple (None when the result has none)."""
    return None if got.shape is None else tuple(got.shape)


def expect_jax_array(got, what):
    """The call_result `got` is a jax.Array (not, say, the ShapeDtypeStruct declaration)."""
    checks.expect(got.jax_array, (
        f"{what} returned a {got.type}, not a jax.Array; return the result of "
        "jax.pure_callback, not the ShapeDtypeStruct declaration."))


def expect_shape_and_dtype(got, shape, what):
    """The call_result `got` has `shape` and the declared float32."""
    have = shape_of(got)
    checks.expect(have == shape, f"{what} returned shape {have} for shape {shape}; {DECLARE_HINT}.")
    checks.expect_dtype(got.value, np.float32, what=f"{what}'s result", hint=DECLARE_HINT)


def expect_exactly_doubled(value, want, what):
    """`value` is float32 and equal to `want` (the float64 x * 2) exactly."""
    checks.expect_dtype(value, np.float32, what=what, hint=DECLARE_HINT)
    checks.expect_close(value, want, what=what, rtol=0, atol=0, at=np.asarray(want) / 2,   # x, exactly
                        hint="the result should be x doubled, with the same shape")


def expect_callback_output(report, want, what):
    """A trace report (observe.eager_trace, or the executor's report from compiled_program)
    holds one output, exactly `want` in float32, that depends on the host callback in
    every element and is its output with nothing computed after it."""
    checks.expect(len(report.value) == 1, (
        f"{what} returned {len(report.value)} arrays; return one array, the callback's result."))
    expect_exactly_doubled(report.value[0], want, what)
    gates.check(report, from_callback(report), what=what)


# ---- empty input ----

def expect_empty_result(got, name):
    """The call_result of `name` on an empty input is a jax.Array of shape (0,) and dtype
    float32 (two checks, two messages)."""
    shape = shape_of(got)
    checks.expect(got.jax_array and shape == (0,), (
        f"{name} on an empty input returned {got.type} of shape {shape}; "
        "return the callback result, of shape (0,) for an empty input."))
    checks.expect_dtype(got.value, np.float32, what=f"{name} on an empty input")


def expect_empty_float32_result(got, name):
    """The call_result of `name` on an empty input is a float32 jax.Array of shape (0,)
    (one check, one message)."""
    checks.expect(got.jax_array and got.shape == [0] and got.value.dtype == np.float32, (
        f"{name} on an empty input did not return an empty float32 jax.Array of shape (0,); "
        "return the callback result for empty input too."))


def expect_empty_host_result(call, kind):
    """The host function, called directly on an empty `kind`, raised nothing and returned
    one array of shape (0,)."""
    expect_no_error(call, kind, "an empty input is valid: return an empty array, and do not use "
                                "a pure callback for input validation")
    checks.expect(call.outputs == 1 and np.shape(call.value) == (0,), (
        f"Your host function, called on {kind}, did not return one empty array of shape (0,); "
        "arr * 2 in NumPy handles empty arrays as they are."))

# ---- the callback equations ----

def callback_counts(ask, x, n):
    """How many io_callback, debug_callback and pure_callback equations the trace of
    pure_callback_doubler on x (of shape (n,)) holds, in that order."""
    return ask.run('[observe.count_eqns(pure_callback_doubler, x, primitive=p) '
                   'for p in ("io_callback", "debug_callback", "pure_callback")]', x=x,
                   what=f"Tracing pure_callback_doubler on shape ({n},)",
                   hint="pure_callback_doubler must accept a float32 JAX array of any length")


def expect_only_one_pure_callback(counts, n):
    """`counts` (callback_counts on shape (n,)) holds no io or debug callback and exactly
    one pure_callback."""
    n_io, n_debug, n_cb = counts
    checks.expect(n_io == 0, (
        "pure_callback_doubler uses io_callback; doubling is pure, so call the host function "
        "through jax.pure_callback."))
    checks.expect(n_debug == 0, (
        "pure_callback_doubler uses jax.debug.callback or jax.debug.print; a pure computation "
        "has no side effects, so remove it."))
    checks.expect(n_cb == 1, (
        f"pure_callback_doubler holds {n_cb} jax.pure_callback equations for an input of shape ({n},), "
        "expected exactly one for every length; call one NumPy host function through jax.pure_callback "
        "(a function merely named pure_callback does not count, and no length may take a plain JAX path)."))


# ---- the host function, called directly ----

def example():
    """The input pure_callback_doubler is traced with to find its host function."""
    return probe.numpy(np.ones(4, np.float32))


def on_both_kinds(arrays):
    """Inputs n0, j0, n1, j1, ...: each array as a NumPy array ("n") and as a jax.Array ("j"),
    in the order of KINDS."""
    return {f"{tag}{i}": (probe.numpy(a) if tag == "n" else a)
            for i, a in enumerate(arrays) for _, tag in KINDS}


def host_calls(ask, **inputs):
    """witness.host_calls: the host function of pure_callback_doubler (traced on example())
    called directly on each input in turn, its output captured at file-descriptor level (an
    records.HostCalls)."""
    return ask.run(f"witness.host_calls(pure_callback_doubler, example, [{', '.join(inputs)}])",
                   example=example(), **inputs, what=TRACING, hint=TRACING_HINT)


def host_purity(ask, **inputs):
    """witness.host_purity: the host function called directly on each input, then
    pure_callback_doubler and its jit run on each input as JAX runs them; every call of the
    host function observed on its own, between two deep snapshots of the notebook's state
    (the host function's attributes, closure, defaults and class, the process-wide settings)
    and of the working folder, its output seen at file-descriptor level, files opened and
    processes or sockets started seen from below Python (an evidence.HostPurity). The two
    worlds' comparison (witness/worlds.py) also calls it on the big input and one of each
    length of shapes.HOST_LENGTHS: an effect only on large inputs is an effect."""
    return ask.run(f"witness.host_purity(pure_callback_doubler, example, [{', '.join(inputs)}], __notebook__, "
                   f"larger=[big, {LADDER}])",
                   example=example(), **inputs, big=probe.numpy(big_input(ask)), lengths=list(shapes.HOST_LENGTHS),
                   what=TRACING, hint=TRACING_HINT)


def domain_inputs(ask, *, empty=True):
    """(label, array) of every kind of float32 input the task covers: random values, one
    value, NaN, infinities, signed zeros, subnormal and huge values, an empty array (left
    out with empty=False: an error there is the empty-input tests' finding)."""
    return [("of 1000 random values", ask.normal(141, (1000,), scale=100)),
            ("of one value", np.float32([0.5])),
            ("holding NaN, infinities, signed zeros, tiny and huge values",
             np.float32([np.nan, -0.0, 0.0, np.inf, -np.inf, 1e-45, -1.2e-38, 3e37, -1.5e38, 3e38, -7.25])),
            ("of shape (0,)", np.zeros((0,), np.float32))][:None if empty else -1]


# The size of the one large input the host function is called on directly (shapes.HOST_LARGE,
# 32 MB of float32): the programs at larger shapes are only lowered, never run, and a branch
# inside the host function is invisible to a lowering.
BIG = shapes.HOST_LARGE
# The inputs of every length of shapes.HOST_LENGTHS, made in the witness from `big` (its first
# values, each a copy of its own): 50 MB that need not cross the wire.
LADDER = "*(big[:n].copy() for n in lengths)"


def big_input(ask):
    """BIG float32 values in random order over every magnitude: random bit patterns (both
    signs, every exponent, subnormal values, NaN of many payloads), with NaN, infinities,
    signed zeros, the smallest subnormal and the largest finite values put at drawn places."""
    rng = ask.rng(144)
    a = rng.integers(0, 2**32, BIG, dtype=np.uint32).view(np.float32)
    special = np.float32([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1.2e-38, -1.2e-38,
                          1.7e38, -1.7e38, 3.4e38, -3.4e38])
    a[rng.choice(BIG, 64 * special.size, replace=False)] = np.repeat(special, 64)
    return a


def big_host_calls(ask, a, inputs: str, lengths=()):
    """witness.host_calls on `inputs` (an expression of `big`, the large input `a`, and of
    `lengths`; with `lengths`, only the first max(lengths) values of `a` are sent): the host
    function JAX calls for an input of that size (the one pure_callback of the trace at that
    shape; a host function the trace picks by length is the every-shape tests' finding) called
    directly on each, once, as a NumPy array (the kind on which it may run no JAX either)."""
    a = a[:max(lengths)] if lengths else a   # what the ladder reads of it, sent alone
    return ask.run(f"witness.host_calls(pure_callback_doubler, big, [{inputs}])",
                   big=probe.numpy(a), lengths=list(lengths), what=f"{TRACING} on shape ({a.size},)",
                   hint=TRACING_HINT)


def ladder_groups(most: int = 2**22) -> list[list[int]]:
    """shapes.HOST_LENGTHS in groups of at most `most` values in all (the largest alone): the
    outputs of one group make one reply, and the replies stay small (the runner holds one
    at a time, with its reference: the grading container has 768 MB)."""
    groups: list[list[int]] = [[]]
    total = 0   # the values of the last group
    for n in shapes.HOST_LENGTHS:
        if groups[-1] and total + n > most:
            groups.append([])
            total = 0
        groups[-1].append(n)
        total += n
    return groups


def expect_numpy_doubling_at_scale(ask):
    """The host function called directly on BIG values (big_input), and on an input of each
    length of shapes.HOST_LENGTHS, as a NumPy array, returns NumPy's float32 arr * 2 exactly, element by
    element, and runs no JAX (expect_numpy_doubling). The programs at that size were lowered,
    not run; when the trace at that size holds no single callback, the every-shape tests say so."""
    a = big_input(ask)
    report = big_host_calls(ask, a, "big")
    if report.callbacks != 1:
        return   # the structure at that size: the every-shape tests' finding
    kind = KINDS[0][0]
    on = (f"{kind} of {a.size:,} values given to it directly (every magnitude, both signs, infinities and NaN, "
          "in random order)")
    expect_numpy_doubling(report.calls[0], a, kind=kind, on=on, jax_allowed=False)
    for lengths in ladder_groups():
        for call, n in zip(big_host_calls(ask, a, LADDER, lengths).calls, lengths):
            expect_numpy_doubling(call, a[:n], kind=kind, on=f"{kind} of shape ({n},) given to it directly",
                                  jax_allowed=False)


def doubled(a):
    """NumPy's float32 a * 2 (3e38 overflows to inf), as float64 for the comparisons."""
    with np.errstate(over="ignore", invalid="ignore"):   # invalid: a signalling NaN's payload
        return (a * np.float32(2)).astype(np.float64)



def expect_one_host_function(report, on=""):
    """The report (host_calls, host_purity) found exactly one pure_callback, whose
    host function it called; `on` completes "could be checked" (e.g. " on an empty input")."""
    checks.expect(report.callbacks == 1, (
        f"pure_callback_doubler holds no single jax.pure_callback whose host function could be checked{on}; "
        "double the values in a NumPy host function called through jax.pure_callback."))


def expect_no_error(call, on, advice):
    """The host function, called on `on`, raised nothing; `advice` ends the message."""
    checks.expect(call.error is None, f"Your host function, called on {on}, raised {call.error}; {advice}")


def expect_numpy_doubling(call, a, *, kind, on, jax_allowed):
    """One direct call of the host function on `a` (given as `kind`; `on` names kind and
    input): no error (one on an empty input is left to the empty-input tests), one NumPy
    float32 array equal to NumPy's float32 a * 2 exactly, and no JAX code run unless the
    input was a jax.Array (`jax_allowed`)."""
    want = doubled(a).astype(np.float32)   # NumPy's float32 arr * 2
    if call.error is not None:
        if a.size == 0:
            return   # an error on empty input is the "Empty input" test's finding
        expect_no_error(call, on, "a pure host function must accept any float32 array and must not "
                                  "validate its input (an intentional exception is a side effect).")
    checks.expect(call.outputs == 1,
                  f"Your host function returned {call.outputs} arrays; return one array, arr * 2.")
    checks.expect(call.type == "numpy.ndarray", (
        f"Your host function, called on {kind}, returned a {call.type}, "
        "not a NumPy array; convert with np.asarray first and compute arr * 2 in NumPy "
        "(jnp arithmetic on the host is not NumPy)."))
    checks.expect(jax_allowed or not call.jax, (
        f"Your host function ran JAX code when called on {on}; compute arr * 2 with NumPy "
        "only (converting a jnp result with np.asarray still computes it with JAX)."))
    checks.expect_dtype(call.value, np.float32, what=f"Your host function's result on {on}",
                        hint="return float32 for float32 input, an empty one included: compute arr * 2 "
                             "without converting to float64 (JAX casts a callback's result silently "
                             "and never calls it for an empty result, so only a direct call shows this)")
    got = call.value
    checks.expect(got.shape == want.shape, f"Your host function's result on {on} has shape {got.shape}, not "
                                           f"the input's {want.shape}; it should return NumPy's float32 arr * 2.")
    wrong = checks.unequal(got, want)
    example = checks.counterexample(got, want, wrong, ("arr", a))
    checks.expect(not np.any(wrong), f"Your host function's result on {on} differs from the reference arr * 2 at "
                        f"{np.count_nonzero(wrong):,} of {a.size:,} entries{example}"
                        "; it should return NumPy's float32 arr * 2 exactly.")
