"""Valid: each ffi_call sits in a jax.jit of its own (so every program holds it in a private
function, shared by the calls of one signature), an attribute carries the element count,
and an input of no elements is returned as it is, without calling the kernel (there is no
element whose value could come from it).

score: 10
"""
Path("silu.cc").write_text(r"""
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

static ffi::Error FwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y, int64_t n) {   // n: x.size per example
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

XLA_FFI_DEFINE_HANDLER_SYMBOL(NestFwd, FwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>().Attr<int64_t>("n"));
XLA_FFI_DEFINE_HANDLER_SYMBOL(NestBwd, BwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"nest_fwd": "NestFwd", "nest_bwd": "NestBwd"})


@jax.jit
def _forward(x):
    return jax.ffi.ffi_call("nest_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                            vmap_method="broadcast_all")(x, n=np.int64(x.size))


@jax.jit
def _backward(x, g):
    return jax.ffi.ffi_call("nest_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x, g)


@jax.custom_vjp
def silu_ffi(x):
    if x.size == 0:
        return x
    return _forward(x)


def _bwd(x, g):
    return (g if x.size == 0 else _backward(x, g),)


silu_ffi.defvjp(lambda x: (silu_ffi(x), x), _bwd)
