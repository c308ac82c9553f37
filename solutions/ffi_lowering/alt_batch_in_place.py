"""Valid: a batching rule that leaves the batch dimension where it is unless it is the
last one (the kernel only needs it to be some row dimension); the impl goes through
apply_primitive.

score: 10
"""
rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    if bd == x.ndim - 1:                      # the kernel would normalize over the batch
        x, bd = jnp.moveaxis(x, bd, 0), 0
    return rms_norm_prim_p.bind(x, eps=eps), bd


batching.primitive_batchers[rms_norm_prim_p] = _batch
