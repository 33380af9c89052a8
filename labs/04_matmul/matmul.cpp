// matmul.cpp: the variant table (lab::Family): each variant's kernel, launch shape and tunables,
// the defines and signature every kernel shares, the default tuning for a device, and the
// estimate of its FP32 peak. The run path that uses the table is in run.cpp.
#include "matmul.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

namespace matmul {
namespace {

using Sizes = std::vector<std::uint64_t>;
using lab::Tuning;

// A tunable: its kernel macro, the option that sets it, its meaning, what a tuner tries, and what
// it makes larger.
lab::Tunable knob(const char* name, const char* option, const char* meaning,
                  std::vector<std::int64_t> candidates, unsigned grows, int position = -1) {
  lab::Tunable t;
  t.name = name;
  t.option = option;
  t.meaning = meaning;
  t.candidates = std::move(candidates);
  t.grows = grows;
  t.position = position;
  t.max = kMaxGroupSide;
  return t;
}

std::vector<lab::Tunable> tunables() {
  using lab::kGrowsGroup;
  using lab::kGrowsLocal;
  using lab::kGrowsPrivate;
  auto local_2d = knob("LOCAL_2D", "--local", "Work-group side: naive LxL, the row variants L",
                       {4, 8, 16, 32}, kGrowsGroup);
  auto local_1d = knob("LOCAL_1D", "--local", "Work-group side: naive LxL, the row variants L",
                       {16, 32, 64, 128, 256}, kGrowsGroup);
  local_2d.define = local_1d.define = false;  // they shape the launch only
  auto kmax = knob("KMAX", "--kmax", "row_private, row_local: capacity of a row of A (>= K)", {},
                   kGrowsLocal | kGrowsPrivate);
  kmax.max = kMaxDimension;
  auto stage = knob("STAGE", "--staging",
                    "regtiled: stage slices in local memory or read through the caches", {0, 1},
                    lab::kGrowsNothing);
  stage.choices({"cache", "local"});
  auto edges = knob("EDGES", "--edges",
                    "regtiled, sizes that are not multiples of the tiles: bounds checks in the "
                    "kernel, or copies into zero-padded buffers and the exact kernel",
                    {0, 1}, lab::kGrowsNothing);
  edges.choices({"checks", "pad"});
  edges.define = false;  // the host's choice: the padded run builds the kernel with EXACT=1
  // More than 16x16 accumulators per work-item fit no device's registers.
  auto wpt = knob("WPT", "--wpt", "regtile_simple: WPTxWPT elements of C per work-item", {2, 4, 8},
                  lab::kGrowsNothing);
  wpt.max = 16;
  return {
      local_2d,
      local_1d,
      knob("TS", "--ts", "tiled: tile side TS (work-group TSxTS)", {4, 8, 16, 32},
           kGrowsGroup | kGrowsLocal),
      kmax,
      knob("BLOCK", "--block", "regtile_simple: BLOCKxBLOCK block of C per work-group",
           {16, 32, 64, 128}, kGrowsGroup | kGrowsLocal),
      wpt,
      knob("TSM", "--regtile", "rows of C per work-group", {32, 64, 128, 256},
           kGrowsGroup | kGrowsLocal, 0),
      knob("TSN", "--regtile", "columns of C per work-group", {8, 16, 24, 32, 48, 64, 128},
           kGrowsGroup | kGrowsLocal, 1),
      knob("TSK", "--regtile", "width of the slices of K", {4, 8, 16, 32, 64, 128}, kGrowsLocal, 2),
      knob("WPTM", "--regtile", "rows of C per work-item", {4, 8, 16}, lab::kGrowsNothing, 3),
      knob("WPTN", "--regtile", "columns of C per work-item", {4, 8, 16, 24, 32, 48},
           lab::kGrowsNothing, 4),
      knob("VWN", "--regtile", "vector width along j (4, 8 or 16)", {4, 8, 16}, lab::kGrowsNothing,
           5),
      stage,
      edges};
}

// The 2-D launches of naive and naive_global: LOCAL_2D x LOCAL_2D groups over C.
lab::NDRangePlan plan_naive(const Dims& d, const Tuning& t) {
  const std::uint64_t l = t.whole("LOCAL_2D");
  return {{lab::round_up(d.N, l), lab::round_up(d.M, l)}, {l, l}};
}
Sizes covers_naive(const Dims& d, const Tuning& t) {
  return {lab::round_up(d.M, t.whole("LOCAL_2D")), lab::round_up(d.N, t.whole("LOCAL_2D")),
          std::uint64_t(d.K)};
}

// The row variants: one work-item per row of C, LOCAL_1D per group.
lab::NDRangePlan plan_rows(const Dims& d, const Tuning& t) {
  return {{lab::round_up(d.M, t.whole("LOCAL_1D"))}, {t.whole("LOCAL_1D")}};
}
Sizes covers_rows(const Dims& d, const Tuning& t) {
  return {lab::round_up(d.M, t.whole("LOCAL_1D")), std::uint64_t(d.N), std::uint64_t(d.K)};
}

// row_private and row_local hold a row of K elements in arrays of KMAX.
std::function<std::string(const Dims&, const Tuning&)> fits_kmax(const char* name,
                                                                 const char* what) {
  return [name, what](const Dims& d, const Tuning& t) -> std::string {
    if (d.K <= t["KMAX"]) return "";
    return std::string(name) + " keeps " + what + " of KMAX = " + std::to_string(t["KMAX"]) +
           " elements, but K = " + std::to_string(d.K) + ": pass --kmax " + std::to_string(d.K) +
           " or more (larger arrays cost private and local memory), or choose another variant";
  };
}
std::uint64_t private_row(const Tuning& t, std::size_t element) {
  return t.whole("KMAX") * element;
}

Variant row(const char* name, const char* summary, std::vector<std::string> tunables) {
  Variant v;
  v.name = name;
  v.summary = summary;
  v.kernel_file = std::string("matmul_") + name + ".cl";
  v.kernel_name = std::string("matmul_") + name;
  v.tunables = std::move(tunables);
  return v;
}

Family make_family() {
  Family f;
  f.name = "matmul";
  f.tunables = tunables();
  f.work = [](const Dims& d) {
    const double M = d.M, N = d.N, K = d.K;
    return lab::Work{d.flops(), 4.0 * (M * K + K * N + M * N)};
  };

  Variant sequential;
  sequential.name = kSequential;
  sequential.summary = "the triple loop on one host core";
  f.variants.push_back(sequential);

  for (const char* name : {"naive_global", "naive"}) {
    Variant v = row(name,
                    name == std::string("naive")
                        ? "an element of C per work-item"
                        : "an element of C per work-item, accumulating in global C",
                    {"LOCAL_2D"});
    v.plan = plan_naive;
    v.covers = covers_naive;
    f.variants.push_back(v);
  }
  // The row variants: one work-item per row of C; the last two hold a row in arrays of KMAX.
  // (Room for every row first: the references below stay valid.)
  f.variants.reserve(9);
  const auto row_per_item = [&f](const char* name, const char* summary,
                                 std::vector<std::string> uses) -> Variant& {
    f.variants.push_back(row(name, summary, std::move(uses)));
    f.variants.back().plan = plan_rows;
    f.variants.back().covers = covers_rows;
    return f.variants.back();
  };
  row_per_item("row", "a row of C per work-item", {"LOCAL_1D"});
  Variant& row_private =
      row_per_item("row_private", "and the row of A in private memory", {"LOCAL_1D", "KMAX"});
  row_private.fits = fits_kmax("row_private", "a row of A in a private array");
  row_private.private_bytes = private_row;
  Variant& row_local =
      row_per_item("row_local", "and each column of B in local memory", {"LOCAL_1D", "KMAX"});
  row_local.fits = fits_kmax("row_local", "a row of A and a column of B in arrays");
  row_local.private_bytes = private_row;
  row_local.local_bytes = private_row;  // the column of B: KMAX elements

  Variant tiled = row("tiled", "TSxTS tiles of A and B in local memory", {"TS"});
  tiled.plan = [](const Dims& d, const Tuning& t) -> lab::NDRangePlan {
    const std::uint64_t ts = t.whole("TS");
    return {{lab::round_up(d.N, ts), lab::round_up(d.M, ts)}, {ts, ts}};
  };
  tiled.covers = [](const Dims& d, const Tuning& t) -> Sizes {
    const std::uint64_t ts = t.whole("TS");
    return {lab::round_up(d.M, ts), lab::round_up(d.N, ts), lab::round_up(d.K, ts)};
  };
  tiled.local_bytes = [](const Tuning& t, std::size_t element) {
    return 2 * t.whole("TS") * t.whole("TS") * element;  // Asub and Bsub
  };
  f.variants.push_back(tiled);

  Variant simple = row("regtile_simple", "WPTxWPT elements of C per work-item from local tiles",
                       {"BLOCK", "WPT"});
  simple.fits = [](const Dims&, const Tuning& t) -> std::string {
    if (t["BLOCK"] % t["WPT"] == 0) return "";
    return "regtile_simple gives every work-item WPT x WPT elements of a BLOCK x BLOCK block, and "
           "--block " +
           std::to_string(t["BLOCK"]) + " is not a multiple of --wpt " + std::to_string(t["WPT"]) +
           ": choose a BLOCK that WPT divides";
  };
  simple.plan = [](const Dims& d, const Tuning& t) -> lab::NDRangePlan {
    const std::uint64_t block = t.whole("BLOCK"), rts = block / t.whole("WPT");
    return {{lab::ceil_div(d.N, block) * rts, lab::ceil_div(d.M, block) * rts}, {rts, rts}};
  };
  simple.covers = [](const Dims& d, const Tuning& t) -> Sizes {
    const std::uint64_t block = t.whole("BLOCK");
    return {lab::round_up(d.M, block), lab::round_up(d.N, block), lab::round_up(d.K, block)};
  };
  simple.local_bytes = [](const Tuning& t, std::size_t element) {
    return 2 * t.whole("BLOCK") * t.whole("BLOCK") * element;  // Asub and Bsub
  };
  f.variants.push_back(simple);

  Variant regtiled = row("regtiled", "WPTMxWPTN elements of C per work-item in registers",
                         {"TSM", "TSN", "TSK", "WPTM", "WPTN", "VWN", "STAGE", "EDGES"});
  regtiled.plan = [](const Dims& d, const Tuning& t) -> lab::NDRangePlan {
    const std::uint64_t rtsn = t.whole("TSN") / t.whole("WPTN"),
                        rtsm = t.whole("TSM") / t.whole("WPTM");
    return {{lab::ceil_div(d.N, t.whole("TSN")) * rtsn, lab::ceil_div(d.M, t.whole("TSM")) * rtsm},
            {rtsn, rtsm}};
  };
  regtiled.derived = [](const Dims& d, const Tuning& t) -> lab::Defines {
    const bool exact = d.M % t["TSM"] == 0 && d.N % t["TSN"] == 0 && d.K % t["TSK"] == 0;
    return {{"EXACT", exact ? "1" : "0", ""}};
  };
  regtiled.covers = [](const Dims& d, const Tuning& t) -> Sizes {
    return {lab::round_up(d.M, t.whole("TSM")), lab::round_up(d.N, t.whole("TSN")),
            lab::round_up(d.K, t.whole("TSK"))};
  };
  regtiled.local_bytes = [](const Tuning& t, std::size_t element) -> std::uint64_t {
    // As[2][TSK][TSM + PAD] and Bs[2][TSK][TSN], PAD = 4, when STAGE stages the slices.
    if (t["STAGE"] == 0) return 0;
    return 2 * t.whole("TSK") * (t.whole("TSM") + 4 + t.whole("TSN")) * element;
  };
  f.variants.push_back(regtiled);
  return f;
}

}  // namespace

const Family& family() {
  static const Family table = make_family();
  return table;
}

lab::Defines element_defines(const std::string& real) {
  lab::Defines defines = lab::real_defines(real);
  defines.push_back({"REAL4", real + "4", "--dtype"});
  return defines;
}

lab::KernelSignature signature(const std::string& real) {
  return {"",
          {{"", "int", "M"},
           {"", "int", "N"},
           {"", "int", "K"},
           {"global", real + "*", "A", true},
           {"global", real + "*", "B", true},
           {"global", real + "*", "C"}}};
}

Tuning default_tuning(const cl::Device& device, std::size_t element) {
  // Sizes that are not multiples of regtiled's tiles are padded (EDGES=1) on every device: the
  // copies cost O(n^2) against the kernel's O(n^3), and the exact kernel keeps whole vectors. On
  // an H100 at 4095x4097x4093: checks 29.4 TFLOP/s, pad 42.6. On PoCL (2-core AMD EPYC VM,
  // AVX-512) at 1023x1025x1021: checks 60 GFLOP/s, pad 458, against 420 at 1024.
  // regtile_simple: 64x64 blocks, 4x4 elements per work-item in 16x16 work-groups, two tiles of
  // 16 KiB each (32 KiB each in double), on every device; 32x32 blocks in 8x8 groups where the two
  // tiles would not fit the device's local memory (an NVIDIA kernel's 48 KiB, in double).
  const std::uint64_t two_tiles = 2 * 64 * 64 * element;
  const int block = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>() >= two_tiles ? 64 : 32;
  const Tuning t = Tuning().with({{"LOCAL_2D", 16},
                                  {"LOCAL_1D", 64},
                                  {"TS", 16},
                                  {"KMAX", 1024},
                                  {"BLOCK", block},
                                  {"WPT", 4},
                                  {"EDGES", 1}});
  const bool gpu = (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) != 0;
  if (gpu && element == 8) {
    // Double: 16x4 accumulators (128 registers of 32 bits) per work-item in a 32x8 work-group for
    // a 128x128 block of C, slices of K 8 wide (two of them 33 KiB; 16 wide would not fit the
    // 48 KiB an NVIDIA kernel gets). On an H200 at 4096: 19.9 TFLOP/s, 60% of the FP64 FMA peak,
    // against 18.9 for 8x8 in 16x16 groups, 18.5 for a 64x128 block, 12.4 for VWN 8 and 5.7
    // reading the slices through the caches.
    return t.with({{"TSM", 128},
                   {"TSN", 128},
                   {"TSK", 8},
                   {"WPTM", 16},
                   {"WPTN", 4},
                   {"VWN", 4},
                   {"STAGE", 1}});
  }
  if (gpu) {
    // A 16x8 work-group computes a 128x128 block of C, 16x8 elements per work-item, with slices
    // of K staged in local memory: 16 wide where two of them fit (33 KiB), else 8. On an H100 at
    // 4096: 48.3 TFLOP/s against 47.6 for slices 8 wide; earlier, with slices 8 wide, 44.0 for
    // 8x8 per work-item in 16x16 groups and 44.8 for 16x4.
    const std::uint64_t two_wide_slices = 2 * 16 * (128 + 4 + 128) * element;
    const int tsk = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>() >= two_wide_slices ? 16 : 8;
    return t.with({{"TSM", 128},
                   {"TSN", 128},
                   {"TSK", tsk},
                   {"WPTM", 16},
                   {"WPTN", 8},
                   {"VWN", 4},
                   {"STAGE", 1}});
  }
  // CPU (PoCL): no local staging; groups of 16 work-items stacked along i share a panel of B
  // through the cache, each computing WPTM rows x a few SIMD vectors of C in registers; slices of
  // K are finished by the whole group before the next (cache blocking). The accumulators leave
  // room for B's vectors and one broadcast of A:
  // - AVX-512 (32 zmm): 8 rows x 2 vectors, 16 accumulators;
  // - AVX2 (16 ymm): 4 rows x 3 vectors, 12 accumulators + 3 of B + 1 of A fill all 16, and each
  //   k costs 7 loads for 12 multiply-adds, where 4 x 2 costs 6 for 8. On the 2-core AMD EPYC VM
  //   under POCL_KERNELLIB_NAME=avx2, in turns with OpenBLAS: 0.88-0.90x at 1024 and 0.79x at
  //   2048 against 0.48-0.52x and 0.45x for 4 x 2 (the 8 x 2 of AVX-512 spills there: 50-75
  //   GFLOP/s against 100-118 for 4 x 2 on an Intel Xeon VM). Its slices of K are 128 deep
  //   (180-184 GFLOP/s at 1024 against 166-177 for 64).
  // A double vector holds half as many lanes as a float one, in the same registers.
  const lab::SimdUnit simd = lab::cpu_simd_unit(device);
  const int vwn = std::max(4, simd.float_lanes * 4 / int(element));
  const bool wide = simd.registers >= 32;
  const int wptm = wide ? 8 : 4;
  const int wptn = (wide ? 2 : 3) * vwn;
  return t.with({{"TSM", 16 * wptm},
                 {"TSN", wptn},
                 {"TSK", wide ? 64 : 128},
                 {"WPTM", wptm},
                 {"WPTN", wptn},
                 {"VWN", vwn},
                 {"STAGE", 0}});
}

}  // namespace matmul
