// tests/student/vector_add.cl: a student's correct vector_add, written differently from the
// suite's (b + a, the bounds check as an early return), for the --kernel-dir tests: the lab must
// build this file, not the suite's, and name it in its report.
__kernel void vector_add(const ulong n, __global const float* a, __global const float* b,
                         __global float* c) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  c[i] = b[i] + a[i];
}

__kernel void vector_add_per_item(const ulong n, __global const float* a, __global const float* b,
                                  __global float* c) {
  for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) c[i] = b[i] + a[i];
}
