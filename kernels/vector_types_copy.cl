// vector_types_copy.cl: dst = src, VW floats per work-item through one floatVW load and store
// (the Clemson GPGPU lecture's Copy1 and Copy4, for every width OpenCL C has). The host builds it
// once per width and compares their bandwidth: wider accesses mean fewer, larger memory
// transactions and fewer work-items, which helps devices that issue one access per instruction and
// not ones that already merge neighbouring work-items' accesses.
// On a CPU a plain store first reads the cache line it writes (write-allocate), so a copy moves 12
// bytes for every 8 it copies; -D STREAM=1 writes with non-temporal stores instead (clang's
// __builtin_nontemporal_store, which PoCL and Oclgrind compile), as memcpy does for large copies.
// Indices: q is the vector a work-item owns, elements q*VW .. q*VW + VW-1; n is the length in
// floats, any value >= 1, and n / VW vectors are whole. Work-item n / VW copies the 0 to VW-1
// floats left after them one by one; padding work-items (q > n / VW) do nothing. Comparing q with
// n / VW, which the compiler computes once, keeps a whole vector's path to one compare: on a CPU,
// where a work-item is one iteration of a loop, each extra instruction there costs bandwidth.
#ifndef VW
#define VW 4  // vector width: 1, 2, 4, 8 or 16 floats per work-item
#endif

#ifndef STREAM
#define STREAM 0  // 1: non-temporal stores that bypass the cache (clang-based compilers only)
#endif

#if VW == 1
#define VTYPE float
#elif VW == 2 || VW == 4 || VW == 8 || VW == 16
#define VCAT(a, b) a##b
#define VNAME(a, b) VCAT(a, b)
#define VTYPE VNAME(float, VW)  // float2 ... float16
#else
#error VW must be 1, 2, 4, 8 or 16: OpenCL C has no other float vector (float3 is stored as 4)
#endif

__kernel void copy_vw(const ulong n, __global const float* src, __global float* dst) {
  const size_t q = get_global_id(0);
  const size_t whole = n / VW;
  if (q < whole) {
    // Buffers start aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN, so vector q is aligned too.
    const VTYPE value = ((__global const VTYPE*)src)[q];
#if STREAM
    __builtin_nontemporal_store(value, &((__global VTYPE*)dst)[q]);
#else
    ((__global VTYPE*)dst)[q] = value;
#endif
  } else if (q == whole) {
    // EXERCISE(tail): this work-item copies the n % VW floats after the last whole vector, one by
    // one
    for (size_t i = whole * VW; i < n; ++i) dst[i] = src[i];
    // END EXERCISE
  }
}
