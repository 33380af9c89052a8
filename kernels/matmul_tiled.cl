// matmul_tiled.cl: C = A·B with TS×TS tiles of A and B staged in local memory (block tiling:
// strip-mine i, j and k by TS, then interchange so the tile loop t is outermost in a work-group).
// Indices: i,j global row/column of C; ti,tj the work-item's row/column inside the tile (its
// local ids); t counts tiles along K.
// Row-major A (M×K), B (K×N), C (M×N); REAL is float, double or int. The work-group is TS×TS,
// dimension 0 along j. Sizes need not be multiples of TS: out-of-range tile elements are loaded as
// 0, and
// work-items outside C still load and reach both barriers, then store nothing.
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
#ifndef TS
#define TS 16  // tile side: the work-group is TS×TS work-items
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
    // EXERCISE(load_tiles): each work-item loads one element of tile t of A and of B; wait
    // Each work-item loads one element of each tile: A(i, t*TS+tj) and B(t*TS+ti, j).
    const int ka = t * TS + tj;
    const int kb = t * TS + ti;
    Asub[ti][tj] = (i < M && ka < K) ? A[i * K + ka] : 0;
    Bsub[ti][tj] = (kb < K && j < N) ? B[kb * N + j] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);  // 1: both tiles are complete before anyone reads them
    // END EXERCISE

    // EXERCISE(tile_product): add row ti of Asub times column tj of Bsub to acc; wait
    for (int k = 0; k < TS; ++k) acc += Asub[ti][k] * Bsub[k][tj];
    barrier(CLK_LOCAL_MEM_FENCE);  // 2: everyone has finished reading before the next load
    // END EXERCISE
  }
  if (i < M && j < N) C[i * N + j] = acc;
}
