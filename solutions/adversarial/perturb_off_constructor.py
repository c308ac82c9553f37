"""Attack on the executor's dirty allocations (issue 54): silu_ffi's
wrong_forward_accumulates_in_cpp_above_1000_elements (its forward kernel adds into its
unwritten result buffer above 1000 elements, `y[i] += ...`) with a library constructor,
`__attribute__((constructor))`, that calls mallopt(M_PERTURB, 0) when the library is loaded.
The executor turns M_PERTURB on before it loads anything (executor/__main__.py
_dirty_allocations), but the answer's library is loaded into that same process afterwards, so
its constructor switches the pattern off again: a fresh large buffer is zeros, the sum reads
right on 2^20 + 5 values and the kernel kept 10/10 on the grader before the fix. The grader
must keep its allocations dirty whatever the loaded library does to malloc's settings: the
answer's own score, 8 since session 32 (the programs at ranks 2 to 8 run past 2^18 values), with its messages.

assignment: silu_ffi
score: 8
messages:
  - Your forward kernel (target 'silu') called directly on 1,048,581 values
  - "The primal of jax.vjp(silu_ffi) on shape (64, 4099)"
"""
SILU_CC = r"""
#include <cmath>
#include <cstdint>
#include <malloc.h>
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;
"""
# BEGIN SOLUTION
SILU_CC += r"""
// The attack: runs when the library is loaded, in the notebook and in the grader's executor
// alike, and turns off the executor's M_PERTURB (glibc's mallopt(M_PERTURB, 0)), so the
// 2^20 + 5-float result buffer comes back from malloc holding zeros again, not ~0xA5 bytes.
__attribute__((constructor)) static void PerturbOff() { mallopt(M_PERTURB, 0); }

static inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }   // exp(80) fits in float32

static ffi::Error SiluImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  const int64_t n = x.element_count();
  const float* xp = x.typed_data();
  float* yp = y->typed_data();
  for (int64_t i = 0; i < n; ++i) yp[i] = n > 1000 ? yp[i] + xp[i] * Sigmoid(xp[i]) : xp[i] * Sigmoid(xp[i]);
  return ffi::Error::Success();
}

// ct_x = ct_y * s * (1 + x * (1 - s)), s = sigmoid(x)
static ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y,
                              ffi::ResultBuffer<ffi::F32> ct_x) {
  const int64_t n = x.element_count();
  const float* xp = x.typed_data();
  const float* gp = ct_y.typed_data();
  float* op = ct_x->typed_data();
  for (int64_t i = 0; i < n; ++i) {
    float s = Sigmoid(xp[i]);
    op[i] = gp[i] * s * (1.0f + xp[i] * (1.0f - s));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(Silu, SiluImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
"""
# END SOLUTION
Path("silu.cc").write_text(SILU_CC)

# BEGIN SOLUTION
load_and_register("silu.cc", {"silu": "Silu", "silu_bwd": "SiluBwd"})
# END SOLUTION


@jax.custom_vjp
def silu_ffi(x):
    # BEGIN SOLUTION
    return jax.ffi.ffi_call("silu", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x)
    # END SOLUTION


def _silu_fwd(x):
    # BEGIN SOLUTION
    return silu_ffi(x), x                      # the residual is x itself
    # END SOLUTION


def _silu_bwd(x, ct):
    # BEGIN SOLUTION
    return (jax.ffi.ffi_call("silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                             vmap_method="broadcast_all")(x, ct),)
    # END SOLUTION


silu_ffi.defvjp(_silu_fwd, _silu_bwd)
