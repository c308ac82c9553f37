"""Valid: the batching rule binds the primitive once per slice of the batch (a Python
loop) and stacks the results: one custom_call per slice, every output element still
straight from the kernel. The eager impl is a jnp RMSNorm, which the task allows (the
eager path is judged by its values).

score: 10
"""
rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")


def _impl(x, *, eps):
    return x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps)


rms_norm_prim_p.def_impl(_impl)


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    slices = [rms_norm_prim_p.bind(jnp.take(x, i, axis=bd), eps=eps) for i in range(x.shape[bd])]
    return jnp.stack(slices, axis=0), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
