"""Wrong inside C++ from a size on: from 4096 elements the forward kernel swaps std::exp for
its order-2 Taylor polynomial, 1 + v + v²/2 (good near 0 only). Every program the value
tests run is smaller, and the programs at larger shapes are the same program (the branch is
in C++, at run time): only the grader's direct call of the forward kernel on 2^20 + 5
values shows it. (Session 32: the programs at ranks 2 to 8 now run past 2^18 values, where it is wrong too: test 8's point.)

score: 8
messages:
  - Your forward kernel (target 'silu_fastexp_fwd') called directly on 1,048,581 values differs from the reference
  - it must compute silu(x) for every element of x, in its place, whatever the size of x
  - "The primal of jax.vjp(silu_ffi) on shape (64, 4099)"
"""
Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }
static inline float CrudeSigmoid(float v) { float e = 1.0f - v + 0.5f * v * v; return 1.0f / (1.0f + e); }

static ffi::Error FwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  const int64_t n = x.element_count();
  const float* xp = x.typed_data();
  float* yp = y->typed_data();
  if (n >= 4096) {   // "big inputs: the fast path"
    for (int64_t i = 0; i < n; ++i) yp[i] = xp[i] * CrudeSigmoid(xp[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) yp[i] = xp[i] * Sigmoid(xp[i]);
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

XLA_FFI_DEFINE_HANDLER_SYMBOL(FastExpFwd, FwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(FastExpBwd, BwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"silu_fastexp_fwd": "FastExpFwd", "silu_fastexp_bwd": "FastExpBwd"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("silu_fastexp_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("silu_fastexp_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
