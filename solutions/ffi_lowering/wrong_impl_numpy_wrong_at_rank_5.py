"""Wrong: the eager impl is NumPy (allowed: it is judged by its values), right up to rank 4,
but from rank 5 on it normalizes over the first axis instead of the last. A lowering never
shows an impl; the grader runs it at ranks 5 to 8.

score: 9
messages:
  - The eager result on shape (2, 1, 3, 2, 5) differs from the reference
"""
rms_norm_prim_p = Primitive("rms_norm_prim")


@rms_norm_prim_p.def_abstract_eval
def _rms_norm_prim_abstract_eval(x, *, eps):
    return ShapedArray(x.shape, x.dtype)


def _impl(x, *, eps):
    v = np.asarray(x, dtype=np.float64)
    axis = 0 if v.ndim >= 5 else -1
    out = v / np.sqrt(np.mean(v * v, axis=axis, keepdims=True) + np.float64(np.float32(eps)))
    return jnp.asarray(out.astype(np.float32))


mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")
rms_norm_prim_p.def_impl(_impl)


def _rms_norm_prim_batch(batched_args, batch_dims, *, eps):
    (x,), (bd,) = batched_args, batch_dims
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch
