// histogram_family.cpp: the histogram table.
#include "histogram_family.hpp"

#include <algorithm>

namespace histogram {
namespace {

// A row whose kernel histogram_<kernel> is in kernels/histogram_<kernel>.cl.
Variant row(const std::string& name, const std::string& kernel, const std::string& summary) {
  Variant v;
  v.name = name;
  v.summary = summary;
  v.kernel_name = "histogram_" + kernel;
  v.kernel_file = v.kernel_name + ".cl";
  v.tunables = {"LOCAL", "GROUPS"};
  // GROUPS groups of LOCAL work-items walk the keys a grid apart (never more work-items than
  // there are groups of four keys to hand out).
  v.plan = [](const Problem& p, const lab::Tuning& t) -> lab::NDRangePlan {
    const std::uint64_t local = t.whole("LOCAL");
    const std::uint64_t groups =
        std::max<std::uint64_t>(1, std::min(t.whole("GROUPS"), lab::ceil_div(p.n, 4 * local)));
    return {{groups * local}, {local}};
  };
  v.covers = [](const Problem& p, const lab::Tuning&) -> std::vector<std::uint64_t> {
    return {p.n};
  };
  v.derived = [](const Problem& p, const lab::Tuning&) -> lab::Defines {
    return {{"BINS", std::to_string(p.bins), "--bins"}};
  };
  return v;
}

Family make_family() {
  Family f;
  f.name = "histogram";
  // Work: n keys counted; bytes: each key read once (the histogram itself is small).
  f.work = [](const Problem& p) { return lab::Work{double(p.n), 4.0 * double(p.n)}; };

  lab::Tunable local;
  local.name = "LOCAL";
  local.option = "--local";
  local.meaning = "Work-group size";
  local.max = 65536;
  local.candidates = {32, 64, 128, 256, 512, 1024};
  local.define = false;
  local.grows = lab::kGrowsGroup;
  lab::Tunable groups = local;
  groups.name = "GROUPS";
  groups.option = "--groups";
  groups.meaning = "Work-groups walking the keys a grid apart";
  groups.max = std::int64_t{1} << 24;
  groups.candidates = {2, 16, 128, 512, 2048, 8192};
  groups.grows = lab::kGrowsNothing;
  lab::Tunable copies = groups;
  copies.name = "COPIES";
  copies.option = "--copies";
  copies.meaning = "replicated: copies of the local histogram, work-item t counting in t % COPIES";
  copies.max = 1024;
  copies.candidates = {1, 2, 4, 8, 16, 32};
  copies.define = true;
  copies.grows = lab::kGrowsLocal;
  f.tunables = {local, groups, copies};

  Variant global =
      row("global_atomics", "global", "every key an atomic increment in global memory");
  Variant in_local =
      row("local_atomics", "local", "a histogram per work-group in local memory, then added");
  Variant mine =
      row("private", "private", "counters per work-item (at most 64 bins), then the group's");
  mine.fits = [](const Problem& p, const lab::Tuning&) -> std::string {
    if (p.bins <= kPrivateMaxBins) return "";
    return "private keeps BINS counters in each work-item's own array, which only suits few "
           "bins (at most " +
           std::to_string(kPrivateMaxBins) + "), and --bins " + std::to_string(p.bins) +
           " is more: use local_atomics or replicated";
  };
  Variant copied =
      row("replicated", "replicated", "COPIES copies of the local histogram: less contention");
  copied.tunables = {"LOCAL", "GROUPS", "COPIES"};
  f.variants = {global, in_local, mine, copied};
  return f;
}

}  // namespace

const Family& family() {
  static const Family table = make_family();
  return table;
}

lab::Tuning default_tuning(const cl::Device& device, std::uint64_t bins) {
  const bool gpu = (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) != 0;
  const std::int64_t units = device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
  if (gpu) {
    // 8 copies, or as many as fit in half the local memory (4096 bins: 1 on a 48 KiB GPU).
    const std::uint64_t fit = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>() / 2 / (bins * 4);
    std::int64_t copies = 8;
    while (copies > 1 && std::uint64_t(copies) > fit) copies /= 2;
    return lab::Tuning().with({{"LOCAL", 256}, {"GROUPS", units * 8}, {"COPIES", copies}});
  }
  // A CPU runs a group's work-items one after another on one core: one work-item per group
  // (nothing shared, so nothing contended) and one group per core, so that each core's keys are
  // near each other (with more, the grid-stride walk interleaves the cores' cache lines).
  return lab::Tuning().with({{"LOCAL", 1}, {"GROUPS", units}, {"COPIES", 1}});
}

}  // namespace histogram
