"""Assertion helpers for hidden and public tests.

Every failure is an AssertionError whose text is one sentence for the student: what is
wrong and what to look at. The helpers judge plain data (what `probe.Ask.run` returns):
they run in the grader's process and never touch a student object, except `bind`, which
the tests' expressions call where the student's code runs. The tests pass in the concept ("the transpose rule", "the
backward pass"); the helpers add what was observed. No helper quotes test code.
"""
from __future__ import annotations


import numpy as np

from autograder.shared import chapter, errors, wire


def fail(message: str):
    raise AssertionError(message)


def expect(condition: bool, message: str) -> None:
    if not condition:
        fail(message)


def verdict(exc: Exception, concept: str, section: str = "") -> AssertionError:
    """A test's failure as the student reads it: its AssertionError (from the expect_*
    helpers) unchanged, any other exception escaping student code as one sentence naming
    the concept; either way carrying the concept and the chapter section, for feedback()."""
    if not isinstance(exc, AssertionError):
        exc = AssertionError(f"{concept} could not be checked: your code raised {errors.describe(exc)}.")
    exc.concept = concept   # feedback() puts it before the sentence
    exc.section = section   # and where to read after it
    return exc


def feedback(exc: BaseException) -> str:
    """What the student reads for a failed case: its concept, then its sentence; never
    Otter's "Error at line ... in test ..." and the quoted test line, which say nothing to
    a student (autograder.runner.verdicts, and grader.check through autograder.student)."""
    sentence = str(exc).strip("'")
    concept = getattr(exc, "concept", "")
    text = f"{concept}: {sentence}" if concept and not sentence.startswith(concept) else sentence
    text = errors.scrub(text)
    read = chapter.where_to_read(getattr(exc, "section", ""))
    if not read:
        return text
    return f"{text}{'' if text.endswith('.') else '.'} {read}"


def normwise(expected, atol: float, scaled: float) -> float:
    """`atol` plus `scaled` times the largest finite magnitude of `expected`. A float32
    Hessian-vector product entry of 0.518 beside entries near 180 came out 5.8e-5 off
    (reduce_sum_rules, seed 5: 0.38 of the element-wise 1e-4 + 1e-4 * 0.518), and make
    validate once saw such an entry past it, costing a point: the error follows the terms."""
    finite = np.abs(np.asarray(expected, np.float64))
    finite = finite[np.isfinite(finite)]
    return atol + scaled * float(np.max(finite, initial=0.0))


def bind(primitive, *args, **params):
    """`primitive.bind(*args, **params)` through the Primitive class, so that neither a
    stand-in object nor a `bind` attribute patched onto the instance is ever called.
    For the tests' expressions (it runs where the student's code runs)."""
    from jax.extend.core import Primitive
    expect(isinstance(primitive, Primitive) and "bind" not in vars(primitive),
           f"{getattr(primitive, 'name', primitive)!s} is not an untouched jax.extend.core.Primitive; "
           "create it with Primitive(name) and do not override its bind.")
    return Primitive.bind(primitive, *args, **params)


def expect_close(actual, expected, *, what: str, hint: str = "",
                 rtol: float = 1e-5, atol: float = 1e-6, scaled: float = 0.0, at=None) -> None:
    """Values, shape and finiteness of `actual` against a float64 reference. Where the
    reference is NaN or infinite, `actual` must be exactly that (NaN where NaN, an infinity
    of the same sign); where it is finite, `actual` must be finite and close. `scaled` adds
    that fraction of the reference's largest finite magnitude to `atol`: a float32 value
    summed from terms that cancel errs by the terms' size, not its own (see normwise).
    A failure names one counterexample (counterexample(): where, got, expected); `at`, the
    input of the same shape as the result (or (name, input)), lets it say "at x[3] = -88.7"."""
    tail = f"; {hint}" if hint else ""
    _expect_data(actual, what, tail)
    actual, expected = np.asarray(actual), np.asarray(expected, dtype=np.float64)
    if actual.shape != expected.shape:
        fail(f"{what} has shape {actual.shape}, expected {expected.shape}{tail}")
    got = actual.astype(np.float64)
    finite = np.isfinite(expected)
    wrong = finite & ~np.isfinite(got)
    if np.any(wrong):
        fail(f"{what} contains {np.count_nonzero(wrong)} NaN or infinite values where the reference is finite"
             f"{counterexample(got, expected, wrong, at)}{tail}")
    wrong = ~finite & unequal(got, expected)
    if np.any(wrong):
        fail(f"{what} differs from the reference at {np.count_nonzero(wrong)} of the {np.count_nonzero(~finite)} "
             "entries where the reference is NaN or infinite (those must be exactly NaN, or an infinity of "
             f"the same sign){counterexample(got, expected, wrong, at)}{tail}")
    wrong = finite & ~np.isclose(got, expected, rtol=rtol, atol=normwise(expected, atol, scaled))
    if np.any(wrong):
        err = np.where(wrong, np.abs(got - expected), 0.0)
        fail(f"{what} differs from the reference at {np.count_nonzero(wrong)} of {np.size(wrong)} "
             f"entries{counterexample(got, expected, err, at)} (largest error {np.max(err):.3g}){tail}")


def unequal(got, expected):
    """Element-wise: the entries where `got` is not `expected` (NaN equals NaN here)."""
    got, expected = np.asarray(got), np.asarray(expected)
    return ~((got == expected) | (np.isnan(got) & np.isnan(expected)))


def counterexample(got, expected, badness, at=None) -> str:
    """': at x[3] = -88.7, got 0, expected -2.6e-37': the entry where `badness` (a mask or
    an error) is largest, and, given `at` (the input of the result's shape, or (name, input)),
    the input there; else its index."""
    if not np.any(badness):   # nothing differs (an empty result included): no example to give
        return ""
    name, inputs = at if isinstance(at, tuple) else ("x", at)
    index = np.unravel_index(int(np.argmax(badness)), np.shape(badness)) if np.ndim(badness) else ()
    spot = "[" + ", ".join(str(int(i)) for i in index) + "]"
    if inputs is not None and np.shape(inputs) == np.shape(badness):
        where = f"{name}{spot if index else ''} = {number(np.asarray(inputs)[index])}"
    else:
        where = f"index {spot}" if index else "the scalar result"
    return f": at {where}, got {number(got[index])}, expected {number(expected[index])}"


def number(v) -> str:
    """A value as a student reads it: float32's seven digits, nan and inf as NumPy prints them."""
    v = float(v)
    return f"{v:.7g}" if np.isfinite(v) else str(np.float32(v))


def _expect_data(value, what: str, tail: str) -> None:
    if isinstance(value, wire.Opaque):
        fail(f"{what} returned a {value.type_name}, not an array{tail}")


def expect_dtype(value, dtype, *, what: str, hint: str = "") -> None:
    _expect_data(value, what, f"; {hint}" if hint else "")
    got = np.dtype(getattr(value, "dtype", type(value)))
    if got != np.dtype(dtype):
        fail(f"{what} has dtype {got}, expected {np.dtype(dtype)}" + (f"; {hint}" if hint else ""))


def expect_rules(have: dict[str, bool], *, name: str,
                 rules=("JVP rule", "transpose rule", "batching rule"),
                 where: dict[str, str] | None = None) -> None:
    """Each rule in `rules` is registered (`have` is witness.rules(primitive))."""
    where = where or {"JVP rule": "ad.primitive_jvps", "transpose rule": "ad.primitive_transposes",
                      "batching rule": "batching.primitive_batchers"}
    missing = [r for r in rules if not have.get(r)]
    if missing:
        fail(f"{name} has no {' and no '.join(missing)} registered; register "
             f"{' and '.join(f'the {r} in {where[r]}[{name}]' for r in missing)}.")


# ---- what a result depends on (an evidence.Report; autograder.shared.gates wraps these) ----

def callback_piece(report) -> str:
    """The piece a callback's verdict asks for: "pure_callback" where the report tells it from
    io_callback (the executor's), "host_callback" where it cannot (an eager trace)."""
    from autograder.shared import evidence
    return evidence.PURE_CALLBACK if evidence.PURE_CALLBACK in report.poisoned else evidence.HOST_CALLBACK


def expect_depends(report, piece: str, *, message: str) -> None:
    """Every element of every output changed when `piece` was poisoned: the output depends
    on it everywhere (a decoy, a result multiplied by zero or dropped as dead code changes
    nothing). `message` says what is missing, for the student."""
    from autograder.shared import poison
    run = report.run(piece)
    expect(run is not None, message)
    for clean, poisoned in zip(report.value, run.outputs):
        changed = poison.covered(clean, poisoned, run.sizes)
        if not np.all(changed):
            fail(f"{message} ({np.size(changed) - np.count_nonzero(changed)} of {np.size(changed)} "
                 "output entries do not depend on it).")


def expect_straight(report, piece: str, *, message: str, outputs: slice = slice(None)) -> None:
    """Every element of the chosen outputs IS an output of `piece`, copied with nothing
    computed after it (reshapes and transposes are fine)."""
    from autograder.shared import poison
    run = report.run(piece)
    expect(run is not None, message)
    for poisoned in run.outputs[outputs]:
        if not np.all(poison.straight(poisoned, run.sizes)):
            fail(message + ".")


def expect_no_ops(opcodes: list[str], forbidden: set[str], *, message: str) -> None:
    """None of `forbidden` (HLO opcodes, an evidence.Report's opcodes) is in the optimized
    program; `message` is completed with the ones found."""
    found = sorted(set(opcodes) & set(forbidden))
    if found:
        fail(f"{message} (found: {', '.join(found)}).")


# HLO operations that compute a transcendental function (autograder.shared.stablehlo.opcodes
# spells HloOpcode.kExpm1 "expm1", kLogistic "logistic", ...).
TRANSCENDENTAL = frozenset({
    "exp", "exp2", "expm1", "log", "log1p", "log2", "logistic", "tanh", "tan", "sin", "cos",
    "sinh", "cosh", "asin", "acos", "atan2", "asinh", "acosh", "atanh", "power", "sqrt",
    "rsqrt", "cbrt", "erf",
})
