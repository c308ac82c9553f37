"""Wrong: the eager impl is NumPy, right for rows up to 4096 wide, but for wider rows it takes
the mean square of the first 4096 entries only. The grader runs the impl on rows 2^14 + 7
wide.

score: 9
messages:
  - The eager result on shape (64, 16391) differs from the reference
"""
rms_norm_prim_p = Primitive("rms_norm_prim")


@rms_norm_prim_p.def_abstract_eval
def _rms_norm_prim_abstract_eval(x, *, eps):
    return ShapedArray(x.shape, x.dtype)


def _impl(x, *, eps):
    v = np.asarray(x, dtype=np.float64)
    head = v[..., :4096]
    out = v / np.sqrt(np.mean(head * head, axis=-1, keepdims=True) + np.float64(np.float32(eps)))
    return jnp.asarray(out.astype(np.float32))


mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")
rms_norm_prim_p.def_impl(_impl)


def _rms_norm_prim_batch(batched_args, batch_dims, *, eps):
    (x,), (bd,) = batched_args, batch_dims
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch
