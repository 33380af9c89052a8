// transpose_multi.cl: the padded transpose with fewer, busier work-items. A TILE x TILE tile is
// moved by TILE x (TILE / ROWS) work-items, each loading and storing ROWS elements a
// TILE / ROWS-row stride apart: more independent loads in flight per work-item, fewer index
// computations and barriers per element, and a smaller work-group.
// Indices: (i, j) the first element of A this work-item reads; r walks its ROWS elements.
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
#if TILE % ROWS != 0
#error "ROWS must divide TILE: each work-item moves ROWS rows of its tile"
#endif
#define STEP (TILE / ROWS)  // rows between a work-item's elements, the group's height

__kernel __attribute__((reqd_work_group_size(TILE, STEP, 1))) void transpose_multi(
    const int height, const int width, __global const REAL* A, __global REAL* B) {
  __local REAL tile[TILE][TILE + 1];
  const int tj = get_local_id(0), ti = get_local_id(1);
  const int j = get_group_id(0) * TILE + tj;
  const int i = get_group_id(1) * TILE + ti;
  // A tile wholly inside A (every tile but those on the right and bottom edges) is moved
  // without a test per element, so that a work-item's ROWS loads, and its ROWS stores, issue
  // back to back.
  const bool whole =
      (get_group_id(0) + 1) * TILE <= width && (get_group_id(1) + 1) * TILE <= height;
  if (whole) {
    for (int r = 0; r < TILE; r += STEP) tile[ti + r][tj] = A[(i + r) * width + j];
  } else if (j < width) {
    for (int r = 0; r < TILE; r += STEP) {
      if (i + r < height) tile[ti + r][tj] = A[(i + r) * width + j];
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const int oi = get_group_id(0) * TILE + ti;
  const int oj = get_group_id(1) * TILE + tj;
  if (whole) {
    for (int r = 0; r < TILE; r += STEP) B[(oi + r) * height + oj] = tile[tj][ti + r];
  } else if (oj < height) {
    for (int r = 0; r < TILE; r += STEP) {
      if (oi + r < width) B[(oi + r) * height + oj] = tile[tj][ti + r];
    }
  }
}
