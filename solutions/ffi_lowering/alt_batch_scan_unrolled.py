"""Valid: the batching rule scans over the examples with jax.lax.scan(..., unroll=2), binding
the primitive on each.

score: 10
"""
rms_norm_prim_p = Primitive("rms_norm_prim")


@rms_norm_prim_p.def_abstract_eval
def _rms_norm_prim_abstract_eval(x, *, eps):
    return ShapedArray(x.shape, x.dtype)


# The params of bind (eps) become the FFI attributes of the custom_call.


mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))   # eager: jit this primitive


def _rms_norm_prim_batch(batched_args, batch_dims, *, eps):
    (x,), (bd,) = batched_args, batch_dims
    x = jnp.moveaxis(x, bd, 0)
    return jax.lax.scan(lambda c, e: (c, rms_norm_prim_p.bind(e, eps=eps)), 0.0, x, unroll=2)[1], 0

batching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch
