// vector_add_extra_argument.cl: a scale factor the host never passes.
__kernel void vector_add(const ulong n, __global const float* a, __global const float* b,
                         __global float* c, const float scale) {
  const size_t i = get_global_id(0);
  if (i < n) c[i] = scale * (a[i] + b[i]);
}
