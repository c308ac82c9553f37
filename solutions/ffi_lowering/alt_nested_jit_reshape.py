"""Valid: the lowering is mlir.lower_fun of a jax.jit-ed function that flattens every
leading dimension into one, calls rms_norm with jax.ffi.ffi_call (vmap_method="sequential")
and restores the shape; the batching rule binds through a jax.jit of its own that moves the
batch dimension first. The programs hold nested private functions and reshapes around the
one custom_call, which the structure tests must follow.

score: 10
"""
@partial(jax.jit, static_argnames="eps")
def _rms_rows(x, *, eps):
    rows = x.reshape(-1, x.shape[-1])
    y = jax.ffi.ffi_call("rms_norm", jax.ShapeDtypeStruct(rows.shape, rows.dtype), vmap_method="sequential")(
        rows, eps=np.float32(eps))
    return y.reshape(x.shape)


rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, mlir.lower_fun(_rms_rows, multiple_results=False), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    return jax.jit(lambda v: rms_norm_prim_p.bind(jnp.moveaxis(v, bd, 0), eps=eps))(x), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
