// RMSNorm over the last dimension as three XLA FFI handlers (chapter section 5.10):
//   RmsNorm     -> FFI target rms_norm      y = x * s,  s = (mean(x^2) + eps)^(-1/2)
//   RmsNormFwd  -> FFI target rms_norm_fwd  (y, s) with s one scale per row (the residual)
//   RmsNormBwd  -> FFI target rms_norm_bwd  ct_x = s*ct_y - s^3/n * x * sum(x*ct_y)
// Every dimension but the last is treated as a row, so vmap can use broadcast_all.
#include <cmath>
#include <cstdint>
#include <utility>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

// Normalizes one row of length n; returns its scale s.
static float ComputeRmsNorm(float eps, int64_t n, const float* x, float* y) {
  float sum_sq = 0.0f;
  for (int64_t i = 0; i < n; ++i) sum_sq += x[i] * x[i];
  float scale = 1.0f / std::sqrt(sum_sq / float(n) + eps);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * scale;
  return scale;
}

// Cotangent of one row given its scale s.
static void ComputeRmsNormBwd(int64_t n, float scale, const float* x, const float* ct_y,
                              float* ct_x) {
  float dot = 0.0f;
  for (int64_t i = 0; i < n; ++i) dot += x[i] * ct_y[i];
  float f = scale * scale * scale * dot / float(n);
  for (int64_t i = 0; i < n; ++i) ct_x[i] = scale * ct_y[i] - f * x[i];
}

// (total element count, length of the last dimension); (0, 0) for a scalar.
static std::pair<int64_t, int64_t> GetDims(const ffi::Buffer<ffi::F32>& b) {
  auto dims = b.dimensions();
  if (dims.size() == 0) return {0, 0};
  return {b.element_count(), dims.back()};
}

static ffi::Error RmsNormImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  auto [total, last] = GetDims(x);
  if (last == 0) return ffi::Error::InvalidArgument("rms_norm: input must be an array of rank >= 1");
  for (int64_t n = 0; n < total; n += last)
    ComputeRmsNorm(eps, last, &(x.typed_data()[n]), &(y->typed_data()[n]));
  return ffi::Error::Success();
}

static ffi::Error RmsNormFwdImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y,
                                 ffi::ResultBuffer<ffi::F32> res) {
  auto [total, last] = GetDims(x);
  if (last == 0) return ffi::Error::InvalidArgument("rms_norm_fwd: input must be an array of rank >= 1");
  for (int64_t n = 0, row = 0; n < total; n += last, ++row)
    res->typed_data()[row] = ComputeRmsNorm(eps, last, &(x.typed_data()[n]), &(y->typed_data()[n]));
  return ffi::Error::Success();
}

static ffi::Error RmsNormBwdImpl(ffi::Buffer<ffi::F32> res, ffi::Buffer<ffi::F32> x,
                                 ffi::Buffer<ffi::F32> ct_y, ffi::ResultBuffer<ffi::F32> ct_x) {
  auto [total, last] = GetDims(x);
  if (last == 0) return ffi::Error::InvalidArgument("rms_norm_bwd: input must be an array of rank >= 1");
  for (int64_t n = 0, row = 0; n < total; n += last, ++row)
    ComputeRmsNormBwd(last, res.typed_data()[row], &(x.typed_data()[n]), &(ct_y.typed_data()[n]),
                      &(ct_x->typed_data()[n]));
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNorm, RmsNormImpl,
                              ffi::Ffi::Bind()
                                  .Attr<float>("eps")              // pass np.float32(eps)
                                  .Arg<ffi::Buffer<ffi::F32>>()    // x
                                  .Ret<ffi::Buffer<ffi::F32>>());  // y

XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNormFwd, RmsNormFwdImpl,
                              ffi::Ffi::Bind()
                                  .Attr<float>("eps")              // pass np.float32(eps)
                                  .Arg<ffi::Buffer<ffi::F32>>()    // x
                                  .Ret<ffi::Buffer<ffi::F32>>()    // y
                                  .Ret<ffi::Buffer<ffi::F32>>());  // s, shape x.shape[:-1]

XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNormBwd, RmsNormBwdImpl,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::Buffer<ffi::F32>>()    // s from rms_norm_fwd
                                  .Arg<ffi::Buffer<ffi::F32>>()    // x
                                  .Arg<ffi::Buffer<ffi::F32>>()    // ct_y
                                  .Ret<ffi::Buffer<ffi::F32>>());  // ct_x
