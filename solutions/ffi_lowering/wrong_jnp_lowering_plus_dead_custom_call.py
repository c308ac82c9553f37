"""Wrong: the lowering rule emits the custom_call to rms_norm (with the right f32 eps
attribute) but throws its result away and returns a jnp RMSNorm lowered with
mlir.lower_fun. Every value is right and the structure is all there; the output does not
depend on the kernel (XLA drops the unused call as dead code).

score: 2
messages:
  - does not come from the rms_norm kernel
  - output entries do not depend on it
"""
def _rms_jnp(x, *, eps):
    return x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps)


_ffi_rule = jax.ffi.ffi_lowering("rms_norm")
_jnp_rule = mlir.lower_fun(_rms_jnp, multiple_results=False)


def _lowering(ctx, x, *, eps):
    _ffi_rule(ctx, x, eps=eps)            # the custom_call is in the module, unused
    return _jnp_rule(ctx, x, eps=eps)


rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, _lowering, platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
