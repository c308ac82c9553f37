"""Wrong: the primal replaces NaN (and infinities) with numbers, jnp.nan_to_num, before
the forward kernel, so a NaN input gives silu(0) = 0 instead of NaN. nan_to_num lowers
to compares and selects, no math op, and the kernel itself is right when the grader
calls it directly; the value at the NaN input is not.

score: 9
messages:
  - jax.jit(silu_ffi) on x over the whole float32 range differs from the reference at 1 of the
  - NaN where x is NaN
"""
Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

static ffi::Error FwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i] * Sigmoid(x.typed_data()[i]);
  return ffi::Error::Success();
}

static ffi::Error BwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float s = Sigmoid(x.typed_data()[i]);
    out->typed_data()[i] = g.typed_data()[i] * s * (1.0f + x.typed_data()[i] * (1.0f - s));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(NanFwd, FwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(NanBwd, BwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"silu_nan_fwd": "NanFwd", "silu_nan_bwd": "NanBwd"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("silu_nan_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(jnp.nan_to_num(x))


def _bwd(x, g):
    return (jax.ffi.ffi_call("silu_nan_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                             vmap_method="broadcast_all")(x, g),)


silu_ffi.defvjp(lambda x: (silu_ffi(x), x), _bwd)
