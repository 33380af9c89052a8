// reduction_sequential.cl: the Clemson GPGPU lecture's third attempt at a reduction, sequential
// addressing. The stride starts at half the group and halves each step: work-items 0..stride-1 add
// the element `stride` further on. The busy work-items are contiguous and read contiguous local
// memory: no divergence inside a warp until fewer than 32 remain, and no bank conflicts.
// Indices: i the element this work-item loads; t its place in the group (a power of two in size).
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

__kernel void reduction_sequential(const ulong n, __global const REAL* x, __global const REAL* y,
                                   __global REAL* partial, __local REAL* scratch) {
  const size_t i = get_global_id(0);
  const uint t = get_local_id(0);
  const uint L = get_local_size(0);  // a power of two (kept in a variable: see the handout)
  scratch[t] = i < n ? TERM(i) : 0;
  for (uint stride = L / 2; stride > 0; stride /= 2) {
    // EXERCISE(sequential_step): wait for the last step; work-items below stride add t + stride
    barrier(CLK_LOCAL_MEM_FENCE);  // every work-item reaches it: it is outside the if
    if (t < stride) scratch[t] += scratch[t + stride];
    // END EXERCISE
  }
  if (t == 0) partial[get_group_id(0)] = scratch[0];  // work-item 0 made the last addition
}
