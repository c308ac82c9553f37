"""Valid: the batching rule maps the primitive over the batch with jax.lax.map (a loop
in the compiled program: counter arithmetic and dynamic slices around the custom_call,
no math on the values); the lowering is mlir.lower_fun of the course's own wrapper
kernels.rms_norm.rms_norm_ffi (a jax.ffi.ffi_call to rms_norm).

score: 10
"""
from kernels.rms_norm import rms_norm_ffi

rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, mlir.lower_fun(lambda x, *, eps: rms_norm_ffi(x, eps), multiple_results=False),
                       platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    return jax.lax.map(lambda row: rms_norm_prim_p.bind(row, eps=eps), jnp.moveaxis(x, bd, 0)), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
