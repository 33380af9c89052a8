// reduction_atomic.cl: one pass, no partial sums. Each work-item adds up its elements privately
// as reduction_multi.cl does (vectors of VW, a grid apart on a GPU or one run each on a CPU as
// ORDER says, then the lanes and the left-overs), each group reduces them as a tree; then
// work-item 0 adds the group's sum to one global total with atomic_add, which makes concurrent
// additions to the same word safe. OpenCL 1.2 has atomic_add for 32-bit integers only: a float
// version needs a compare-and-swap loop, and the order of the additions (so the rounding) would
// change from run to run.
// The host zeroes total[0] before every launch. Indices: v this work-item's vectors; t its place.
#ifndef REAL
#define REAL int  // element type: int (atomic_add has no float form in OpenCL 1.2)
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
#ifndef ORDER
#define ORDER 0  // 0: vectors a grid apart (interleaved, GPU); 1: one run of vectors each (CPU)
#endif
#if ORDER != 0 && ORDER != 1
#error "ORDER must be 0 (interleaved: vectors a grid apart) or 1 (contiguous: one run each)"
#endif
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)  // pastes what a and b expand to: XCAT(REAL, VW) is int4
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

__kernel void reduction_atomic(const ulong n, __global const REAL* x, __global const REAL* y,
                               __global REAL* total, __local REAL* scratch) {
  const uint t = get_local_id(0);
  const uint L = get_local_size(0);  // a power of two (kept in a variable: see the handout)
  const size_t vectors = n / VW;
  REALV acc = 0;
  // This work-item's vectors: first, first + step, ... up to (not including) end. The same
  // share as reduction_multi.cl's, written out again so that each kernel file stands alone.
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
  for (size_t v = first; v < end; v += step) acc += TERMV(v);
  REAL sum = 0;
#if VW == 1
  sum = acc;
#else
  REAL lanes[VW];
  XCAT(vstore, VW)(acc, 0, lanes);
  for (int k = 0; k < VW; ++k) sum += lanes[k];
#endif
  for (size_t i = vectors * VW + get_global_id(0); i < n; i += G) sum += TERM(i);
  scratch[t] = sum;
  for (uint stride = L / 2; stride > 0; stride /= 2) {
    // EXERCISE(sequential_step): wait for the last step; work-items below stride add t + stride
    barrier(CLK_LOCAL_MEM_FENCE);  // every work-item reaches it: it is outside the if
    if (t < stride) scratch[t] += scratch[t + stride];
    // END EXERCISE
  }
  if (t == 0) atomic_add(total, scratch[0]);
}
