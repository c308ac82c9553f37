"""Wrong: for inputs of more than 1024 elements the backward kernel's output comes back
reversed: each gradient element is another element's, under jax.jit and under jax.vmap.

score: 7
messages:
  - "For inputs of shape (1025,), jax.jit(lambda v: jax.vjp(silu_ffi, v)[1](v)[0]): element (0,) of the output comes from element (1024,) of your input, not from element (0,)"
  - "For inputs of shape (2, 3, 5, 7, 11), jax.jit(jax.vmap(lambda v: jax.vjp(silu_ffi, v)[1](v)[0], in_axes=0)): element (0, 0, 0, 0, 0) of the output comes from element (0, 2, 4, 6, 10) of your input"
  - "The VJP of silu_ffi with a random cotangent on shape (64, 4099)"
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

XLA_FFI_DEFINE_HANDLER_SYMBOL(SizeFwd, FwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(SizeBwd, BwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"silu_size_fwd": "SizeFwd", "silu_size_bwd": "SizeBwd"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("silu_size_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)


def _bwd(x, g):
    out = jax.ffi.ffi_call("silu_size_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x, g)
    return (jnp.flip(out.reshape(-1)).reshape(x.shape) if x.size > 1024 else out,)


silu_ffi.defvjp(lambda x: (silu_ffi(x), x), _bwd)
