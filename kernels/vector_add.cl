// vector_add.cl: c = a + b, element by element, for vectors of any length n.
// Indices: i is the element a work-item owns; n is the true length of the vectors.
// The host may launch more work-items than elements (the global size is padded up to a multiple
// of the local size), so every kernel checks i < n before touching memory.
// REAL is the element type: float unless the host builds with -D REAL=double (--dtype double),
// which also passes -D FP64=1 for the course notes' guard below.
#ifndef REAL
#define REAL float  // element type: float or double
#endif
#if FP64  // REAL is double: the course notes' guard, so a device without it says so in one line
#if defined(cl_khr_fp64) || defined(__opencl_c_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#else
#error "--dtype double needs double precision (cl_khr_fp64), which this device does not have"
#endif
#endif

// One element per work-item: the Clemson GPGPU lecture's arrayAddOCL.
__kernel void vector_add(const ulong n, __global const REAL* a, __global const REAL* b,
                         __global REAL* c) {
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
__kernel void vector_add_per_item(const ulong n, __global const REAL* a, __global const REAL* b,
                                  __global REAL* c) {
  const size_t stride = get_global_size(0);
  for (size_t i = get_global_id(0); i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}

// VW consecutive elements per work-item as one vector load of a, one of b and one vector store
// (VW = 2, 4, 8 or 16): fewer, wider memory instructions. Buffers start aligned to at least 128
// bytes (CL_DEVICE_MEM_BASE_ADDR_ALIGN), so element i * VW of a REAL array is a whole REALVW.
// The work-item whose vector would run past n adds the last n % VW elements one at a time.
#ifndef VW
#define VW 4  // elements per work-item: 2, 4, 8 or 16
#endif
#if VW != 2 && VW != 4 && VW != 8 && VW != 16
#error "VW must be 2, 4, 8 or 16: the widths of OpenCL's float and double vectors"
#endif
#define VW_CAT_(a, b) a##b
#define VW_CAT(a, b) VW_CAT_(a, b)
#define REALVW VW_CAT(REAL, VW)  // e.g. float4

__kernel void vector_add_vector(const ulong n, __global const REAL* a, __global const REAL* b,
                                __global REAL* c) {
  const size_t v = get_global_id(0);  // this work-item's vector: elements v * VW ...
  if ((v + 1) * VW <= n) {
    ((__global REALVW*)c)[v] = ((__global const REALVW*)a)[v] + ((__global const REALVW*)b)[v];
  } else {
    for (size_t i = v * VW; i < n; ++i) c[i] = a[i] + b[i];  // the tail (no-op past it)
  }
}
