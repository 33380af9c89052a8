// vector_copy.cl: dst = src, four floats per work-item; the memory-bandwidth yardstick that
// vector_add's GB/s are compared with.
// Indices: q is the float4 (quad) a work-item owns; n is the length in floats, any value >= 1.
// The last work-item copies the 1 to 3 floats past the last whole quad one by one.
__kernel void vector_copy(const ulong n, __global const float* src, __global float* dst) {
  const size_t q = get_global_id(0);
  const size_t first = 4 * q;
  if (first + 4 <= n) {
    vstore4(vload4(q, src), q, dst);
  } else {
    for (size_t i = first; i < n; ++i) dst[i] = src[i];
  }
}
