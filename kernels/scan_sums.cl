// scan_sums.cl: pass 2 of the three-pass scans: the per-tile totals of pass 1 turned, in place,
// into their exclusive prefix sums (sums[g] becomes the sum of every tile before g), by one
// work-group. The host builds with -D REAL=float|double|int and launches one work-group of any size
// L with a __local REAL[L] argument.
//
// Work-item t owns the contiguous chunk [t c, (t + 1) c) of the count sums, c = ceil(count / L):
// it adds its chunk up, work-item 0 turns the L chunk totals into their prefix sums, and each
// work-item walks its chunk again writing the running prefix. Few sums (one per tile of pass 1),
// so a simple pass is fast enough.
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
__kernel void scan_sums(const ulong count, __global REAL* sums, __local REAL* chunk_before) {
  const uint t = get_local_id(0);
  const uint size = get_local_size(0);
  const ulong per = (count + size - 1) / size;
  const ulong first = t * per;
  const ulong last = min(first + per, count);
  REAL total = 0;
  for (ulong j = first; j < last; ++j) total += sums[j];
  chunk_before[t] = total;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (t == 0) {
    REAL running = 0;
    for (uint k = 0; k < size; ++k) {
      const REAL value = chunk_before[k];
      chunk_before[k] = running;
      running += value;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  REAL running = chunk_before[t];
  for (ulong j = first; j < last; ++j) {
    const REAL value = sums[j];
    sums[j] = running;
    running += value;
  }
}
