// matmul_naive_no_bounds_check.cl: matmul_naive without `if (i < M && j < N)`. The launch is
// padded to whole work-groups, so work-items past the last row and column compute and store.
#ifndef REAL
#define REAL float
#endif

__kernel void matmul_naive(const int M, const int N, const int K, __global const REAL* A,
                           __global const REAL* B, __global REAL* C) {
  const int j = get_global_id(0);
  const int i = get_global_id(1);
  REAL acc = 0;
  for (int k = 0; k < K; ++k) acc += A[i * K + k] * B[k * N + j];
  C[i * N + j] = acc;
}
