// vector_add_no_bounds_check.cl: the classic mistake. Without `if (i < n)`, the padding
// work-items of a launch padded to whole work-groups read and write past the end of the buffers.
__kernel void vector_add(const ulong n, __global const float* a, __global const float* b,
                         __global float* c) {
  const size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
}
