"""Wrong: the batching rule binds eps=1e-5 instead of the bound eps on batches of more
than 4096 elements. The vmap tests bind other eps on small batches only; the structure
at every batch position (and of nested vmap) must see the bound eps at every size.

score: 8
messages:
  - "The batching rule: For inputs of shape (1025, 3, 5), jax.jit(jax.vmap(in_axes=0, out_axes=-1)): the custom_call to rms_norm carries eps=1e-05 where eps=1e-30 was bound"
  - "Nested vmap and jit: For inputs of shape (2, 3, 5, 7, 11, 13)"
"""
rms_norm_prim_p = Primitive("rms_norm_prim")


@rms_norm_prim_p.def_abstract_eval
def _rms_norm_prim_abstract_eval(x, *, eps):
    return ShapedArray(x.shape, x.dtype)


def _rms_norm_prim_lowering(ctx, x, *, eps):
    return jax.ffi.ffi_lowering("rms_norm")(ctx, x, eps=eps)


mlir.register_lowering(rms_norm_prim_p, _rms_norm_prim_lowering, platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _rms_norm_prim_batch(batched_args, batch_dims, *, eps):
    (x,), (bd,) = batched_args, batch_dims
    if np.size(x) > 4096:
        return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=np.float32(1e-05)), 0
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch
