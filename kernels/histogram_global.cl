// histogram_global.cl: the histogram's first attempt: every element an atomic increment of its bin
// in global memory. hist[b] counts the keys equal to b; the host builds with
// -D BINS=<number of bins>. Any number of work-items: each walks the keys a grid apart, four at
// a time through one uint4 load, so neighbouring work-items read neighbouring memory.
//
// Every increment goes to the device's memory (on a GPU, the L2 cache's atomic units): when
// many work-items hit the same bin at once (a skewed or constant input), they queue there.
//
// Every kernel of the lab takes two histograms, which the host swaps from launch to launch: a
// launch counts into hist, which the launch before it zeroed, and its group 0 zeroes next_hist
// for the launch after. The host zeroes only the first launch's hist, once: a fill before every
// launch would be one more command, and on a GPU a gap before the kernel.
#ifndef BINS
#define BINS 256  // number of bins
#endif
__kernel void histogram_global(const ulong n, __global const uint* keys, __global uint* hist,
                               __global uint* next_hist) {
  if (get_group_id(0) == 0) {  // zeroes the histogram the next launch counts into
    for (uint b = get_local_id(0); b < BINS; b += get_local_size(0)) next_hist[b] = 0;
  }
  const size_t stride = get_global_size(0);
  const ulong quads = n / 4;
  for (size_t q = get_global_id(0); q < quads; q += stride) {
    const uint4 k = vload4(q, keys);
    atomic_inc(&hist[k.x]);
    atomic_inc(&hist[k.y]);
    atomic_inc(&hist[k.z]);
    atomic_inc(&hist[k.w]);
  }
  for (size_t i = 4 * quads + get_global_id(0); i < n; i += stride) {  // the last n % 4 keys
    atomic_inc(&hist[keys[i]]);
  }
}
