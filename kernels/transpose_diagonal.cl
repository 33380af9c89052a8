// transpose_diagonal.cl: the padded transpose with the work-groups renumbered along diagonals.
// Groups run roughly in the order of their ids; with the usual numbering the groups running at
// the same time read one band of rows of A and write one band of columns of B, and on a GPU whose
// memory is split into partitions by address, those writes can pile onto a few partitions. Here
// group (gx, gy) takes block (bx, by) with bx shifted by the diagonal, so the running groups
// spread over all of B's columns.
// Indices: (bx, by) the block of A this group moves; otherwise as in transpose_padded.cl.
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

__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1))) void transpose_diagonal(
    const int height, const int width, __global const REAL* A, __global REAL* B) {
  __local REAL tile[TILE][TILE + 1];
  // Diagonal block order for any grid: number the groups row by row, then give consecutive
  // numbers consecutive block rows and shift the block column by the block row.
  const int nx = get_num_groups(0), ny = get_num_groups(1);
  const int id = get_group_id(1) * nx + get_group_id(0);
  const int by = id % ny;
  const int bx = (id / ny + by) % nx;
  const int tj = get_local_id(0), ti = get_local_id(1);
  const int j = bx * TILE + tj;
  const int i = by * TILE + ti;
  if (i < height && j < width) tile[ti][tj] = A[i * width + j];
  barrier(CLK_LOCAL_MEM_FENCE);
  const int oi = bx * TILE + ti;
  const int oj = by * TILE + tj;
  if (oi < width && oj < height) B[oi * height + oj] = tile[tj][ti];
}
