// matmul_row.cl: C = A·B with one whole row of C per work-item (the Clemson GPGPU lecture's third
// attempt). Indices: i row of C (one per work-item), j column of C, k along the row of A.
// Row-major A (M×K), B (K×N), C (M×N); REAL is float, double or int. 1-D NDRange over i, padded to
// whole work-groups: items with i >= M return at once (there are no barriers to miss).
// Each work-item reads its row of A N times from global memory and walks down every column of B.
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

__kernel void matmul_row(const int M, const int N, const int K, __global const REAL* A,
                         __global const REAL* B, __global REAL* C) {
  const int i = get_global_id(0);
  if (i >= M) return;
  for (int j = 0; j < N; ++j) {
    REAL acc = 0;
    for (int k = 0; k < K; ++k) acc += A[i * K + k] * B[k * N + j];
    C[i * N + j] = acc;
  }
}
