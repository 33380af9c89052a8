// histogram_local.cl: privatization. Each work-group counts its keys in a histogram of its own in
// local memory (fast atomics, shared by the group's work-items only), then adds its counts to the
// global histogram: one global atomic per bin per group instead of one per element.
// The host builds with -D BINS=<number of bins>; a work-group of any size walks the keys a grid
// apart, four at a time.
// hist and next_hist: this launch's histogram and the next one's, as in histogram_global.cl.
#ifndef BINS
#define BINS 256  // number of bins
#endif
__kernel void histogram_local(const ulong n, __global const uint* keys, __global uint* hist,
                              __global uint* next_hist) {
  if (get_group_id(0) == 0) {  // zeroes the histogram the next launch counts into
    for (uint b = get_local_id(0); b < BINS; b += get_local_size(0)) next_hist[b] = 0;
  }
  __local uint counts[BINS];
  const uint t = get_local_id(0);
  const uint size = get_local_size(0);
  for (uint b = t; b < BINS; b += size) counts[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);  // every bin is zero before any work-item counts

  const size_t stride = get_global_size(0);
  const ulong quads = n / 4;
  for (size_t q = get_global_id(0); q < quads; q += stride) {
    const uint4 k = vload4(q, keys);
    atomic_inc(&counts[k.x]);
    atomic_inc(&counts[k.y]);
    atomic_inc(&counts[k.z]);
    atomic_inc(&counts[k.w]);
  }
  for (size_t i = 4 * quads + get_global_id(0); i < n; i += stride) atomic_inc(&counts[keys[i]]);
  barrier(CLK_LOCAL_MEM_FENCE);  // every work-item has counted before the group's totals are read

  // EXERCISE(merge): add the group's counts to the global histogram, each bin by one work-item
  for (uint b = t; b < BINS; b += size) {
    if (counts[b] != 0) atomic_add(&hist[b], counts[b]);
  }
  // END EXERCISE
}
