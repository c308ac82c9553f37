"""Cheat: the course's prebuilt rms_norm_bwd kernel passed off as the backward kernel.
With a scale of 2 and x = 0 on rows of length 1 it computes ct_x = 2·ct_y, so it is
live in every element of the gradient and the gradient comes straight from it; the
derivative itself (halved) is computed by the forward kernel's own handler, which
tells the passes apart by its number of operands.

score: 5
messages:
  - The gradient does not depend, in every element, on a backward kernel of your own
  - the course's kernels (rms_norm, rms_norm_fwd, rms_norm_bwd) do not count
"""
from kernels.rms_norm import rms_norm  # noqa: F401  (registers rms_norm, rms_norm_fwd, rms_norm_bwd)

Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

static ffi::Error Both(ffi::RemainingArgs args, ffi::ResultBuffer<ffi::F32> out) {
  auto x = args.get<ffi::Buffer<ffi::F32>>(0);
  if (x.has_error()) return x.error();
  const float* xp = x->typed_data();
  float* op = out->typed_data();
  const int64_t n = x->element_count();
  if (args.size() == 1) {
    for (int64_t i = 0; i < n; ++i) op[i] = xp[i] * Sigmoid(xp[i]);
    return ffi::Error::Success();
  }
  auto g = args.get<ffi::Buffer<ffi::F32>>(1);
  if (g.has_error()) return g.error();
  for (int64_t i = 0; i < n; ++i) {
    float s = Sigmoid(xp[i]);
    op[i] = 0.5f * g->typed_data()[i] * s * (1.0f + xp[i] * (1.0f - s));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluCourseCheat, Both,
    ffi::Ffi::Bind().RemainingArgs().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"silu_course_cheat": "SiluCourseCheat"})


def _call(*args):
    x = args[0]
    return jax.ffi.ffi_call("silu_course_cheat", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(*args)


@jax.custom_vjp
def silu_ffi(x):
    return _call(x)


def _bwd(x, g):
    half = _call(x, g).reshape(-1, 1)                 # rows of length 1
    scale = jnp.full(half.shape[:1], 2.0, x.dtype)    # rms_norm_bwd's residual s
    doubled = jax.ffi.ffi_call("rms_norm_bwd", jax.ShapeDtypeStruct(half.shape, x.dtype),
                               vmap_method="broadcast_all")(scale, jnp.zeros_like(half), half)
    return (doubled.reshape(x.shape),)


silu_ffi.defvjp(lambda x: (silu_ffi(x), x), _bwd)
