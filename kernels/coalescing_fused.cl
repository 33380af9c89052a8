// coalescing_fused.cl: the row-scan program with the transposes fused into the kernel. A group of
// L work-items owns L consecutive rows and walks them CHUNK columns at a time: it copies the
// L x CHUNK block of A into local memory together (consecutive work-items read consecutive
// elements of a row: runs of CHUNK), each work-item advances its row's chain over its CHUNK
// elements in local memory, and the group copies the results back the same way.
// Indices: i0 the group's first row; t the work-item's row in the group; jj the block's first
// column; e walks the block's elements (row e / CHUNK, column e % CHUNK).
#ifndef REAL
#define REAL float  // element type: float or int
#endif
#ifndef CHUNK
#define CHUNK 16  // columns per block: each work-item advances its chain CHUNK steps per block
#endif
#ifndef LOCAL
#define LOCAL 64  // work-items per group = rows per block
#endif

__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1))) void coalescing_fused(
    const int height, const int width, __global const REAL* A, __global REAL* B) {
  __local REAL block[LOCAL][CHUNK + 1];  // + 1: a row's elements in different banks
  const int t = get_local_id(0);
  const int i0 = get_group_id(0) * LOCAL;
  REAL accum = 0;
  for (int jj = 0; jj < width; jj += CHUNK) {
    // EXERCISE(fused_load): copy the LOCAL x CHUNK block of A at (i0, jj) into `block`, together
    for (int e = t; e < LOCAL * CHUNK; e += LOCAL) {
      const int r = e / CHUNK, c = e % CHUNK;
      if (i0 + r < height && jj + c < width) block[r][c] = A[(i0 + r) * width + jj + c];
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // the block is loaded before any chain reads it
    // END EXERCISE
    for (int c = 0; c < CHUNK && jj + c < width; ++c) {
      const REAL a = block[t][c];
      accum = a * a - accum;
      block[t][c] = accum;
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // every chain has written its results before they are stored
    for (int e = t; e < LOCAL * CHUNK; e += LOCAL) {
      const int r = e / CHUNK, c = e % CHUNK;
      if (i0 + r < height && jj + c < width) B[(i0 + r) * width + jj + c] = block[r][c];
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // the block is stored before the next one overwrites it
  }
}
