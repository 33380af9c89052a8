// scan_hillis_steele.cl: a prefix sum by one work-group, the first step of the scan ladder.
// out[i] = in[0] + ... + in[i] (inclusive) or in[0] + ... + in[i-1] (exclusive, EXCLUSIVE 1).
// The host builds with -D REAL=float|double|int -D EXCLUSIVE=0|1 -D LOCAL=<work-group size, a power
// of two> and launches exactly one work-group of LOCAL work-items. That group walks the array a
// tile of LOCAL elements at a time and carries the running total from one tile to the next.
//
// Within a tile, Hillis and Steele's scan: in step d = 1, 2, 4, ... every work-item t >= d adds
// the value d places to its left. After log2(LOCAL) steps each holds the sum of everything up to
// itself. That is LOCAL * log2(LOCAL) additions where a sequential loop does LOCAL: simple and
// short, but not work-efficient. Two buffers, so that no work-item reads a value another is
// overwriting in the same step.
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
#ifndef EXCLUSIVE
#define EXCLUSIVE 0  // 1: exclusive scan (in[0] + ... + in[i-1]), 0: inclusive
#endif
#ifndef LOCAL
#define LOCAL 64  // work-group size, a power of two
#endif
__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1)))
void scan_hillis_steele(const ulong n, __global const REAL* in, __global REAL* out) {
  __local REAL buffer[2][LOCAL];
  const uint t = get_local_id(0);
  REAL carry = 0;  // the sum of every tile before this one
  for (ulong base = 0; base < n; base += LOCAL) {
    const ulong i = base + t;
    int from = 0;
    buffer[0][t] = i < n ? in[i] : 0;  // past the end: 0 adds nothing
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1; d < LOCAL; d <<= 1) {
      REAL value = buffer[from][t];
      if (t >= d) value += buffer[from][t - d];
      buffer[1 - from][t] = value;
      from = 1 - from;
      barrier(CLK_LOCAL_MEM_FENCE);  // every work-item wrote this step before any reads it
    }
#if EXCLUSIVE
    const REAL before = t > 0 ? buffer[from][t - 1] : 0;
#else
    const REAL before = buffer[from][t];
#endif
    if (i < n) out[i] = carry + before;
    carry += buffer[from][LOCAL - 1];
    barrier(CLK_LOCAL_MEM_FENCE);  // the next tile overwrites the buffers
  }
}
