"""Wrong: the forward kernel is right and sits in silu.cc; the backward kernel, in another
file (backward/silu_grad.cpp, loaded on its own), forgets the second term and returns
ȳ·σ(x) instead of ȳ·σ(x)·(1 + x·(1 − σ(x))). The grader runs the library the notebook
loaded from that second file for the gradient, so it scores what wrong_backward_formula.py
scores, for the same reasons.

score: 7
messages:
  - the backward kernel should compute ȳ·σ(x)·(1 + x·(1 − σ(x)))
  - The gradient on x in [-1000, 1000] differs from the reference
  - jit(vmap(grad)) differs from the reference
"""
Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static ffi::Error FwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    float v = x.typed_data()[i];
    y->typed_data()[i] = v / (1.0f + std::exp(-v));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(SecondFileFwd, FwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
Path("backward").mkdir(exist_ok=True)
Path("backward/silu_grad.cpp").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static ffi::Error BwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> g, ffi::ResultBuffer<ffi::F32> out) {
  for (int64_t i = 0; i < x.element_count(); ++i)
    out->typed_data()[i] = g.typed_data()[i] / (1.0f + std::exp(-x.typed_data()[i]));
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(SecondFileBwd, BwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"silu_two_fwd": "SecondFileFwd"})
load_and_register("backward/silu_grad.cpp", {"silu_two_bwd": "SecondFileBwd"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("silu_two_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x)


silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),
    lambda x, g: (jax.ffi.ffi_call("silu_two_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))
