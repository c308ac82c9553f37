"""Queries for a primitive's registered rules, and why the self-check's way of asking fails."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.interpreters import batching

from autograder.shared import checks
from autograder.witness import inspection as I
from tests import chapter_examples as ch

A = jax.random.normal(jax.random.key(21), (3, 4, 5))


def test_all_rules_found_on_the_reference():
    """Are the three rules of the Exercise 1 reference found on the primitive?"""
    p, _ = ch.reduce_sum_primitive("rs_all")
    assert I.registered_rules(p) == {"JVP rule": True, "transpose rule": True, "batching rule": True}
    checks.expect_rules(I.registered_rules(p), name="custom_reduce_sum_p")


@pytest.mark.parametrize("missing", ["JVP rule", "transpose rule", "batching rule"])
def test_each_missing_rule_is_named(missing):
    """Is a missing rule reported by its own name, and only that one?"""
    p, _ = ch.reduce_sum_primitive(f"rs_no_{missing.split()[0]}", jvp=missing != "JVP rule",
                                   transpose=missing != "transpose rule", batch=missing != "batching rule")
    rules = I.registered_rules(p)
    assert [k for k, v in rules.items() if not v] == [missing]
    with pytest.raises(AssertionError, match=f"has no {missing} registered") as e:
        checks.expect_rules(I.registered_rules(p), name="custom_reduce_sum_p")
    assert "[custom_reduce_sum_p]" in str(e.value) and "\n" not in str(e.value)


def test_primitive_batchers_cannot_be_asked_with_in():
    """Does `p in batching.primitive_batchers` raise in 0.12 (why batching_rule reads another table)?"""
    p, _ = ch.reduce_sum_primitive("rs_in")
    with pytest.raises(TypeError):
        p in batching.primitive_batchers  # noqa: B015
    assert I.batching_rule(p) is not None


def test_missing_transpose_rule_passes_forward_mode_but_not_reverse():
    """Without a transpose rule does JVP still work while grad fails, so only a rule query catches it early?"""
    p, f = ch.reduce_sum_primitive("rs_fwd_only", transpose=False)
    _, tan = jax.jvp(lambda v: f(v, (1,)), (A,), (jnp.ones_like(A),))
    np.testing.assert_allclose(tan, np.full((3, 5), 4.0))
    with pytest.raises(NotImplementedError, match="Transpose rule"):
        jax.grad(lambda v: f(v, (1,)).sum())(A)
    assert I.transpose_rule(p) is None and I.jvp_rule(p) is not None


def test_builtin_primitives_have_rules():
    """Do the queries agree with the chapter's reading of the rule tables for built-ins?"""
    from jax.extend.core import primitives as P
    assert I.jvp_rule(P.sin_p) is not None and I.batching_rule(P.sin_p) is not None
    assert I.transpose_rule(P.mul_p) is not None and I.transpose_rule(P.sin_p) is None
