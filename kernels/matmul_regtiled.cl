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
// Any M, N, K >= 1: tiles reaching past the matrices load zeros and store nothing.
// Assumes each work-item copies a whole number of 4-vectors of each slice (the host checks
// TSM*TSK and TSK*TSN are multiples of 4 * RTSM * RTSN). When the host
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

// Each work-item moves LA (of A) and LB (of B) 4-vectors per slice, or LA*4 and LB*4 scalars
// when the sizes are not exact.
#define LA (TSM * TSK / 4 / WGS)
#define LB (TSK * TSN / 4 / WGS)

// The next slice is read from global memory into registers while the current one is used
// (prefetching), then stored into the other half of a double-buffered local array, so one
// barrier per slice suffices and global memory latency hides behind arithmetic.
#if EXACT
#define PREFETCH(k0)                                                      \
  for (int p = 0; p < LA; ++p) {                                          \
    const int l = lid + p * WGS;                                          \
    pa[p] = *(__global const REAL4*)(A + (i0 + l / (TSK / 4)) * K + (k0) + (l % (TSK / 4)) * 4); \
  }                                                                       \
  for (int p = 0; p < LB; ++p) {                                          \
    const int l = lid + p * WGS;                                          \
    pb[p] = *(__global const REAL4*)(B + ((k0) + l / (TSN / 4)) * N + j0 + (l % (TSN / 4)) * 4); \
  }
#define STORE(buf)                                      \
  for (int p = 0; p < LA; ++p) {                        \
    const int l = lid + p * WGS;                        \
    const int r = l / (TSK / 4), c = (l % (TSK / 4)) * 4; \
    ((__local REAL*)As[buf][c + 0])[r] = pa[p].x;       \
    ((__local REAL*)As[buf][c + 1])[r] = pa[p].y;       \
    ((__local REAL*)As[buf][c + 2])[r] = pa[p].z;       \
    ((__local REAL*)As[buf][c + 3])[r] = pa[p].w;       \
  }                                                     \
  for (int p = 0; p < LB; ++p) {                        \
    const int l = lid + p * WGS;                        \
    Bs[buf][l / (TSN / 4)][l % (TSN / 4)] = pb[p];     \
  }
#else
#define PREFETCH(k0)                                                                   \
  for (int p = 0; p < 4 * LA; ++p) {                                                   \
    const int l = lid + p * WGS, r = l / TSK, c = l % TSK;                             \
    pa[p] = (i0 + r < M && (k0) + c < K) ? A[(i0 + r) * K + (k0) + c] : 0;             \
  }                                                                                    \
  for (int p = 0; p < 4 * LB; ++p) {                                                   \
    const int l = lid + p * WGS, r = l / TSN, c = l % TSN;                             \
    pb[p] = ((k0) + r < K && j0 + c < N) ? B[((k0) + r) * N + j0 + c] : 0;             \
  }
#define STORE(buf)                                                   \
  for (int p = 0; p < 4 * LA; ++p) {                                 \
    const int l = lid + p * WGS;                                     \
    ((__local REAL*)As[buf][l % TSK])[l / TSK] = pa[p];              \
  }                                                                  \
  for (int p = 0; p < 4 * LB; ++p) {                                 \
    const int l = lid + p * WGS;                                     \
    ((__local REAL*)Bs[buf][l / TSN])[l % TSN] = pb[p];              \
  }
#endif

__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, 1))) void matmul_regtiled(
    const int M, const int N, const int K, __global const REAL* A, __global const REAL* B,
    __global REAL* C) {
  // Declared as 4-vectors so every vector read is 16-byte aligned (one wide load, not four).
  __local REAL4 As[2][TSK][(TSM + PAD) / 4];  // two slices of A, transposed: As[buf][k][i/4]
  __local REAL4 Bs[2][TSK][TSN / 4];          // two slices of B: Bs[buf][k][j/4]
  const int tj = get_local_id(0);
  const int ti = get_local_id(1);
  const int lid = ti * RTSN + tj;
  const int i0 = get_group_id(1) * TSM;
  const int j0 = get_group_id(0) * TSN;
#if EXACT
  REAL4 pa[LA], pb[LB];  // the prefetched next slice
#else
  REAL pa[4 * LA], pb[4 * LB];
#endif

  REAL4 acc[WPTM][WPTN / 4];
  for (int wm = 0; wm < WPTM; ++wm)
    for (int wn4 = 0; wn4 < WPTN / 4; ++wn4) acc[wm][wn4] = (REAL4)(0);

  PREFETCH(0)
  STORE(0)
  barrier(CLK_LOCAL_MEM_FENCE);  // slice 0 is complete

  for (int k0 = 0, buf = 0; k0 < K; k0 += TSK, buf ^= 1) {
    const bool more = k0 + TSK < K;
    if (more) {
      PREFETCH(k0 + TSK)  // global reads in flight during the arithmetic below
    }

    // WPTM×WPTN multiply-adds per k from WPTM/4 + WPTN/4 vector reads of local memory.
#pragma unroll
    for (int k = 0; k < TSK; ++k) {
      REAL4 a[WPTM / 4];
      REAL4 b[WPTN / 4];
      for (int wm4 = 0; wm4 < WPTM / 4; ++wm4) a[wm4] = As[buf][k][ti + RTSM * wm4];
      for (int wn4 = 0; wn4 < WPTN / 4; ++wn4) b[wn4] = Bs[buf][k][tj + RTSN * wn4];
      for (int wm4 = 0; wm4 < WPTM / 4; ++wm4) {
        for (int wn4 = 0; wn4 < WPTN / 4; ++wn4) {
          acc[4 * wm4 + 0][wn4] += a[wm4].x * b[wn4];
          acc[4 * wm4 + 1][wn4] += a[wm4].y * b[wn4];
          acc[4 * wm4 + 2][wn4] += a[wm4].z * b[wn4];
          acc[4 * wm4 + 3][wn4] += a[wm4].w * b[wn4];
        }
      }
    }

    if (more) {
      STORE(buf ^ 1)  // the other half was last read before the previous barrier
    }
    // One barrier: the next slice is complete before anyone reads it, and nobody stores into
    // this slice's half again until every work-item has passed it.
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  // Store the WPTM×WPTN results.
  for (int wm = 0; wm < WPTM; ++wm) {
    const int i = i0 + 4 * (ti + RTSM * (wm / 4)) + wm % 4;
    for (int wn4 = 0; wn4 < WPTN / 4; ++wn4) {
      const int j = j0 + 4 * (tj + RTSN * wn4);
#if EXACT
      *(__global REAL4*)(C + i * N + j) = acc[wm][wn4];
#else
      if (i < M) {
        const REAL v[4] = {acc[wm][wn4].x, acc[wm][wn4].y, acc[wm][wn4].z, acc[wm][wn4].w};
        for (int c = 0; c < 4 && j + c < N; ++c) C[i * N + j + c] = v[c];
      }
#endif
    }
  }
}
