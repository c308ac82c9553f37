"""witness.primitive_state and witness.rule_dependence (reduce_sum_rules): a rule swapped for a
poison in JAX's table for one evaluation, the tables and caches put back afterwards. Each
decoy these observations must see through has a test; the catalogue tests the verdicts."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.extend.core import Primitive
from jax.interpreters import ad, batching, mlir

from autograder.shared import checks, poison
from autograder.assignments.reduce_sum_rules import witness
from autograder.witness import inspection as I
from tests import chapter_examples as ch

X = jnp.asarray(np.random.default_rng(1).standard_normal((2, 3, 4)).astype(np.float32))
T = jnp.asarray(np.random.default_rng(2).standard_normal((2, 3, 4)).astype(np.float32))


def _all_changed(report, piece):
    return all(np.all(poison.changed(c, p)) for c, p in
               zip(report.value, report.run(piece).outputs))


def test_a_fresh_primitive_has_only_name_impl_and_abstract_eval():
    """Does primitive_state see exactly what Primitive(name)/def_impl/def_abstract_eval set, and an override?"""
    p, _ = ch.reduce_sum_primitive("rs_state")
    state = witness.primitive_state(p, X, (0, 2))
    assert state.plain and state.attributes == ["abstract_eval", "impl", "name"]
    np.testing.assert_allclose(state.impl, np.asarray(X).sum((0, 2)), rtol=1e-6)
    np.testing.assert_allclose(state.lowering, np.asarray(X).sum((0, 2)), rtol=1e-6)
    assert state.abstract_eval == {"shape": [3], "dtype": "float32", "effects": 0}
    p.bind_with_trace = lambda *a: None
    assert "bind_with_trace" in witness.primitive_state(p, X, (0, 2)).attributes
    assert not witness.primitive_state(type("Sub", (Primitive,), {})("rs_sub"), X, (0,)).plain


@pytest.mark.parametrize("jit", [False, True])
def test_each_path_depends_on_its_rule(jit):
    """Does every output change with the rule its path goes through (eager and jitted wrappers)?"""
    p, f = ch.reduce_sum_primitive("rs_dep_jit" if jit else "rs_dep")
    g = jax.jit(f, static_argnums=1) if jit else f
    paths = {"primitive": (lambda v: g(v, (0, 2)), (X,)),
             "jvp": (lambda v, t: jax.jvp(lambda u: g(u * u, (1,)), (v,), (t,)), (X, T)),
             "transpose": (lambda c: jax.linear_transpose(lambda v: g(v, (0, 2)), X)(c), (jnp.ones(3),)),
             "batching": (jax.vmap(lambda v: g(v, (1,)), in_axes=2), (X,))}
    for piece, (fn, args) in paths.items():
        report = witness.rule_dependence(fn, *args, primitive=p, pieces=(piece,))
        assert _all_changed(report, piece), piece
        # afterwards the clean result is back: nothing poisoned stays cached
        again = jax.tree.leaves(fn(*args))
        for clean, now in zip(report.value, again):
            np.testing.assert_array_equal(clean, np.asarray(now))


def test_a_decoy_multiplied_by_zero_changes_nothing():
    """Is a bind beside jnp.sum, multiplied by zero, seen as not computing the result, on every path?"""
    p, f = ch.reduce_sum_primitive("rs_decoy")
    decoy = lambda v, axis: jnp.sum(v, axis=axis) + 0 * f(v, axis)
    report = witness.rule_dependence(
        lambda v, t, c: (decoy(v, (0, 2)), jax.jvp(lambda u: decoy(u, (1,)), (v,), (t,)),
                         jax.linear_transpose(lambda u: decoy(u, (0, 2)), X)(c),
                         jax.vmap(lambda u: decoy(u, (1,)), in_axes=2)(v)),
        X, T, jnp.ones(3), primitive=p)
    for piece in ("primitive", "jvp", "transpose", "batching"):
        assert not any(np.any(poison.changed(c, q)) for c, q in
                       zip(report.value, report.run(piece).outputs)), piece
    with pytest.raises(AssertionError, match="do not depend on it"):
        checks.expect_depends(report, "jvp", message="jvp")


def test_tables_are_put_back_whatever_happens():
    """Are the rule, impl and lowering back after an evaluation that raises under the swap?"""
    p, _ = ch.reduce_sum_primitive("rs_restore")
    before = (ad.primitive_jvps[p], ad.primitive_transposes[p], I.batching_rule(p), vars(p)["impl"],
              mlir._lowerings[p])

    def boom(v):
        if ad.primitive_jvps[p] is not before[0]:
            raise SystemExit("raised under the swap")
        return v

    report = witness.rule_dependence(boom, X, primitive=p)
    assert report.run("jvp") is None and "SystemExit" in report.errors["jvp"]
    after = (ad.primitive_jvps[p], ad.primitive_transposes[p], I.batching_rule(p), vars(p)["impl"],
             mlir._lowerings[p])
    assert all(a is b for a, b in zip(before, after))
    q, _ = ch.reduce_sum_primitive("rs_restore_none", jvp=False, transpose=False, batch=False)
    witness.rule_dependence(lambda v: v, X, primitive=q)
    assert I.registered_rules(q) == {"JVP rule": False, "transpose rule": False, "batching rule": False}


def test_a_detached_primal_only_shows_at_second_order():
    """Does a JVP rule with a stop_gradient primal pass order 1 and fail the outer tangent of its primal?"""
    p, f = ch.reduce_sum_primitive("rs_detached", jvp=False)

    def jvp_rule(primals, tangents, *, axis):
        return jax.lax.stop_gradient(p.bind(primals[0], axis=axis)), p.bind(tangents[0], axis=axis)
    ad.primitive_jvps[p] = jvp_rule
    g = lambda v: f(v * v, (1,))
    _, tan = jax.jvp(g, (X,), (T,))
    np.testing.assert_allclose(tan, np.asarray(2 * X * T).sum(1), rtol=1e-5)
    (_, _), (dy, _) = jax.jvp(lambda v: jax.jvp(g, (v,), (T,)), (X,), (T,))
    assert not np.allclose(dy, np.asarray(2 * X * T).sum(1))
