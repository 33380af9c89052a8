// matmul_row_private.cl: one row of C per work-item, with that row of A first copied into
// private memory (the Clemson GPGPU lecture's fourth attempt): A is read from global memory once,
// not N times. Indices: i row of C (one per work-item), j column, k along the row; Awrk holds A(i,
// 0..K-1). Row-major A (M×K), B (K×N), C (M×N); REAL is float, double or int. 1-D NDRange over i,
// padded. Assumes K <= KMAX: the private array has a fixed size, and the host checks K before
// launching.
// A large private array does not fit in registers; the compiler places it in (slow) private
// memory backed by global memory on a GPU, and in the stack on a CPU.
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
#define KMAX 1024  // capacity of the private copy of a row of A
#endif

__kernel void matmul_row_private(const int M, const int N, const int K, __global const REAL* A,
                                 __global const REAL* B, __global REAL* C) {
  const int i = get_global_id(0);
  if (i >= M) return;
  REAL Awrk[KMAX];
  for (int k = 0; k < K; ++k) Awrk[k] = A[i * K + k];
  for (int j = 0; j < N; ++j) {
    REAL acc = 0;
    for (int k = 0; k < K; ++k) acc += Awrk[k] * B[k * N + j];
    C[i * N + j] = acc;
  }
}
