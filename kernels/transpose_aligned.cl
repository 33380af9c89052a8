// transpose_aligned.cl: multi's tile, with every row of B written in pieces that start on a
// multiple of ALIGN elements. When B's rows (height elements long) are not a multiple of ALIGN,
// row k of B starts (k * height) % ALIGN elements past a boundary, so a tile's TILE-wide store
// covers a piece of a memory sector at each end, and the neighbouring tile writes the rest of that
// sector some time later. Partly written sectors are what make an odd-shaped transpose slow on a
// GPU: a sector written in two parts at different times costs the memory system more than one
// written whole, and unaligned writes cost more than unaligned reads (with a height that is a
// multiple of ALIGN, only the reads are unaligned, and the transpose comes much closer to the
// copy kernel). Here each row of B is cut at its own boundaries: the tile's piece of row k is
// shifted left by s = (k * height) % ALIGN, up to ALIGN - 1 columns of B (rows of A) before the
// tile's own; the tile holds ALIGN rows of A above its own (the first is never read: a whole
// number keeps the sizes simple).
// A tile wholly inside A, with all its rows of B inside B, goes without a test per element.
// Indices: id the group's linear id; top, left the tile's first row and column of A; j the
// column of A this work-item reads; r walks tile rows; k a row of B, s its shift.
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
#ifndef TILE
#define TILE 32  // tile side
#endif
#ifndef ROWS
#define ROWS 4  // elements per work-item; the work-group is TILE x (TILE / ROWS)
#endif
#ifndef ALIGN
#define ALIGN 8  // elements between write boundaries: 8 floats make a 32-byte sector
#endif
#if TILE % ROWS != 0
#error "ROWS must divide TILE: each work-item moves ROWS rows of its tile"
#endif
#if ALIGN < 1 || ALIGN > TILE
#error "ALIGN must be between 1 and TILE: a row's piece moves left by less than ALIGN"
#endif
#if TILE % ALIGN != 0
#error "ALIGN must divide TILE: the tiles' pieces then start on multiples of ALIGN"
#endif
#define STEP (TILE / ROWS)  // rows between a work-item's elements, the group's height

__kernel __attribute__((reqd_work_group_size(TILE, STEP, 1))) void transpose_aligned(
    const int height, const int width, __global const REAL* A, __global REAL* B) {
  // Row ALIGN of the tile is row `top` of A; the rows above it feed the shifted pieces.
  __local REAL tile[TILE + ALIGN][TILE + 1];
  const int tj = get_local_id(0), ti = get_local_id(1);
  // Tiles go down A's columns first: a GPU starts work-groups in the order of their linear id
  // (dimension 0 fastest), so the group before this one moved the tile above it (the ALIGN rows
  // this tile reads again are fresh in L2) and wrote the pieces of B's rows just left of its own,
  // so the sectors the two share are still in L2 when this group writes its part of them.
  const int across = get_num_groups(0), down = get_num_groups(1);
  const int id = get_group_id(1) * across + get_group_id(0);
  const int column = id / down;  // of tiles
  const int top = (id - column * down) * TILE, left = column * TILE;
  const int j = left + tj;
  // When height is a multiple of ALIGN no row is shifted, and the rows above are not needed.
  const int first = height % ALIGN == 0 ? ALIGN : 0;
  const bool whole = top >= ALIGN && top + TILE <= height && left + TILE <= width;
  if (whole) {
    for (int r = first + ti; r < TILE + ALIGN; r += STEP) {
      tile[r][tj] = A[(top - ALIGN + r) * width + j];
    }
  } else if (j < width) {
    for (int r = first + ti; r < TILE + ALIGN; r += STEP) {
      const int i = top - ALIGN + r;
      if (i >= 0 && i < height) tile[r][tj] = A[i * width + j];
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int r = 0; r < TILE; r += STEP) {
    const int k = left + ti + r;  // the row of B (a column of A)
    const int s = (k % ALIGN) * (height % ALIGN) % ALIGN;
    const int col = top - s + tj;  // the column of B (a row of A)
    if (whole || (k < width && col >= 0 && col < height)) {
      B[k * height + col] = tile[ALIGN - s + tj][ti + r];
    }
  }
}
