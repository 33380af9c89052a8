// vector_add_out_of_bounds.cl: a deliberately broken vector_add for the Oclgrind tests.
// The bounds check reads i <= n, so the first padding work-item reads a[n], b[n] and writes c[n],
// one element past each buffer. Every real element is still right: the write lands in c's guard
// zone, which the lab checks, and the reads are what Oclgrind's report shows.
__kernel void vector_add(const ulong n, __global const float* a, __global const float* b,
                         __global float* c) {
  const size_t i = get_global_id(0);
  if (i <= n) {
    c[i] = a[i] + b[i];
  }
}
