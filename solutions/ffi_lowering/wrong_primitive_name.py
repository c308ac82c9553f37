"""Wrong: a correct primitive under another name (the target's, rms_norm, instead of
rms_norm_prim).

score: 9
messages:
  - rms_norm_prim_p is named 'rms_norm'; create it as Primitive("rms_norm_prim")
"""
rms_norm_prim_p = Primitive("rms_norm")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
