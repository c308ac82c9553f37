"""Valid: the batching rule reverses every row and the batch before the kernel and reverses
the result back: the kernel normalizes each row (in any order: a row's mean square does not
depend on it) and every entry lands where it was.

score: 10
"""
rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    x = jnp.flip(jnp.moveaxis(x, bd, 0), (0, -1))
    return jnp.flip(rms_norm_prim_p.bind(x, eps=eps), (0, -1)), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
