// images_strips.cl: separable's two passes in one kernel, shaped for a GPU. Each work-item owns a
// strip of 4 columns by STRIP rows of the output, and walks down it from RADIUS rows above to
// RADIUS rows below. Each input row it meets is read once, as a float4 and the RADIUS pixels on
// each side (rounded out to whole float4s), filtered along the row in registers, and kept in a
// ring of the last 2 RADIUS + 1 filtered rows; once the ring holds the rows around an output row,
// the column pass sums them and writes that row's 4 pixels.
// No local memory and no barrier: the reuse along a row is the cache's (a work-item's neighbours
// read the same pixels a moment later), the reuse down a column is the ring's. With the loops
// unrolled (RADIUS and STRIP are known when the kernel is built) every index into `ring` and `v`
// is a constant, so both live in registers. Per output pixel about (STRIP + 2 RADIUS) / STRIP
// input reads and one write reach memory, close to a copy's 8 bytes when STRIP is large against
// RADIUS. Against that, the 2 RADIUS rows around a strip are filtered along the row once more by
// each neighbouring strip, and the unrolled code and its registers grow with STRIP and RADIUS:
// the best STRIP depends on the radius and the device (--tune searches it).
// The interior first: a strip away from every edge, in an image whose width is a multiple of 4
// (every row starts on 16 bytes), reads its rows as float4s with no clamp and writes with no
// check. With no branch inside, the unrolled walk is one run of code, and the compiler can issue
// the loads of the rows ahead before the sums of the row at hand. Elsewhere, the walk below:
// each row clamped to the image, each pixel read alone (and its column clamped) where a float4
// would cross the left or right edge or the rows do not start on 16 bytes, each write checked.
// Indices: (x0, y0) the first column and row of the work-item's strip; j the input row it is at,
// image row y0 - RADIUS + j (clamped); v the row's pixels from x0 - 4 REACH; d a tap's offset;
// ring[k] the filtered row j with j % SIDE == k. weights holds the row's 2 RADIUS + 1 weights,
// then the column's.
#ifndef RADIUS
#define RADIUS 2  // the filter's radius: 2 RADIUS + 1 taps in each pass
#endif
#ifndef STRIP
#define STRIP 16  // output rows a work-item filters
#endif
#if RADIUS < 0
#error "RADIUS is the filter's radius: choose 0 or more"
#endif
#if STRIP < 1
#error "STRIP is the rows a work-item filters: choose 1 or more (--strip)"
#endif
#define SIDE (2 * RADIUS + 1)
#define REACH ((RADIUS + 3) / 4)  // whole float4s read on each side of the work-item's own
#define SPAN (4 + 8 * REACH)      // pixels of a row a work-item reads

// Step 2 of a row: its 4 pixels filtered along the row, from the SPAN pixels `v` holds (pixel
// x0 + i at v[4 REACH + i]).
float4 along_row(const float* v, __constant float* weights) {
  float4 h = 0.0f;
#pragma unroll
  for (int d = -RADIUS; d <= RADIUS; ++d) {
    const int at = 4 * REACH + d;
    h += weights[d + RADIUS] * (float4)(v[at], v[at + 1], v[at + 2], v[at + 3]);
  }
  return h;
}

// Step 3: the column sum for the output row whose last filtered row is ring[k]. The ring holds
// the 2 RADIUS + 1 filtered rows j - 2 RADIUS to j, row j - 2 RADIUS + d in ring[(k + 1 + d) %
// SIDE]. Both functions are inlined where they are called, with k a constant there, so the ring
// stays in registers.
float4 down_columns(const float4* ring, const int k, __constant float* column) {
  float4 s = 0.0f;
#pragma unroll
  for (int d = 0; d < SIDE; ++d) s += column[d] * ring[(k + 1 + d) % SIDE];
  return s;
}

__kernel void convolve_strips(const int height, const int width, __global const float* in,
                              __constant float* weights, __global float* out) {
  const int x0 = (int)get_global_id(0) * 4, y0 = (int)get_global_id(1) * STRIP;
  if (x0 >= width || y0 >= height) return;
  __constant float* column = weights + SIDE;
  const bool whole = width % 4 == 0 && x0 >= 4 * REACH && x0 + 4 + 4 * REACH <= width;
  float4 ring[SIDE];
  if (whole && y0 >= RADIUS && y0 + STRIP + RADIUS <= height) {
    const int pitch = width / 4;  // float4s a row
    __global const float4* src =
        (__global const float4*)in + (y0 - RADIUS) * pitch + x0 / 4 - REACH;
    __global float4* dst = (__global float4*)out + y0 * pitch + x0 / 4;  // output row y0
#pragma unroll
    for (int j = 0; j < STRIP + 2 * RADIUS; ++j) {
      const int k = j % SIDE;
      float v[SPAN];  // 1. input row y0 - RADIUS + j
#pragma unroll
      for (int q = 0; q < SPAN / 4; ++q) vstore4(src[j * pitch + q], q, v);
      ring[k] = along_row(v, weights);  // 2. into the ring
      if (j >= 2 * RADIUS) {            // 3. down the columns: output row y0 + j - 2 RADIUS
        dst[(j - 2 * RADIUS) * pitch] = down_columns(ring, k, column);
      }
    }
    return;
  }
  // The walk with clamps and checks: strips at an edge, and every strip of a width that is not a
  // multiple of 4
  // Unrolled whole, so that every index into `ring` and `v` is a constant
#pragma unroll
  for (int j = 0; j < STRIP + 2 * RADIUS; ++j) {
    const int k = j % SIDE;  // this row's place in the ring
    // 1. Input row y0 - RADIUS + j, clamped to the image: pixels x0 - 4 REACH to x0 + 3 + 4 REACH
    const int row = clamp(y0 - RADIUS + j, 0, height - 1);
    float v[SPAN];
    if (whole) {
      __global const float4* src = (__global const float4*)(in + row * width) + x0 / 4 - REACH;
#pragma unroll
      for (int q = 0; q < SPAN / 4; ++q) vstore4(src[q], q, v);
    } else {
#pragma unroll
      for (int i = 0; i < SPAN; ++i) {
        v[i] = in[row * width + clamp(x0 - 4 * REACH + i, 0, width - 1)];
      }
    }
    // 2. Along the row: the 4 pixels' sums, into the ring
    ring[k] = along_row(v, weights);
    // 3. Down the columns: output row y = y0 + j - 2 RADIUS, once the ring holds its 2 RADIUS + 1
    //    filtered rows
    const int y = y0 + j - 2 * RADIUS;
    if (j >= 2 * RADIUS && y < height) {
      const float4 s = down_columns(ring, k, column);
      __global float* dst = out + y * width + x0;
      if (x0 + 4 <= width) {
        vstore4(s, 0, dst);
      } else {  // the row's last, shorter run
        dst[0] = s.x;
        if (x0 + 1 < width) dst[1] = s.y;
        if (x0 + 2 < width) dst[2] = s.z;
      }
    }
  }
}
