// coalescing_family.cpp: the row-scan table.
#include "coalescing_family.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace coalescing {
namespace {

// One work-item per row of A, LOCAL rows per work-group. The suite's kernels check every index;
// `covers` says how far one without checks would reach (the guard zones are that long).
Variant row(const char* name, const char* summary) {
  Variant v;
  v.name = name;
  v.summary = summary;
  v.kernel_file = std::string("coalescing_") + name + ".cl";
  v.kernel_name = std::string("coalescing_") + name;
  v.tunables = {"LOCAL"};
  v.plan = [](const Dims& d, const lab::Tuning& t) -> lab::NDRangePlan {
    return {{lab::round_up(std::uint64_t(d.height), t.whole("LOCAL"))}, {t.whole("LOCAL")}};
  };
  v.covers = [](const Dims& d, const lab::Tuning& t) -> std::vector<std::uint64_t> {
    return {lab::round_up(std::uint64_t(d.height), t.whole("LOCAL")), std::uint64_t(d.width)};
  };
  return v;
}

Family make_family() {
  Family f;
  f.name = "coalescing";
  // Two operations per element (a * a - accum); the bytes the program must move: read A, write
  // B, 4 bytes an element (float or int). transposed moves the matrix three times.
  f.work = [](const Dims& d) {
    return lab::Work{2.0 * double(d.elements()), 8.0 * double(d.elements())};
  };
  lab::Tunable local;
  local.name = "LOCAL";
  local.option = "--local";
  local.meaning = "Work-items per work-group: rows of A a work-group walks together";
  local.max = 65536;
  local.candidates = {16, 32, 64, 128, 256};
  local.grows = lab::kGrowsGroup | lab::kGrowsLocal;
  lab::Tunable chunk = local.like("CHUNK", "--chunk",
                                  "Columns a chain's loads fetch at once: fused stages LOCAL x "
                                  "(CHUNK + 1) elements in local memory, transposed CHUNK in "
                                  "registers",
                                  {4, 8, 16, 32, 64});
  chunk.max = 4096;
  chunk.grows = lab::kGrowsLocal | lab::kGrowsPrivate;
  f.tunables = {local, chunk};

  f.variants.push_back(row("naive", "work-item i walks row i: no access is coalesced"));
  Variant transposed = row("transposed", "transpose, coalesced scan down columns, transpose back");
  transposed.tunables = {"LOCAL", "CHUNK"};
  transposed.private_bytes = [](const lab::Tuning& t, std::size_t element) {
    return t.whole("CHUNK") * element;  // a[CHUNK]: the loads in flight
  };
  transposed.extra.transposes = true;
  f.variants.push_back(transposed);
  Variant fused = row("fused", "CHUNK columns at a time through local memory, coalesced runs");
  fused.tunables = {"LOCAL", "CHUNK"};
  fused.covers = [](const Dims& d, const lab::Tuning& t) -> std::vector<std::uint64_t> {
    return {lab::round_up(std::uint64_t(d.height), t.whole("LOCAL")),
            lab::round_up(std::uint64_t(d.width), t.whole("CHUNK"))};
  };
  fused.local_bytes = [](const lab::Tuning& t, std::size_t element) {
    return t.whole("LOCAL") * (t.whole("CHUNK") + 1) * element;
  };
  fused.private_bytes = [](const lab::Tuning& t, std::size_t element) {
    return t.whole("CHUNK") * element;  // share[CHUNK]: the next block's loads in flight
  };
  // PoCL 3's kernel compiler aborts the process (an assertion in its work-group loops) on the
  // rolled block loops (CHUNK above 32) in groups of one or two work-items. Rewriting the kernel
  // around it costs 3.5% of fused's speed on an H100, and such groups are far from fast on any
  // device (45 GB/s there, against 1020 at the default), so the table refuses them.
  fused.fits = [](const Dims&, const lab::Tuning& t) -> std::string {
    if (t.whole("LOCAL") > 2 || t.whole("CHUNK") <= 32) return "";
    return "fused with LOCAL=" + std::to_string(t.whole("LOCAL")) +
           " needs CHUNK of at most 32, "
           "not " +
           std::to_string(t.whole("CHUNK")) +
           " (PoCL's compiler aborts on longer "
           "rolled loops in groups of 1 or 2 work-items): choose LOCAL 4 or more (--local) or "
           "CHUNK 32 or less (--chunk)";
  };
  f.variants.push_back(fused);
  return f;
}

}  // namespace

const Family& family() {
  static const Family table = make_family();
  return table;
}

lab::Tuning default_tuning(const cl::Device&) {
  // Measured on an H100 at 8192 x 8192: fused 1025 GB/s at LOCAL 16, CHUNK 16; CHUNK 8 or 32
  // lose a quarter, 64 three quarters (registers); LOCAL 8 to 128 within 6%. PoCL on 2 cores
  // shows no shape clearly better than this one (its barriers, not the shape, cost the time).
  return lab::Tuning().with({{"LOCAL", 16}, {"CHUNK", 16}});
}

std::uint64_t launch_reach(const Variant& variant, const Dims& d, const lab::Tuning& t) {
  const std::vector<std::uint64_t> covered = variant.covers(d, t);
  return covered[0] * covered[1] - d.elements();
}

std::string default_transpose(const cl::Device& device) {
  return (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) != 0 ? "blocks" : "multi";
}

template <typename T>
void row_scan(const Dims& d, const T* A, T* B, std::vector<double>* allowed) {
  const double u = std::ldexp(1.0, -24);
  for (int i = 0; i < d.height; ++i) {
    const std::size_t row = std::size_t(i) * d.width;
    if constexpr (std::is_floating_point_v<T>) {
      double accum = 0, magnitude = 0;
      for (int j = 0; j < d.width; ++j) {
        const double a = A[row + j];
        accum = a * a - accum;
        magnitude += a * a + std::fabs(accum);
        B[row + j] = static_cast<T>(accum);
        (*allowed)[row + j] = 2 * u * magnitude + std::numeric_limits<float>::denorm_min();
      }
    } else {
      std::uint32_t accum = 0;
      for (int j = 0; j < d.width; ++j) {
        const std::uint32_t a = static_cast<std::uint32_t>(A[row + j]);
        accum = a * a - accum;
        B[row + j] = static_cast<T>(accum);
      }
    }
  }
}

template void row_scan<float>(const Dims&, const float*, float*, std::vector<double>*);
template void row_scan<int>(const Dims&, const int*, int*, std::vector<double>*);

}  // namespace coalescing
