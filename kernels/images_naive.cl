// images_naive.cl: a 2-D convolution out = filter * in, every tap read from global memory (the
// image and the filter both), borders clamped to the edge.
// Indices: (x, y) the output pixel a work-item owns, x along a row; (dx, dy) a tap's offset, from
// -RADIUS to RADIUS; the filter is (2 RADIUS + 1)^2 weights, row by row.
// The launch is padded to whole work-groups, so every work-item checks its pixel is in the image.
#ifndef RADIUS
#define RADIUS 2  // the filter's radius: (2 RADIUS + 1) x (2 RADIUS + 1) taps
#endif
#if RADIUS < 0
#error "RADIUS is the filter's radius: choose 0 or more"
#endif
#define SIDE (2 * RADIUS + 1)

__kernel void convolve_naive(const int height, const int width, __global const float* in,
                             __global const float* filter, __global float* out) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  float sum = 0.0f;
  for (int dy = -RADIUS; dy <= RADIUS; ++dy) {
    const int row = clamp(y + dy, 0, height - 1) * width;  // the edge row, past the top or bottom
    for (int dx = -RADIUS; dx <= RADIUS; ++dx) {
      sum += filter[(dy + RADIUS) * SIDE + dx + RADIUS] * in[row + clamp(x + dx, 0, width - 1)];
    }
  }
  out[y * width + x] = sum;
}
