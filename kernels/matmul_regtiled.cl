// matmul_regtiled.cl: C = A·B with register and block tiling. A work-group computes a TSM×TSN
// block of C; each work-item computes WPTM×WPTN elements of it, kept in registers, from TSK-wide
// slices of A and B staged in local memory. Every value read from local memory is used WPTN or
// WPTM times from registers, which is what makes this variant fast.
// Indices: i0,j0 the block's first row/column; ti,tj the work-item (local ids 1 and 0); k0 the
// first column of A (row of B) of the current slice; wm,wn the work-item's element inside its
// WPTM×WPTN set; l walks the elements a work-item loads.
// Row-major A (M×K), B (K×N), C (M×N); REAL is float or int, REAL4 its 4-vector.
// Ownership is strided by 4-vectors: work-item (ti,tj) owns rows 4*ti + 4*RTSM*wm4 + (0..3) and
// columns 4*tj + 4*RTSN*wn4 + (0..3) of the block, so a warp reads consecutive 16-byte vectors
// from local memory (no bank conflicts) and writes consecutive vectors of C (coalesced).
// Any M, N, K >= 1: tiles reaching past the matrices load zeros and store nothing. When the host
// knows every size is a multiple of its tile (EXACT=1) the bounds checks compile away and global
// memory is read and written with 4-vectors.
#ifndef REAL
#define REAL float  // element type: float or int
#endif
#ifndef REAL4
#define REAL4 float4  // 4-vector of REAL
#endif
#ifndef TSM
#define TSM 128  // rows of C per work-group
#endif
#ifndef TSN
#define TSN 128  // columns of C per work-group
#endif
#ifndef TSK
#define TSK 16  // width of the slices of A and B in local memory
#endif
#ifndef WPTM
#define WPTM 8  // rows of C per work-item (multiple of 4)
#endif
#ifndef WPTN
#define WPTN 8  // columns of C per work-item (multiple of 4)
#endif
#ifndef EXACT
#define EXACT 0  // 1: M % TSM, N % TSN and K % TSK are all 0
#endif
#define RTSM (TSM / WPTM)  // work-items along i (local size 1)
#define RTSN (TSN / WPTN)  // work-items along j (local size 0)
#define WGS (RTSM * RTSN)  // work-group size
#define PAD 4              // keeps As rows 16-byte aligned and spreads their banks

__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, 1))) void matmul_regtiled(
    const int M, const int N, const int K, __global const REAL* A, __global const REAL* B,
    __global REAL* C) {
  __local REAL As[TSK][TSM + PAD];  // the slice of A, transposed: As[k][i]
  __local REAL Bs[TSK][TSN];        // the slice of B: Bs[k][j]
  const int tj = get_local_id(0);
  const int ti = get_local_id(1);
  const int lid = ti * RTSN + tj;
  const int i0 = get_group_id(1) * TSM;
  const int j0 = get_group_id(0) * TSN;

  REAL4 acc[WPTM][WPTN / 4];
  for (int wm = 0; wm < WPTM; ++wm)
    for (int wn4 = 0; wn4 < WPTN / 4; ++wn4) acc[wm][wn4] = (REAL4)(0);

  for (int k0 = 0; k0 < K; k0 += TSK) {
    // Load the slices: every work-item copies its share, consecutive work-items consecutive
    // elements of a row (coalesced reads).
#if EXACT
    for (int l = lid; l < TSM * TSK / 4; l += WGS) {
      const int r = l / (TSK / 4);
      const int c = (l % (TSK / 4)) * 4;
      const REAL4 v = vload4(0, A + (i0 + r) * K + k0 + c);
      As[c + 0][r] = v.x;
      As[c + 1][r] = v.y;
      As[c + 2][r] = v.z;
      As[c + 3][r] = v.w;
    }
    for (int l = lid; l < TSK * TSN / 4; l += WGS) {
      const int r = l / (TSN / 4);
      const int c = (l % (TSN / 4)) * 4;
      vstore4(vload4(0, B + (k0 + r) * N + j0 + c), 0, &Bs[r][c]);
    }
#else
    for (int l = lid; l < TSM * TSK; l += WGS) {
      const int r = l / TSK;
      const int c = l % TSK;
      As[c][r] = (i0 + r < M && k0 + c < K) ? A[(i0 + r) * K + k0 + c] : 0;
    }
    for (int l = lid; l < TSK * TSN; l += WGS) {
      const int r = l / TSN;
      const int c = l % TSN;
      Bs[r][c] = (k0 + r < K && j0 + c < N) ? B[(k0 + r) * N + j0 + c] : 0;
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);  // the slices are complete

    // WPTM×WPTN multiply-adds per k from WPTM/4 + WPTN/4 vector reads of local memory.
#pragma unroll
    for (int k = 0; k < TSK; ++k) {
      REAL4 a[WPTM / 4];
      REAL4 b[WPTN / 4];
      for (int wm4 = 0; wm4 < WPTM / 4; ++wm4) a[wm4] = vload4(0, &As[k][4 * (ti + RTSM * wm4)]);
      for (int wn4 = 0; wn4 < WPTN / 4; ++wn4) b[wn4] = vload4(0, &Bs[k][4 * (tj + RTSN * wn4)]);
      for (int wm4 = 0; wm4 < WPTM / 4; ++wm4) {
        for (int wn4 = 0; wn4 < WPTN / 4; ++wn4) {
          acc[4 * wm4 + 0][wn4] += a[wm4].x * b[wn4];
          acc[4 * wm4 + 1][wn4] += a[wm4].y * b[wn4];
          acc[4 * wm4 + 2][wn4] += a[wm4].z * b[wn4];
          acc[4 * wm4 + 3][wn4] += a[wm4].w * b[wn4];
        }
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // everyone is done with the slices before they are replaced
  }

  // Store the WPTM×WPTN results.
  for (int wm = 0; wm < WPTM; ++wm) {
    const int i = i0 + 4 * (ti + RTSM * (wm / 4)) + wm % 4;
    for (int wn4 = 0; wn4 < WPTN / 4; ++wn4) {
      const int j = j0 + 4 * (tj + RTSN * wn4);
#if EXACT
      vstore4(acc[wm][wn4], 0, C + i * N + j);
#else
      if (i < M) {
        const REAL v[4] = {acc[wm][wn4].x, acc[wm][wn4].y, acc[wm][wn4].z, acc[wm][wn4].w};
        for (int c = 0; c < 4 && j + c < N; ++c) C[i * N + j + c] = v[c];
      }
#endif
    }
  }
}
