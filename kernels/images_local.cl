// images_local.cl: the 2-D convolution from a tile in local memory. A work-group of TILE x TILE
// work-items computes a TILE x TILE block of the output; first its work-items load the block's
// pixels and the halo around it, RADIUS wide (APRON x APRON pixels, clamped to the image), then,
// after a barrier, each sums its taps from the tile. Every input pixel is read from global
// memory once per group instead of once per tap.
// Indices: (lx, ly) a work-item's place in its group; (x0, y0) the image pixel at the tile's top
// left corner, halo included; (x, y) the output pixel a work-item owns, x along a row.
#ifndef RADIUS
#define RADIUS 2  // the filter's radius: (2 RADIUS + 1) x (2 RADIUS + 1) taps
#endif
#ifndef TILE
#define TILE 16  // work-groups of TILE x TILE work-items, one output pixel each
#endif
#if RADIUS < 0
#error "RADIUS is the filter's radius: choose 0 or more"
#endif
#if TILE < 1
#error "TILE is the work-group's side: choose 1 or more (--tile)"
#endif
#define SIDE (2 * RADIUS + 1)
#define APRON (TILE + 2 * RADIUS)  // the tile's side with its halo

__kernel void convolve_local(const int height, const int width, __global const float* in,
                             __constant float* filter, __global float* out) {
  __local float tile[APRON][APRON];
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int x0 = (int)get_group_id(0) * TILE - RADIUS;
  const int y0 = (int)get_group_id(1) * TILE - RADIUS;
  // EXERCISE(halo): load the APRON x APRON pixels from (x0, y0) into tile, each index clamped to the image; the group's TILE x TILE work-items share the loads, each stepping by TILE
  for (int j = ly; j < APRON; j += TILE) {
    const int row = clamp(y0 + j, 0, height - 1) * width;
    for (int i = lx; i < APRON; i += TILE) {
      tile[j][i] = in[row + clamp(x0 + i, 0, width - 1)];
    }
  }
  // END EXERCISE
  barrier(CLK_LOCAL_MEM_FENCE);  // the whole tile is loaded before any work-item reads it
  const int x = x0 + RADIUS + lx, y = y0 + RADIUS + ly;
  if (x < width && y < height) {
    float sum = 0.0f;
    for (int dy = 0; dy < SIDE; ++dy) {
      for (int dx = 0; dx < SIDE; ++dx) sum += filter[dy * SIDE + dx] * tile[ly + dy][lx + dx];
    }
    out[y * width + x] = sum;
  }
}
