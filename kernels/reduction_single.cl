// reduction_single.cl: the Clemson GPGPU lecture's first attempt at a reduction. One work-item of
// each work-group adds up the group's elements by itself while the others stay idle; the host (or a
// second pass) adds the per-group partial sums.
// Indices: first is the group's first element; i walks the group's elements; n the length.
// The last group may reach past n: the loop stops at n.
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

__kernel void reduction_single(const ulong n, __global const REAL* x, __global const REAL* y,
                               __global REAL* partial) {
  if (get_local_id(0) == 0) {  // every other work-item of the group does nothing
    const size_t first = get_group_id(0) * get_local_size(0);
    const size_t end = min((size_t)n, first + get_local_size(0));
    REAL sum = 0;
    for (size_t i = first; i < end; ++i) sum += TERM(i);
    partial[get_group_id(0)] = sum;
  }
}
