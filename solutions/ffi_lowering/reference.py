"""The reference answer: the master notebook's solution cell, unchanged.

score: 10
"""
rms_norm_prim_p = Primitive("rms_norm_prim")


@rms_norm_prim_p.def_abstract_eval
def _rms_norm_prim_abstract_eval(x, *, eps):
    # BEGIN SOLUTION
    return ShapedArray(x.shape, x.dtype)
    # END SOLUTION


# BEGIN SOLUTION
# The params of bind (eps) become the FFI attributes of the custom_call.
mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))   # eager: jit this primitive
# END SOLUTION


def _rms_norm_prim_batch(batched_args, batch_dims, *, eps):
    # BEGIN SOLUTION
    (x,), (bd,) = batched_args, batch_dims
    # The kernel treats every dimension but the last as rows: move the batch dimension first.
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0
    # END SOLUTION


# BEGIN SOLUTION
batching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch
# END SOLUTION
