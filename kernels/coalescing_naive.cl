// coalescing_naive.cl: the row-scan program of Oancea and Henriksen's OpenCL Day 2, one row per
// work-item. For each row i,
//   accum = 0; for j: accum = A[i][j] * A[i][j] - accum; B[i][j] = accum;
// The rows are independent (the outer loop is parallel) but each row is a chain (the inner loop
// carries a dependence on accum), so work-item i walks its row. Neighbouring work-items read
// A[i][j] and A[i+1][j], a whole row apart: no access of a warp is coalesced.
// Indices: i the row of this work-item, j walks it. Row-major A and B, height x width.
#ifndef REAL
#define REAL float  // element type: float or int
#endif

__kernel void coalescing_naive(const int height, const int width, __global const REAL* A,
                               __global REAL* B) {
  const int i = get_global_id(0);
  if (i >= height) return;
  REAL accum = 0;
  for (int j = 0; j < width; ++j) {
    const REAL a = A[i * width + j];
    accum = a * a - accum;
    B[i * width + j] = accum;
  }
}
