// vector_add_int_size.cl: n declared as int, while the host passes a 64-bit ulong.
__kernel void vector_add(const int n, __global const float* a, __global const float* b,
                         __global float* c) {
  const int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
