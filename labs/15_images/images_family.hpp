// images_family.hpp: the images lab's convolution ladder as a table (lab::Family): naive (every
// tap from global memory), constant (the filter in __constant), local (a tile and its halo in
// local memory), separable (rows, then columns), fused (both passes in one kernel through local
// memory), strips (both passes in one kernel for a GPU, the filtered rows in registers) and image
// (an image2d_t read through a CLAMP_TO_EDGE sampler), one kernel file each,
// kernels/images_<variant>.cl. Besides the table, the host's side of the checks: the filters, the
// reference in double with its bound, what a wrong output's pattern points at, the generated test
// image, and a model of the sampler rules.
#pragma once

#include "lab/lab.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace images {

// A float image of height x width pixels, row-major, filtered with a filter of `radius`.
struct Problem {
  int height = 0;
  int width = 0;
  int radius = 0;
  std::uint64_t pixels() const { return std::uint64_t(height) * std::uint64_t(width); }
};

using Family = lab::Family<Problem>;
using Variant = lab::Variant<Problem>;

// Tunables: TILE (--tile): work-groups of TILE x TILE work-items for every row (local's tile
// side); STRIP (--strip): the output rows a strips work-item filters.
// Rows: naive, constant, local, separable, fused, strips, image.
const Family& family();

// TILE 16, STRIP 16.
lab::Tuning default_tuning();

// The largest radius the fused row's filtered rows fit for a TILE and a device's local memory:
// (TILE + 2 r) rows of TILE x 64 floats.
int fused_radius_limit(std::uint64_t tile, std::uint64_t local_memory_bytes);

// The arguments of the row's kernel: (int height, int width, global float* in, FILTER, global
// float* out), FILTER "global float* filter" for naive and "constant float* filter" (separable,
// fused and strips: "weights") for the others; image reads `in` as "read_only image2d_t".
lab::KernelSignature signature(const std::string& variant);

// The largest radius the local row's tile fits for a TILE and a device's local memory:
// (TILE + 2 r)^2 floats.
int local_radius_limit(std::uint64_t tile, std::uint64_t local_memory_bytes);

// A separable filter: out(x, y) = sum over (dx, dy) of column[dy] * row[dx] * in(x + dx, y + dy).
// gauss: a Gaussian of sigma = radius / 2 (radius 0: the identity), normalized to sum 1. sobel:
// the horizontal Sobel derivative, column (1, 2, 1) and row (-1, 0, 1), radius 1.
struct Filter {
  int radius = 0;
  std::vector<float> column, row;
  std::vector<float> full() const;  // (2r+1)^2 weights, row by row: column[dy] * row[dx] in float
};
Filter make_filter(const std::string& name, int radius);

// The convolution of `in` in double, borders clamped to the edge, and for each pixel the bound a
// float result must keep: (m^2 + 2m + 4) * 2^-24 * sum |weight * pixel| over its taps, m = 2r+1
// (float rounding of the weights, of each product and each partial sum: at most m^2 steps in one
// 2-D sum, 2m in the two passes).
struct Reference {
  std::vector<double> want;
  std::vector<double> allowed;
};
Reference reference(const Filter& filter, const std::vector<float>& in, int height, int width);

// When an output failed its check: one sentence on what the wrong pixels' pattern points at (the
// result shifted by a pixel, transposed, wrong only near the border, pixels never written), or ""
// when it shows none of these; for the local row, where else to look (the halo load and the
// barrier after it).
std::string diagnose(const std::string& variant, const float* got, const Reference& ref, int height,
                     int width, int radius);

// The generated test image in [0, 1]: a gradient along x, an off-centre bright rectangle and a
// disc (sharp edges), and fine noise from `seed`: a wrong border or swapped axes show.
std::vector<float> test_image(int height, int width, std::uint64_t seed);

// The OpenCL specification's sampler rules on the host (OpenCL 1.2, 8.2 "Image addressing and
// filtering") for a one-channel image: the value read_imagef gives at (u, v).
enum class Address { none, clamp_to_edge, clamp, repeat, mirrored_repeat };
struct SamplerModel {
  bool normalized = false;
  bool linear = false;
  Address address = Address::clamp_to_edge;
  // The value at (u, v), and in `spread` the largest minus the smallest of the texels it blends.
  double read(const std::vector<float>& image, int height, int width, double u, double v,
              double* spread = nullptr) const;
  // Whether (u, v) has a defined result: Address::none defines only coordinates whose texels all
  // lie inside the image.
  bool defined(int height, int width, double u, double v) const;
};
// "none", "edge", "clamp", "repeat", "mirror": the mode's name in the lab's rows.
const char* address_name(Address address);

}  // namespace images
