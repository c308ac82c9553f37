"""Wrong: the result is the mean of the kernel's output and a jnp RMSNorm. Every output
element depends on the kernel and the values are right, but part of the math happens in
JAX after the custom_call.

score: 2
messages:
  - is not the rms_norm kernel's output as it leaves the kernel
"""
def _half_and_half(x, *, eps):
    kernel = jax.ffi.ffi_call("rms_norm", jax.ShapeDtypeStruct(x.shape, x.dtype))(x, eps=eps)
    return 0.5 * kernel + 0.5 * (x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps))


rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, mlir.lower_fun(_half_and_half, multiple_results=False), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
