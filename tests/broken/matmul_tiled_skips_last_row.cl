// matmul_tiled_skips_last_row.cl: matmul_tiled whose final store tests i < M - 1, so the last
// row of C is never written. Run after the other variants (--variant all with --kernel-dir), it
// must still fail: C starts from the sentinel before each variant.
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
  const int tiles = (K + TS - 1) / TS;
  for (int t = 0; t < tiles; ++t) {
    const int ka = t * TS + tj;
    const int kb = t * TS + ti;
    Asub[ti][tj] = (i < M && ka < K) ? A[i * K + ka] : 0;
    Bsub[ti][tj] = (kb < K && j < N) ? B[kb * N + j] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TS; ++k) acc += Asub[ti][k] * Bsub[k][tj];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (i < M - 1 && j < N) C[i * N + j] = acc;
}
