// The chapter's ctypes example (section 5.10): f(x) = x^2 + 10 over a double array.
// extern "C" keeps the symbol name unmangled so ctypes finds it by name.
extern "C" {
void custom_elementwise_func(const double* input, double* output, int size) {
  for (int i = 0; i < size; ++i) output[i] = input[i] * input[i] + 10.0;
}
}
