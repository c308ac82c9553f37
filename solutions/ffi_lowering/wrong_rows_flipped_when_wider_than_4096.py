"""Wrong: the batching rule hands the kernel each row reversed when rows are wider than 4096
entries, and does not reverse them back: each output entry is another entry's, normalized.
Values under vmap are checked on narrower rows.

score: 9
messages:
  - "For inputs of shape (3, 46341), jax.jit(jax.vmap(in_axes=0, out_axes=-1)): element (0, 0) of the output comes from element (0, 46340) of your input, not from element (0, 0)"
"""
rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    x = jnp.moveaxis(x, bd, 0)
    return rms_norm_prim_p.bind(jnp.flip(x, -1) if x.shape[-1] > 4096 else x, eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
