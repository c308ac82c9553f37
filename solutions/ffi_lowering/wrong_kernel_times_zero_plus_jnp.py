"""Wrong: the lowering calls the kernel, multiplies its result by zero and adds a jnp
RMSNorm (mlir.lower_fun of jax.ffi.ffi_call and jnp). The custom_call to rms_norm is live
and carries the right eps, the values are right, but they come from JAX.

score: 2
messages:
  - does not come from the rms_norm kernel
"""
def _kernel_times_zero_plus_jnp(x, *, eps):
    kernel = jax.ffi.ffi_call("rms_norm", jax.ShapeDtypeStruct(x.shape, x.dtype))(x, eps=eps)
    return kernel * 0.0 + x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps)


rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, mlir.lower_fun(_kernel_times_zero_plus_jnp, multiple_results=False),
                       platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
