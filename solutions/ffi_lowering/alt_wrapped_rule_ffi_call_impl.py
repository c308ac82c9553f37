"""Valid: a hand-written lowering rule that forwards its eps parameter to
jax.ffi.ffi_lowering explicitly as a float32; the eager impl calls the same target
with jax.ffi.ffi_call; the batching rule moves the batch dimension to the front,
flattens every leading dimension into one row dimension, and reshapes back.

score: 10
"""
rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))

_rms_rule = jax.ffi.ffi_lowering("rms_norm")


def _lowering(ctx, x, *, eps):
    return _rms_rule(ctx, x, eps=np.float32(eps))


mlir.register_lowering(rms_norm_prim_p, _lowering, platform="cpu")


def _impl(x, *, eps):
    return jax.ffi.ffi_call("rms_norm", jax.ShapeDtypeStruct(x.shape, x.dtype))(x, eps=np.float32(eps))


rms_norm_prim_p.def_impl(_impl)


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    x = jnp.moveaxis(x, bd, 0)
    lead = x.shape[:-1]
    out = rms_norm_prim_p.bind(x.reshape(-1, x.shape[-1]), eps=eps)   # all rows at once
    return out.reshape(*lead, x.shape[-1]), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
