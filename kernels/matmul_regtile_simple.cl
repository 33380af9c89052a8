// matmul_regtile_simple.cl: C = A·B with register tiling, in its plainest form: tiled's local
// tiles, and several elements of C per work-item instead of one.
// The idea: in tiled, each multiply-add reads two values from local memory, so local memory, not
// arithmetic, sets the pace. Here a work-group computes a BLOCK×BLOCK block of C, and each of its
// work-items computes WPT×WPT elements of that block, keeping their sums in registers (acc). For
// each k it reads WPT values of A and WPT values of B from the tiles in local memory into
// registers, and makes all WPT×WPT multiply-adds with them: every value read is used WPT times.
// The tiles: the group walks K in steps of BLOCK; at each step it copies a BLOCK×BLOCK tile of A
// (rows of its block) and one of B (columns of its block) into local memory, every work-item
// copying WPT×WPT elements of each, waits, multiplies, and waits again (as tiled does).
// Ownership: work-item (ti,tj) owns rows ti + RTS*wm and columns tj + RTS*wn of the block
// (wm, wn < WPT, RTS = BLOCK / WPT work-items along each side), strided rather than side by side,
// so that neighbouring work-items read neighbouring words of B's tile (no bank conflicts) and
// load and store neighbouring elements of A, B and C (coalesced).
// Indices: i0,j0 the block's first row/column; ti,tj the work-item (local ids 1 and 0); t counts
// tiles along K; wm,wn the work-item's element inside its WPT×WPT set.
// Row-major A (M×K), B (K×N), C (M×N); REAL is float, double or int. Any M, N, K >= 1: tile
// elements past the matrices are loaded as 0, and elements of C past them are not stored.
// regtiled (matmul_regtiled.cl) is this idea tuned for speed: see its header for what it adds.
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
#ifndef BLOCK
#define BLOCK 64  // side of the block of C per work-group, and of the tiles of A and B
#endif
#ifndef WPT
#define WPT 4  // side of the set of elements of C per work-item: WPT×WPT in registers
#endif
#define RTS (BLOCK / WPT)  // work-items along each side of the work-group

#if BLOCK % WPT != 0
#error "BLOCK must be a multiple of WPT: every work-item owns WPT x WPT elements of the block"
#endif

__kernel __attribute__((reqd_work_group_size(RTS, RTS, 1))) void matmul_regtile_simple(
    const int M, const int N, const int K, __global const REAL* A, __global const REAL* B,
    __global REAL* C) {
  __local REAL Asub[BLOCK][BLOCK];  // rows i0.. of A, columns t*BLOCK.. (a tile of A)
  __local REAL Bsub[BLOCK][BLOCK];  // rows t*BLOCK.. of B, columns j0.. (a tile of B)
  const int tj = get_local_id(0);
  const int ti = get_local_id(1);
  const int i0 = get_group_id(1) * BLOCK;
  const int j0 = get_group_id(0) * BLOCK;

  // This work-item's elements of C. They stay in registers only where every index into acc, a
  // and b is known when the kernel is compiled: the loops over wm, wn and w are unrolled (the
  // pragmas ask for it; compilers do it anyway for counts this small).
  REAL acc[WPT][WPT];
#pragma unroll
  for (int wm = 0; wm < WPT; ++wm)
#pragma unroll
    for (int wn = 0; wn < WPT; ++wn) acc[wm][wn] = 0;

  const int tiles = (K + BLOCK - 1) / BLOCK;
  for (int t = 0; t < tiles; ++t) {
    // Copy the tiles: each work-item loads WPT×WPT elements of each, 0 past the matrices.
    for (int wm = 0; wm < WPT; ++wm) {
      for (int wn = 0; wn < WPT; ++wn) {
        const int r = ti + RTS * wm;
        const int c = tj + RTS * wn;
        const int ka = t * BLOCK + c;  // column of A
        const int kb = t * BLOCK + r;  // row of B
        Asub[r][c] = (i0 + r < M && ka < K) ? A[(i0 + r) * K + ka] : 0;
        Bsub[r][c] = (kb < K && j0 + c < N) ? B[kb * N + j0 + c] : 0;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // both tiles are complete before anyone reads them

    // For each k: WPT values of A and WPT of B into registers, then WPT×WPT multiply-adds.
    for (int k = 0; k < BLOCK; ++k) {
      REAL a[WPT], b[WPT];
#pragma unroll
      for (int w = 0; w < WPT; ++w) {
        a[w] = Asub[ti + RTS * w][k];
        b[w] = Bsub[k][tj + RTS * w];
      }
#pragma unroll
      for (int wm = 0; wm < WPT; ++wm)
#pragma unroll
        for (int wn = 0; wn < WPT; ++wn) acc[wm][wn] += a[wm] * b[wn];
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // everyone has finished reading before the next copy
  }

  // Store the WPT×WPT results that lie inside C.
#pragma unroll
  for (int wm = 0; wm < WPT; ++wm) {
#pragma unroll
    for (int wn = 0; wn < WPT; ++wn) {
      const int i = i0 + ti + RTS * wm;
      const int j = j0 + tj + RTS * wn;
      if (i < M && j < N) C[i * N + j] = acc[wm][wn];
    }
  }
}
