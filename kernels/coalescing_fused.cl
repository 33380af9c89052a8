// coalescing_fused.cl: the row-scan program with the transposes fused into the kernel. A group of
// LOCAL work-items owns LOCAL consecutive rows and walks them CHUNK columns at a time: the group
// copies the LOCAL x CHUNK block of A into local memory together (consecutive work-items read
// consecutive elements of a row: runs of CHUNK), each work-item advances its own row's chain
// over the block's CHUNK elements in local memory, and the group copies the results back the
// same way. Each work-item loads its share of the next block into registers before walking the
// current one, so the loads are in flight while the chains advance.
// Indices: i0 the group's first row; t the work-item's row in the group; jj the block's first
// column; k walks the work-item's share: element e = t + k * LOCAL of the block, its row e / CHUNK
// and column e % CHUNK.
#ifndef REAL
#define REAL float  // element type: float or int
#endif
#ifndef CHUNK
#define CHUNK 16  // columns per block: each chain advances CHUNK steps per block
#endif
// Short CHUNK loops are unrolled, so the loads in flight live in registers; long ones are not
// (unrolling them takes the compiler minutes and spills the registers anyway).
#if CHUNK <= 32
#define UNROLL _Pragma("unroll")
#else
#define UNROLL
#endif
#ifndef LOCAL
#define LOCAL 64  // work-items per group = rows per block
#endif

__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1))) void coalescing_fused(
    const int height, const int width, __global const REAL* restrict A,
    __global REAL* restrict B) {
  __local REAL block[LOCAL][CHUNK + 1];  // + 1: a row's elements in different banks
  const int t = get_local_id(0);
  const int i0 = get_group_id(0) * LOCAL;
  REAL share[CHUNK];  // this work-item's CHUNK elements of the next block
UNROLL
  for (int k = 0; k < CHUNK; ++k) {
    const int e = t + k * LOCAL, r = e / CHUNK, c = e % CHUNK;
    share[k] = i0 + r < height && c < width ? A[(size_t)(i0 + r) * width + c] : 0;
  }
  REAL accum = 0;
  for (int jj = 0; jj < width; jj += CHUNK) {
    // EXERCISE(fused_load): put this work-item's share of the block into `block`, wait for the
    // whole group, then start loading the next block's share
UNROLL
    for (int k = 0; k < CHUNK; ++k) {
      const int e = t + k * LOCAL;
      block[e / CHUNK][e % CHUNK] = share[k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // the block is in local memory before any chain reads it
UNROLL
    for (int k = 0; k < CHUNK; ++k) {
      const int e = t + k * LOCAL, r = e / CHUNK, c = jj + CHUNK + e % CHUNK;
      share[k] = i0 + r < height && c < width ? A[(size_t)(i0 + r) * width + c] : 0;
    }
    // END EXERCISE
    for (int c = 0; c < CHUNK && jj + c < width; ++c) {
      const REAL a = block[t][c];
      accum = a * a - accum;
      block[t][c] = accum;
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // every chain has written its results before they are stored
UNROLL
    for (int k = 0; k < CHUNK; ++k) {
      const int e = t + k * LOCAL, r = e / CHUNK, c = e % CHUNK;
      if (i0 + r < height && jj + c < width) B[(size_t)(i0 + r) * width + jj + c] = block[r][c];
    }
    // No barrier here: the next block's share goes into the same elements this work-item has just
    // stored (the same e = t + k * LOCAL), so no other work-item's store can be overwritten.
  }
}
