// reduction_interleaved.cl: the ArrayMultReduce tree of Bailey's Performing Reductions in OpenCL.
// In step s (offset 1, 2, 4, ...) the work-items whose id has its low bits clear (t & mask == 0,
// mask = 2*offset - 1) add the element `offset` to their right. Half of the remaining work-items
// idle at each step, and the busy ones are scattered (t = 0, 2, 4, ... then 0, 4, 8, ...), so on a
// GPU every warp stays divergent. Indices: i the element this work-item loads; t its place in the
// group (a power of two in size).
#ifndef REAL
#define REAL float  // element type: float, double or int
#endif
#if FP64  // REAL is double: the course notes' guard, so a device without it says so in one line
#if defined(cl_khr_fp64) || defined(__opencl_c_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#else
#error "--dtype double needs double precision (cl_khr_fp64), which this device does not have"
#endif
#endif
#ifndef DOT
#define DOT 0  // 1: reduce x[i] * y[i] (a dot product); 0: reduce x[i] (a sum)
#endif
#if DOT
#define TERM(i) (x[i] * y[i])
#else
#define TERM(i) (x[i])
#endif

__kernel void reduction_interleaved(const ulong n, __global const REAL* x, __global const REAL* y,
                                    __global REAL* partial, __local REAL* scratch) {
  const size_t i = get_global_id(0);
  const uint t = get_local_id(0);
  const uint L = get_local_size(0);  // a power of two (kept in a variable: see the handout)
  scratch[t] = i < n ? TERM(i) : 0;
  for (uint offset = 1; offset < L; offset *= 2) {
    const uint mask = 2 * offset - 1;
    // EXERCISE(interleaved_step): wait; then work-items with (t & mask) == 0 add t + offset
    barrier(CLK_LOCAL_MEM_FENCE);  // the previous step's sums are written before they are read
    if ((t & mask) == 0) scratch[t] += scratch[t + offset];
    // END EXERCISE
  }
  // Work-item 0 made the last addition itself: no barrier needed before it reads the total.
  if (t == 0) partial[get_group_id(0)] = scratch[0];
}
