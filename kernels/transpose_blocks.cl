// transpose_blocks.cl: the transpose shaped for a CPU. No local memory and no barrier: each
// work-item moves BLOCK_ROWS rows x 8 columns of A, 16 rows at a time as two 8 x 8 blocks held
// in registers (sixteen vload8 of rows, two transposes by shuffles, sixteen vstore8 of columns).
// A work-group is STRIPS work-items side by side along A's rows, each on its own strip of A eight
// columns wide, and STRIP of them down (the host sets the shape; the kernel only needs its ids).
// Why it suits a CPU: a work-group runs as a loop on one core, so "local memory" is an ordinary
// cache-resident array and a barrier is a loop split, which costs more than it saves. What
// matters is that every access is a whole vector and that nothing in memory is moved twice.
// Along a group the loads run along 16 rows of A (the prefetchers follow them). The stores go to
// 8 rows of B, and each of the 16-element pieces it writes there is whole 64-byte lines: one
// line by two stores back to back for float or int, two lines by one store each for double.
// With STREAM=1 the stores into B are non-temporal: they go to memory without first reading
// B's lines into the cache (an ordinary store of part of a line reads the whole line first), so
// memory moves two bytes per element byte, not three. A line written whole goes out in one piece.
// Where the compiler lacks the builtin, or a store's address is not aligned to a whole REAL8
// (32 bytes, 64 for double: B's rows are when the height is a multiple of 8), the stores stay
// ordinary: a non-temporal vector store assumes that alignment and faults without it.
// Indices: (i0, j0) the top-left element of A of a 16 x 8 piece; it becomes B's 8 x 16 piece at
// (j0, i0).
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
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 16  // rows of A per work-item: a multiple of 16
#endif
#ifndef STREAM
#define STREAM 0  // 1: non-temporal stores into B (clang's __builtin_nontemporal_store)
#endif
#if BLOCK_ROWS % 16 != 0
#error "BLOCK_ROWS must be a multiple of 16: each work-item moves pieces of 16 rows (two 8 x 8 blocks)"
#endif
#if STREAM != 0 && STREAM != 1
#error "STREAM must be 0 (ordinary stores) or 1 (non-temporal stores into B)"
#endif
#define STREAMING 0
#if STREAM && defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#undef STREAMING
#define STREAMING 1
#endif
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define REAL8 CAT(REAL, 8)

// The 8 x 8 block in r[0..7] (row k in r[k]) transposed in place: r[k] becomes column k. Three
// rounds of 8 shuffles, each of two vectors, which a CPU compiler turns into its two-vector
// shuffle instructions (on x86: unpack low/high, then the 128-bit halves swapped).
void transpose8x8(REAL8* r) {
  // Round 1: pairs of rows interleaved. t[2p] holds columns 0, 1, 4, 5 of rows 2p and 2p+1.
  REAL8 t[8];
  #pragma unroll
  for (int p = 0; p < 4; ++p) {
    const REAL8 a = r[2 * p], b = r[2 * p + 1];
    t[2 * p] = (REAL8)(a.s0, b.s0, a.s1, b.s1, a.s4, b.s4, a.s5, b.s5);
    t[2 * p + 1] = (REAL8)(a.s2, b.s2, a.s3, b.s3, a.s6, b.s6, a.s7, b.s7);
  }
  // Round 2: pairs of pairs. For q < 4, u[q] holds rows 0-3 of column q in its low half and of
  // column q + 4 in its high half; u[q + 4] the same for rows 4-7.
  REAL8 u[8];
  #pragma unroll
  for (int h = 0; h < 2; ++h) {
    #pragma unroll
    for (int q = 0; q < 2; ++q) {
      const REAL8 a = t[4 * h + q], b = t[4 * h + q + 2];
      u[4 * h + 2 * q] = (REAL8)(a.s01, b.s01, a.s45, b.s45);
      u[4 * h + 2 * q + 1] = (REAL8)(a.s23, b.s23, a.s67, b.s67);
    }
  }
  // Round 3: the halves of rows 0-3 and rows 4-7 joined.
  #pragma unroll
  for (int q = 0; q < 4; ++q) {
    r[q] = (REAL8)(u[q].lo, u[q + 4].lo);
    r[q + 4] = (REAL8)(u[q].hi, u[q + 4].hi);
  }
}

// 8 elements into B at p: non-temporal where asked for, possible and aligned to a REAL8.
void store8(const REAL8 v, __global REAL* p) {
#if STREAMING
  if (((size_t)p % sizeof(REAL8)) == 0) {
    __builtin_nontemporal_store(v, (__global REAL8*)p);
    return;
  }
#endif
  vstore8(v, 0, p);
}

__kernel void transpose_blocks(const int height, const int width, __global const REAL* A,
                               __global REAL* B) {
  const int j0 = get_global_id(0) * 8;
  const int first = get_global_id(1) * BLOCK_ROWS;
  if (j0 >= width) return;
  for (int i0 = first; i0 < first + BLOCK_ROWS && i0 < height; i0 += 16) {
    if (i0 + 16 <= height && j0 + 8 <= width) {
      // Rows i0..i0+7 in top, i0+8..i0+15 in bottom: one vector load each
      REAL8 top[8], bottom[8];
      #pragma unroll
      for (int k = 0; k < 8; ++k) {
        top[k] = vload8(0, A + (size_t)(i0 + k) * width + j0);
        bottom[k] = vload8(0, A + (size_t)(i0 + 8 + k) * width + j0);
      }
      transpose8x8(top);
      transpose8x8(bottom);
      // Column c of the piece is 16 elements of row j0 + c of B: top's 8, then bottom's
      #pragma unroll
      for (int c = 0; c < 8; ++c) {
        __global REAL* row = B + (size_t)(j0 + c) * height + i0;
        store8(top[c], row);
        store8(bottom[c], row + 8);
      }
    } else {
      // A piece on the bottom or right edge: element by element, inside the matrix only
      for (int k = 0; k < 16 && i0 + k < height; ++k) {
        for (int c = 0; c < 8 && j0 + c < width; ++c) {
          B[(size_t)(j0 + c) * height + i0 + k] = A[(size_t)(i0 + k) * width + j0 + c];
        }
      }
    }
  }
}
