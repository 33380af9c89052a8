// images_constant.cl: the 2-D convolution with the filter in __constant memory, which every
// work-item of a group reads at the same address at the same time (a broadcast on a GPU).
// Tuned for a CPU beside naive's plain form, it adds two things. Each work-item owns a run of
// PIXELS (64) pixels along a row, summed as four float16 (vload16, vstore16: four SIMD registers
// of AVX-512 on a CPU), four independent chains of additions, so one tap's multiply-add need not
// wait for the last one's. And the clamp is paid only at the border: a run whose (2 RADIUS + 1)^2
// taps all lie inside the image takes the interior path with no clamp at all, and only the runs
// within RADIUS of an edge (and a last, shorter run) take the border path, pixel by pixel as
// naive does.
// Indices: (x0, y) the first pixel of a work-item's run, x along a row; (dx, dy) a tap's offset,
// from -RADIUS to RADIUS; the filter is (2 RADIUS + 1)^2 weights, row by row.
// The launch is padded to whole work-groups, so every work-item checks its run is in the image.
#ifndef RADIUS
#define RADIUS 2  // the filter's radius: (2 RADIUS + 1) x (2 RADIUS + 1) taps
#endif
#ifndef PIXELS
#define PIXELS 64  // pixels a work-item owns along a row: four float16
#endif
#if RADIUS < 0
#error "RADIUS is the filter's radius: choose 0 or more"
#endif
#if PIXELS != 64
#error "PIXELS is the run of pixels in four float16: 64"
#endif
#define SIDE (2 * RADIUS + 1)

__kernel void convolve_constant(const int height, const int width, __global const float* in,
                                __constant float* filter, __global float* out) {
  const int x0 = (int)get_global_id(0) * PIXELS, y = get_global_id(1);
  if (x0 >= width || y >= height) return;
  if (x0 >= RADIUS && x0 + PIXELS + RADIUS <= width && y >= RADIUS && y + RADIUS < height) {
    // Interior: every tap of the run lies inside the image
    float16 s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    for (int dy = -RADIUS; dy <= RADIUS; ++dy) {
      __global const float* row = in + (y + dy) * width + x0;
      for (int dx = -RADIUS; dx <= RADIUS; ++dx) {
        const float w = filter[(dy + RADIUS) * SIDE + dx + RADIUS];
        s0 += w * vload16(0, row + dx);  // pixels x0 to x0 + 15
        s1 += w * vload16(1, row + dx);  // x0 + 16 to x0 + 31, and so on
        s2 += w * vload16(2, row + dx);
        s3 += w * vload16(3, row + dx);
      }
    }
    __global float* dst = out + y * width + x0;
    vstore16(s0, 0, dst);
    vstore16(s1, 1, dst);
    vstore16(s2, 2, dst);
    vstore16(s3, 3, dst);
  } else {
    // Border: pixel by pixel, each tap's row and column clamped to the image
    for (int x = x0; x < min(x0 + PIXELS, width); ++x) {
      float sum = 0.0f;
      for (int dy = -RADIUS; dy <= RADIUS; ++dy) {
        const int row = clamp(y + dy, 0, height - 1) * width;  // the edge row, past the top or bottom
        for (int dx = -RADIUS; dx <= RADIUS; ++dx) {
          sum += filter[(dy + RADIUS) * SIDE + dx + RADIUS] * in[row + clamp(x + dx, 0, width - 1)];
        }
      }
      out[y * width + x] = sum;
    }
  }
}
