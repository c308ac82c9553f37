"""Valid: the chapter's appendix solution of Exercise 3 pasted verbatim (its C++ written to
cpp/silu.cc, compiled by its own subprocess call to clang++ and loaded with ctypes), after the
lines of the chapter's shared setup and course step 2 it needs (CPP_DIR, short_path, compile_so),
with the self-check asserts the chapter writes after it.

score: 10
"""
import sys, time, ctypes, subprocess, warnings, shutil
NB_DIR = Path.cwd()                 # directory of this notebook
CPP_DIR = NB_DIR / "cpp"            # where C++ sources and .so files go
CPP_DIR.mkdir(exist_ok=True)
def short_path(s):
    """Shorten local absolute paths when printing (notebook dir → relative path, virtualenv → <venv>) so no personal directory shows up in the output"""
    return str(s).replace(str(NB_DIR) + "/", "").replace(sys.prefix, "<venv>")

def compile_so(src, out, extra=()):
    cmd = [CXX, "-std=c++17", "-O2", "-shared", "-fPIC", *extra, "-o", str(out), str(src)]
    print("$", short_path(" ".join(cmd)))
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout, r.stderr)
        raise RuntimeError(f"Compilation failed: {src}")
    print("Compiled →", out.name, f"({out.stat().st_size} bytes)")
    return out

CXX = shutil.which("clang++") or shutil.which("g++") or "c++"   # clang++ on macOS; usually g++ on Linux / Colab

# Reference solution: Exercise 3 (C++ part) — SiLU forward / backward FFI kernels, written to cpp/silu.cc
(CPP_DIR / "silu.cc").write_text(r'''// Exercise 3: SiLU forward / backward FFI kernels (elementwise)
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

static ffi::Error SiluImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  const int64_t n = x.element_count();
  const float* xp = x.typed_data();
  float* yp = y->typed_data();
  for (int64_t i = 0; i < n; ++i) yp[i] = xp[i] * Sigmoid(xp[i]);
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
''')
print("Wrote", short_path(CPP_DIR / "silu.cc"))

# Reference solution: Exercise 3 — compile and register the SiLU kernels, custom_vjp + vmap
so_silu = compile_so(CPP_DIR / "silu.cc", CPP_DIR / "libsilu.so", extra=["-I", jax.ffi.include_dir()])
silu_lib = ctypes.cdll.LoadLibrary(str(so_silu))
jax.ffi.register_ffi_target("silu", jax.ffi.pycapsule(silu_lib.Silu), platform="cpu")
jax.ffi.register_ffi_target("silu_bwd", jax.ffi.pycapsule(silu_lib.SiluBwd), platform="cpu")

@jax.custom_vjp
def silu_ffi(x):
    return jax.ffi.ffi_call("silu", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)

silu_ffi.defvjp(
    lambda x: (silu_ffi(x), x),                                          # the residual is just x
    lambda x, g: (jax.ffi.ffi_call("silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                   vmap_method="broadcast_all")(x, g),))

xv = jax.random.normal(jax.random.key(5), (6, 10)) * 3
np.testing.assert_allclose(jax.jit(silu_ffi)(xv), jax.nn.silu(xv), rtol=1e-5, atol=1e-6)
gv = jax.jit(jax.grad(lambda v, w: jnp.sum(silu_ffi(v) * w)))(xv, xv)
np.testing.assert_allclose(gv, jax.grad(lambda v, w: jnp.sum(jax.nn.silu(v) * w))(xv, xv), rtol=1e-4, atol=1e-5)
np.testing.assert_allclose(jax.vmap(jax.grad(lambda v: silu_ffi(v).sum()))(xv),
                           jax.vmap(jax.grad(lambda v: jax.nn.silu(v).sum()))(xv), rtol=1e-4, atol=1e-6)
print("Exercise 3 passed")
