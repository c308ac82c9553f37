"""Wrong: the primitive is lowered through mlir.lower_fun of a jnp implementation, so
every value is right but no custom_call reaches the C++ kernel. Every compiled path
fails (its result must be the kernel's output); the eager values and the jaxpr equation
pass.

score: 2
messages:
  - The compiled program of jax.jit of rms_norm_prim_p.bind holds no custom_call to the FFI target rms_norm
  - The compiled program of jax.jit(jax.vmap(in_axes=0)) holds no custom_call to the FFI target rms_norm
"""
def _rms_jnp(x, *, eps):
    return x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps)


rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, mlir.lower_fun(_rms_jnp, multiple_results=False), platform="cpu")
rms_norm_prim_p.def_impl(_rms_jnp)


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
