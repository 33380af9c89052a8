// vector_copy.cl: dst = src, the memory-bandwidth yardstick that vector_add's GB/s are compared
// with. Two shapes, because devices differ in which one copies fastest: the host times both and
// takes the faster as the device's copy bandwidth.
// Indices: i is the float, q the float4 (quad) a work-item owns; n is the length in floats, any
// value >= 1, and padding work-items (i >= n) do nothing.

// One float per work-item.
__kernel void vector_copy(const ulong n, __global const float* src, __global float* dst) {
  const size_t i = get_global_id(0);
  if (i < n) dst[i] = src[i];
}

// Four floats per work-item; the work-item holding the last partial quad copies its 1 to 3
// floats one by one.
__kernel void vector_copy4(const ulong n, __global const float* src, __global float* dst) {
  const size_t q = get_global_id(0);
  const size_t first = 4 * q;
  if (first + 4 <= n) {
    vstore4(vload4(q, src), q, dst);
  } else {
    for (size_t i = first; i < n; ++i) dst[i] = src[i];
  }
}

// Not a copy: reads n float4s of zeros so that what earlier commands wrote is written back to
// memory now and the cache holds only clean lines. The host runs it before each run it times in
// turns with the copy, over a buffer twice the device's cache, when the data do not fit in the
// cache: then neither the copy nor the kernel it is held against pays in its own time for
// written lines the other left behind. The store never happens, but the compiler cannot know
// that, so every load stays.
__kernel void cache_flush(const ulong n, __global const float4* data, __global float* sink) {
  const size_t q = get_global_id(0);
  if (q >= n) return;
  const float4 v = data[q];
  if (v.x + v.y + v.z + v.w != 0.0f) sink[0] = v.x;
}
