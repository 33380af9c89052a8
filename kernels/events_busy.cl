// events_busy.cl: a kernel that keeps the device busy for a time the host chooses, so that the
// events lab has commands long enough for their order to show in the profiling timestamps.
// Indices: i is the element a work-item owns; n is the length, any value >= 1, and padding
// work-items (i >= n) do nothing.
// Each element runs `work` steps of a 32-bit linear congruential generator followed by an
// xorshift, starting from in[i] ^ salt. The arithmetic is unsigned integer, which wraps the
// same way on every device, so the host computes exactly the same values and the check is
// exact. The loop's trip count is a run-time argument: the compiler cannot fold it away, and the
// kernel's run time grows linearly with `work`. `salt` lets one kernel stand for several
// different commands (kernel 1, kernel 2, ...), each with its own expected output.
__kernel void events_busy(const ulong n, const uint work, const uint salt,
                          __global const uint* in, __global uint* out) {
  // EXERCISE(element): i = the element this work-item computes (one per work-item, in order)
  const size_t i = get_global_id(0);
  //| const size_t i = 0;
  // END EXERCISE
  if (i >= n) return;
  uint x = in[i] ^ salt;
  for (uint step = 0; step < work; ++step) {
    x = x * 1664525u + 1013904223u;  // Numerical Recipes' LCG constants
    x ^= x >> 15;                    // mixes the high bits back into the low ones
  }
  // EXERCISE(store): x is this work-item's result: store it where the host reads element i
  out[i] = x;
  // END EXERCISE
}
