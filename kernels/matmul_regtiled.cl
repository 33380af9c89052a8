// matmul_regtiled.cl: C = A·B with register and block tiling. A work-group computes a TSM×TSN
// block of C; each work-item computes WPTM×WPTN elements of it, kept in registers, from TSK-wide
// slices of A and B. Every value brought into registers is used WPTN or WPTM times, which is
// what makes this variant fast.
// The idea is regtile_simple's (matmul_regtile_simple.cl: read that first); this kernel adds,
// for speed:
// - rectangular blocks and sets (TSM×TSN, WPTM×WPTN) and slices of K (TSK) of their own width;
// - vectors: A's slice is stored transposed and read as 4-vectors, B and C as VWN-vectors;
// - double-buffered local memory with the next slice prefetched into registers, one barrier per
//   slice instead of two;
// - an exact build (EXACT=1, or the host's zero-padded copies) without bounds checks, reading and
//   writing global memory in whole vectors;
// - a second shape for CPUs (STAGE=0) that reads A and B through the caches with no local memory.
// Indices: i0,j0 the block's first row/column; ti,tj the work-item (local ids 1 and 0); k0 the
// first column of A (row of B) of the current slice; wm,wn the work-item's element inside its
// WPTM×WPTN set; l walks the elements a work-item loads.
// Row-major A (M×K), B (K×N), C (M×N); REAL is float, double or int, REAL4 its 4-vector.
// Two shapes (STAGE, chosen by the host from the device):
// - STAGE=1, the GPU shape: slices are staged in double-buffered local memory, and ownership is
//   strided by vectors: work-item (ti,tj) owns rows 4*ti + 4*RTSM*wm4 + (0..3) and columns
//   VWN*tj + VWN*RTSN*wn + (0..VWN-1) of the block, so neighbouring work-items read neighbouring
//   vectors of local memory (no bank conflicts) and write neighbouring vectors of C (coalesced).
// - STAGE=0, the CPU shape: no local memory; a work-item owns WPTM consecutive rows and WPTN
//   consecutive columns and reads A and B through the caches, with VWN as wide as the SIMD unit
//   (16 floats for AVX-512) and one work-item per row of the group (TSN = WPTN), so PoCL need not
//   vectorize across work-items. TSK is then the slice of K the group finishes together.
// Any M, N, K >= 1: tiles reaching past the matrices load zeros and store nothing.
// The tunables must fit together; the #error checks below stop the build with a sentence when
// they do not. When the host knows every size is a multiple of its tile (EXACT=1) the bounds
// checks compile away and global memory is read and written with whole vectors.
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
#define TSK 8  // width of the slices of A and B (of K)
#endif
#ifndef WPTM
#define WPTM 8  // rows of C per work-item (multiple of 4)
#endif
#ifndef WPTN
#define WPTN 8  // columns of C per work-item (multiple of 4)
#endif
#ifndef VWN
#define VWN 4  // vector width along j for B, C and the accumulators: 4, 8 or 16
#endif
#ifndef STAGE
#define STAGE 1  // 1: stage slices of A and B in local memory (GPU); 0: read them through caches
#endif
#ifndef EXACT
#define EXACT 0  // 1: M % TSM, N % TSN and K % TSK are all 0
#endif
#define RTSM (TSM / WPTM)  // work-items along i (local size 1)
#define RTSN (TSN / WPTN)  // work-items along j (local size 0)
#define WGS (RTSM * RTSN)  // work-group size

#if WPTM % 4 != 0 || TSK % 4 != 0
#error "WPTM and TSK must be multiples of 4: A is read and kept as 4-vectors"
#endif
#if VWN != 4 && VWN != 8 && VWN != 16
#error "VWN must be 4, 8 or 16"
#endif
#if WPTN % VWN != 0
#error "WPTN must be a multiple of VWN: each work-item keeps whole vectors of a row of C"
#endif
#if TSM % WPTM != 0 || TSN % WPTN != 0
#error "TSM must be a multiple of WPTM and TSN a multiple of WPTN: whole work-items per block"
#endif
#if WPTM * WPTN > 256 || TSK > 256
#error "WPTM x WPTN must be at most 256 accumulators per work-item and TSK at most 256: no device keeps more in registers, and compilers take minutes to unroll them"
#endif
#if STAGE != 0 && STAGE != 1
#error "STAGE must be 0 (read through the caches) or 1 (stage slices in local memory)"
#endif
#if STAGE && ((TSM * TSK) % (4 * WGS) != 0 || (TSK * TSN) % (4 * WGS) != 0)
#error "each work-item copies whole 4-vectors of every slice: TSM*TSK and TSK*TSN must be multiples of 4 * (TSM/WPTM) * (TSN/WPTN); raise TSK"
#endif
#define PAD 4              // keeps As rows 16-byte aligned and spreads their banks
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define REALV XCAT(REAL, VWN)  // e.g. float16: one row piece of B and C
#define VSTOREV XCAT(vstore, VWN)

// Each work-item moves LA (of A) and LB (of B) 4-vectors per slice, or LA*4 and LB*4 scalars
// when the sizes are not exact.
#define LA (TSM * TSK / 4 / WGS)
#define LB (TSK * TSN / 4 / WGS)

// The next slice is read from global memory into registers while the current one is used
// (prefetching), then stored into the other half of a double-buffered local array, so one
// barrier per slice suffices and global memory latency hides behind arithmetic.
#if EXACT
// a_next and b_next walk along K, one slice per pass. When TSK/4 and TSN/4 divide the
// work-group size (the usual case), a work-item's 4-vectors of a slice lie whole rows apart:
// the pointers then start at its first one and the others are fixed offsets, so no address is
// computed again each pass: the integer divisions and multiplications of the general form below
// would otherwise compete with the multiply-adds for the same issue slots.
#if WGS % (TSK / 4) == 0 && WGS % (TSN / 4) == 0
#define A_ROW (lid / (TSK / 4))
#define A_COL ((lid % (TSK / 4)) * 4)
#define B_ROW (lid / (TSN / 4))
#define B_COL ((lid % (TSN / 4)) * 4)
#define A_AT(p) ((p) * (WGS / (TSK / 4)) * K)
#define B_AT(p) ((p) * (WGS / (TSN / 4)) * N)
#else
#define A_ROW 0
#define A_COL 0
#define B_ROW 0
#define B_COL 0
#define A_AT(p) (((lid + (p) * WGS) / (TSK / 4)) * K + ((lid + (p) * WGS) % (TSK / 4)) * 4)
#define B_AT(p) (((lid + (p) * WGS) / (TSN / 4)) * N + ((lid + (p) * WGS) % (TSN / 4)) * 4)
#endif
#define PREFETCH()                                                                      \
  _Pragma("unroll") \
  for (int p = 0; p < LA; ++p) pa[p] = *(__global const REAL4*)(a_next + A_AT(p));      \
  _Pragma("unroll") \
  for (int p = 0; p < LB; ++p) pb[p] = *(__global const REAL4*)(b_next + B_AT(p));
#define STORE(buf)                                      \
  _Pragma("unroll") \
  for (int p = 0; p < LA; ++p) {                        \
    const int l = lid + p * WGS;                        \
    const int r = l / (TSK / 4), c = (l % (TSK / 4)) * 4; \
    ((__local REAL*)As[buf][c + 0])[r] = pa[p].x;       \
    ((__local REAL*)As[buf][c + 1])[r] = pa[p].y;       \
    ((__local REAL*)As[buf][c + 2])[r] = pa[p].z;       \
    ((__local REAL*)As[buf][c + 3])[r] = pa[p].w;       \
  }                                                     \
  _Pragma("unroll") \
  for (int p = 0; p < LB; ++p) {                        \
    const int l = lid + p * WGS;                        \
    ((__local REAL4*)Bs[buf][l / (TSN / 4)])[l % (TSN / 4)] = pb[p]; \
  }
#else
// kn is the first column of A (row of B) of the next slice.
#define PREFETCH()                                                                     \
  _Pragma("unroll") \
  for (int p = 0; p < 4 * LA; ++p) {                                                   \
    const int l = lid + p * WGS, r = l / TSK, c = l % TSK;                             \
    pa[p] = (i0 + r < M && kn + c < K) ? A[(i0 + r) * K + kn + c] : 0;                 \
  }                                                                                    \
  _Pragma("unroll") \
  for (int p = 0; p < 4 * LB; ++p) {                                                   \
    const int l = lid + p * WGS, r = l / TSN, c = l % TSN;                             \
    pb[p] = (kn + r < K && j0 + c < N) ? B[(kn + r) * N + j0 + c] : 0;                 \
  }
#define STORE(buf)                                                   \
  _Pragma("unroll") \
  for (int p = 0; p < 4 * LA; ++p) {                                 \
    const int l = lid + p * WGS;                                     \
    ((__local REAL*)As[buf][l % TSK])[l / TSK] = pa[p];              \
  }                                                                  \
  _Pragma("unroll") \
  for (int p = 0; p < 4 * LB; ++p) {                                 \
    const int l = lid + p * WGS;                                     \
    ((__local REAL*)Bs[buf][l / TSN])[l % TSN] = pb[p];              \
  }
#endif

__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, 1))) void matmul_regtiled(
    const int M, const int N, const int K, __global const REAL* A, __global const REAL* B,
    __global REAL* C) {
  const int tj = get_local_id(0);
  const int ti = get_local_id(1);
  const int i0 = get_group_id(1) * TSM;
  const int j0 = get_group_id(0) * TSN;
  REALV acc[WPTM][WPTN / VWN];
#pragma unroll
  for (int wm = 0; wm < WPTM; ++wm)
#pragma unroll
    for (int wn = 0; wn < WPTN / VWN; ++wn) acc[wm][wn] = (REALV)(0);

#if !STAGE
  // The CPU shape: no local memory and no barrier. On a CPU local memory is ordinary cached
  // memory, and a barrier makes PoCL keep every work-item's accumulators in memory between the
  // loops it runs around each barrier; here they stay in registers. PoCL runs the group's
  // work-items one after another on one core, so the panel of B the first one reads is in cache
  // for the others. Each work-item owns WPTM consecutive rows and WPTN consecutive columns.
  const int ib = i0 + ti * WPTM;
  const int jb = j0 + tj * WPTN;
  for (int k0 = 0; k0 < K; k0 += TSK) {
  const int k_end = min(k0 + TSK, K);
  for (int k = k0; k < k_end; ++k) {
    REALV b[WPTN / VWN];
#pragma unroll
    for (int wn = 0; wn < WPTN / VWN; ++wn) {
      const int j = jb + VWN * wn;
#if EXACT
      b[wn] = *(__global const REALV*)(B + k * N + j);
#else
      REAL v[VWN];
#pragma unroll
      for (int c = 0; c < VWN; ++c) v[c] = j + c < N ? B[k * N + j + c] : 0;
      b[wn] = XCAT(vload, VWN)(0, v);
#endif
    }
    // EXERCISE(acc_cache): add A(ib + wm, k) * b[wn] to every acc[wm][wn] (A is 0 past M)
#pragma unroll
    for (int wm = 0; wm < WPTM; ++wm) {
      const REAL a = (EXACT || ib + wm < M) ? A[(ib + wm) * K + k] : 0;
#pragma unroll
      for (int wn = 0; wn < WPTN / VWN; ++wn) acc[wm][wn] += a * b[wn];
    }
    // END EXERCISE
  }
  // No data is shared through local memory, but the barrier makes PoCL run all work-items of
  // the group through this slice of K before any starts the next: the slice of the panel of B
  // they all read stays in the core's L1/L2 cache.
  barrier(CLK_LOCAL_MEM_FENCE);
  }
#else
  // Declared as 4-vectors so every vector read is 16-byte aligned (one wide load, not four).
  __local REAL4 As[2][TSK][(TSM + PAD) / 4];  // two slices of A, transposed: As[buf][k][i/4]
  __local REALV Bs[2][TSK][TSN / VWN];        // two slices of B: Bs[buf][k][j/VWN]
  const int lid = ti * RTSN + tj;
#if EXACT
  REAL4 pa[LA], pb[LB];  // the prefetched next slice
  __global const REAL* a_next = A + (i0 + A_ROW) * K + A_COL;
  __global const REAL* b_next = B + B_ROW * N + j0 + B_COL;
#else
  REAL pa[4 * LA], pb[4 * LB];
  int kn = 0;
#endif

  PREFETCH()
  STORE(0)
  barrier(CLK_LOCAL_MEM_FENCE);  // slice 0 is complete

  for (int k0 = 0, buf = 0; k0 < K; k0 += TSK, buf ^= 1) {
    // Global reads of the next slice, in flight during the arithmetic below. The last pass
    // reads its own slice again and stores it into the half nobody reads any more: with no
    // branch around them, the compiler spreads these loads and stores among the multiply-adds.
    const bool more = k0 + TSK < K;
#if EXACT
    a_next += more ? TSK : 0;
    b_next += more ? TSK * N : 0;
#else
    kn = more ? k0 + TSK : k0;
#endif
    PREFETCH()

    // WPTM×WPTN multiply-adds per k from WPTM/4 + WPTN/VWN vector reads of local memory.
#pragma unroll
    for (int k = 0; k < TSK; ++k) {
      REAL4 a[WPTM / 4];
      REALV b[WPTN / VWN];
#pragma unroll
      for (int wm4 = 0; wm4 < WPTM / 4; ++wm4) a[wm4] = As[buf][k][ti + RTSM * wm4];
#pragma unroll
      for (int wn = 0; wn < WPTN / VWN; ++wn) b[wn] = Bs[buf][k][tj + RTSN * wn];
      // EXERCISE(acc_local): every acc[wm][wn] += (a[wm / 4], component wm % 4) * b[wn]
#pragma unroll
      for (int wm4 = 0; wm4 < WPTM / 4; ++wm4) {
#pragma unroll
        for (int wn = 0; wn < WPTN / VWN; ++wn) {
          acc[4 * wm4 + 0][wn] += a[wm4].x * b[wn];
          acc[4 * wm4 + 1][wn] += a[wm4].y * b[wn];
          acc[4 * wm4 + 2][wn] += a[wm4].z * b[wn];
          acc[4 * wm4 + 3][wn] += a[wm4].w * b[wn];
        }
      }
      // END EXERCISE
    }

    STORE(buf ^ 1)  // the other half was last read before the previous barrier
    // One barrier: the next slice is complete before anyone reads it, and nobody stores into
    // this slice's half again until every work-item has passed it.
    barrier(CLK_LOCAL_MEM_FENCE);
  }

#endif

  // Store the WPTM×WPTN results.
#pragma unroll
  for (int wm = 0; wm < WPTM; ++wm) {
#if STAGE
    const int i = i0 + 4 * (ti + RTSM * (wm / 4)) + wm % 4;
#else
    const int i = ib + wm;
#endif
#pragma unroll
    for (int wn = 0; wn < WPTN / VWN; ++wn) {
#if STAGE
      const int j = j0 + VWN * (tj + RTSN * wn);
#else
      const int j = jb + VWN * wn;
#endif
#if EXACT
      *(__global REALV*)(C + i * N + j) = acc[wm][wn];
#else
      if (i < M) {
        REAL v[VWN];
        VSTOREV(acc[wm][wn], 0, v);
        for (int c = 0; c < VWN && j + c < N; ++c) C[i * N + j + c] = v[c];
      }
#endif
    }
  }
}
