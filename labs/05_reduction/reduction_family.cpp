// reduction_family.cpp: the reduction table.
#include "reduction_family.hpp"

namespace reduction {
namespace {

// A tree halves the work-group at every step: its size (the tunable `name`) must be a power of two.
std::function<std::string(const Length&, const lab::Tuning&)> needs_power_of_two(
    const std::string& variant, const std::string& name, const std::string& option) {
  return [variant, name, option](const Length&, const lab::Tuning& t) {
    return lab::power_of_two_refusal(variant + " halves its work-group at every step of its tree",
                                     name, option, t.whole(name));
  };
}

Variant row(const char* name, const char* summary, bool tree) {
  Variant v;
  v.name = name;
  v.summary = summary;
  v.kernel_file = std::string("reduction_") + name + ".cl";
  v.kernel_name = std::string("reduction_") + name;
  v.tunables = {"LOCAL"};
  v.extra.scratch = true;
  v.extra.tree = tree;
  // One element per work-item, a group per LOCAL elements.
  v.plan = [](const Length& n, const lab::Tuning& t) -> lab::NDRangePlan {
    return {{lab::round_up(n, t.whole("LOCAL"))}, {t.whole("LOCAL")}};
  };
  v.covers = [](const Length& n, const lab::Tuning& t) -> std::vector<std::uint64_t> {
    return {lab::round_up(n, t.whole("LOCAL"))};
  };
  v.extra.groups = [](Length n, const lab::Tuning& t) {
    return lab::ceil_div(n, t.whole("LOCAL"));
  };
  v.extra.chain = [](Length, const lab::Tuning& t) { return lab::log2_ceil(t.whole("LOCAL")); };
  v.dynamic_local_bytes = [](const lab::Tuning& t, std::size_t element) {
    return t.whole("LOCAL") * element;
  };
  if (tree) v.fits = needs_power_of_two(name, "LOCAL", "--local");
  return v;
}

Family make_family() {
  Family f;
  f.name = "reduction";
  lab::Tunable local;
  local.name = "LOCAL";
  local.option = "--local";
  local.meaning = "Work-group size (a power of two for the tree variants)";
  local.max = 65536;
  local.candidates = {32, 64, 128, 256, 512, 1024};
  local.define = false;
  local.grows = lab::kGrowsGroup | lab::kGrowsLocal;
  local.power_of_two = true;
  lab::Tunable groups =
      local.like("GROUPS", "--groups",
                 "multi, atomic: work-groups, each work-item adding n / (GROUPS*LOCAL) elements",
                 {16, 64, 256, 1024, 4096});
  groups.max = std::int64_t{1} << 24;
  groups.grows = lab::kGrowsNothing;
  groups.power_of_two = false;
  const lab::Tunable multi_local =
      local.like("MULTI_LOCAL", "--multi-local",
                 "multi, atomic: work-group size (a power of two; 1 suits a CPU)",
                 {1, 4, 16, 64, 128, 256, 512});
  lab::Tunable width =
      groups.like("VW", "--vector-width",
                  "multi, atomic: elements per vector load (1, 2, 4, 8 or 16)", {1, 2, 4, 8, 16});
  width.max = 16;
  width.define = true;
  lab::Tunable accs = width.like("ACCS", "--accumulators",
                                 "multi: sums each work-item keeps side by side (1, 2 or 4), so "
                                 "that an addition need not wait for the one before",
                                 {1, 2, 4});
  accs.max = 4;
  const lab::Tunable order =
      width
          .like("ORDER", "--order",
                "multi, atomic: which vectors a work-item adds: interleaved (a grid apart, so "
                "neighbours read neighbours: coalesced on a GPU) or contiguous (one run each: a "
                "CPU core streams its own part of memory)",
                {})
          .choices({"interleaved", "contiguous"});
  f.tunables = {local, multi_local, groups, width, accs, order};

  // Bytes counted: every term read once (x, and y for a dot product); set by the lab per --op.
  f.variants.reserve(8);
  Variant single =
      row("single", "one work-item adds its group's elements while the others wait", false);
  single.extra.scratch = false;
  single.dynamic_local_bytes = nullptr;
  single.extra.chain = [](Length, const lab::Tuning& t) { return t.whole("LOCAL"); };
  f.variants.push_back(single);

  Variant local_single = row("local_single", "the same from a copy in local memory", false);
  local_single.extra.chain = [](Length, const lab::Tuning& t) { return t.whole("LOCAL"); };
  f.variants.push_back(local_single);

  f.variants.push_back(
      row("interleaved", "Bailey's mask/offset tree: scattered busy work-items", true));
  f.variants.push_back(row("interleaved_strided",
                           "the same tree with the first work-items busy: bank conflicts", true));
  f.variants.push_back(row("sequential", "halving stride, sequential addressing", true));

  Variant first_add = row("first_add", "two elements added while loading", true);
  first_add.plan = [](const Length& n, const lab::Tuning& t) -> lab::NDRangePlan {
    return {{lab::round_up(lab::ceil_div(n, 2), t.whole("LOCAL"))}, {t.whole("LOCAL")}};
  };
  first_add.covers = [](const Length& n, const lab::Tuning& t) -> std::vector<std::uint64_t> {
    return {2 * lab::round_up(lab::ceil_div(n, 2), t.whole("LOCAL"))};
  };
  first_add.extra.groups = [](Length n, const lab::Tuning& t) {
    return lab::ceil_div(lab::ceil_div(n, 2), t.whole("LOCAL"));
  };
  first_add.extra.chain = [](Length, const lab::Tuning& t) {
    return 1 + lab::log2_ceil(t.whole("LOCAL"));
  };
  f.variants.push_back(first_add);

  // multi and atomic: GROUPS groups of MULTI_LOCAL work-items, each adding n / (GROUPS*MULTI_LOCAL)
  // elements in vectors of VW.
  for (const char* name : {"multi", "atomic"}) {
    const bool atomic = name == std::string("atomic");
    Variant v = row(name,
                    atomic ? "multi's groups add their sums to one total with atomic_add (int)"
                           : "many elements per work-item (coalesced vectors), then one tree",
                    true);
    v.tunables = {"MULTI_LOCAL", "GROUPS", "VW"};
    if (!atomic) v.tunables.push_back("ACCS");
    v.tunables.push_back("ORDER");
    // Never more groups than there are vectors to share out.
    const auto used = [](Length n, const lab::Tuning& t) {
      return std::min(t.whole("GROUPS"),
                      lab::ceil_div(lab::ceil_div(n, t.whole("VW")), t.whole("MULTI_LOCAL")));
    };
    v.plan = [used](const Length& n, const lab::Tuning& t) -> lab::NDRangePlan {
      return {{used(n, t) * t.whole("MULTI_LOCAL")}, {t.whole("MULTI_LOCAL")}};
    };
    v.covers = [](const Length& n, const lab::Tuning&) -> std::vector<std::uint64_t> {
      return {n};
    };
    v.extra.groups = [atomic, used](Length n, const lab::Tuning& t) -> std::uint64_t {
      return atomic ? 1 : used(n, t);
    };
    // Each lane adds about n / (items * VW) terms (at most: split over ACCS sums, then those
    // added together), then the lanes, the left-overs and the tree.
    v.extra.chain = [used, atomic](Length n, const lab::Tuning& t) -> std::uint64_t {
      const std::uint64_t width = t.whole("VW");
      const std::uint64_t items = used(n, t) * t.whole("MULTI_LOCAL");
      const std::uint64_t accs = atomic ? 0 : t.whole("ACCS");
      return lab::ceil_div(n, items * width) + accs + width + 1 +
             lab::log2_ceil(t.whole("MULTI_LOCAL"));
    };
    v.dynamic_local_bytes = [](const lab::Tuning& t, std::size_t element) {
      return t.whole("MULTI_LOCAL") * element;
    };
    v.extra.local = "MULTI_LOCAL";
    v.fits = needs_power_of_two(name, "MULTI_LOCAL", "--multi-local");
    v.extra.int_only = v.extra.one_pass = atomic;
    f.variants.push_back(v);
  }
  return f;
}

}  // namespace

const Family& family() {
  static const Family table = make_family();
  return table;
}

lab::Tuning default_tuning(const cl::Device& device) {
  const bool gpu = (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) != 0;
  const std::int64_t units = device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
  if (gpu) {
    // One sum per work-item: a GPU hides each addition's wait behind other work-items, and
    // four sums were 3-4% slower on an H100 (2^26 and 2^28, sum and dot).
    return lab::Tuning().with({{"LOCAL", 256},
                               {"MULTI_LOCAL", 256},
                               {"GROUPS", units * 8},
                               {"VW", 4},
                               {"ACCS", 1},
                               {"ORDER", 0}});
  }
  // A CPU: PoCL runs a group's work-items one after another on one core, so multi wants one
  // long work-item per core, adding vectors as wide as the SIMD unit into four sums: one core
  // runs one work-item, and a vector addition waits for the one before it on the same sum (4
  // cycles on AVX-512), so a single sum caps the rate near the memory's. On a 2-core AMD EPYC
  // VM at 2^24 (vectors interleaved), in turns with OpenBLAS: 1.00-1.30x ssum with four sums,
  // 0.86-1.00x with one.
  // Each core reads one unbroken run of x (ORDER 1): interleaved, two cores took alternate
  // vectors of every cache line, and multi ran at 0.62-1.29x OpenBLAS against 1.40-2.80x for
  // contiguous runs on the same VM (AVX2 and AVX-512 code, sum and dot, in turns).
  return lab::Tuning().with({{"LOCAL", 256},
                             {"MULTI_LOCAL", 1},
                             {"GROUPS", units},
                             {"VW", lab::cpu_simd_unit(device).float_lanes},
                             {"ACCS", 4},
                             {"ORDER", 1}});
}

std::string cannot_run(const Variant& variant, const std::string& dtype) {
  if (!variant.extra.int_only || dtype == "int") return "";
  const std::string why =
      " adds each group's sum with atomic_add, which OpenCL 1.2 has for 32-bit integers only: a ";
  const std::string instead =
      " total needs a compare-and-swap loop, and its order of additions (so its rounding) would "
      "change from run to run: use --dtype int";
  return variant.name + why + dtype + instead;
}

}  // namespace reduction
