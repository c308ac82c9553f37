// The grader's poison: an FFI handler that takes any operands and attributes and fills
// every result with values no honest computation produces, so a test can prove that an
// output depends on a kernel (retarget the kernel's custom_call here: the output must change).
#include <cstdint>
#include <cstring>
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

// Entry i of every poisoned float buffer: +-(1 + k/2^23), k a hash of i ^ salt; exact in
// float32 (and float64), so the grader can recompute the whole set. Two salts, two handlers:
// where an honest value happens to equal its poison value (about 1 in 2^24 of the values in
// [1, 2)), the executor poisons again with the other (autograder/shared/poison.py).
static float PoisonValue(uint32_t i, uint32_t salt) {
  uint32_t h = (i ^ salt) * 2654435761u + 0x9e3779b9u;
  h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13;
  float v = 1.0f + float(h >> 9) * (1.0f / 8388608.0f);
  return (h & 1u) ? -v : v;
}

template <uint32_t Salt>
static ffi::Error PoisonImpl(ffi::RemainingArgs, ffi::RemainingRets rets, ffi::Dictionary) {
  for (size_t r = 0; r < rets.size(); ++r) {
    auto buf = rets.get<ffi::AnyBuffer>(r);
    if (!buf.has_value()) return ffi::Error::Internal("poison: result is not a buffer");
    ffi::AnyBuffer out = **buf;
    size_t n = out.element_count();
    switch (out.element_type()) {
      case ffi::DataType::F32: {
        float* p = reinterpret_cast<float*>(out.untyped_data());
        for (size_t i = 0; i < n; ++i) p[i] = PoisonValue(uint32_t(i), Salt);
        break;
      }
      case ffi::DataType::F64: {
        double* p = reinterpret_cast<double*>(out.untyped_data());
        for (size_t i = 0; i < n; ++i) p[i] = double(PoisonValue(uint32_t(i), Salt));
        break;
      }
      default:
        std::memset(out.untyped_data(), Salt ? 0xa5 : 0x5a, out.size_bytes());
    }
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(Poison, PoisonImpl<0u>,
    ffi::Ffi::Bind().RemainingArgs().RemainingRets().Attrs<ffi::Dictionary>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(PoisonAgain, PoisonImpl<0x5bd1e995u>,
    ffi::Ffi::Bind().RemainingArgs().RemainingRets().Attrs<ffi::Dictionary>());
