"""Valid: sets multiple_results = False on the primitive explicitly and registers an
effectful abstract evaluation (def_effectful_abstract_eval, no effects): the instance
still holds only what the task allows (name, impl, abstract_eval, multiple_results).
The batching rule moves the batch dimension back where it was unless it was the last.

score: 10
"""
rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.multiple_results = False


@rms_norm_prim_p.def_effectful_abstract_eval
def _abstract(x, *, eps):
    return ShapedArray(x.shape, x.dtype), set()


mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    if bd != x.ndim - 1:
        return rms_norm_prim_p.bind(x, eps=eps), bd
    out = rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps)
    return jnp.moveaxis(out, 0, bd), bd


batching.primitive_batchers[rms_norm_prim_p] = _batch
