// events_combine.cl: the consumer of the events lab: c = a + 3 * b (unsigned, wrapping), one
// element per work-item. It reads the outputs of two earlier commands, so it gives the right
// answer only if both had finished before it started: a wait list or a barrier that forgets
// one of them shows up in c as well as in the timestamps.
// Indices: i is the element a work-item owns; padding work-items (i >= n) do nothing.
__kernel void events_combine(const ulong n, __global const uint* a, __global const uint* b,
                             __global uint* c) {
  const size_t i = get_global_id(0);
  if (i < n) c[i] = a[i] + 3u * b[i];
}
