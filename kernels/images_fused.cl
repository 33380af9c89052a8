// images_fused.cl: the separable convolution's two passes in one kernel, the temporary image kept
// in local memory instead of global memory. A work-group is TILE x TILE work-items, each owning a
// run of PIXELS (64) pixels of one output row: a block of TILE runs across and TILE rows down.
// First the group filters along the rows the block needs, its TILE rows and RADIUS more above and
// below (each row clamped to the image), into `rows` in local memory; then, after a barrier, each
// work-item filters its run down the columns from there. Every input pixel
// is read once per group, and the filtered rows never go through global memory: about 8 bytes a
// pixel move, against separable's 16 (its temporary image written, then read).
// As separable's tuned kernels: four float16 sums (vload16, vstore16), four independent chains of
// multiply-adds; the clamp paid only at the border (a run within RADIUS of a row's end, and a
// last, shorter run, take the pixel-by-pixel path).
// Indices: (x0, y) the first pixel of a work-item's run, x along a row; (lx, ly) its place in the
// group, `mine` its run's first column in `rows`; y0 the group's first output row; j a row of `rows`, image row y0 - RADIUS + j; d a tap's
// offset. weights holds the row's 2 RADIUS + 1 weights, then the column's.
// The launch is padded to whole work-groups, so every work-item checks its run is in the image.
#ifndef RADIUS
#define RADIUS 2  // the filter's radius: 2 RADIUS + 1 taps in each pass
#endif
#ifndef TILE
#define TILE 16  // work-groups of TILE x TILE work-items, one run of PIXELS pixels each
#endif
#ifndef PIXELS
#define PIXELS 64  // pixels a work-item owns along a row: four float16
#endif
#if RADIUS < 0
#error "RADIUS is the filter's radius: choose 0 or more"
#endif
#if TILE < 1
#error "TILE is the work-group's side: choose 1 or more (--tile)"
#endif
#if PIXELS != 64
#error "PIXELS is the run of pixels in four float16: 64"
#endif
#define SIDE (2 * RADIUS + 1)
#define ROWS (TILE + 2 * RADIUS)  // the block's rows with their halo

__kernel void convolve_fused(const int height, const int width, __global const float* in,
                             __constant float* weights, __global float* out) {
  __local float rows[ROWS][TILE * PIXELS];
  __constant float* column = weights + SIDE;
  const int x0 = (int)get_global_id(0) * PIXELS, lx = get_local_id(0), ly = get_local_id(1);
  const int mine = lx * PIXELS;
  const int y0 = (int)get_group_id(1) * TILE, y = y0 + ly;
  // 1. Along the rows: the group's TILE work-items share the ROWS rows, each stepping by TILE
  for (int j = ly; j < ROWS; j += TILE) {
    __global const float* src = in + clamp(y0 - RADIUS + j, 0, height - 1) * width;
    if (x0 >= RADIUS && x0 + PIXELS + RADIUS <= width) {
      float16 s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
      for (int d = -RADIUS; d <= RADIUS; ++d) {
        const float w = weights[d + RADIUS];
        __global const float* at = src + x0 + d;
        s0 += w * vload16(0, at);
        s1 += w * vload16(1, at);
        s2 += w * vload16(2, at);
        s3 += w * vload16(3, at);
      }
      vstore16(s0, 0, rows[j] + mine);
      vstore16(s1, 1, rows[j] + mine);
      vstore16(s2, 2, rows[j] + mine);
      vstore16(s3, 3, rows[j] + mine);
    } else {
      for (int i = 0; i < PIXELS; ++i) {  // past the image's right edge: the edge pixel's sum
        const int x = min(x0 + i, width - 1);
        float sum = 0.0f;
        for (int d = -RADIUS; d <= RADIUS; ++d) sum += weights[d + RADIUS] * src[clamp(x + d, 0, width - 1)];
        rows[j][mine + i] = sum;
      }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);  // every row of the block is filtered before any column is read
  // 2. Down the columns, from the rows in local memory
  if (x0 >= width || y >= height) return;
  __global float* dst = out + y * width + x0;
  if (x0 + PIXELS <= width) {
    float16 s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    for (int d = 0; d < SIDE; ++d) {
      const float w = column[d];
      s0 += w * vload16(0, rows[ly + d] + mine);
      s1 += w * vload16(1, rows[ly + d] + mine);
      s2 += w * vload16(2, rows[ly + d] + mine);
      s3 += w * vload16(3, rows[ly + d] + mine);
    }
    vstore16(s0, 0, dst);
    vstore16(s1, 1, dst);
    vstore16(s2, 2, dst);
    vstore16(s3, 3, dst);
  } else {
    for (int i = 0; i < width - x0; ++i) {  // a last run shorter than PIXELS, pixel by pixel
      float sum = 0.0f;
      for (int d = 0; d < SIDE; ++d) sum += column[d] * rows[ly + d][mine + i];
      dst[i] = sum;
    }
  }
}
