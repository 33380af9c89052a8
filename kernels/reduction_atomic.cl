// reduction_atomic.cl: one pass, no partial sums. Like multi, each work-item adds up its elements
// privately and each group reduces them as a tree; then work-item 0 adds the group's sum to one
// global total with atomic_add, which makes concurrent additions to the same word safe. OpenCL 1.2
// has atomic_add for 32-bit integers only: a float version needs a compare-and-swap loop, and the
// order of the additions (so the rounding) would change from run to run.
// The host zeroes total[0] before every launch. Indices: i this work-item's elements; t its place.
#ifndef REAL
#define REAL float  // element type: float or int
#endif
#ifndef DOT
#define DOT 0  // 1: reduce x[i] * y[i] (a dot product); 0: reduce x[i] (a sum)
#endif
#if DOT
#define TERM(i) (x[i] * y[i])
#else
#define TERM(i) (x[i])
#endif

__kernel void reduction_atomic(const ulong n, __global const REAL* x, __global const REAL* y,
                               __global REAL* total, __local REAL* scratch) {
  const uint t = get_local_id(0);
  const uint L = get_local_size(0);  // a power of two (kept in a variable: see the handout)
  REAL sum = 0;
  for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) sum += TERM(i);
  scratch[t] = sum;
  for (uint stride = L / 2; stride > 0; stride /= 2) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t < stride) scratch[t] += scratch[t + stride];
  }
  if (t == 0) atomic_add(total, scratch[0]);
}
