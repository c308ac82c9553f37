"""Wrong: for inputs of rank 5 and more the batching rule moves the batch dimension last
instead of first (and says so): the kernel then normalizes across the examples, not along each
example's rows. Values are checked under vmap at ranks up to 4.

score: 8
messages:
  - "For inputs of shape (2, 3, 5, 7, 11), jax.jit(jax.vmap(in_axes=0, out_axes=-1)): rms_norm normalizes rows along your input's axis 0 of 2 elements, where each row runs along its axis 4 (11 elements)"
"""
rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    if x.ndim >= 5:
        return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, -1), eps=eps), x.ndim - 1
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
