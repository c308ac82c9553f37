"""Wrong: the primal clips x to [-80, 80] with jnp.clip before the forward kernel (the
range the task once promised), so silu(100) comes out as 80. The clip lowers to a clamp,
no math op, and the kernel itself is right when the grader calls it directly; the values
over the whole float32 range are not.

score: 9
messages:
  - jax.jit(silu_ffi) on x over the whole float32 range differs from the reference
  - do not clip x
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

XLA_FFI_DEFINE_HANDLER_SYMBOL(ClipFwd, FwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(ClipBwd, BwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"silu_clip_fwd": "ClipFwd", "silu_clip_bwd": "ClipBwd"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("silu_clip_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(jnp.clip(x, -80.0, 80.0))


def _bwd(x, g):
    return (jax.ffi.ffi_call("silu_clip_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                             vmap_method="broadcast_all")(x, g),)


silu_ffi.defvjp(lambda x: (silu_ffi(x), x), _bwd)
