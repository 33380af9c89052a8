// buffer_flags.cl: the small kernels buffer_flags runs to show what each buffer flag lets the
// host see. Integer arithmetic, so the host can check every element exactly.
// Indices: i is the element a work-item owns; n the true length (the global size may be padded).

// dst = 2 * src + 1: reads a buffer the host made, writes one it reads back.
__kernel void scale(const ulong n, __global const int* src, __global int* dst) {
  // EXERCISE(scale): dst[i] = 2 * src[i] + 1 for this work-item's element i, but only if i < n
  const size_t i = get_global_id(0);
  if (i < n) dst[i] = 2 * src[i] + 1;
  // END EXERCISE
}

// dst[i] = 7 i + 3: writes every element without reading anything, so whatever the host sees in
// dst afterwards came from the device.
__kernel void fill(const ulong n, __global int* dst) {
  const size_t i = get_global_id(0);
  if (i < n) dst[i] = (int)(7 * i + 3);
}

// c = a + b: the vectorAdd-nofetchC kernel of Liu's Intermediate OpenCL Programming.
__kernel void add(const ulong n, __global const int* a, __global const int* b, __global int* c) {
  const size_t i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
