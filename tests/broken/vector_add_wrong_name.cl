// vector_add_wrong_name.cl: the kernel is right but named as another course spells it.
__kernel void vectorAdd(const ulong n, __global const float* a, __global const float* b,
                        __global float* c) {
  const size_t i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
