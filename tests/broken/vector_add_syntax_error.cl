// vector_add_syntax_error.cl: does not compile (a missing semicolon and an undeclared name), so
// the lab must print the build log and exit 3.
__kernel void vector_add(const ulong n, __global const float* a, __global const float* b,
                         __global float* c) {
  const size_t i = get_global_id(0)
  if (i < n) c[i] = a[i] + undeclared_b[i];
}
