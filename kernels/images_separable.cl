// images_separable.cl: a separable 2-D convolution (the filter is the product of a column of
// weights and a row of weights) as two passes: convolve_rows filters along each row into a
// temporary image, convolve_columns filters it down each column. 2 (2 RADIUS + 1) taps a pixel
// instead of (2 RADIUS + 1)^2. Borders clamped to the edge in each pass.
// Indices: (x, y) the output pixel a work-item owns, x along a row; d a tap's offset, from -RADIUS
// to RADIUS; weights holds the pass's 2 RADIUS + 1 weights.
// The launch is padded to whole work-groups, so every work-item checks its pixel is in the image.
#ifndef RADIUS
#define RADIUS 2  // the filter's radius: 2 RADIUS + 1 taps in each pass
#endif
#if RADIUS < 0
#error "RADIUS is the filter's radius: choose 0 or more"
#endif

// First pass: along the row.
__kernel void convolve_rows(const int height, const int width, __global const float* in,
                            __constant float* weights, __global float* out) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  __global const float* row = in + y * width;
  float sum = 0.0f;
  for (int d = -RADIUS; d <= RADIUS; ++d) sum += weights[d + RADIUS] * row[clamp(x + d, 0, width - 1)];
  out[y * width + x] = sum;
}

// Second pass: down the column.
__kernel void convolve_columns(const int height, const int width, __global const float* in,
                               __constant float* weights, __global float* out) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  float sum = 0.0f;
  for (int d = -RADIUS; d <= RADIUS; ++d) {
    sum += weights[d + RADIUS] * in[clamp(y + d, 0, height - 1) * width + x];
  }
  out[y * width + x] = sum;
}
