"""The decoys of issue 9 on the path that decides verdicts: the program an answer builds under
jax.jit, handed over by the witness (autograder/witness/handover.py: its StableHLO text, the
bindings of its FFI targets, the record of its host callbacks' calls) and read and run by the
executor (autograder/executor/program.py) as it is and with pieces poisoned, judged by the
checks the exercises use (autograder/shared/checks.py). Each decoy fails the check it would
fool (a piece whose result is multiplied by zero, dropped as dead code, ignored by a
jnp.where, called only for small shapes, or avoided by a host function that reaches SciPy's
function another way; math after the piece); the honest program beside it passes."""
import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special as sps

import kernels.rms_norm as rn  # registers rms_norm here, for lowering
from autograder.executor import program
from autograder.shared import checks, evidence
from autograder.shared.references import rms_norm_np64
from autograder.witness import handover

X = np.random.default_rng(0).uniform(0.5, 6.0, (3, 5)).astype(np.float32)
SCIPY = "scipy.special.gammaln"
MISSING = "the piece is missing"   # the message the checks complete
# How a check fails, after MISSING: the program has no such piece; the piece is there and no
# output entry depends on it; an output entry is not the piece's own (math after it).
ABSENT, IGNORED, NOT_STRAIGHT = "$", r" \(15 of 15 output entries do not depend on it\)\.$", r"\.$"


def _cb(fn, v):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(np.float32),
                             jax.ShapeDtypeStruct(v.shape, v.dtype), v, vmap_method="expand_dims")


def _report(fn, *args, each: bool = False, replace: tuple[str, ...] = ()) -> evidence.Report:
    """The executor's report of jax.jit(fn) on `args`, as a grading gets it (probe.Ask.program):
    the witness hands the program over, the executor runs it, each host callback it reaches
    served by the witness (handover.serve, with replace[context] poisoned where context >= 0);
    the run with replace[i] poisoned is named replace[i], as the tests name it."""
    handed = handover.program(fn, *args, replace=replace)

    def serve(index, operands, context):
        return handover.serve(handed.pid, index, operands, replace[context:context + 1] if context >= 0 else ())
    report = program.handle({"op": "run", "text": handed.text, "args": [np.asarray(a) for a in args],
                             "each": each, "bindings": handed.bindings, "replace": len(replace),
                             "recorded": handed.recorded}, serve=serve)
    assert report.ran, report.refused
    return _named(report, replace)


# What these tests read of a report besides the checks, in one place.

def _named(report: evidence.Report, replace: tuple[str, ...]) -> evidence.Report:
    poisoned = dict(report.poisoned)
    for i, name in enumerate(replace):
        poisoned[name] = poisoned.pop(f"replace:{i}", None)
    return dataclasses.replace(report, poisoned=poisoned)


def _value(report: evidence.Report) -> np.ndarray:
    return report.value[0]


def _ffi_calls(report: evidence.Report) -> list[tuple[int, str, bool]]:
    """(index in program order, target, whether the course's kernel) of each FFI call."""
    return [(i, c.target, c.course) for i, c in enumerate(report.calls) if c.kind == evidence.FFI]


def _opcodes(report: evidence.Report) -> list[str]:
    return report.opcodes


def _depends(report, piece: str) -> None:
    checks.expect_depends(report, piece, message=MISSING)


def _straight(report, piece: str) -> None:
    checks.expect_straight(report, piece, message=MISSING)


def _fails(check, report, piece: str, why: str) -> None:
    with pytest.raises(AssertionError, match="^" + MISSING + why):
        check(report, piece)


def _rms_norm_jnp(v):
    return v * jax.lax.rsqrt(jnp.mean(v * v, axis=-1, keepdims=True) + 1e-5)


# ---- host callbacks ----

def test_a_callback_the_output_is_made_of_passes_both_checks():
    report = _report(lambda v: _cb(sps.gammaln, v), X)
    _depends(report, evidence.PURE_CALLBACK)
    _straight(report, evidence.PURE_CALLBACK)
    _fails(_depends, report, evidence.FFI, ABSENT)   # the program has no FFI call
    np.testing.assert_allclose(_value(report), sps.gammaln(X.astype(np.float64)), rtol=1e-5)


@pytest.mark.parametrize("decoy", [
    lambda v: _cb(sps.gammaln, v) * 0 + jax.scipy.special.gammaln(v),          # times zero
    lambda v: (_cb(sps.gammaln, v), jax.scipy.special.gammaln(v))[1],            # its output discarded
    lambda v: jnp.where(jnp.isfinite(_cb(sps.gammaln, v)), jax.scipy.special.gammaln(v), 0.0),
], ids=["times zero", "discarded", "where"])
def test_a_decoy_callback_fails_the_dependence_check(decoy):
    report = _report(decoy, X)
    np.testing.assert_allclose(_value(report), sps.gammaln(X.astype(np.float64)), rtol=1e-5)
    _fails(_depends, report, evidence.PURE_CALLBACK, IGNORED)
    _fails(_depends, report, evidence.HOST_CALLBACK, IGNORED)


def test_arithmetic_after_the_callback_fails_the_straight_check_only():
    report = _report(lambda v: _cb(np.sin, v) * 2.0, X)
    _depends(report, evidence.PURE_CALLBACK)
    _fails(_straight, report, evidence.PURE_CALLBACK, NOT_STRAIGHT)
    report = _report(lambda v: _cb(np.sin, v.ravel()).reshape(v.shape).T, X)   # moving elements is fine
    _depends(report, evidence.PURE_CALLBACK)
    _straight(report, evidence.PURE_CALLBACK)


def test_structure_is_read_on_the_inputs_graded():
    """A program that calls back only for small shapes is seen on the large input."""
    fn = lambda v: _cb(sps.gammaln, v) if v.size < 10 else jax.scipy.special.gammaln(v)  # noqa: E731
    small = _report(fn, X[0, :3])
    _depends(small, evidence.PURE_CALLBACK)
    _straight(small, evidence.PURE_CALLBACK)
    _fails(_depends, _report(fn, X), evidence.PURE_CALLBACK, ABSENT)


# ---- FFI kernels ----

def test_ffi_kernels_each_call_alone_and_course_handlers():
    report = _report(jax.grad(lambda v: jnp.sum(rn.rms_norm(v) * v)), X, each=True)
    calls = _ffi_calls(report)
    assert [(target, course) for _, target, course in calls] == [("rms_norm_fwd", True), ("rms_norm_bwd", True)]
    _depends(report, evidence.FFI)
    for i, _, _ in calls:   # the gradient needs both the forward and the backward kernel
        _depends(report, evidence.call_piece(i))


@pytest.mark.parametrize("decoy, check, why", [
    (lambda v: rn.rms_norm(v) * 0 + _rms_norm_jnp(v), _depends, IGNORED),      # times zero
    (lambda v: (rn.rms_norm(v), _rms_norm_jnp(v))[1], _depends, IGNORED),       # dropped as dead code
    (lambda v: rn.rms_norm(v) * 2.0 - _rms_norm_jnp(v), _straight, NOT_STRAIGHT),     # math after the kernel
], ids=["times zero", "dead code", "math after"])
def test_a_decoy_kernel_call_fails_its_check_and_the_kernel_alone_passes(decoy, check, why):
    report = _report(decoy, X, each=True)
    np.testing.assert_allclose(_value(report), rms_norm_np64(X, 1e-5), rtol=1e-4, atol=1e-5)
    _fails(check, report, evidence.FFI, why)
    honest = _report(rn.rms_norm, X, each=True)
    _depends(honest, evidence.FFI)
    _straight(honest, evidence.FFI)


def test_poisoning_never_leaks_into_the_cached_program():
    """The executor's poisoned runs compile copies: the clean program, asked again (from the
    executor's cache) and in this process, gives the kernel's values."""
    f = jax.jit(rn.rms_norm)
    before = np.asarray(f(X))
    for _ in range(2):
        report = _report(rn.rms_norm, X, each=True)
        _straight(report, evidence.FFI)
        np.testing.assert_array_equal(_value(report), before)
    np.testing.assert_array_equal(np.asarray(f(X)), before)
    np.testing.assert_array_equal(np.asarray(jax.jit(rn.rms_norm)(X)), before)


# ---- a named host function poisoned where the witness serves the callbacks ----

def _writes_into_out(a):
    buf = np.empty_like(np.asarray(a))
    sps.gammaln(np.asarray(a), out=buf)
    return buf


_FNS = (sps.gammaln,)


@pytest.mark.parametrize("host", [
    _writes_into_out, lambda a: _FNS[0](np.asarray(a)).astype(np.float32), sps.gammaln,
], ids=["out=", "in a tuple", "itself"])
def test_a_host_function_that_calls_scipy_depends_on_it(host):
    cb = lambda v: jax.pure_callback(host, jax.ShapeDtypeStruct(v.shape, v.dtype), v)  # noqa: E731
    report = _report(cb, X, replace=(SCIPY,))
    _depends(report, SCIPY)
    _straight(report, SCIPY)


def test_a_host_function_that_avoids_scipy_fails_the_dependence_check():
    lgamma = np.vectorize(math.lgamma)
    _depends(_report(lambda v: _cb(sps.gammaln, v), X, replace=(SCIPY,)), SCIPY)
    other = _report(lambda v: _cb(lgamma, v), X, replace=(SCIPY,))
    np.testing.assert_allclose(_value(other), sps.gammaln(X.astype(np.float64)), rtol=1e-5)
    _fails(_depends, other, SCIPY, IGNORED)
    assert sps.gammaln(1.0) == 0.0   # put back


# ---- where the math happens: the optimized module, after XLA dropped dead code ----

def test_opcodes_are_read_after_dead_code_is_gone():
    def no_math(report):
        checks.expect_no_ops(_opcodes(report), checks.TRANSCENDENTAL, message=MISSING)
    with pytest.raises(AssertionError, match=MISSING):
        no_math(_report(jax.nn.silu, X))
    no_math(_report(lambda v: (jnp.exp(v), v * 2)[1], X))   # exp lowered, then dropped
    kernel = _report(rn.rms_norm, X)
    no_math(kernel)   # the kernel's math is the kernel's, not the module's
    assert "custom-call" in _opcodes(kernel)
