// matmul_naive.cl: C = A·B with one element C(i,j) per work-item (the Clemson GPGPU lecture's first
// attempt). Indices: i row of C and A, j column of C and B, k runs along a row of A and a column of
// B. Matrices are row-major: A is M×K, B is K×N, C is M×N. REAL is float, double or int (set by the
// host). 2-D NDRange: dimension 0 is j, so neighbouring work-items read neighbouring B(k,j)
// (coalesced);
// dimension 1 is i. The global size is padded to whole work-groups: items outside C do nothing.
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

__kernel void matmul_naive(const int M, const int N, const int K, __global const REAL* A,
                           __global const REAL* B, __global REAL* C) {
  const int j = get_global_id(0);
  const int i = get_global_id(1);
  if (i < M && j < N) {
    REAL acc = 0;  // a private accumulator instead of K updates of C in global memory
    for (int k = 0; k < K; ++k) acc += A[i * K + k] * B[k * N + j];
    C[i * N + j] = acc;
  }
}
