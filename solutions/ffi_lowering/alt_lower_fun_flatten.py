"""Valid: the lowering is mlir.lower_fun of a function that flattens every leading
dimension into one, calls rms_norm with jax.ffi.ffi_call and restores the shape (eps a
np.float32); the batching rule copies the moved operand (jnp.copy) before binding and
moves the batch dimension back where it was unless it was the last one.

score: 10
"""
def _through_kernel(x, *, eps):
    flat = x.reshape(-1, x.shape[-1])
    out = jax.ffi.ffi_call("rms_norm", jax.ShapeDtypeStruct(flat.shape, flat.dtype))(flat, eps=np.float32(eps))
    return out.reshape(x.shape)


rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, mlir.lower_fun(_through_kernel, multiple_results=False), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    out = rms_norm_prim_p.bind(jnp.copy(jnp.moveaxis(x, bd, 0)), eps=eps)
    if bd == x.ndim - 1:
        return out, 0
    return jnp.moveaxis(out, 0, bd), bd


batching.primitive_batchers[rms_norm_prim_p] = _batch
