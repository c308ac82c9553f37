"""The StableHLO walk: custom_call targets, typed FFI attributes, and the line between a
registered FFI handler, a host callback and a jaxlib built-in."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import io_callback

from autograder.shared import stablehlo
from autograder.witness import inspection as I
from kernels.rms_norm import rms_norm
from tests import chapter_examples as ch
from tests import counterfeits as cf

X = jax.random.normal(jax.random.key(0), (3, 8))


def _lower(fn, *args):
    return jax.jit(fn).lower(*args)


def test_rms_norm_lowering_is_one_ffi_call_with_eps_as_f32():
    """Is rms_norm read as one FFI custom_call carrying eps as an f32 attribute?"""
    (call,) = stablehlo.custom_calls(_lower(rms_norm, X))
    assert (call.target, call.kind) == ("rms_norm", "ffi")
    assert call.attributes["eps"].type == "f32"
    assert call.attributes["eps"].value == pytest.approx(1e-5, rel=1e-6)
    assert call.operand_types == call.result_types == ("tensor<3x8xf32>",)


def test_walk_agrees_with_the_text_and_the_jaxpr():
    """Do the MLIR walk, the StableHLO text and the jaxpr's ffi_call equations name the same targets?"""
    f = jax.value_and_grad(lambda v: rms_norm(v).sum())
    lowered = _lower(f, X)
    walked = [c.target for c in stablehlo.custom_calls(lowered)]
    assert walked == ["rms_norm_fwd", "rms_norm_bwd"]
    text = lowered.as_text()
    assert all(f"stablehlo.custom_call @{t}(" in text for t in walked)
    assert [e.params["target_name"] for e in I.find_eqns(I.make_jaxpr(f, X), I.ffi_call_p)] == walked


@pytest.mark.parametrize("fn", [
    lambda v: jax.pure_callback(lambda a: np.asarray(a) * 2, jax.ShapeDtypeStruct(v.shape, v.dtype), v),
    lambda v: io_callback(lambda a: np.asarray(a) * 2, jax.ShapeDtypeStruct(v.shape, v.dtype), v),
    lambda v: (jax.debug.callback(lambda a: None, v), v * 2)[1],
], ids=["pure_callback", "io_callback", "debug.callback"])
def test_host_callbacks_are_not_ffi_handlers(fn):
    """Does every host callback lower to a custom_call classified as a host callback?"""
    calls = stablehlo.custom_calls(_lower(fn, X))
    assert calls and all(c.kind == "host_callback" for c in calls)
    assert [c for c in stablehlo.custom_calls(_lower(fn, X)) if c.kind == "ffi"] == []


def test_silu_through_callbacks_fools_a_count_but_not_the_classification():
    """Does SiLU done with two pure_callbacks pass a custom_call count yet show no FFI handler?"""
    w = jnp.ones_like(X)
    lowered = _lower(jax.value_and_grad(lambda v: jnp.sum(cf.silu_callbacks(v) * w)), X)
    assert lowered.as_text().count("stablehlo.custom_call") >= 2   # the chapter's self-check
    assert len(stablehlo.custom_calls(lowered)) >= 2
    assert [c for c in stablehlo.custom_calls(lowered) if c.kind == "ffi"] == []


def test_jaxlib_builtin_targets_are_not_student_handlers():
    """Is a LAPACK call (jnp.linalg.solve) classified as a jaxlib built-in, not an FFI handler?"""
    a = jnp.eye(3) + 0.1
    calls = stablehlo.custom_calls(_lower(lambda m, b: jnp.linalg.solve(m, b), a, jnp.ones(3)))
    assert calls and all(c.kind == "builtin" for c in calls)
    assert any(c.target.startswith("lapack_") for c in calls)


def test_ffi_call_inside_a_cond_branch_is_found():
    """Are custom_calls nested in regions (cond branches) walked too?"""
    f = lambda v: jax.lax.cond(v.sum() > 0, rms_norm, lambda u: u, v)
    assert [c.target for c in stablehlo.custom_calls(_lower(f, X)) if c.kind == "ffi"] == ["rms_norm"]
    assert "custom_call" not in str([op.name for op in stablehlo.stablehlo_module(_lower(f, X)).body.operations])


def test_primitive_params_become_ffi_attributes():
    """Does ffi_lowering turn the primitive's eps param into an f32 attribute that follows eps?"""
    p = ch.rms_norm_primitive()
    for eps in (1e-5, 0.5):
        (call,) = stablehlo.custom_calls(_lower(lambda v: p.bind(v, eps=np.float32(eps)), X))
        assert call.target == "rms_norm" and call.kind == "ffi"
        assert call.attributes["eps"] == stablehlo.Attribute(pytest.approx(eps, rel=1e-6), "f32")


def test_python_float_eps_is_seen_as_f64():
    """Is an eps passed as a Python float (the chapter's pitfall) visible as an f64 attribute?"""
    p = ch.rms_norm_primitive()
    (call,) = stablehlo.custom_calls(_lower(lambda v: p.bind(v, eps=1e-5), X))
    assert call.attributes["eps"].type == "f64"


@pytest.mark.parametrize("target, kind", [
    ("xla_ffi_python_cpu_callback", "host_callback"),
    ("xla_ffi_partitioned_python_cpu_callback", "host_callback"),
    ("xla_python_gpu_callback", "host_callback"),
    ("lapack_sgetrf_ffi", "builtin"),
    ("Sharding", "builtin"),
    ("silu", "ffi"),
    ("my_python_cpu_callback", "ffi"),
])
def test_classify_target(target, kind):
    assert stablehlo.classify_target(target) == kind
