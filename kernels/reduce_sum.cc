// The grader's sum over axes, as an XLA FFI handler (kernels/reduce_sum.py): while
// reduce_sum_rules is graded, custom_reduce_sum_p lowers to it, so every place an answer
// binds the primitive is a custom_call in the compiled program, with the axes it sums.
//   ReduceSum -> FFI target __grader_reduce_sum__   y = sum of x over the dimensions `axis`
// x may have any rank (0-d and empty arrays too) and be float32 or float64; y has x's
// dimensions but the summed ones, in order, and x's dtype. The sum is accumulated in double.
#include <cstdint>
#include <vector>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

// y = the sum of x (row-major, dimensions `dims`) over the dimensions flagged in `summed`.
// Walks x once, keeping the index of the y element that x's element adds to.
template <typename T>
static void ComputeReduceSum(const std::vector<int64_t>& dims, const std::vector<bool>& summed,
                             const T* x, T* y, int64_t y_count) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> y_stride(rank, 0);   // y's stride along a kept dimension, 0 along a summed one
  int64_t total = 1;
  for (int64_t k = rank - 1, stride = 1; k >= 0; --k) {
    total *= dims[k];
    if (!summed[k]) {
      y_stride[k] = stride;
      stride *= dims[k];
    }
  }
  std::vector<double> sum(y_count, 0.0);
  std::vector<int64_t> index(rank, 0);      // x's multi-index
  for (int64_t i = 0, j = 0; i < total; ++i) {
    sum[j] += static_cast<double>(x[i]);
    for (int64_t k = rank - 1; k >= 0; --k) {   // next multi-index; j follows it
      j += y_stride[k];
      if (++index[k] < dims[k]) break;
      j -= y_stride[k] * dims[k];
      index[k] = 0;
    }
  }
  for (int64_t j = 0; j < y_count; ++j) y[j] = static_cast<T>(sum[j]);
}

// Flags the dimensions `axis` names (distinct dimensions of x, in any order) and checks that
// y has the others' sizes.
static ffi::Error SummedDims(ffi::Span<const int64_t> axis, const std::vector<int64_t>& x_dims,
                             ffi::Span<const int64_t> y_dims, std::vector<bool>* summed) {
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  summed->assign(rank, false);
  for (int64_t a : axis) {
    if (a < 0 || a >= rank || (*summed)[a])
      return ffi::Error::InvalidArgument(
          "__grader_reduce_sum__: axis must name distinct dimensions of the operand");
    (*summed)[a] = true;
  }
  std::vector<int64_t> kept;
  for (int64_t k = 0; k < rank; ++k)
    if (!(*summed)[k]) kept.push_back(x_dims[k]);
  if (kept != std::vector<int64_t>(y_dims.begin(), y_dims.end()))
    return ffi::Error::InvalidArgument(
        "__grader_reduce_sum__: the result must have the operand's dimensions but the summed ones");
  return ffi::Error::Success();
}

template <ffi::DataType T>
static ffi::Error ReduceSumTyped(ffi::Span<const int64_t> axis, ffi::AnyBuffer x,
                                 ffi::Result<ffi::AnyBuffer> y) {
  using Native = ffi::NativeType<T>;
  auto dims = x.dimensions();
  std::vector<int64_t> x_dims(dims.begin(), dims.end());
  std::vector<bool> summed;
  if (ffi::Error error = SummedDims(axis, x_dims, y->dimensions(), &summed); error.failure())
    return error;
  ComputeReduceSum(x_dims, summed, reinterpret_cast<const Native*>(x.untyped_data()),
                   reinterpret_cast<Native*>(y->untyped_data()),
                   static_cast<int64_t>(y->element_count()));
  return ffi::Error::Success();
}

static ffi::Error ReduceSumImpl(ffi::Span<const int64_t> axis, ffi::AnyBuffer x,
                                ffi::Result<ffi::AnyBuffer> y) {
  if (y->element_type() != x.element_type())
    return ffi::Error::InvalidArgument("__grader_reduce_sum__: the result must have the operand's dtype");
  switch (x.element_type()) {
    case ffi::DataType::F32: return ReduceSumTyped<ffi::DataType::F32>(axis, x, y);
    case ffi::DataType::F64: return ReduceSumTyped<ffi::DataType::F64>(axis, x, y);
    default: return ffi::Error::InvalidArgument("__grader_reduce_sum__: the operand must be float32 or float64");
  }
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(ReduceSum, ReduceSumImpl,
                              ffi::Ffi::Bind()
                                  .Attr<ffi::Span<const int64_t>>("axis")  // pass np.asarray(axis, np.int64)
                                  .Arg<ffi::AnyBuffer>()                   // x: float32 or float64
                                  .Ret<ffi::AnyBuffer>());                 // y: x's dtype
