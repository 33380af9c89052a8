// histogram_replicated.cl: for skewed inputs and many bins. Like histogram_local.cl, but the group
// keeps COPIES copies of its histogram in local memory, work-item t counting in copy t % COPIES,
// so work-items hitting the same bin at once mostly hit different counters. The copies of a bin
// sit side by side (counts[bin * COPIES + copy]), so they fall in different banks; the group adds
// them up before one global atomic per bin. No sort, any number of bins that fits local memory.
// The host builds with -D BINS=<bins> -D COPIES=<copies>.
// hist and next_hist: this launch's histogram and the next one's, as in histogram_global.cl.
#ifndef BINS
#define BINS 256  // number of bins
#endif
#ifndef COPIES
#define COPIES 4  // copies of the histogram per work-group
#endif
__kernel void histogram_replicated(const ulong n, __global const uint* keys,
                                   __global uint* hist, __global uint* next_hist) {
  if (get_group_id(0) == 0) {  // zeroes the histogram the next launch counts into
    for (uint b = get_local_id(0); b < BINS; b += get_local_size(0)) next_hist[b] = 0;
  }
  __local uint counts[BINS * COPIES];
  const uint t = get_local_id(0);
  const uint size = get_local_size(0);
  const uint copy = t % COPIES;
  for (uint c = t; c < BINS * COPIES; c += size) counts[c] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);

  const size_t stride = get_global_size(0);
  const ulong quads = n / 4;
  for (size_t q = get_global_id(0); q < quads; q += stride) {
    const uint4 k = vload4(q, keys);
    atomic_inc(&counts[k.x * COPIES + copy]);
    atomic_inc(&counts[k.y * COPIES + copy]);
    atomic_inc(&counts[k.z * COPIES + copy]);
    atomic_inc(&counts[k.w * COPIES + copy]);
  }
  for (size_t i = 4 * quads + get_global_id(0); i < n; i += stride) {
    atomic_inc(&counts[keys[i] * COPIES + copy]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint b = t; b < BINS; b += size) {
    uint total = 0;
    for (uint c = 0; c < COPIES; ++c) total += counts[b * COPIES + c];
    if (total != 0) atomic_add(&hist[b], total);
  }
}
