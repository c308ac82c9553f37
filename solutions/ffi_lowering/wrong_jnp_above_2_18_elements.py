"""Wrong: the lowering rule looks at the operand's size (ctx.avals_in): the custom_call to
rms_norm for inputs of up to 2^18 elements, twice the largest input any test ever ran
(256x512 = 131072), a jnp RMSNorm (mlir.lower_fun) for larger ones. Every value is right;
the shapes test lowers jax.jit at sizes up to 2^31 - 1 without running it.

score: 9
messages:
  - 'jax.jit of rms_norm_prim_p.bind: the output is not the output of a custom_call to rms_norm: it is computed in JAX'
"""
def _rms_jnp(x, *, eps):
    return x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps)


_ffi_rule = jax.ffi.ffi_lowering("rms_norm")
_jnp_rule = mlir.lower_fun(_rms_jnp, multiple_results=False)


def _lowering(ctx, x, *, eps):
    if np.prod(ctx.avals_in[0].shape) > 2**18:
        return _jnp_rule(ctx, x, eps=eps)
    return _ffi_rule(ctx, x, eps=eps)


rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, _lowering, platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
