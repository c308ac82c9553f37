"""The grader's kernel for reduce_sum_rules (kernels/reduce_sum.cc, __grader_reduce_sum__)
against NumPy's float64 sums, and the lowering the witness gives the notebook's primitive
with it (autograder/assignments/reduce_sum_rules/witness.py: lower_to_grader_kernel)."""
import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.interpreters import mlir

from autograder.shared import stablehlo
from autograder.assignments.reduce_sum_rules import grader as kit
from autograder.assignments.reduce_sum_rules import witness
from kernels import reduce_sum
from tests import chapter_examples as ch

SHAPES = [(), (7,), (3, 4), (2, 3, 4, 5), (0,), (0, 3), (3, 0, 2)]


def data(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def every_axis(shape):
    return [axis for r in range(len(shape) + 1) for axis in itertools.combinations(range(len(shape)), r)]


@pytest.mark.parametrize("shape", SHAPES)
def test_the_kernel_sums_over_every_set_of_axes_like_numpy(shape):
    """Does the kernel give NumPy's sum over every set of axes (none, all, 0-d and empty inputs), eagerly and under jit?"""
    x = data(shape, seed=len(shape))
    for axis in every_axis(shape):
        want = x.astype(np.float64).sum(axis)
        for got in (reduce_sum.reduce_sum(x, axis), jax.jit(lambda v: reduce_sum.reduce_sum(v, axis))(x)):
            assert got.shape == want.shape and got.dtype == np.float32, (shape, axis)
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(reduce_sum.reduce_sum(x, axis[::-1]), reduce_sum.reduce_sum(x, axis))


def test_the_kernel_sums_float64_and_matches_jnp_sum():
    """Does it sum float64 in float64, and agree with jnp.sum on float32?"""
    x = data((3, 4, 5), seed=3)
    np.testing.assert_allclose(reduce_sum.reduce_sum(x, (0, 2)), jnp.sum(x, axis=(0, 2)), rtol=1e-6)
    with jax.enable_x64(True):
        x64 = data((3, 4, 5), seed=4, dtype=np.float64)
        got = reduce_sum.reduce_sum(x64, (1,))
        assert got.dtype == np.float64
        np.testing.assert_allclose(np.asarray(got), x64.sum(1), rtol=1e-14)


@pytest.mark.parametrize("axis, result, message", [
    ((0, 0), (4,), "axis must name distinct dimensions"),
    ((2,), (3, 4), "axis must name distinct dimensions"),
    ((-1,), (3,), "axis must name distinct dimensions"),
    ((0,), (3,), "the result must have the operand's dimensions but the summed ones"),
])
def test_the_kernel_refuses_axes_it_cannot_sum_and_a_wrong_result_shape(axis, result, message):
    """Does a forged call (duplicate or out-of-range axes, a result shape that is not the sum's) fail with the kernel's name, never write past its buffer?"""
    x = data((3, 4))
    call = jax.ffi.ffi_call(reduce_sum.TARGET, jax.ShapeDtypeStruct(result, x.dtype))
    with pytest.raises(Exception, match=f"__grader_reduce_sum__: {message}"):
        np.asarray(call(x, axis=np.asarray(axis, np.int64)))


def test_the_kernel_refuses_other_dtypes():
    """Is an int32 operand refused with a sentence naming the dtypes it sums?"""
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    with pytest.raises(Exception, match="must be float32 or float64"):
        np.asarray(reduce_sum.reduce_sum(x, (0,)))


def test_the_kit_and_the_executor_name_the_same_target():
    assert kit.TARGET == reduce_sum.TARGET and set(reduce_sum.TARGETS) == {kit.TARGET}


# ------------------------------------------------------------ the primitive lowered to it ----------

def _calls(fn, *args):
    return stablehlo.custom_calls(jax.jit(fn).lower(*args))


def test_the_primitive_lowers_to_the_kernel_with_its_axes_once_the_grader_asks():
    """After primitive_state(..., lower_to_kernel=True), is every bind a custom_call to the kernel with its axis attribute, on jit, jvp and vmap, with right values?"""
    p, f = ch.reduce_sum_primitive("rs_kernel_lowered")
    x, t = data((2, 3, 4), 1), data((2, 3, 4), 2)
    assert not _calls(lambda v: f(v, (0, 2)), x)                   # the notebook's lowering: jnp.sum
    witness.primitive_state(p, x, (0, 2), lower_to_kernel=True)
    (call,) = _calls(lambda v: f(v, (0, 2)), x)
    assert call.target == reduce_sum.TARGET and call.operand_types == ("tensor<2x3x4xf32>",)
    np.testing.assert_array_equal(call.attributes["axis"].value, [0, 2])
    np.testing.assert_allclose(jax.jit(lambda v: f(v, (0, 2)))(x), x.astype(np.float64).sum((0, 2)), rtol=1e-6)
    jvp = _calls(lambda v, r: jax.jvp(lambda u: f(u, (1,)), (v,), (r,)), x, t)
    assert [list(c.attributes["axis"].value) for c in jvp] == [[1], [1]]  # the primal, then the tangent
    vmap = _calls(jax.vmap(lambda v: f(v, (0,)), in_axes=2), x)
    assert [list(c.attributes["axis"].value) for c in vmap] == [[1]]      # batch first: axis 0 became 1
    assert vmap[0].operand_types == ("tensor<4x2x3xf32>",)


def test_the_notebooks_own_lowering_is_what_primitive_state_measures():
    """Once the kernel has the primitive, does primitive_state still measure the notebook's own lowering (here a wrong one), and put the kernel back?"""
    p, f = ch.reduce_sum_primitive("rs_own_lowering")
    mlir.register_lowering(p, mlir.lower_fun(lambda x, *, axis: 2 * jnp.sum(x, axis=axis), multiple_results=False))
    x = data((3, 4), 3)
    witness.primitive_state(p, x, (1,), lower_to_kernel=True)
    state = witness.primitive_state(p, x, (1,), lower_to_kernel=True)
    np.testing.assert_allclose(state.lowering, 2 * x.astype(np.float64).sum(1), rtol=1e-6)
    np.testing.assert_allclose(jax.jit(lambda v: f(v, (1,)))(x), x.astype(np.float64).sum(1), rtol=1e-6)
    assert [c.target for c in _calls(lambda v: f(v, (1,)), x)] == [reduce_sum.TARGET]


def test_a_dtype_the_kernel_does_not_sum_keeps_the_notebooks_lowering():
    """Does an int32 sum still compute (with the notebook's lowering) once the kernel has the primitive?"""
    p, f = ch.reduce_sum_primitive("rs_int_lowering")
    witness.primitive_state(p, data((3, 4)), (1,), lower_to_kernel=True)
    n = np.arange(12, dtype=np.int32).reshape(3, 4)
    assert not _calls(lambda v: f(v, (1,)), n)
    np.testing.assert_array_equal(jax.jit(lambda v: f(v, (1,)))(n), n.sum(1))


def test_the_primitive_poison_still_replaces_the_kernel_and_puts_it_back():
    """Does rule_dependence's poison of the primitive replace the kernel's lowering for its run, and the kernel come back after?"""
    p, f = ch.reduce_sum_primitive("rs_poison_over_kernel")
    x = data((2, 3, 4), 5)
    witness.primitive_state(p, x, (0,), lower_to_kernel=True)
    jitted = jax.jit(lambda v: f(v, (0,)))
    report = witness.rule_dependence(jitted, x, primitive=p, pieces=("primitive",))
    np.testing.assert_allclose(report.run("primitive").outputs[0], kit.weighted_sum64(x, (0,)), rtol=1e-5)
    assert [c.target for c in _calls(lambda v: f(v, (0,)), x)] == [reduce_sum.TARGET]
