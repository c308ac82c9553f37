"""Wrong inside C++ from a size on: above 1024 elements the forward kernel writes each
silu(x[i]) at the mirrored place, y[n - 1 - i]. Every value is silu of some input, only not
in its place; the value tests' programs are smaller, and the grader's direct call on
2^20 + 5 values compares every output with the reference at its own index. (Session 32: the programs at ranks 2 to 8 now run past 2^18 values, where it is wrong too: test 8's point.)

score: 8
messages:
  - Your forward kernel (target 'silu_mirror_fwd') called directly on 1,048,581 values
  - it must compute silu(x) for every element of x, in its place, whatever the size of x
  - "The primal of jax.vjp(silu_ffi) on shape (64, 4099)"
"""
Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

static ffi::Error FwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  const int64_t n = x.element_count();
  const float* xp = x.typed_data();
  float* yp = y->typed_data();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t at = n > 1024 ? n - 1 - i : i;   // "walk backwards through large buffers"
    yp[at] = xp[i] * Sigmoid(xp[i]);
  }
  return ffi::Error::Success();
}

static ffi::Error BwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float s = Sigmoid(x.typed_data()[i]);
    out->typed_data()[i] = g.typed_data()[i] * s * (1.0f + x.typed_data()[i] * (1.0f - s));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(MirrorFwd, FwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(MirrorBwd, BwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"silu_mirror_fwd": "MirrorFwd", "silu_mirror_bwd": "MirrorBwd"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("silu_mirror_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("silu_mirror_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
