"""Wrong: for a batch of more than 64 examples the batching rule reverses the examples before
binding and never puts them back: example k's rows come out as example n-1-k's. Values are
checked under vmap with batches of up to 6 examples.

score: 9
messages:
  - "For inputs of shape (65, 3, 5), jax.jit(jax.vmap(in_axes=0, out_axes=-1)): element (0, 0, 0) of the output comes from element (64, 0, 0) of your input, not from element (0, 0, 0)"
"""
rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    x = jnp.moveaxis(x, bd, 0)
    if x.shape[0] > 64:
        x = x[::-1]
    return rms_norm_prim_p.bind(x, eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
