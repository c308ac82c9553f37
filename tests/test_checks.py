"""Assertion helpers: one-sentence messages that say what is wrong and where to look."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autograder import checks, inspection as I
from tests import counterfeits as cf


def _message(fn, *args, **kwargs) -> str:
    with pytest.raises(AssertionError) as e:
        fn(*args, **kwargs)
    msg = str(e.value)
    assert "\n" not in msg and "assert " not in msg and "np.testing" not in msg
    return msg


def test_expect_close_passes_and_reports_the_worst_error():
    checks.expect_close(np.float32([1, 2]), [1.0, 2.0], what="f(x)")
    msg = _message(checks.expect_close, np.float32([1, 2, 3.5]), [1.0, 2.0, 3.0], what="f(x) under jit",
                   hint="check the sign of the tangent")
    assert msg.startswith("f(x) under jit differs from the reference at 1 of 3 entries")
    assert "0.5" in msg and msg.endswith("check the sign of the tangent")


def test_expect_close_names_shape_and_nan_problems():
    assert "has shape (2,), expected (3,)" in _message(checks.expect_close, np.zeros(2), np.zeros(3), what="y")
    msg = _message(checks.expect_close, np.float32([np.nan, 1.0]), [0.0, 1.0], what="silu at x=-80")
    assert "1 NaN or infinite" in msg


def test_expect_runs_turns_an_exception_into_a_hint():
    """Does a crash in student code become '<what> raised <error>; <hint>'?"""
    def broken(x):
        raise NotImplementedError("Batching rule for 'custom_reduce_sum' not implemented\nmore")
    msg = _message(checks.expect_runs, broken, 1, what="jax.vmap of custom_reduce_sum",
                   hint="register a batching rule in batching.primitive_batchers")
    assert msg == ("jax.vmap of custom_reduce_sum raised NotImplementedError: Batching rule for "
                   "'custom_reduce_sum' not implemented; register a batching rule in batching.primitive_batchers")
    assert checks.expect_runs(lambda x: x + 1, 1, what="f", hint="h") == 2


def test_expect_dtype():
    checks.expect_dtype(jnp.ones(2, jnp.float32), np.float32, what="y")
    assert "has dtype float64, expected float32" in _message(
        checks.expect_dtype, np.ones(2), np.float32, what="the doubled array")


def test_expect_eqns_and_ffi_calls_fail_with_the_given_sentence():
    x = jnp.ones(3)
    msg = "the forward pass holds no pure_callback; call SciPy through jax.pure_callback."
    assert _message(checks.expect_eqns, I.make_jaxpr(cf.doubler_named_helper, x), I.pure_callback_p,
                    message=msg) == msg
    lowered = I.lower(cf.silu_callbacks, x)
    assert _message(checks.expect_ffi_calls, lowered, message="no FFI custom_call") == "no FFI custom_call"
    from kernels.rms_norm import rms_norm
    assert [c.target for c in checks.expect_ffi_calls(I.lower(rms_norm, x[None]), message="-")] == ["rms_norm"]
    checks.expect_no_eqns(I.make_jaxpr(jax.jit(lambda v: v), x), I.io_callback_p, message="-")
