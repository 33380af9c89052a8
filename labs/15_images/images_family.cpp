// images_family.cpp: the images table, and the host's side of its checks.
#include "images_family.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace images {
namespace {

lab::NDRangePlan plan_tiles(const Problem& p, const lab::Tuning& t) {
  const std::uint64_t tile = t.whole("TILE");
  return {
      {lab::round_up(std::uint64_t(p.width), tile), lab::round_up(std::uint64_t(p.height), tile)},
      {tile, tile}};
}

// The CPU-tuned rows (constant, separable, fused): each work-item a run of kPixels pixels of a row.
constexpr std::uint64_t kPixels = 64;

lab::NDRangePlan plan_runs(const Problem& p, const lab::Tuning& t) {
  const std::uint64_t tile = t.whole("TILE");
  const std::uint64_t runs = (std::uint64_t(p.width) + kPixels - 1) / kPixels;
  return {{lab::round_up(runs, tile), lab::round_up(std::uint64_t(p.height), tile)}, {tile, tile}};
}

// The strips row: each work-item 4 columns by STRIP rows, work-groups of TILE x TILE of them.
lab::NDRangePlan plan_strips(const Problem& p, const lab::Tuning& t) {
  const std::uint64_t tile = t.whole("TILE"), strip = t.whole("STRIP");
  const std::uint64_t across = (std::uint64_t(p.width) + 3) / 4;
  const std::uint64_t down = (std::uint64_t(p.height) + strip - 1) / strip;
  return {{lab::round_up(across, tile), lab::round_up(down, tile)}, {tile, tile}};
}

Variant row(const char* name, const char* summary, const char* kernel) {
  Variant v;
  v.name = name;
  v.summary = summary;
  v.kernel_file = std::string("images_") + name + ".cl";
  v.kernel_name = kernel;
  v.tunables = {"TILE"};
  v.plan = plan_tiles;
  v.derived = [](const Problem& p, const lab::Tuning&) -> lab::Defines {
    return {{"RADIUS", std::to_string(p.radius), "--radius"}};
  };
  // Every kernel checks its pixel is in the image: the launch reaches exactly the image.
  v.covers = [](const Problem& p, const lab::Tuning&) -> std::vector<std::uint64_t> {
    return {std::uint64_t(p.height), std::uint64_t(p.width)};
  };
  return v;
}

Family make_family() {
  Family f;
  f.name = "images";
  // One pixel read and one written, the least a filter can move: 8 bytes a pixel.
  f.work = [](const Problem& p) { return lab::Work{double(p.pixels()), 8.0 * double(p.pixels())}; };
  lab::Tunable tile;
  tile.name = "TILE";
  tile.option = "--tile";
  tile.meaning = "Work-groups of TILE x TILE work-items (local: the tile's side)";
  tile.max = 1024;
  tile.candidates = {4, 8, 16, 32};
  tile.grows = lab::kGrowsGroup | lab::kGrowsLocal;
  lab::Tunable strip = tile.like(
      "STRIP", "--strip", "Output rows a strips work-item filters, walking down its 4 columns",
      {4, 8, 16, 32, 64});
  strip.grows = lab::kGrowsPrivate;  // its loop is unrolled: more code, not more work-items
  f.tunables = {tile, strip};
  f.variants = {
      row("naive", "every tap read from global memory, the filter too", "convolve_naive"),
      row("constant",
          "the filter in __constant memory; 64 pixels a work-item, clamps only at the border",
          "convolve_constant"),
      row("local", "a TILE x TILE tile and its halo staged in local memory", "convolve_local"),
      row("separable",
          "two passes, rows then columns: 2(2r+1) taps, not (2r+1)^2; 64 pixels a work-item, "
          "clamps only at the border",
          "convolve_rows"),
      row("fused",
          "separable's two passes in one kernel, the filtered rows kept in local memory: 64 "
          "pixels a work-item",
          "convolve_fused"),
      row("strips",
          "separable's two passes in one kernel for a GPU: each work-item 4 columns by STRIP "
          "rows, filtered rows kept in registers, no local memory",
          "convolve_strips"),
      row("image", "the input an image2d_t; a CLAMP_TO_EDGE sampler does the border",
          "convolve_image")};
  for (Variant& v : f.variants) {
    if (v.name == "strips") {
      v.tunables = {"TILE", "STRIP"};
      v.plan = plan_strips;
    } else if (v.name == "constant" || v.name == "separable" || v.name == "fused") {
      v.plan = plan_runs;
      v.derived = [](const Problem& p, const lab::Tuning&) -> lab::Defines {
        return {{"RADIUS", std::to_string(p.radius), "--radius"},
                {"PIXELS", std::to_string(kPixels), ""}};
      };
    }
  }
  return f;
}

}  // namespace

const Family& family() {
  static const Family table = make_family();
  return table;
}

lab::Tuning default_tuning() {
  lab::Tuning t;
  t.set("TILE", 16);
  t.set("STRIP", 16);
  return t;
}

lab::KernelSignature signature(const std::string& variant) {
  const bool image = variant == "image";
  lab::KernelArg in = {"global", "float*", "in", true};
  if (image) in = {"global", "image2d_t", "in", false, "read_only"};
  const bool passes = variant == "separable" || variant == "fused" || variant == "strips";
  lab::KernelArg filter = {"constant", "float*", passes ? "weights" : "filter", true};
  if (variant == "naive") filter.address = "global";
  return {"",
          {{"", "int", "height"}, {"", "int", "width"}, in, filter, {"global", "float*", "out"}}};
}

int fused_radius_limit(std::uint64_t tile, std::uint64_t local_memory_bytes) {
  const std::uint64_t rows = local_memory_bytes / (tile * kPixels * sizeof(float));
  return rows < tile ? -1 : int((rows - tile) / 2);
}

int local_radius_limit(std::uint64_t tile, std::uint64_t local_memory_bytes) {
  const auto side = std::uint64_t(std::sqrt(double(local_memory_bytes / sizeof(float))));
  return side < tile ? -1 : int((side - tile) / 2);
}

std::vector<float> Filter::full() const {
  std::vector<float> weights;
  for (float c : column) {
    for (float r : row) weights.push_back(c * r);
  }
  return weights;
}

Filter make_filter(const std::string& name, int radius) {
  Filter f;
  if (name == "sobel") {
    f.radius = 1;
    f.column = {1, 2, 1};
    f.row = {-1, 0, 1};
    return f;
  }
  f.radius = radius;
  const double sigma = std::max(radius, 1) / 2.0;
  std::vector<double> g;
  double total = 0;
  for (int d = -radius; d <= radius; ++d) {
    g.push_back(std::exp(-0.5 * d * d / (sigma * sigma)));
    total += g.back();
  }
  for (double w : g) f.row.push_back(float(w / total));
  f.column = f.row;
  return f;
}

Reference reference(const Filter& filter, const std::vector<float>& in, int height, int width) {
  // Rows then columns in double: the same sums as the 2-D filter of column[dy] * row[dx].
  const int r = filter.radius;
  const std::size_t n = std::size_t(height) * std::size_t(width);
  std::vector<double> rows(n), rows_abs(n);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      double sum = 0, sum_abs = 0;
      for (int d = -r; d <= r; ++d) {
        const double p = in[std::size_t(y) * width + std::clamp(x + d, 0, width - 1)];
        sum += double(filter.row[d + r]) * p;
        sum_abs += std::fabs(double(filter.row[d + r]) * p);
      }
      rows[std::size_t(y) * width + x] = sum;
      rows_abs[std::size_t(y) * width + x] = sum_abs;
    }
  }
  const double m = 2.0 * r + 1;
  const double factor = (m * m + 2 * m + 4) * std::ldexp(1.0, -24);
  Reference ref;
  ref.want.resize(n);
  ref.allowed.resize(n);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      double sum = 0, sum_abs = 0;
      for (int d = -r; d <= r; ++d) {
        const std::size_t at = std::size_t(std::clamp(y + d, 0, height - 1)) * width + x;
        sum += double(filter.column[d + r]) * rows[at];
        sum_abs += std::fabs(double(filter.column[d + r])) * rows_abs[at];
      }
      ref.want[std::size_t(y) * width + x] = sum;
      // The smallest normal float keeps a bound of 0 from failing on a result that is 0 only
      // after rounding.
      ref.allowed[std::size_t(y) * width + x] = factor * sum_abs + 1.2e-38;
    }
  }
  return ref;
}

std::string diagnose(const std::string& variant, const float* got, const Reference& ref, int height,
                     int width, int radius) {
  const auto at = [width](int x, int y) { return std::size_t(y) * width + x; };
  const auto ok = [&](std::size_t i, double want) {
    return std::fabs(double(got[i]) - want) <= ref.allowed[i] * 4 + 1e-6 * std::fabs(want);
  };
  std::size_t wrong = 0, unwritten = 0, near_border = 0;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const std::size_t i = at(x, y);
      if (ok(i, ref.want[i])) continue;
      ++wrong;
      if (std::isnan(got[i])) ++unwritten;
      if (x < radius || y < radius || x >= width - radius || y >= height - radius) ++near_border;
    }
  }
  if (wrong == 0) return "";
  if (unwritten == wrong && variant == "local") {
    // The writes are there; a NaN sum is a tile value nothing loaded (the tile starts as NaN on
    // most devices, or holds another group's leftovers)
    return std::to_string(wrong) +
           " pixels came out NaN: their sums read tile values nothing loaded, or were never "
           "written: check that the halo load fills all APRON x APRON pixels of the tile";
  }
  if (unwritten == wrong) {
    return std::to_string(wrong) +
           " pixels were never written: check the bounds test and the index of the write";
  }
  if (near_border == wrong) {
    return "every wrong pixel lies within " + std::to_string(radius) +
           " pixels of the border: a tap past the edge must read the edge pixel (clamp each "
           "index to the image, or a CLAMP_TO_EDGE sampler)";
  }
  // The right result one pixel away, or at the transposed place, in the image's inside.
  const auto matches = [&](int sx, int sy, bool transposed) {
    std::size_t tried = 0, same = 0;
    for (int y = radius + 1; y < height - radius - 1; y += 3) {
      for (int x = radius + 1; x < width - radius - 1; x += 3) {
        const int wx = transposed ? y : x + sx, wy = transposed ? x : y + sy;
        if (wx < 0 || wy < 0 || wx >= width || wy >= height) continue;
        ++tried;
        if (ok(at(x, y), ref.want[at(wx, wy)])) ++same;
      }
    }
    return tried > 8 && same * 10 >= tried * 9;
  };
  const int shifts[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
  for (const auto& s : shifts) {
    if (matches(s[0], s[1], false)) {
      return std::string("the output is the right result moved one pixel ") +
             (s[0] != 0 ? "along x" : "along y") +
             ": a tap offset or the halo's first pixel is off by one (it starts at group * TILE "
             "- RADIUS)";
    }
  }
  if (matches(0, 0, true)) {
    return "the output holds the right values at transposed places: x and y are swapped in an "
           "index (x runs along a row: y * width + x)";
  }
  if (variant == "local") {
    return "the tile's values are wrong: check that the halo load fills all APRON x APRON pixels "
           "of the tile, and that a barrier stands between the load and the sums that read it";
  }
  return "";
}

std::vector<float> test_image(int height, int width, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> noise(-0.05f, 0.05f);
  std::vector<float> image(std::size_t(height) * std::size_t(width));
  const double cx = 0.7 * width, cy = 0.35 * height, radius = 0.18 * std::min(height, width);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      double value = 0.1 + 0.5 * x / std::max(1, width - 1);  // the gradient along x
      if (x >= width / 8 && x < width / 3 && y >= height / 2 && y < 7 * height / 8) value = 0.9;
      if ((x - cx) * (x - cx) + (y - cy) * (y - cy) < radius * radius) value = 0.05;
      image[std::size_t(y) * width + x] = float(value) + noise(random);
    }
  }
  return image;
}

const char* address_name(Address address) {
  switch (address) {
    case Address::none:
      return "none";
    case Address::clamp_to_edge:
      return "edge";
    case Address::clamp:
      return "clamp";
    case Address::repeat:
      return "repeat";
    case Address::mirrored_repeat:
      return "mirror";
  }
  return "";
}

bool SamplerModel::defined(int height, int width, double u, double v) const {
  if (address != Address::none) return true;
  if (normalized) {
    u *= width;
    v *= height;
  }
  if (linear) return u >= 0.5 && v >= 0.5 && u <= width - 0.5 && v <= height - 0.5;
  return u >= 0 && v >= 0 && u < width && v < height;
}

double SamplerModel::read(const std::vector<float>& image, int height, int width, double s,
                          double t, double* spread) const {
  // The texel at integer (i, j) after the address mode; a CLAMP read outside is the border
  // colour, whose red channel is 0.
  const auto texel = [&](int i, int j) -> double {
    if (address == Address::clamp && (i < 0 || j < 0 || i >= width || j >= height)) return 0.0;
    i = std::clamp(i, 0, width - 1);
    j = std::clamp(j, 0, height - 1);
    return image[std::size_t(j) * width + i];
  };
  // Per axis (8.2.1-8.2.5): the texel coordinates (i0, i1) and the weight a of i1.
  struct Axis {
    int i0, i1;
    double a;
  };
  const auto axis = [&](double coord, int size) -> Axis {
    double u = normalized ? coord * size : coord;
    if (address == Address::repeat) {
      u = (coord - std::floor(coord)) * size;
      if (!linear) {
        int i = int(std::floor(u));
        if (i > size - 1) i -= size;
        return {i, i, 0};
      }
      int i0 = int(std::floor(u - 0.5)), i1 = i0 + 1;
      if (i0 < 0) i0 += size;
      if (i1 > size - 1) i1 -= size;
      return {i0, i1, (u - 0.5) - std::floor(u - 0.5)};
    }
    if (address == Address::mirrored_repeat) {
      const double mirrored = std::fabs(coord - 2.0 * std::rint(0.5 * coord));
      u = mirrored * size;
      if (!linear) {
        const int i = std::min(int(std::floor(u)), size - 1);
        return {i, i, 0};
      }
      const int i0 = std::max(int(std::floor(u - 0.5)), 0);
      const int i1 = std::min(int(std::floor(u - 0.5)) + 1, size - 1);
      return {i0, i1, (u - 0.5) - std::floor(u - 0.5)};
    }
    if (!linear) {
      const int i = int(std::floor(u));
      return {i, i, 0};
    }
    const int i0 = int(std::floor(u - 0.5));
    return {i0, i0 + 1, (u - 0.5) - std::floor(u - 0.5)};
  };
  const Axis x = axis(s, width), y = axis(t, height);
  const double t00 = texel(x.i0, y.i0), t10 = texel(x.i1, y.i0), t01 = texel(x.i0, y.i1),
               t11 = texel(x.i1, y.i1);
  if (spread != nullptr) {
    *spread = std::max({t00, t10, t01, t11}) - std::min({t00, t10, t01, t11});
  }
  return (1 - x.a) * (1 - y.a) * t00 + x.a * (1 - y.a) * t10 + (1 - x.a) * y.a * t01 +
         x.a * y.a * t11;
}

}  // namespace images
