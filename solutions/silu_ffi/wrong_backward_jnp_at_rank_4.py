"""Wrong: the forward kernel runs at every rank, but for inputs of rank 4 or more the bwd
rule computes the derivative in JAX (jnp) instead of calling the backward kernel. Every
gradient the value tests compare is of rank 0 to 3, and right; the VJP run on inputs of rank 3
to 8 (make mutants' rank survivors) holds no backward kernel at rank 4.

score: 7
messages:
  - "For inputs of shape (1, 1, 1, 1), jax.jit(lambda v: jax.vjp(silu_ffi, v)[1](v)[0]): the output is not the output of your backward kernel ('deep_bwd')"
  - "jax.jit(jax.vmap(lambda v: jax.vjp(silu_ffi, v)[1](v)[0], in_axes=0)): the output is not the output of your backward kernel ('deep_bwd')"
  - "jax.jit of the VJP of silu_ffi on inputs of rank 2 to 8 does not come from your FFI kernels"
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

XLA_FFI_DEFINE_HANDLER_SYMBOL(DeepFwd, FwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(DeepBwd, BwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"deep_fwd": "DeepFwd", "deep_bwd": "DeepBwd"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("deep_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)


def _bwd(x, g):
    if x.ndim >= 4:
        s = 1 / (1 + jnp.exp(-x))
        return (g * s * (1 + x * (1 - s)),)
    return (jax.ffi.ffi_call("deep_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x, g),)


silu_ffi.defvjp(lambda x: (silu_ffi(x), x), _bwd)
