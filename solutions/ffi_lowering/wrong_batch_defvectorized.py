"""Wrong: batching.defvectorized, as for an elementwise primitive. It passes the batch
dimension through unchanged, which is only right while it is not the last dimension:
with in_axes=2 on a 3-D input the kernel normalizes over the batch.

score: 7
messages:
  - vmap(in_axes=2) differs from the reference
  - 'the kernel always normalizes over the last dimension: the batch dimension must not end up there'
"""
rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))
batching.defvectorized(rms_norm_prim_p)
