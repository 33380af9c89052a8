// transpose_blocks.cl: the transpose shaped for a CPU. No local memory and no barrier: each
// work-item moves BLOCK_ROWS x 8 elements of A as 8 x 8 blocks held in registers (eight vload8 of
// rows, transposed by swizzles, eight vstore8 of columns), and a work-group is STRIPS short
// columns of work-items side by side, going down STRIPS neighbouring strips of A eight columns
// wide (the host sets the shape; the kernel only needs its ids).
// Why it suits a CPU: a work-group runs as a loop on one core, so "local memory" is an ordinary
// cache-resident array and a barrier is a loop split, which costs more than it saves. What
// matters is that every access is a whole vector and that one side of the transpose streams:
// going down the strip, the stores to B run along 8 rows of B (the prefetchers follow them),
// while the loads from A touch 8 new rows per block (a cache line each, no prefetcher
// predicts them). BLOCK_ROWS trades the loads in flight per work-item against work-items. With
// STRIPS of 2 or more, one group reads both 32-byte halves of each 64-byte line of A, one work-item
// right after the other, instead of two groups that may run on different cores.
// With STREAM=1 the stores into B are non-temporal: they go to memory without first reading
// B's lines into the cache (an ordinary store of part of a line reads the whole line first), so
// memory moves two bytes per element byte, not three. Where the compiler lacks the builtin, or
// a store's address is not 32-byte aligned (B's rows are when the height is a multiple of 8),
// the stores stay ordinary.
// Indices: (i0, j0) the block's top-left element of A; it becomes B's block at (j0, i0).
#ifndef REAL
#define REAL float  // element type: float or int
#endif
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 32  // rows of A per work-item: a multiple of 8
#endif
#ifndef STREAM
#define STREAM 0  // 1: non-temporal stores into B (clang's __builtin_nontemporal_store)
#endif
#if BLOCK_ROWS % 8 != 0
#error "BLOCK_ROWS must be a multiple of 8: each work-item moves whole 8 x 8 blocks"
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

__kernel void transpose_blocks(const int height, const int width, __global const REAL* A,
                               __global REAL* B) {
  const int j0 = get_global_id(0) * 8;
  for (int i0 = get_global_id(1) * BLOCK_ROWS; i0 < (get_global_id(1) + 1) * BLOCK_ROWS;
       i0 += 8) {
    if (i0 >= height || j0 >= width) return;
    if (i0 + 8 <= height && j0 + 8 <= width) {
      // Row k of the block, r0..r7: one vector load each
#define LOAD_ROW(k) const REAL8 r##k = vload8(0, A + (size_t)(i0 + k) * width + j0);
      LOAD_ROW(0) LOAD_ROW(1) LOAD_ROW(2) LOAD_ROW(3)
      LOAD_ROW(4) LOAD_ROW(5) LOAD_ROW(6) LOAD_ROW(7)
      // Column c of the block is row c of B's block: component c of every row
#if STREAMING
      // A non-temporal store of 8 elements needs a 32-byte aligned address: others store as usual
#define STORE8(v, p)                                                          \
  if (((size_t)(p) & 31) == 0) __builtin_nontemporal_store(v, (__global REAL8*)(p)); \
  else vstore8(v, 0, p);
#else
#define STORE8(v, p) vstore8(v, 0, p);
#endif
#define STORE_COLUMN(c)                                                                       \
  STORE8(((REAL8)(r0.s##c, r1.s##c, r2.s##c, r3.s##c, r4.s##c, r5.s##c, r6.s##c, r7.s##c)), \
         B + (size_t)(j0 + c) * height + i0)
      STORE_COLUMN(0) STORE_COLUMN(1) STORE_COLUMN(2) STORE_COLUMN(3)
      STORE_COLUMN(4) STORE_COLUMN(5) STORE_COLUMN(6) STORE_COLUMN(7)
    } else {
      // A block on the bottom or right edge: element by element, inside the matrix only
      for (int k = 0; k < 8 && i0 + k < height; ++k) {
        for (int c = 0; c < 8 && j0 + c < width; ++c) {
          B[(size_t)(j0 + c) * height + i0 + k] = A[(size_t)(i0 + k) * width + j0 + c];
        }
      }
    }
  }
}
