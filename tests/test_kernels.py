"""The chapter's kernels (rms_norm over XLA FFI, custom_op over ctypes + pure_callback)
against NumPy float64 references, under jit, grad and vmap."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

from autograder.shared import stablehlo
from autograder.witness import inspection
from kernels.custom_op import custom_op_jax, custom_op_numpy
from kernels.rms_norm import rms_norm, rms_norm_np64

RTOL, ATOL = 1e-5, 1e-6
GRAD_RTOL, GRAD_ATOL = 1e-4, 1e-5
SHAPES = [(7,), (4, 16), (2, 3, 5)]


def data(shape, seed=0, scale=1.0):
    return (scale * np.random.default_rng(seed).standard_normal(shape)).astype(np.float32)


def rms_norm_grad_np64(x, ct, eps=1e-5):
    """x̄ = s ȳ - s³/N x Σ x ȳ per row, s = (mean(x²) + eps)^-1/2, in float64."""
    x, ct = np.asarray(x, np.float64), np.asarray(ct, np.float64)
    s = 1.0 / np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + eps)
    dot = np.sum(x * ct, axis=-1, keepdims=True)
    return s * ct - s ** 3 / x.shape[-1] * x * dot


def weighted_loss(w, eps=1e-5):
    return lambda x: jnp.sum(rms_norm(x, eps) * w)


# ---------------------------------------------------------------- rms_norm ----------

@pytest.mark.parametrize("eps", [1e-5, 0.5])
@pytest.mark.parametrize("shape", SHAPES)
def test_rms_norm_matches_reference(shape, eps):
    """Do rms_norm eager and under jit match the float64 reference?"""
    x = data(shape, seed=len(shape))
    expected = rms_norm_np64(x, eps)
    eager = rms_norm(jnp.asarray(x), eps)
    jitted = jax.jit(rms_norm, static_argnums=1)(jnp.asarray(x), eps)
    for y in (eager, jitted):
        assert y.shape == shape and y.dtype == jnp.float32
        np.testing.assert_allclose(np.asarray(y), expected, rtol=RTOL, atol=ATOL)


def test_eps_changes_the_result():
    """Is eps really passed to the kernel (eps=0.5 differs from eps=1e-5)?"""
    x = jnp.asarray(data((3, 8), scale=0.5))
    small, large = np.asarray(rms_norm(x, 1e-5)), np.asarray(rms_norm(x, 0.5))
    assert not np.allclose(small, large, rtol=1e-2)
    np.testing.assert_allclose(large, rms_norm_np64(x, 0.5), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("eps", [1e-5, 0.5])
@pytest.mark.parametrize("shape", SHAPES)
def test_rms_norm_grad_matches_analytic(shape, eps):
    """Does jax.grad through the custom_vjp match the analytic float64 gradient?"""
    x, w = data(shape, seed=1), data(shape, seed=2)
    expected = rms_norm_grad_np64(x, w, eps)
    for grad in (jax.grad(weighted_loss(w, eps)), jax.jit(jax.grad(weighted_loss(w, eps)))):
        g = grad(jnp.asarray(x))
        assert g.shape == shape and g.dtype == jnp.float32
        np.testing.assert_allclose(np.asarray(g), expected, rtol=GRAD_RTOL, atol=GRAD_ATOL)


def test_rms_norm_check_grads():
    """Does the reverse-mode gradient agree with finite differences (check_grads)?"""
    x = jnp.asarray(data((2, 4), seed=3) + 0.5)
    check_grads(lambda a: rms_norm(a, 0.1), (x,), order=1, modes=["rev"])


def test_rms_norm_grad_is_not_identity():
    """Is the backward pass a real kernel (its output is not simply the cotangent)?"""
    x, w = data((5,), seed=4), data((5,), seed=5)
    g = np.asarray(jax.grad(weighted_loss(w))(jnp.asarray(x)))
    assert not np.allclose(g, w, rtol=1e-2)
    assert abs(float(np.dot(g, x))) < 1e-4 * float(np.abs(g).sum() * np.abs(x).sum())  # x ⟂ x̄


@pytest.mark.parametrize("axis", [0, 1])
def test_rms_norm_vmap(axis):
    """Does vmap over axis 0 or 1 (out_axes matching) normalize each mapped slice?"""
    x = data((4, 6), seed=6)
    y = jax.vmap(rms_norm, in_axes=axis, out_axes=axis)(jnp.asarray(x))
    expected = rms_norm_np64(x) if axis == 0 else rms_norm_np64(x.T).T
    assert y.shape == x.shape
    np.testing.assert_allclose(np.asarray(y), expected, rtol=RTOL, atol=ATOL)
    if axis == 1:  # slices are columns: not the same as normalizing rows
        assert not np.allclose(expected, rms_norm_np64(x), rtol=1e-2)


def test_rms_norm_vmap_3d_middle_axis():
    """Does vmap over the middle axis of a 3-D input give the per-slice reference?"""
    x = data((3, 4, 5), seed=7)
    y = jax.vmap(rms_norm, in_axes=1, out_axes=1)(jnp.asarray(x))
    expected = np.stack([rms_norm_np64(x[:, i]) for i in range(4)], axis=1)
    np.testing.assert_allclose(np.asarray(y), expected, rtol=RTOL, atol=ATOL)


def test_rms_norm_vmap_of_grad_and_jit():
    """Do vmap(grad) and jit(vmap(grad)) give each row's analytic gradient?"""
    x, w = data((6, 5), seed=8), data((5,), seed=9)
    per_row = jax.vmap(jax.grad(weighted_loss(w)))
    expected = rms_norm_grad_np64(x, np.broadcast_to(w, x.shape))
    for fn in (per_row, jax.jit(per_row)):
        g = fn(jnp.asarray(x))
        assert g.shape == x.shape
        np.testing.assert_allclose(np.asarray(g), expected, rtol=GRAD_RTOL, atol=GRAD_ATOL)


def test_rms_norm_lowers_to_one_ffi_call():
    """Does jit(rms_norm) lower to exactly one FFI custom_call rms_norm with an f32 eps?"""
    x = jnp.asarray(data((4, 8)))
    calls = stablehlo.custom_calls(jax.jit(lambda a: rms_norm(a, 0.5)).lower(x))
    assert [c.target for c in calls] == ["rms_norm"]
    (call,) = calls
    assert call.kind == "ffi"
    assert call.attributes["eps"].type == "f32"
    assert call.attributes["eps"].value == pytest.approx(0.5)
    assert call.operand_types == call.result_types == ("tensor<4x8xf32>",)


def test_rms_norm_value_and_grad_lowers_to_fwd_and_bwd():
    """Does the value_and_grad lowering call rms_norm_fwd and rms_norm_bwd once each?"""
    x = jnp.asarray(data((4, 8)))
    lowered = jax.jit(jax.value_and_grad(lambda a: jnp.sum(rms_norm(a) ** 2))).lower(x)
    calls = stablehlo.custom_calls(lowered)
    assert sorted(c.target for c in calls) == ["rms_norm_bwd", "rms_norm_fwd"]
    assert all(c.kind == "ffi" for c in calls)
    fwd = next(c for c in calls if c.target == "rms_norm_fwd")
    assert fwd.attributes["eps"].type == "f32"
    assert fwd.result_types == ("tensor<4x8xf32>", "tensor<4xf32>")  # y and one s per row


# --------------------------------------------------------------- custom_op ----------

def test_custom_op_numpy():
    """Does the ctypes kernel compute x² + 10 in float64?"""
    out = custom_op_numpy([1, 2, 3])
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [11.0, 14.0, 19.0])


def test_custom_op_jax_under_jit():
    """Does custom_op_jax give x² + 10 under jit, keeping the input's dtype?"""
    y = jax.jit(custom_op_jax)(jnp.arange(1.0, 5.0))
    assert y.dtype == jnp.float32
    np.testing.assert_array_equal(np.asarray(y), [11.0, 14.0, 19.0, 26.0])


def test_custom_op_grad_is_2x():
    """Is the gradient of custom_op_jax 2x, for arrays and for a scalar?"""
    x = data((5,), seed=10)
    g = jax.grad(lambda a: jnp.sum(custom_op_jax(a)))(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(g), 2.0 * x, rtol=RTOL, atol=ATOL)
    assert float(jax.grad(custom_op_jax)(3.0)) == pytest.approx(6.0)
    assert float(jax.grad(custom_op_jax)(jnp.float32(-1.5))) == pytest.approx(-3.0)


def test_custom_op_vmap():
    """Does vmap over a (2, 2) input give x² + 10 per row, and vmap(grad) give 2x?"""
    x = data((2, 2), seed=11)
    y = jax.vmap(custom_op_jax)(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(y), x.astype(np.float64) ** 2 + 10, rtol=RTOL)
    flat = jnp.asarray(x.ravel())
    g = jax.jit(jax.vmap(jax.grad(custom_op_jax)))(flat)
    np.testing.assert_allclose(np.asarray(g), 2.0 * x.ravel(), rtol=RTOL, atol=ATOL)


def test_custom_op_jaxpr_has_pure_callback():
    """Is custom_op_jax a pure_callback in its jaxpr (and no FFI call)?"""
    jaxpr = jax.make_jaxpr(jax.jit(custom_op_jax))(jnp.arange(1.0, 5.0))
    assert len(inspection.find_eqns(jaxpr, inspection.pure_callback_p)) == 1
    assert inspection.find_eqns(jaxpr, inspection.ffi_call_p) == []
