// reduction_interleaved_strided.cl: the same tree as interleaved, but the busy work-items are the
// first ones (t = 0, 1, 2, ...), each adding element k + s into element k = 2*s*t. Warps no
// longer diverge, but work-item t touches local memory at a stride of 2*s: neighbouring
// work-items hit the same memory bank, and those accesses are served one after another.
// Indices: i the element this work-item loads; t its place in the group; k the element it sums.
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

__kernel void reduction_interleaved_strided(const ulong n, __global const REAL* x,
                                            __global const REAL* y, __global REAL* partial,
                                            __local REAL* scratch) {
  const size_t i = get_global_id(0);
  const uint t = get_local_id(0);
  const uint L = get_local_size(0);  // a power of two (kept in a variable: see the handout)
  scratch[t] = i < n ? TERM(i) : 0;
  for (uint s = 1; s < L; s *= 2) {
    barrier(CLK_LOCAL_MEM_FENCE);  // the previous step's sums are written before they are read
    const uint k = 2 * s * t;
    if (k < L) scratch[k] += scratch[k + s];
  }
  if (t == 0) partial[get_group_id(0)] = scratch[0];  // work-item 0 made the last addition
}
