// transpose_coalesced.cl: B = transpose(A) through a TILE x TILE tile in local memory (Oancea and
// Henriksen's OpenCL Day 2: coalsTransp). A work-group reads a tile of A row by row (coalesced),
// waits, then writes the transposed tile to B row by row (coalesced): transposing a blocked matrix
// is moving each block to its transposed place and transposing the block itself.
// Indices: (i, j) the element of A this work-item reads; (ti, tj) its place in the tile; (oi, oj)
// the element of B it writes. Sizes need not be multiples of TILE: out-of-range work-items load
// nothing and store nothing, but every work-item reaches the barrier.
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

__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1))) void transpose_coalesced(
    const int height, const int width, __global const REAL* A, __global REAL* B) {
  __local REAL tile[TILE][TILE];
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
