"""The jaxpr walk: nested jaxprs, primitive identity."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.extend.core.primitives import closed_call_p

from autograder.witness import inspection as I
from tests import chapter_examples as ch
from tests import counterfeits as cf

X = jnp.array([1.0, -2.0, 3.0], dtype=jnp.float32)


def _cb(v):
    return jax.pure_callback(lambda a: np.asarray(a) * 2, jax.ShapeDtypeStruct(v.shape, v.dtype), v,
                             vmap_method="sequential")


@jax.custom_jvp
def _cb_jvp(v):
    return _cb(v)


_cb_jvp.defjvp(lambda p, t: (_cb_jvp(p[0]), 2 * t[0]))


@jax.custom_vjp
def _cb_vjp(v):
    return _cb(v)


_cb_vjp.defvjp(lambda v: (_cb(v), None), lambda _, g: (2 * g,))

NESTINGS = {
    "top level": _cb,
    "jit": jax.jit(_cb),
    "jit inside jit": jax.jit(lambda v: jax.jit(_cb)(v) + 1),
    "custom_jvp_call": _cb_jvp,
    "custom_vjp_call": _cb_vjp,
    "cond branches": lambda v: jax.lax.cond(v.sum() > 0, _cb, lambda u: u, v),
    "scan body": lambda v: jax.lax.scan(lambda c, u: (c, _cb(u)), 0.0, v[None])[1][0],
    "while body": lambda v: jax.lax.while_loop(lambda s: s[0] < 1, lambda s: (s[0] + 1, _cb(s[1])), (0, v))[1],
    "while cond": lambda v: jax.lax.while_loop(lambda s: _cb(s)[0] < 0, lambda s: s * 0, v),
    "remat": jax.checkpoint(_cb),
    "closed_call": lambda v: closed_call_p.bind(v, call_jaxpr=jax.make_jaxpr(_cb)(v))[0],
    "vmap (sequential scan)": lambda v: jax.vmap(_cb)(v[None])[0],
    "fori_loop in jit": jax.jit(lambda v: jax.lax.fori_loop(0, 2, lambda i, u: _cb(u), v)),
}


@pytest.mark.parametrize("where", NESTINGS)
def test_pure_callback_found_at_any_depth(where):
    """Is a pure_callback found however deeply it is nested?"""
    jaxpr = I.make_jaxpr(NESTINGS[where], X)
    assert len(I.find_eqns(jaxpr, I.pure_callback_p)) >= 1, jaxpr


def test_top_level_eqns_alone_miss_nested_callbacks():
    """Would a walk of the top level only have missed the nested callback (so the test above means something)?"""
    jaxpr = I.make_jaxpr(NESTINGS["cond branches"], X)
    assert all(e.primitive is not I.pure_callback_p for e in jaxpr.jaxpr.eqns)


def test_jitted_helper_named_pure_callback_is_not_a_callback():
    """Does a jitted function named pure_callback fool the walk, as it fools a substring match?"""
    jaxpr = I.make_jaxpr(cf.doubler_named_helper, X)
    assert "pure_callback" in str(jaxpr)            # what the chapter's self-check looks at
    assert I.find_eqns(jaxpr, I.pure_callback_p) == []
    assert I.find_eqns(jaxpr, "pure_callback") == []  # its equation is a jit, not a pure_callback
    assert len(I.find_eqns(jaxpr, "jit")) == 1


def test_user_primitive_named_pure_callback_is_told_apart_by_identity():
    """Does a student primitive *named* pure_callback pass a name match but not an identity match?"""
    jaxpr = I.make_jaxpr(cf.doubler_fake_primitive, X)
    assert len(I.find_eqns(jaxpr, "pure_callback")) == 1
    assert I.find_eqns(jaxpr, I.pure_callback_p) == []


def test_io_callback_is_not_a_pure_callback():
    """Is io_callback told apart from pure_callback?"""
    jaxpr = I.make_jaxpr(cf.doubler_io_callback, X)
    assert I.find_eqns(jaxpr, I.pure_callback_p) == []
    assert len(I.find_eqns(jaxpr, I.io_callback_p)) == 1


def test_fake_bind_object_has_no_primitive_in_its_jaxpr():
    """Does a fake object with .bind leave no rms_norm_prim equation behind?"""
    jaxpr = I.make_jaxpr(lambda v: cf.FakePrimitive().bind(v, eps=np.float32(1e-5)), X[None])
    assert I.find_eqns(jaxpr, "rms_norm_prim") == []
    real = ch.rms_norm_primitive()
    (eqn,) = I.find_eqns(I.make_jaxpr(lambda v: real.bind(v, eps=np.float32(1e-5)), X[None]), real)
    assert eqn.params["eps"] == np.float32(1e-5)


def test_ffi_call_equations_read_without_lowering():
    """Are the FFI targets of a custom_vjp's passes read from ffi_call equations?"""
    from kernels.rms_norm import rms_norm
    x = jnp.ones((2, 4))
    targets = lambda j: [e.params["target_name"] for e in I.find_eqns(j, I.ffi_call_p)]
    assert targets(I.make_jaxpr(rms_norm, x)) == ["rms_norm"]
    assert targets(I.make_jaxpr(jax.grad(lambda v: rms_norm(v).sum()), x)) == ["rms_norm_fwd", "rms_norm_bwd"]
    assert targets(I.make_jaxpr(cf.silu_callbacks, x)) == []
