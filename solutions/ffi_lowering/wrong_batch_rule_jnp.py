"""Wrong: the primitive is genuine under jit (custom_call to rms_norm), but its batching
rule computes RMSNorm with jnp instead of binding the primitive: every vmap value is
right, and none of it comes from the kernel.

score: 7
messages:
  - The compiled program of jax.jit(jax.vmap(in_axes=0)) holds no custom_call to the FFI target rms_norm
"""
rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    x = jnp.moveaxis(x, bd, 0)
    return x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
