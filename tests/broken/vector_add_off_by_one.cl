// vector_add_off_by_one.cl: a deliberately broken vector_add for the test suite.
// The bound is one short (i < n - 1), so the last element of c is never written: the lab's
// element-by-element check must report it and exit 1.
__kernel void vector_add(const ulong n, __global const float* a, __global const float* b,
                         __global float* c) {
  const size_t i = get_global_id(0);
  if (i < n - 1) {
    c[i] = a[i] + b[i];
  }
}

__kernel void vector_add_per_item(const ulong n, __global const float* a, __global const float* b,
                                  __global float* c) {
  const size_t stride = get_global_size(0);
  for (size_t i = get_global_id(0); i < n - 1; i += stride) {
    c[i] = a[i] + b[i];
  }
}
