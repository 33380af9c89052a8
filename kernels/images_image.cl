// images_image.cl: the 2-D convolution reading its input as an image (image2d_t, one float
// channel) through a sampler: CLK_ADDRESS_CLAMP_TO_EDGE does the border, so no index is clamped
// here, and a GPU reads through its texture cache.
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

// Integer coordinates, the nearest pixel, a coordinate past an edge read as the edge pixel.
__constant sampler_t edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

__kernel void convolve_image(const int height, const int width, read_only image2d_t in,
                             __constant float* filter, __global float* out) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  float sum = 0.0f;
  for (int dy = -RADIUS; dy <= RADIUS; ++dy) {
    for (int dx = -RADIUS; dx <= RADIUS; ++dx) {
      sum += filter[(dy + RADIUS) * SIDE + dx + RADIUS] * read_imagef(in, edge, (int2)(x + dx, y + dy)).x;
    }
  }
  out[y * width + x] = sum;
}
