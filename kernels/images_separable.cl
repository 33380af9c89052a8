// images_separable.cl: a separable 2-D convolution (the filter is the product of a column of
// weights and a row of weights) as two passes: convolve_rows filters along each row into a
// temporary image, convolve_columns filters it down each column. 2 (2 RADIUS + 1) taps a pixel
// instead of (2 RADIUS + 1)^2. Borders clamped to the edge in each pass.
// Tuned for a CPU beside naive's plain form, it adds two things. Each work-item owns a run of
// PIXELS (64) pixels along a row, summed as four float16 (vload16, vstore16: four SIMD registers
// of AVX-512 on a CPU), four independent chains of additions, so one tap's multiply-add need not
// wait for the last one's. And the clamp is paid only at the border: a run whose taps all lie
// inside the image takes the interior path with no clamp at all, and only the runs within RADIUS
// of an edge (and a last, shorter run) take the border path, pixel by pixel.
// Indices: (x0, y) the first pixel of a work-item's run, x along a row; d a tap's offset, from
// -RADIUS to RADIUS; weights holds the pass's 2 RADIUS + 1 weights.
// The launch is padded to whole work-groups, so every work-item checks its run is in the image.
#ifndef RADIUS
#define RADIUS 2  // the filter's radius: 2 RADIUS + 1 taps in each pass
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

// First pass: along the row.
__kernel void convolve_rows(const int height, const int width, __global const float* in,
                            __constant float* weights, __global float* out) {
  const int x0 = (int)get_global_id(0) * PIXELS, y = get_global_id(1);
  if (x0 >= width || y >= height) return;
  __global const float* row = in + y * width;
  __global float* dst = out + y * width;
  if (x0 >= RADIUS && x0 + PIXELS + RADIUS <= width) {
    // Interior: every tap of the run lies inside the row
    float16 s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    for (int d = -RADIUS; d <= RADIUS; ++d) {
      const float w = weights[d + RADIUS];
      __global const float* at = row + x0 + d;
      s0 += w * vload16(0, at);  // pixels x0 to x0 + 15
      s1 += w * vload16(1, at);  // x0 + 16 to x0 + 31, and so on
      s2 += w * vload16(2, at);
      s3 += w * vload16(3, at);
    }
    vstore16(s0, 0, dst + x0);
    vstore16(s1, 1, dst + x0);
    vstore16(s2, 2, dst + x0);
    vstore16(s3, 3, dst + x0);
  } else {
    // Border: pixel by pixel, each tap's column clamped to the row
    for (int x = x0; x < min(x0 + PIXELS, width); ++x) {
      float sum = 0.0f;
      for (int d = -RADIUS; d <= RADIUS; ++d) sum += weights[d + RADIUS] * row[clamp(x + d, 0, width - 1)];
      dst[x] = sum;
    }
  }
}

// Second pass: down the column. A tap's row is clamped once for the whole run (one index, not
// sixty-four), so only a last run shorter than PIXELS needs the pixel-by-pixel path.
__kernel void convolve_columns(const int height, const int width, __global const float* in,
                               __constant float* weights, __global float* out) {
  const int x0 = (int)get_global_id(0) * PIXELS, y = get_global_id(1);
  if (x0 >= width || y >= height) return;
  if (x0 + PIXELS <= width) {
    float16 s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    for (int d = -RADIUS; d <= RADIUS; ++d) {
      const float w = weights[d + RADIUS];
      __global const float* at = in + clamp(y + d, 0, height - 1) * width + x0;
      s0 += w * vload16(0, at);
      s1 += w * vload16(1, at);
      s2 += w * vload16(2, at);
      s3 += w * vload16(3, at);
    }
    __global float* dst = out + y * width + x0;
    vstore16(s0, 0, dst);
    vstore16(s1, 1, dst);
    vstore16(s2, 2, dst);
    vstore16(s3, 3, dst);
  } else {
    for (int x = x0; x < width; ++x) {
      float sum = 0.0f;
      for (int d = -RADIUS; d <= RADIUS; ++d) {
        sum += weights[d + RADIUS] * in[clamp(y + d, 0, height - 1) * width + x];
      }
      out[y * width + x] = sum;
    }
  }
}
