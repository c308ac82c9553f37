"""gammaln_callback's rules at every shape (autograder/assignments/gammaln_callback/every_shape.py),
on programs lowered here at abstract shapes and read by shared/dataflow.py."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special as sps

from autograder.assignments.gammaln_callback import every_shape as E
from autograder.shared import dataflow, proofs
from autograder.shared.evidence import Structure
from autograder.witness import handover

S = jax.ShapeDtypeStruct


def _cb(fn, x, method="expand_dims"):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(np.float32), S(x.shape, x.dtype), x,
                             vmap_method=method)


def _read(fn, *shapes_):
    return dataflow.structure(jax.jit(fn, keep_unused=True).lower(*(S(s, np.float32) for s in shapes_)).as_text())


def _structures(fn, specs):
    return [dataflow.structure(h.text) if h.text else Structure([], [], [], [], [], h.error)
            for h in handover.lowered(fn, specs)]


def _grad(g):
    return jax.grad(lambda v: g(v).sum())


def _gammaln(threshold=None, rank=None, method="expand_dims"):
    """An answer: SciPy through pure_callback, or jax.scipy's digamma past `threshold`
    elements or from rank `rank` on."""
    @jax.custom_jvp
    def g(x):
        return _cb(sps.gammaln, x, method)

    @g.defjvp
    def _jvp(p, t):
        (x,), (xd,) = p, t
        jax_path = (threshold is not None and x.size > threshold) or (rank is not None and x.ndim >= rank)
        return g(x), (jax.scipy.special.digamma(x) if jax_path else _cb(sps.digamma, x, method)) * xd
    return g


def test_the_forward_output_is_a_pure_callbacks_only_moved():
    g = _gammaln()
    assert E.output_of_pure()(_read(g, (3, 4))) == ""
    assert "not the output of a pure_callback" in E.output_of_pure()(_read(lambda x: g(x) + 1.0, (3,)))
    io = _read(lambda x: jax.experimental.io_callback(lambda a: np.asarray(a), S(x.shape, x.dtype), x), (3,))
    assert "not the output of a pure_callback" in E.output_of_pure()(io)


def test_a_guard_around_the_callback_is_allowed_math_beside_it_is_not():
    g = _gammaln()
    assert E.output_of_pure()(_read(lambda x: jnp.where(x > 0, g(x), jnp.nan), (4,))) == ""
    assert "computed in JAX (multiply)" in E.output_of_pure()(_read(lambda x: g(x) * 2.0, (4,)))
    assert "floor" in E.math_within(_read(lambda x: g(x) * 0.0 + jax.lax.lgamma(x), (4,)))   # lgamma, inlined


def test_an_empty_output_takes_its_values_from_nowhere():
    g = _gammaln(method="sequential")
    s = _read(jax.vmap(g), (0, 3))
    assert E.output_of_pure()(s) == "" and E.math_within(s) == ""


def test_the_derivative_comes_from_a_callback_times_the_cotangent_and_matches_the_checked_shape():
    good, bad = _gammaln(), _gammaln(threshold=2**18)
    base = _read(_grad(good), (6, 5))
    rule = proofs.all_of(E.from_pure(), proofs.same_as(base, "shape (6, 5)", base_output=0))
    assert rule(_read(_grad(good), (2**31 - 1,))) == "" and rule(_read(_grad(good), ())) == ""
    assert "does not come from a pure_callback" in rule(_read(_grad(bad), (2**18 + 1,)))
    assert E.math_within(_read(_grad(good), (7,))) == ""
    assert "chlo.digamma" in E.math_within(_read(_grad(bad), (2**18 + 1,)))


def test_same_as_ignores_the_order_of_the_calls():
    """jvp's tangent is the same callback times the tangent whether or not the primal's callback
    comes before it."""
    @jax.custom_jvp
    def g(x):
        return _cb(sps.gammaln, x)

    @g.defjvp
    def _jvp(p, t):
        (x,), (xd,) = p, t
        return (jax.scipy.special.gammaln(x) if x.ndim == 2 else g(x)), _cb(sps.digamma, x) * xd

    jvp = lambda v, t: jax.jvp(g, (v,), (t,))   # noqa: E731
    base = _read(jvp, (3,), (3,))
    rule = proofs.same_as(base, "shape (3,)", base_output=1, outputs=(1,))
    assert rule(_read(jvp, (2, 3), (2, 3))) == ""
    assert E.output_of_pure(outputs=(0,))(_read(jvp, (2, 3), (2, 3))) != ""


def test_every_shape_names_the_smallest_where_the_derivative_takes_jax():
    g = _gammaln(rank=4)
    specs = [[(s, "float32")] for s in E.AT]
    found = _structures(_grad(g), specs)
    base = found[E.AT.index(E.DERIVATIVE_SHAPE)]
    with pytest.raises(AssertionError, match=r"For inputs of shape \(2, 3, 5, 7\), jit\(grad\): the output does not"):
        proofs.expect_every(found, specs, proofs.all_of(E.from_pure(), proofs.same_as(base, "(6, 5)", base_output=0)),
                            what="jit(grad)")


def test_the_shape_lists_cover_every_rank_and_the_checked_shapes():
    assert {len(s) for s in E.AT} == set(range(9)) and (2**31 - 1,) in E.AT
    assert {len(s) for s in E.BATCHED_AT} == set(range(1, 9)) and all(0 not in s for s in E.BATCHED_AT)
    for at in (E.AT, E.JVP_AT, E.BATCHED_AT):
        assert E.FORWARD_SHAPE in at and E.DERIVATIVE_SHAPE in at
    assert jnp.zeros(E.DERIVATIVE_SHAPE).ndim // 2 == 1   # vmap(grad) at the checked shape: in_axes=1
