// matmul_row_local.cl: one row of C per work-item, the row of A in private memory, and each column
// of B copied once into local memory and shared by the whole work-group (the Clemson GPGPU
// lecture's fifth attempt).
// Indices: i row of C (one per work-item), j column, k along the row; iloc and nloc are the
// work-item's place in its group and the group's size, used to split the copy of column j.
// Row-major A (M×K), B (K×N), C (M×N); REAL is float, double or int. 1-D NDRange over i, padded to
// whole work-groups. Work-items with i >= M have no row, but still help copy and still reach every
// barrier: a barrier must be reached by all work-items of the group or by none.
// Assumes K <= KMAX (the host checks it, and that KMAX values fit in local memory).
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
#ifndef KMAX
#define KMAX 1024  // capacity of the private row of A and of the local column of B
#endif

__kernel void matmul_row_local(const int M, const int N, const int K, __global const REAL* A,
                               __global const REAL* B, __global REAL* C) {
  __local REAL Bwrk[KMAX];
  const int i = get_global_id(0);
  const int iloc = get_local_id(0);
  const int nloc = get_local_size(0);
  const bool has_row = i < M;

  REAL Awrk[KMAX];
  if (has_row) {
    for (int k = 0; k < K; ++k) Awrk[k] = A[i * K + k];
  }
  for (int j = 0; j < N; ++j) {
    // EXERCISE(copy_column): the group copies column j of B into Bwrk; wait until it is whole
    for (int k = iloc; k < K; k += nloc) Bwrk[k] = B[k * N + j];  // copy column j, cyclically
    barrier(CLK_LOCAL_MEM_FENCE);  // the column is complete before anyone reads it
    // END EXERCISE
    if (has_row) {
      REAL acc = 0;
      for (int k = 0; k < K; ++k) acc += Awrk[k] * Bwrk[k];
      C[i * N + j] = acc;
    }
    // EXERCISE(reuse_barrier): nobody overwrites Bwrk until everyone has read this column
    barrier(CLK_LOCAL_MEM_FENCE);  // everyone has read it before the next column overwrites it
    // END EXERCISE
  }
}
