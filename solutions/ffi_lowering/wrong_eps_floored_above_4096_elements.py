"""Wrong: the lowering floors eps at 1e-5 on inputs of more than 4096 elements only, so
there every eps below 1e-5 reaches the kernel as 1e-5. The eps tests bind tiny eps on
small inputs only; the structure at every shape must see the bound eps at every size.

score: 9
messages:
  - carries eps=1e-05 where eps=1e-30 was bound
"""
rms_norm_prim_p = Primitive("rms_norm_prim")


@rms_norm_prim_p.def_abstract_eval
def _rms_norm_prim_abstract_eval(x, *, eps):
    return ShapedArray(x.shape, x.dtype)


def _rms_norm_prim_lowering(ctx, x, *, eps):
    if int(np.prod(ctx.avals_in[0].shape)) > 4096:
        return jax.ffi.ffi_lowering("rms_norm")(ctx, x, eps=np.maximum(eps, np.float32(1e-05)))
    return jax.ffi.ffi_lowering("rms_norm")(ctx, x, eps=eps)


mlir.register_lowering(rms_norm_prim_p, _rms_norm_prim_lowering, platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _rms_norm_prim_batch(batched_args, batch_dims, *, eps):
    (x,), (bd,) = batched_args, batch_dims
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch
