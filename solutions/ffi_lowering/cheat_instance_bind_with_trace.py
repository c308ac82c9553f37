"""Cheat: a genuine Primitive with an instance-level bind_with_trace (set through
def_bind_with_trace) that is Primitive's own under every trace but vmap's, where it
computes RMSNorm with jnp; no batching rule.

score: 0
messages:
  - 'rms_norm_prim_p is not an untouched jax.extend.core.Primitive: its instance sets bind_with_trace'
"""
rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


@rms_norm_prim_p.def_bind_with_trace
def _bind_with_trace(trace, args, avals, params, /):
    if type(trace).__name__ == "BatchTrace":
        from jax._src.core import set_current_trace
        (x,), eps = args, params["eps"]
        with set_current_trace(trace):
            return x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps)
    return Primitive.bind_with_trace(rms_norm_prim_p, trace, args, avals, params)
