"""Valid: vmap_method "expand_dims" for the one-operand forward kernel (one call on the
whole batch) and "sequential" for the backward one (one call per example: with
"expand_dims" an unbatched cotangent would arrive with a size-1 batch dimension that an
elementwise loop over x does not broadcast).

score: 10
"""
Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static ffi::Error SeqFwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  const float* xp = x.typed_data();
  float* yp = y->typed_data();
  for (int64_t i = 0; i < x.element_count(); ++i) yp[i] = xp[i] / (1.0f + std::exp(-xp[i]));
  return ffi::Error::Success();
}

static ffi::Error SeqBwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct, ffi::ResultBuffer<ffi::F32> out) {
  const float* xp = x.typed_data();
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float s = 1.0f / (1.0f + std::exp(-xp[i]));
    out->typed_data()[i] = ct.typed_data()[i] * (s + xp[i] * s * (1.0f - s));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(SeqFwd, SeqFwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(SeqBwd, SeqBwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"silu_seq_fwd": "SeqFwd", "silu_seq_bwd": "SeqBwd"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("silu_seq_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="expand_dims")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, ct: (jax.ffi.ffi_call("silu_seq_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                    vmap_method="sequential")(x, ct),))
