// vector_add.cl: c = a + b, element by element, for vectors of any length n.
// Indices: i is the element a work-item owns; n is the true length of the vectors.
// The host may launch more work-items than elements (the global size is padded up to a multiple
// of the local size), so every kernel checks i < n before touching memory.

// One element per work-item: the lecture's arrayAddOCL.
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
