// memory_spaces_private.cl: a private array of PRIVATE_SIZE floats per work-item (-D
// PRIVATE_SIZE=..), every element of it needed at once. Small arrays live in registers; past the
// registers a GPU's compiler spills them to slow per-work-item memory, and a CPU keeps them on
// the stack of the thread that runs the work-group.
// Indices: i the work-item and its output; p walks its array. Work-item i takes inputs i,
// i + items, i + 2 items, ... (neighbouring work-items read neighbouring floats), and inputs at
// or past n count as 0. out[i] = v[0] v[P-1] + v[1] v[P-2] + ... + v[P-1] v[0]. The NDRange is
// padded to whole work-groups; padding work-items (i >= items) do nothing.
#ifndef PRIVATE_SIZE
#define PRIVATE_SIZE 16  // floats in each work-item's private array
#endif
__kernel void private_pairs(const ulong n, const ulong items, __global const float* x,
                            __global float* out) {
  const size_t i = get_global_id(0);
  if (i >= items) return;
  float v[PRIVATE_SIZE];
  for (int p = 0; p < PRIVATE_SIZE; ++p) {
    const size_t at = i + (size_t)p * items;
    v[p] = at < n ? x[at] : 0.0f;
  }
  float sum = 0.0f;
  for (int p = 0; p < PRIVATE_SIZE; ++p) sum += v[p] * v[PRIVATE_SIZE - 1 - p];
  out[i] = sum;
}
