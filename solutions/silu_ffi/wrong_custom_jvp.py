"""Wrong: custom_jvp instead of custom_vjp. The JVP rule calls the backward kernel on
the tangent, which forward mode accepts, but reverse mode has to transpose that
ffi_call and cannot: every gradient raises.

score: 4
messages:
  - silu_ffi is not a jax.custom_vjp
  - an ffi_call cannot be differentiated
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

static ffi::Error TanImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> t, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float s = Sigmoid(x.typed_data()[i]);
    out->typed_data()[i] = t.typed_data()[i] * s * (1.0f + x.typed_data()[i] * (1.0f - s));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(JvpFwd, FwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(JvpTan, TanImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"silu_jvp_fwd": "JvpFwd", "silu_jvp_tan": "JvpTan"})


@jax.custom_jvp
def silu_ffi(x):
    return jax.ffi.ffi_call("silu_jvp_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x)


@silu_ffi.defjvp
def _silu_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return silu_ffi(x), jax.ffi.ffi_call("silu_jvp_tan", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                         vmap_method="broadcast_all")(x, t)
