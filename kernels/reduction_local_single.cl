// reduction_local_single.cl: the Clemson GPGPU lecture's second attempt at a reduction. Every
// work-item copies one element into local memory (the loads are parallel and coalesced), then one
// work-item adds the copy up. Indices: i the element this work-item loads (0 past n); t its place
// in the group.
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

__kernel void reduction_local_single(const ulong n, __global const REAL* x, __global const REAL* y,
                                     __global REAL* partial, __local REAL* scratch) {
  const size_t i = get_global_id(0);
  const uint t = get_local_id(0);
  const uint L = get_local_size(0);
  scratch[t] = i < n ? TERM(i) : 0;
  barrier(CLK_LOCAL_MEM_FENCE);  // the whole copy is in local memory before anyone reads it
  if (t == 0) {
    REAL sum = scratch[0];
    for (uint k = 1; k < L; ++k) sum += scratch[k];
    partial[get_group_id(0)] = sum;
  }
}
