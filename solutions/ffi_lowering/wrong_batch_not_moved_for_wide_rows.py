"""Wrong: the batching rule leaves the batch dimension where it is when the input's last
axis is wider than 4096 ("wide rows are already in place"), yet says it is first; with
the batch in the middle of such rows, the result lands in the wrong places. The vmap
tests run narrow rows; the structure at every batch position must see wide rows with the
batch in the middle too.

score: 9
messages:
  - "The batching rule: For inputs of shape (2, 3, 2^20), jax.jit(jax.vmap(in_axes=1, out_axes=-2))"
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
    if np.shape(x)[-1] > 4096:
        return rms_norm_prim_p.bind(x, eps=eps), 0
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch
