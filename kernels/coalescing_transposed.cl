// coalescing_transposed.cl: the row-scan program on transposed data. The host transposes A into
// At (width x height), this kernel walks "rows" that are now columns: work-item i reads At[j][i]
// and writes Bt[j][i], so at every step neighbouring work-items touch neighbouring addresses
// (coalesced), and the host transposes Bt back into B. Interchanging the loops is legal because
// the dependence is carried by j only: each chain stays in order, in one work-item.
// The loads do not depend on the chain, so CHUNK of them are issued together into registers
// before the chain walks them: with one work-item per row there are few work-items, and each
// must keep several loads in flight to hide the memory's latency. restrict tells the compiler
// that the stores to Bt cannot change At, so it may move the loads ahead of them.
// Indices: i the original row (a column of At); j the chunk's first column; c walks the chunk.
#ifndef REAL
#define REAL float  // element type: float or int
#endif
#ifndef CHUNK
#define CHUNK 16  // loads in flight per work-item
#endif
// Short CHUNK loops are unrolled, so the loads in flight live in registers; long ones are not
// (unrolling them takes the compiler minutes and spills the registers anyway).
#if CHUNK <= 32
#define UNROLL _Pragma("unroll")
#else
#define UNROLL
#endif

__kernel void coalescing_transposed(const int height, const int width,
                                    __global const REAL* restrict At, __global REAL* restrict Bt) {
  const int i = get_global_id(0);
  if (i >= height) return;
  REAL accum = 0;
  int j = 0;
  for (; j + CHUNK <= width; j += CHUNK) {
    REAL a[CHUNK];
UNROLL
    for (int c = 0; c < CHUNK; ++c) a[c] = At[(size_t)(j + c) * height + i];
UNROLL
    for (int c = 0; c < CHUNK; ++c) {
      accum = a[c] * a[c] - accum;
      Bt[(size_t)(j + c) * height + i] = accum;
    }
  }
  for (; j < width; ++j) {  // the last width % CHUNK columns
    const REAL a = At[(size_t)j * height + i];
    accum = a * a - accum;
    Bt[(size_t)j * height + i] = accum;
  }
}
