// histogram_private.cl: for few bins, counters of each work-item's own. A work-item counts its
// keys in a private array (no atomics at all: nobody else touches it), the group adds the
// work-items' arrays in local memory, and the group's totals go to global memory.
// The host builds with -D BINS=<number of bins, at most 64: a private array lives in registers,
// or spills to slow memory>.
// hist and next_hist: this launch's histogram and the next one's, as in histogram_global.cl.
#ifndef BINS
#define BINS 64  // number of bins (at most 64: each work-item keeps them all)
#endif
__kernel void histogram_private(const ulong n, __global const uint* keys, __global uint* hist,
                                __global uint* next_hist) {
  if (get_group_id(0) == 0) {  // zeroes the histogram the next launch counts into
    for (uint b = get_local_id(0); b < BINS; b += get_local_size(0)) next_hist[b] = 0;
  }
  __local uint counts[BINS];
  uint mine[BINS];
  const uint t = get_local_id(0);
  const uint size = get_local_size(0);
  for (uint b = 0; b < BINS; ++b) mine[b] = 0;
  for (uint b = t; b < BINS; b += size) counts[b] = 0;

  const size_t stride = get_global_size(0);
  const ulong quads = n / 4;
  for (size_t q = get_global_id(0); q < quads; q += stride) {
    const uint4 k = vload4(q, keys);
    ++mine[k.x];
    ++mine[k.y];
    ++mine[k.z];
    ++mine[k.w];
  }
  for (size_t i = 4 * quads + get_global_id(0); i < n; i += stride) ++mine[keys[i]];
  barrier(CLK_LOCAL_MEM_FENCE);  // the group's bins are zero before anyone adds to them
  for (uint b = 0; b < BINS; ++b) {
    if (mine[b] != 0) atomic_add(&counts[b], mine[b]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // EXERCISE(merge): add the group's counts to the global histogram, each bin by one work-item
  for (uint b = t; b < BINS; b += size) {
    if (counts[b] != 0) atomic_add(&hist[b], counts[b]);
  }
  // END EXERCISE
}
