// matmul_naive_global.cl: C = A·B with one element C(i,j) per work-item, accumulated straight
// into global memory (the Clemson GPGPU lecture's very first attempt: the host loop with i and j
// removed). Indices: i row of C and A, j column of C and B, k runs along a row of A and a column of
// B. Row-major A (M×K), B (K×N), C (M×N); REAL is float, double or int. 2-D NDRange, dimension 0
// along j. Every step of k reads and writes C(i,j) in global memory: compare with matmul_naive.cl,
// which
// keeps the running sum in a private variable and writes C once.
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

__kernel void matmul_naive_global(const int M, const int N, const int K, __global const REAL* A,
                                  __global const REAL* B, __global REAL* C) {
  const int j = get_global_id(0);
  const int i = get_global_id(1);
  if (i < M && j < N) {
    C[i * N + j] = 0;
    for (int k = 0; k < K; ++k) C[i * N + j] += A[i * K + k] * B[k * N + j];
  }
}
