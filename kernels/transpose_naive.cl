// transpose_naive.cl: B = transpose(A), the naiveTransp of Oancea and Henriksen's OpenCL Day 2.
// Row-major A (height x width) and B (width x height). Neighbouring work-items (j, j + 1) read
// neighbouring elements of A (coalesced), but write B[j * height + i] and B[(j + 1) * height + i]:
// a whole row of B apart, so every write of a warp goes to a different memory segment
// (uncoalesced). Indices: i the row, j the column of A this work-item moves.
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

__kernel void transpose_naive(const int height, const int width, __global const REAL* A,
                              __global REAL* B) {
  const int j = get_global_id(0);
  const int i = get_global_id(1);
  if (i < height && j < width) B[j * height + i] = A[i * width + j];
}
