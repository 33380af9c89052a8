// matmul_tiled_missing_barrier.cl: a deliberately broken tiled kernel for the test suite.
// The second barrier is gone, so a work-item may load the next tiles while others still read the
// current ones. Oclgrind must report the race. (PoCL happens to compute the right C: it adds
// implicit barriers around loops that contain one, which hides this bug on a CPU.)
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
    Bsub[ti][tj] = (kb < K && j < N) ? B[kb * N + j] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TS; ++k) acc += Asub[ti][k] * Bsub[k][tj];
    // the bug: no barrier here
  }
  if (i < M && j < N) C[i * N + j] = acc;
}
