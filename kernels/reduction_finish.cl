// reduction_finish.cl: the device's finish of a reduction: one work-group adds up the per-group
// partial sums the first pass wrote (each work-item a strided share, then a tree), and writes the
// total to result[0]. The host launches exactly one group of a power-of-two size.
// Indices: k walks this work-item's partial sums; t its place in the group.
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

__kernel void reduction_finish(const ulong count, __global const REAL* partial,
                               __global REAL* result, __local REAL* scratch) {
  const uint t = get_local_id(0);
  const uint L = get_local_size(0);  // a power of two (kept in a variable: see the handout)
  REAL sum = 0;
  for (size_t k = t; k < count; k += L) sum += partial[k];
  scratch[t] = sum;
  for (uint stride = L / 2; stride > 0; stride /= 2) {
    // EXERCISE(sequential_step): wait for the last step; work-items below stride add t + stride
    barrier(CLK_LOCAL_MEM_FENCE);  // every work-item reaches it: it is outside the if
    if (t < stride) scratch[t] += scratch[t + stride];
    // END EXERCISE
  }
  if (t == 0) result[0] = scratch[0];
}
