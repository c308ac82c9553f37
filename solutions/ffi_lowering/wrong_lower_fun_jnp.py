"""Wrong: the primitive is lowered through mlir.lower_fun of a jnp implementation, so
every value is right but no custom_call reaches the C++ kernel.

score: 8
messages:
  - The lowering of rms_norm_prim_p holds no custom_call to the FFI target rms_norm
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
