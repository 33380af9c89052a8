// matmul_tiled_wrong_index.cl: a deliberately broken tiled kernel for the test suite.
// The tile of B is stored transposed (Bsub[tj][ti] instead of Bsub[ti][tj]), the row/column mix-up
// of the exercise: every device computes a wrong C, and the lab's reference check must exit 1.
#ifndef REAL
#define REAL float
#endif
#ifndef TS
#define TS 16
#endif

__kernel void matmul_tiled(const int M, const int N, const int K, __global const REAL* A,
                           __global const REAL* B, __global REAL* C) {
  __local REAL Asub[TS][TS];
  __local REAL Bsub[TS][TS];
  const int tj = get_local_id(0);
  const int ti = get_local_id(1);
  const int j = get_group_id(0) * TS + tj;
  const int i = get_group_id(1) * TS + ti;
  REAL acc = 0;
  for (int t = 0; t < (K + TS - 1) / TS; ++t) {
    const int ka = t * TS + tj;
    const int kb = t * TS + ti;
    Asub[ti][tj] = (i < M && ka < K) ? A[i * K + ka] : 0;
    Bsub[tj][ti] = (kb < K && j < N) ? B[kb * N + j] : 0;  // the bug: indices swapped
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TS; ++k) acc += Asub[ti][k] * Bsub[k][tj];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (i < M && j < N) C[i * N + j] = acc;
}
