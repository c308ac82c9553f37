"""Valid: the CPU lowering is a function of its own that calls the rule
jax.ffi.ffi_lowering("rms_norm") builds, passing the primitive's eps param on as the
keyword that becomes the f32 attribute; the abstract evaluation, the lowering and the
batching rule are each a def (the answer `make mutants` mutates: its pieces are functions).

score: 10
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
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch
