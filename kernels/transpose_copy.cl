// transpose_copy.cl: the ceiling for a transpose. B = A (not transposed) with the same 2-D launch
// and the same number of bytes read and written: every read and every write is coalesced, so this
// is as fast as the memory system moves the matrix. Row-major A and B, height x width.
// Indices: i the row, j the column of the element this work-item copies.
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

__kernel void transpose_copy(const int height, const int width, __global const REAL* A,
                             __global REAL* B) {
  const int j = get_global_id(0);
  const int i = get_global_id(1);
  if (i < height && j < width) B[i * width + j] = A[i * width + j];
}
