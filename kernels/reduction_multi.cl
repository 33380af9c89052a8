// reduction_multi.cl: fewer work-items than elements. Each work-item first adds up its share of
// the vectors of VW elements in a private vector, with nothing waiting on a barrier. Which
// vectors are its share (ORDER) depends on the device: on a GPU, vectors i, i + G, i + 2G, ... (G
// the global size, in vectors), so in every step neighbouring work-items read neighbouring
// vectors (coalesced); on a CPU, one unbroken run of about 1/G of them, so each core streams
// through its own part of memory (interleaved, the cores would share every cache line). Then the
// lanes are added, the n % VW elements left over are shared out one per work-item, and one
// sequential-addressing tree per group. The host launches a few work-groups per compute unit
// (GROUPS), so each work-item handles about n / (GROUPS * LOCAL) elements. On a CPU, where one
// core runs one work-item's loop, the vectors go into ACCS sums in turn: a vector addition
// takes several cycles, and the next one into the same sum must wait for it.
// Indices: v walks this work-item's vectors, from first to end, step apart; t its place in the
// group; L the group's size.
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
#ifndef VW
#define VW 4  // elements per vector load: 1, 2, 4, 8 or 16
#endif
#if VW != 1 && VW != 2 && VW != 4 && VW != 8 && VW != 16
#error "VW must be 1, 2, 4, 8 or 16: the widths of OpenCL's vector types"
#endif
#ifndef ACCS
#define ACCS 1  // sums each work-item keeps side by side: 1, 2 or 4
#endif
#if ACCS != 1 && ACCS != 2 && ACCS != 4
#error "ACCS must be 1, 2 or 4: the sums each work-item adds its vectors into"
#endif
#ifndef ORDER
#define ORDER 0  // 0: vectors a grid apart (interleaved, GPU); 1: one run of vectors each (CPU)
#endif
#if ORDER != 0 && ORDER != 1
#error "ORDER must be 0 (interleaved: vectors a grid apart) or 1 (contiguous: one run each)"
#endif
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#if VW == 1
#define REALV REAL
#define LOADV(p, v) ((p)[v])
#else
#define REALV XCAT(REAL, VW)
#define LOADV(p, v) XCAT(vload, VW)(v, p)
#endif
#if DOT
#define TERM(i) (x[i] * y[i])
#define TERMV(v) (LOADV(x, v) * LOADV(y, v))
#else
#define TERM(i) (x[i])
#define TERMV(v) LOADV(x, v)
#endif

__kernel void reduction_multi(const ulong n, __global const REAL* x, __global const REAL* y,
                              __global REAL* partial, __local REAL* scratch) {
  const uint t = get_local_id(0);
  const uint L = get_local_size(0);  // a power of two (kept in a variable: see the handout)
  const size_t vectors = n / VW;
  REALV acc = 0;
  // This work-item's vectors: first, first + step, ... up to (not including) end.
  const size_t G = get_global_size(0);
#if ORDER
  const size_t per = (vectors + G - 1) / G;  // the last work-items may get fewer, or none
  const size_t first = min(get_global_id(0) * per, vectors);
  const size_t end = min(first + per, vectors);
  const size_t step = 1;
#else
  const size_t first = get_global_id(0);
  const size_t end = vectors;
  const size_t step = G;
#endif
  // EXERCISE(multi_accumulate): add the vectors first, first + step, ... below end into acc
  // The vectors, in that order, go into ACCS sums in turn: each addition waits only for the one
  // ACCS steps back, so a CPU core can start the next before the last has finished.
  REALV part[ACCS];
#pragma unroll
  for (int a = 0; a < ACCS; ++a) part[a] = 0;
  size_t v = first;
  for (; v + (ACCS - 1) * step < end; v += ACCS * step) {
#pragma unroll
    for (int a = 0; a < ACCS; ++a) part[a] += TERMV(v + a * step);
  }
  for (; v < end; v += step) acc += TERMV(v);  // fewer than ACCS left
#pragma unroll
  for (int a = 0; a < ACCS; ++a) acc += part[a];
  // END EXERCISE
#if VW == 1
  REAL sum = acc;
#else
  REAL lanes[VW];
  XCAT(vstore, VW)(acc, 0, lanes);
  REAL sum = 0;
  for (int k = 0; k < VW; ++k) sum += lanes[k];
#endif
  // The elements past the last whole vector (fewer than VW), shared out the same way.
  for (size_t i = vectors * VW + get_global_id(0); i < n; i += get_global_size(0)) sum += TERM(i);
  scratch[t] = sum;
  for (uint stride = L / 2; stride > 0; stride /= 2) {
    // EXERCISE(sequential_step): wait for the last step; work-items below stride add t + stride
    barrier(CLK_LOCAL_MEM_FENCE);  // every work-item reaches it: it is outside the if
    if (t < stride) scratch[t] += scratch[t + stride];
    // END EXERCISE
  }
  if (t == 0) partial[get_group_id(0)] = scratch[0];
}
