// transpose_padded.cl: the coalesced transpose with one unused column in the tile: TILE x (TILE+1).
// Reading tile[tj][ti] walks down a column of the tile; with TILE columns the elements of a column
// are TILE words apart and (for TILE a multiple of the bank count) all fall in the same local
// memory bank, so a warp's reads are served one after another. One more column shifts each row by
// one bank, and a column's elements land in different banks.
// Indices as in transpose_coalesced.cl.
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
#define TILE 16  // tile side: the work-group is TILE x TILE
#endif

__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1))) void transpose_padded(
    const int height, const int width, __global const REAL* A, __global REAL* B) {
  __local REAL tile[TILE][TILE + 1];  // the padding column: no bank conflicts reading columns
  const int tj = get_local_id(0), ti = get_local_id(1);
  const int j = get_group_id(0) * TILE + tj;
  const int i = get_group_id(1) * TILE + ti;
  // EXERCISE(tile_in_out): load A(i, j) into the tile, wait, then write the transposed element
  if (i < height && j < width) tile[ti][tj] = A[i * width + j];
  barrier(CLK_LOCAL_MEM_FENCE);  // the whole tile is loaded before anyone reads it transposed
  // The block goes to the transposed place: row (group 0) * TILE of B, column (group 1) * TILE.
  const int oi = get_group_id(0) * TILE + ti;  // a row of B = a column of A
  const int oj = get_group_id(1) * TILE + tj;  // a column of B = a row of A
  if (oi < width && oj < height) B[oi * height + oj] = tile[tj][ti];
  // END EXERCISE
}
