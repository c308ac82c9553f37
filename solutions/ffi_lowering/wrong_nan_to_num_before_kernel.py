"""Wrong: the lowering (mlir.lower_fun of an ffi_call to rms_norm) first replaces NaN with
0 (jnp.nan_to_num), so a row holding a NaN comes out as numbers instead of NaN. nan_to_num
lowers to compares and selects, no division and no square root, and the result is still
the kernel's output; only the NaN row's values give it away.

score: 9
messages:
  - The eager result on entries up to 1e15 and a NaN row differs from the reference at 16 of the 16 entries where the reference is NaN
  - NaN in a row holding a NaN
"""
def _through_kernel(x, *, eps):
    return jax.ffi.ffi_call("rms_norm", jax.ShapeDtypeStruct(x.shape, x.dtype))(jnp.nan_to_num(x), eps=np.float32(eps))


rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, mlir.lower_fun(_through_kernel, multiple_results=False), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
