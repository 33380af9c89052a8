// memory_spaces_stencil.cl: a 1-3-5-3-1 stencil, y[i] = sum over k of w[k] * x[i+k-2],
// with its table of weights in three places: a __global buffer, a __constant buffer (read-only,
// the same for every work-item, served by a constant cache on many GPUs), and a __constant array
// at program scope that the compiler knows before the kernel runs.
// Indices: i is the output element (one per work-item); k walks the TAPS weights; j = i + k - 2 is
// the input element, and inputs outside 0..n-1 count as 0. The NDRange is padded to whole
// work-groups, so padding work-items (i >= n) do nothing.
#define TAPS 5

// A program-scope variable must be __constant: every work-item of every kernel sees the same
// values, fixed when the program is built.
__constant float kWeights[TAPS] = {1.0f, 3.0f, 5.0f, 3.0f, 1.0f};

// x[j], or 0 outside the input. It reads a clamped index and zeroes the value rather than
// branching, so a compiler can run neighbouring work-items together in vector registers.
float input(__global const float* x, const ulong n, const long j) {
  const float value = x[clamp(j, 0L, (long)n - 1)];
  return j >= 0 && j < (long)n ? value : 0.0f;
}

__kernel void stencil_global(const ulong n, __global const float* x, __global const float* w,
                             __global float* y) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  float sum = 0.0f;
  for (int k = 0; k < TAPS; ++k) sum += w[k] * input(x, n, (long)i + k - TAPS / 2);
  y[i] = sum;
}

__kernel void stencil_constant(const ulong n, __global const float* x, __constant float* w,
                               __global float* y) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  float sum = 0.0f;
  for (int k = 0; k < TAPS; ++k) sum += w[k] * input(x, n, (long)i + k - TAPS / 2);
  y[i] = sum;
}

__kernel void stencil_program_scope(const ulong n, __global const float* x, __global float* y) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  float sum = 0.0f;
  for (int k = 0; k < TAPS; ++k) sum += kWeights[k] * input(x, n, (long)i + k - TAPS / 2);
  y[i] = sum;
}
