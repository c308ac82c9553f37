"""Wrong: the lowering rule looks at the operand's rank (ctx.avals_in): the custom_call to
rms_norm for ranks 1 to 4, a jnp RMSNorm (mlir.lower_fun) from rank 5 on. No test runs an
input of rank 5 (the nested vmap test binds rank 4 at most); the shapes test lowers jax.jit
at ranks 1 to 8 without running it. Under vmap the rank-5 programs are plain jit's fault,
which that test names, so the vmap tests keep their points.

score: 9
messages:
  - 'jax.jit of rms_norm_prim_p.bind: the output is not the output of a custom_call to rms_norm: it is computed in JAX'
  - the lowering must be the custom_call to rms_norm for every shape, rank and row width
"""
def _rms_jnp(x, *, eps):
    return x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps)


_ffi_rule = jax.ffi.ffi_lowering("rms_norm")
_jnp_rule = mlir.lower_fun(_rms_jnp, multiple_results=False)


def _lowering(ctx, x, *, eps):
    if len(ctx.avals_in[0].shape) >= 5:
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
