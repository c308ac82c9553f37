"""Wrong: impl and lowering call NumPy through jax.pure_callback; the values are right,
but the custom_call is a host callback, not the FFI target rms_norm: every compiled path
fails; the eager values and the jaxpr equation pass.

score: 2
messages:
  - The compiled program of jax.jit of rms_norm_prim_p.bind runs a host callback (pure_callback or io_callback)
"""
def _rms_callback(x, *, eps):
    host = lambda a: (np.asarray(a) / np.sqrt(np.mean(np.asarray(a) ** 2, axis=-1, keepdims=True) + eps)).astype(a.dtype)
    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="sequential")


rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, mlir.lower_fun(_rms_callback, multiple_results=False), platform="cpu")
rms_norm_prim_p.def_impl(_rms_callback)


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
