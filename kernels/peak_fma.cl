// peak_fma.cl: the device's multiply-add throughput in float (FP32) or double (FP64), the
// ceiling a compute-bound kernel (matmul) is measured against (lab/peak.hpp launches it, and
// caches the result).
// Each work-item runs CHAINS independent chains x = fma(x, a, b) on vectors of VW elements,
// repeats x ITERS steps: independent chains hide the FMA unit's latency (a chain's next fma
// waits for its last), vectors fill a CPU's SIMD registers (a GPU runs VW=1: its lanes are
// work-items), and the host launches enough work-items to fill every compute unit. Nothing is
// read from memory; each work-item stores its chains' sum, so that the compiler keeps the work.
// Work: 2 * VW * CHAINS * ITERS * repeats flops per work-item. a and b are arguments, so the
// compiler cannot fold the chains; with a = 0.999 and b = 0.001 every x stays near 1 (no
// infinities or denormals to slow a unit down).
// The store is a vstoreN call (N = VW): a call taking a VW-wide vector is what tells PoCL's
// LLVM that the kernel uses registers that wide; without one it splits each float16 into two
// 256-bit halves on AVX-512, which a core that runs 512-bit FMAs at full rate would feel.
#ifndef REAL
#define REAL float  // element type: float (the FP32 peak) or double (the FP64 peak)
#endif
#if FP64  // REAL is double: the course notes' guard, so a device without it says so in one line
#if defined(cl_khr_fp64) || defined(__opencl_c_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#else
#error "the FP64 peak needs double precision (cl_khr_fp64), which this device does not have"
#endif
#endif
#ifndef VW
#define VW 1  // elements per chain: 1 (a GPU lane) or 2, 4, 8, 16 (a CPU's SIMD register)
#endif
#ifndef CHAINS
#define CHAINS 16  // independent fma chains per work-item
#endif
#ifndef ITERS
#define ITERS 256  // steps of every chain per repeat
#endif

#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#if VW == 1
#define REALV REAL
#define STORE(v, i, out) ((out)[i] = (v))
#elif VW == 2 || VW == 4 || VW == 8 || VW == 16
#define REALV XCAT(REAL, VW)  // e.g. float16
#define STORE(v, i, out) XCAT(vstore, VW)(v, i, out)
#else
#error "VW must be 1, 2, 4, 8 or 16"
#endif
#if CHAINS < 1 || CHAINS > 32
#error "CHAINS must be 1 to 32"
#endif

__kernel void peak_fma(int repeats, REAL a, REAL b, __global REAL* out) {
  const size_t i = get_global_id(0);
  REALV x[CHAINS];
  for (int c = 0; c < CHAINS; ++c) x[c] = (REALV)((REAL)(i % 7) + c);
  for (int r = 0; r < repeats; ++r) {
#pragma unroll 8
    for (int t = 0; t < ITERS; ++t) {
#pragma unroll
      for (int c = 0; c < CHAINS; ++c) x[c] = fma(x[c], a, b);
    }
  }
  REALV sum = x[0];
  for (int c = 1; c < CHAINS; ++c) sum += x[c];
  STORE(sum, i, out);
}
