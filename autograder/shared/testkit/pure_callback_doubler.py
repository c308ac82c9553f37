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
Verdicts use `checks`; the inputs each test uses stay in its cell.
"""
import numpy as np

from autograder.shared import checks, probe


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


# ---- the answer's result ----

def compiled_program(ask, x, *, what):
    """The executor's report on the compiled program of jax.jit(pure_callback_doubler) on x
    (run as it is, and with the host callback's output poisoned); failing when it was not run."""
    report = ask.program("pure_callback_doubler", "x", x=x, what=what, hint=CALL_HINT)
    checks.expect_ran(report, what)
    return report


def expect_program_from_callback(ask):
    """The gate of the tests whose facts only the student's process can observe: the
    grader's own run of jax.jit(pure_callback_doubler), on 7 values it draws, returns the
    pure_callback's output, exactly x doubled (the tests' "where the result comes from")."""
    x = ask.normal(99, (7,), scale=10)
    what = "jax.jit(pure_callback_doubler) on shape (7,)"
    expect_callback_output(compiled_program(ask, x, what=what), x.astype(np.float64) * 2, what)


def call_result(ask, expr, x, *, what, hint=CALL_HINT):
    """facts.call_result of `expr` (an expression of x, e.g. one of EAGER_AND_JIT): the
    result's value, whether it is a jax.Array, its type name and shape."""
    return ask.run(f"facts.call_result({expr})", x=x, what=what, hint=hint)


def shape_of(got):
    """The shape of a call_result as a tuple (None when the result has none)."""
    return None if got["shape"] is None else tuple(got["shape"])


def expect_jax_array(got, what):
    """The call_result `got` is a jax.Array (not, say, the ShapeDtypeStruct declaration)."""
    checks.expect(got["jax_array"], (
        f"{what} returned a {got['type']}, not a jax.Array; return the result of "
        "jax.pure_callback, not the ShapeDtypeStruct declaration."))


def expect_exactly_doubled(value, want, what):
    """`value` is float32 and equal to `want` (the float64 x * 2) exactly."""
    checks.expect_dtype(value, np.float32, what=what, hint=DECLARE_HINT)
    checks.expect_close(value, want, what=what, rtol=0, atol=0,
                        hint="the result should be x doubled, with the same shape")


def expect_callback_output(report, want, what):
    """A trace report (facts.eager_trace, or the executor's report from compiled_program)
    holds one output, exactly `want` in float32, that depends on the host callback in
    every element and is its output with nothing computed after it."""
    checks.expect(len(report["value"]) == 1, (
        f"{what} returned {len(report['value'])} arrays; return one array, the callback's result."))
    expect_exactly_doubled(report["value"][0], want, what)
    checks.expect(report["poisoned"]["host_callback"] is not None, (
        f"{what} calls no host callback; the result must be the output of jax.pure_callback "
        "for every input shape, eagerly and under jax.jit."))
    checks.expect_depends(report, "host_callback", message=(
        f"{what} does not take its result from the pure_callback: the grader replaced the "
        "callback's output and the result stayed the same; return the callback's output, not a "
        "value computed beside it"))
    checks.expect_straight(report, "host_callback", message=(
        f"{what} computes on the pure_callback's output before returning it; the doubling must "
        "happen in the host function, and the result must be the callback's output itself "
        "(reshaping it is fine)"))


# ---- empty input ----

def expect_empty_result(got, name):
    """The call_result of `name` on an empty input is a jax.Array of shape (0,) and dtype
    float32 (two checks, two messages)."""
    shape = shape_of(got)
    checks.expect(got["jax_array"] and shape == (0,), (
        f"{name} on an empty input returned {got['type']} of shape {shape}; "
        "return the callback result, of shape (0,) for an empty input."))
    checks.expect_dtype(got["value"], np.float32, what=f"{name} on an empty input")


def expect_empty_float32_result(got, name):
    """The call_result of `name` on an empty input is a float32 jax.Array of shape (0,)
    (one check, one message)."""
    checks.expect(got["jax_array"] and got["shape"] == [0] and got["value"].dtype == np.float32, (
        f"{name} on an empty input did not return an empty float32 jax.Array of shape (0,); "
        "return the callback result for empty input too."))


def expect_empty_host_result(call, kind):
    """The host function, called directly on an empty `kind`, raised nothing and returned
    one array of shape (0,)."""
    expect_no_error(call, kind, "an empty input is valid: return an empty array, and do not use "
                                "a pure callback for input validation")
    checks.expect(call["outputs"] == 1 and np.shape(call["value"]) == (0,), (
        f"Your host function, called on {kind}, did not return one empty array of shape (0,); "
        "arr * 2 in NumPy handles empty arrays as they are."))

# ---- the callback equations ----

def callback_counts(ask, x, n):
    """How many io_callback, debug_callback and pure_callback equations the trace of
    pure_callback_doubler on x (of shape (n,)) holds."""
    return ask.run('{p: facts.count_eqns(pure_callback_doubler, x, primitive=p) '
                   'for p in ("io_callback", "debug_callback", "pure_callback")}', x=x,
                   what=f"Tracing pure_callback_doubler on shape ({n},)",
                   hint="pure_callback_doubler must accept a float32 JAX array of any length")


def expect_only_one_pure_callback(counts, n):
    """`counts` (callback_counts on shape (n,)) holds no io or debug callback and exactly
    one pure_callback."""
    checks.expect(counts["io_callback"] == 0, (
        "pure_callback_doubler uses io_callback; doubling is pure, so call the host function "
        "through jax.pure_callback."))
    checks.expect(counts["debug_callback"] == 0, (
        "pure_callback_doubler uses jax.debug.callback or jax.debug.print; a pure computation "
        "has no side effects, so remove it."))
    n_cb = counts["pure_callback"]
    checks.expect(n_cb == 1, (
        f"pure_callback_doubler holds {n_cb} jax.pure_callback equations for an input of shape ({n},), "
        "expected exactly one for every shape; call one NumPy host function through jax.pure_callback "
        "(a function merely named pure_callback does not count, and no shape may take a plain JAX path)."))


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
    """facts.host_calls: the host function of pure_callback_doubler (traced on example())
    called directly on each input in turn, its output captured at file-descriptor level."""
    return ask.run(f"facts.host_calls(pure_callback_doubler, example, [{', '.join(inputs)}])",
                   example=example(), **inputs, what=TRACING, hint=TRACING_HINT)


def host_state_changes(ask, **inputs):
    """facts.host_state_changes: the host function called on each input, then
    pure_callback_doubler and its jit, between two deep snapshots of the notebook's globals
    (and of the host function's attributes, closure and defaults) and of the working
    folder; files opened and processes or sockets started are seen from below Python."""
    return ask.run(f"facts.host_state_changes(pure_callback_doubler, example, [{', '.join(inputs)}], "
                   "__notebook__)", example=example(), **inputs, what=TRACING, hint=TRACING_HINT)


def expect_one_host_function(report, on=""):
    """The report (host_calls, host_state_changes) found exactly one pure_callback, whose
    host function it called; `on` completes "could be checked" (e.g. " on an empty input")."""
    checks.expect(report["callbacks"] == 1, (
        f"pure_callback_doubler holds no single jax.pure_callback whose host function could be checked{on}; "
        "double the values in a NumPy host function called through jax.pure_callback."))


def expect_no_error(call, on, advice):
    """The host function, called on `on`, raised nothing; `advice` ends the message."""
    if "error" in call:
        checks.fail(f"Your host function, called on {on}, raised {call['error']}; {advice}")


def expect_numpy_doubling(call, a, *, kind, on, jax_allowed):
    """One direct call of the host function on `a` (given as `kind`; `on` names kind and
    input): no error (one on an empty input is left to the empty-input tests), one NumPy
    float32 array equal to NumPy's float32 a * 2 exactly, and no JAX code run unless the
    input was a jax.Array (`jax_allowed`)."""
    with np.errstate(over="ignore"):
        want = a * np.float32(2)          # NumPy's float32 arr * 2 (3e38 overflows to inf)
    if "error" in call:
        if a.size == 0:
            return   # an error on empty input is the "Empty input" test's finding
        expect_no_error(call, on, "a pure host function must accept any float32 array and must not "
                                  "validate its input (an intentional exception is a side effect).")
    checks.expect(call["outputs"] == 1,
                  f"Your host function returned {call['outputs']} arrays; return one array, arr * 2.")
    checks.expect(call["type"] == "numpy.ndarray", (
        f"Your host function, called on {kind}, returned a {call['type']}, "
        "not a NumPy array; convert with np.asarray first and compute arr * 2 in NumPy "
        "(jnp arithmetic on the host is not NumPy)."))
    checks.expect(jax_allowed or not call["jax"], (
        f"Your host function ran JAX code when called on {on}; compute arr * 2 with NumPy "
        "only (converting a jnp result with np.asarray still computes it with JAX)."))
    checks.expect_dtype(call["value"], np.float32, what=f"Your host function's result on {on}",
                        hint="return float32 for float32 input, an empty one included: compute arr * 2 "
                             "without converting to float64 (JAX casts a callback's result silently "
                             "and never calls it for an empty result, so only a direct call shows this)")
    got = call["value"]
    same = got.shape == want.shape and np.array_equal(got, want, equal_nan=True)
    if not same:
        bad = (int(np.count_nonzero(~((got == want) | (np.isnan(got) & np.isnan(want)))))
               if got.shape == want.shape else a.size)
        checks.fail(f"Your host function's result on {on} differs from the reference arr * 2 "
                    f"(shape {got.shape}, {bad} of {a.size} entries wrong); it should return "
                    "NumPy's float32 arr * 2 exactly.")


# ---- purity of the host function ----

def expect_silent(calls):
    """No direct call of the host function wrote to stdout or stderr (fds 1 and 2)."""
    checks.expect(not any(call["stdout"] or call["stderr"] for call in calls), (
        "Your host function prints or writes output (print, print to sys.__stdout__, os.write to file "
        "descriptor 1 or 2, logging); a pure callback has no side effects (JAX may run it any number of "
        "times, or not at all), so remove it."))


def expect_same_results(first, second):
    """Two direct calls on the same input returned the same arrays, dtypes included."""
    same = len(first["values"]) == len(second["values"]) and all(
        np.asarray(p).dtype == np.asarray(q).dtype and np.array_equal(np.asarray(p), np.asarray(q))
        for p, q in zip(first["values"], second["values"]))
    checks.expect(same, ("Your host function returned different results for the same input; a pure "
                         "callback's result depends only on its arguments."))


def expect_no_state_changes(report):
    """A host_state_changes report shows no changed, added or removed global (nor the host
    function itself), no file created, removed or opened, no process or socket started."""
    names = [("the host function itself" if n == "(the host function)" else n)
             for n in report["changed"] + report["added"] + report["removed"]]
    checks.expect(not names, (
        f"Calling your host function changed the notebook's global state ({', '.join(names[:3])}); a pure "
        "callback must not append to lists (nested ones included), count calls, set attributes on itself "
        "or assign globals or closure variables, because JAX may run it any number of times, or not at all."))
    checks.expect(not report["files_added"] and not report["files_removed"], (
        "Calling your host function created or removed files; a pure callback does no I/O (use "
        "io_callback for side effects)."))
    files = report["files"]
    checks.expect(not files, (
        f"Your host function opened files ({', '.join(files[:3])}); a pure callback reads and writes no "
        "files, anywhere (a file can change between calls): pass every value it needs as an argument."))
    checks.expect(not report["events"], (
        f"Your host function started processes, opened sockets or removed files "
        f"({', '.join(report['events'][:3])}); a pure callback has no side effects."))
