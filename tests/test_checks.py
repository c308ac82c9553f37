"""Assertion helpers: one-sentence messages that say what is wrong and where to look."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autograder.shared import checks, probe
from autograder.witness import observe
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


def test_expect_close_requires_the_reference_nan_and_infinities_exactly():
    ref = [np.nan, np.inf, -np.inf, 1.0]
    checks.expect_close(np.float32([np.nan, np.inf, -np.inf, 1.0]), ref, what="y")
    for wrong in ([0.0, np.inf, -np.inf, 1.0], [np.nan, 3e38, -np.inf, 1.0], [np.nan, np.inf, np.inf, 1.0]):
        msg = _message(checks.expect_close, np.float32(wrong), ref, what="gammaln at its poles")
        assert "1 of the 3 entries where the reference is NaN or infinite" in msg


def test_a_scaled_tolerance_follows_the_largest_value_of_the_reference():
    """reduce_sum_rules' seed 5: a float32 Hessian-vector product entry of 0.518 beside entries
    near 180; 2e-4 off (9 float32 steps of 180) fails the entry-wise 1e-4, not 1e-4 of 180,
    and an error of a percent of the largest value still fails."""
    ref = np.array([0.5179821400614344, 181.80526995985682, -97.0])
    got = np.float32([0.5177821, 181.8052, -97.0])
    assert "1 of 3 entries" in _message(checks.expect_close, got, ref, what="hvp", rtol=1e-4, atol=1e-4)
    checks.expect_close(got, ref, what="hvp", rtol=1e-4, atol=1e-4, scaled=1e-4)
    assert "1 of 3 entries" in _message(checks.expect_close, got + np.float32([1.8, 0, 0]), ref, what="hvp",
                                        rtol=1e-4, atol=1e-4, scaled=1e-4)
    assert checks.normwise([np.inf, -3.0, np.nan], 1e-4, 1e-4) == pytest.approx(4e-4)


def test_an_exception_in_an_expression_becomes_what_raised_hint():
    """Does a crash in student code become '<what> raised <error>; <hint>'?"""
    def broken(x):
        raise NotImplementedError("Batching rule for 'custom_reduce_sum' not implemented\nmore")
    ask = probe.connect({"broken": broken})
    msg = _message(ask.run, "broken(1)", what="jax.vmap of custom_reduce_sum",
                   hint="register a batching rule in batching.primitive_batchers")
    assert msg == ("jax.vmap of custom_reduce_sum raised NotImplementedError: Batching rule for "
                   "'custom_reduce_sum' not implemented; register a batching rule in batching.primitive_batchers")
    assert probe.connect({"f": lambda x: x + 1}).run("f(1)") == 2


def test_expect_dtype():
    checks.expect_dtype(jnp.ones(2, jnp.float32), np.float32, what="y")
    assert "has dtype float64, expected float32" in _message(
        checks.expect_dtype, np.ones(2), np.float32, what="the doubled array")


def test_count_eqns_reads_facts():
    x = jnp.ones(3)
    assert observe.count_eqns(cf.doubler_named_helper, x, primitive="pure_callback") == 0
    assert observe.count_eqns(jax.jit(lambda v: v), x, primitive="io_callback") == 0


def test_an_output_that_equals_a_poison_value_by_chance_is_not_a_missing_dependence():
    """Does expect_depends excuse an entry whose clean value is itself the poison value there
    (a coincidence no poisoned run can show), and still fail an unchanged ordinary entry?"""
    from autograder.shared import poison
    pool = poison.values(4)
    clean = np.array([0.5, pool[1], 3.0, 4.0], np.float32)
    poisoned = pool.copy()
    poisoned[1] = clean[1]
    from autograder.shared.evidence import Report, Run
    report = Report([], [clean], {"ffi": Run([poisoned], [4])}, [])
    checks.expect_depends(report, "ffi", message="m")
    poisoned[2] = clean[2]
    with pytest.raises(AssertionError, match=r"1 of 4 output entries"):
        checks.expect_depends(report, "ffi", message="m")


def test_a_poison_value_by_chance_is_not_evidence_that_a_piece_is_used():
    """The other direction of the coincidence (make test once failed reduce_sum_rules' own
    answer on it): an unchanged entry whose value happens to be a poison value must not make
    an output count as depending on a piece (poison.changed, read with any()), while
    poison.covered still excuses it for expect_depends."""
    from autograder.shared import poison
    pool = poison.values(4)
    clean = np.array([0.5, pool[1], 3.0, 4.0], np.float32)
    assert not poison.changed(clean, clean.copy()).any()
    assert poison.covered(clean, clean.copy(), [4]).tolist() == [False, True, False, False]


def test_a_counterexample_names_the_worst_entry_and_its_input():
    got, want = np.float32([1, 5, 3]), np.float64([1, 2, 3])
    assert checks.counterexample(got, want, np.abs(got - want), at=np.float32([0.5, 2.5, 4])) == \
        ": at x[1] = 2.5, got 5, expected 2"
    assert checks.counterexample(got, want, checks.unequal(got, want)) == ": at index [1], got 5, expected 2"
    assert checks.counterexample(np.float32([]), np.float64([]), np.zeros(0, bool)) == ""   # nothing differs
    assert checks.counterexample(np.float32(np.nan), np.float64(1), True) == ": at the scalar result, got nan, expected 1"
