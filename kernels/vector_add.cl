// vector_add.cl: c = a + b, element by element, for vectors of any length n.
// Indices: i is the element a work-item owns; n is the true length of the vectors.
// The host may launch more work-items than elements (the global size is padded up to a multiple
// of the local size), so every kernel checks i < n before touching memory.

// One element per work-item: the Clemson GPGPU lecture's arrayAddOCL.
__kernel void vector_add(const ulong n, __global const float* a, __global const float* b,
                         __global float* c) {
  // EXERCISE(add): c[i] = a[i] + b[i] for this work-item's element i, but only if i < n
  const size_t i = get_global_id(0);
  if (i < n) {  // padding work-items do nothing
    c[i] = a[i] + b[i];
  }
  // END EXERCISE
}

// Fewer work-items than elements: each one handles elements i, i + G, i + 2G, ... where G is the
// global size. Neighbouring work-items still touch neighbouring elements in every step, the
// order GPUs read memory fastest in (coalesced).
__kernel void vector_add_per_item(const ulong n, __global const float* a, __global const float* b,
                                  __global float* c) {
  const size_t stride = get_global_size(0);
  for (size_t i = get_global_id(0); i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}

// VW consecutive elements per work-item as one vector load of a, one of b and one vector store
// (VW = 2, 4, 8 or 16): fewer, wider memory instructions. Buffers start aligned to at least 128
// bytes (CL_DEVICE_MEM_BASE_ADDR_ALIGN), so element i * VW of a float array is a whole floatVW.
// The work-item whose vector would run past n adds the last n % VW elements one at a time.
#ifndef VW
#define VW 4  // elements per work-item: 2, 4, 8 or 16
#endif
#if VW != 2 && VW != 4 && VW != 8 && VW != 16
#error "VW must be 2, 4, 8 or 16: the widths of OpenCL's float vectors"
#endif
#define VW_CAT_(a, b) a##b
#define VW_CAT(a, b) VW_CAT_(a, b)
#define FLOATVW VW_CAT(float, VW)

__kernel void vector_add_vector(const ulong n, __global const float* a, __global const float* b,
                                __global float* c) {
  const size_t v = get_global_id(0);  // this work-item's vector: elements v * VW ...
  if ((v + 1) * VW <= n) {
    ((__global FLOATVW*)c)[v] = ((__global const FLOATVW*)a)[v] + ((__global const FLOATVW*)b)[v];
  } else {
    for (size_t i = v * VW; i < n; ++i) c[i] = a[i] + b[i];  // the tail (no-op past it)
  }
}
