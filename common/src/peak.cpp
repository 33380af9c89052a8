// peak.cpp: the FP32 and FP64 peaks measured with kernels/peak_fma.cl, and their cache.
#include "lab/peak.hpp"

#include "lab/data.hpp"
#include "lab/error.hpp"
#include "lab/ndrange.hpp"
#include "lab/program.hpp"
#include "lab/sha256.hpp"
#include "lab/timing.hpp"
#include "lab/tuner.hpp"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <system_error>
#include <type_traits>

namespace lab {

namespace {

using nlohmann::json;

constexpr const char* kKernelFile = "peak_fma.cl";
// Each timed launch repeats the chains until it lasts about this long: long beside the launch
// overhead and the timer's tick, short enough that the whole measurement takes a fraction of a
// second. The best of kReps launches is the peak (a run slowed by another process is not).
constexpr double kLaunchSeconds = 0.004;
constexpr int kReps = 40;
// Measurements made at most when a kernel has just run faster than the cached peak.
constexpr int kAttempts = 3;

bool remeasure_asked() {
  const char* value = std::getenv("LAB_PEAK_REMEASURE");
  return value != nullptr && *value != '\0' && std::string(value) != "0";
}

// The peak kernel's file (the suite's, or a --kernel-dir's copy, as for any helper kernel) and
// the SHA-256 of its text: a changed kernel is measured again.
struct PeakSource {
  std::string path;
  std::string sha256;
};
PeakSource peak_source(const Options& options) {
  Options helper = options;
  helper.kernel_file.clear();
  PeakSource source;
  source.path = find_kernel_file(kKernelFile, kernel_lookup(helper), false);
  std::ifstream in(source.path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  source.sha256 = sha256_hex(text.str());
  return source;
}

// What a cached peak belongs to: the platform, the device, its driver, compute units and clock
// (a VM resized or a GPU clock-locked differently is another device), the precision and the
// kernel.
json cache_key(const cl::Device& device, const std::string& sha256, Precision precision) {
  const cl::Platform platform(device.getInfo<CL_DEVICE_PLATFORM>());
  return {{"platform", trim_info(platform.getInfo<CL_PLATFORM_NAME>()) + " " +
                           trim_info(platform.getInfo<CL_PLATFORM_VERSION>())},
          {"device", trim_info(device.getInfo<CL_DEVICE_NAME>())},
          {"driver", trim_info(device.getInfo<CL_DRIVER_VERSION>())},
          {"compute_units", device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>()},
          {"clock_mhz", device.getInfo<CL_DEVICE_MAX_CLOCK_FREQUENCY>()},
          {"precision", precision_name(precision)},
          {"source_sha256", sha256}};
}

bool same_key(const json& entry, const json& key) {
  for (const auto& [name, value] : key.items()) {
    if (!entry.contains(name) || entry[name] != value) return false;
  }
  return true;
}

// The cache's entries; an empty list when it is missing, unreadable or not ours.
json load_entries(const std::string& path) {
  std::ifstream in(path);
  if (!in) return json::array();
  try {
    const json data = json::parse(in);
    if (data.is_object() && data.contains("entries") && data["entries"].is_array()) {
      return data["entries"];
    }
  } catch (const std::exception&) {
  }
  return json::array();
}

// Writes the entries through a temporary file of this process, renamed over the cache, so that
// two labs measuring at once never leave half a file. False when that fails.
bool save_entries(const std::string& path, const json& entries) {
  std::error_code error;
  const std::filesystem::path file(path);
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), error);
  const std::string temporary = path + "." + std::to_string(::getpid()) + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << json{{"version", 1}, {"entries", entries}}.dump(2) << "\n";
    if (!out) {
      std::filesystem::remove(temporary, error);
      return false;
    }
  }
  std::filesystem::rename(temporary, file, error);
  if (error) std::filesystem::remove(temporary, error);
  return !error;
}

// T is float (FP32) or double (FP64): the kernel's REAL.
template <typename T>
FmaPeak measure(Env& env, const Options& options, std::ostream& out) {
  const Precision precision = std::is_same_v<T, double> ? Precision::fp64 : Precision::fp32;
  const PeakShape shape = peak_shape(env.device, precision);
  const std::string real = opencl_type_name<T>();
  Options helper = options;
  helper.kernel_file.clear();
  helper.build_options.clear();  // the device's peak, not the peak under a lab's flags
  Defines defines = real_defines(real);
  defines.push_back({"VW", std::to_string(shape.vector_width), ""});
  defines.push_back({"CHAINS", std::to_string(shape.chains), ""});
  defines.push_back({"ITERS", std::to_string(shape.iters), ""});
  const Program program = build_program(env, helper, kKernelFile, defines, out, false);
  cl::KernelFunctor<cl_int, T, T, cl::Buffer> peak_fma(make_kernel(
      program,
      {"peak_fma",
       {{"", "int", "repeats"}, {"", real, "a"}, {"", real, "b"}, {"global", real + "*", "out"}}}));
  const Launch1D launch = plan_1d(peak_fma.getKernel(), env.device, shape.global, shape.local);
  const cl::Buffer sums(env.context, CL_MEM_WRITE_ONLY,
                        launch.global * shape.vector_width * sizeof(T));
  const double flops_per_repeat =
      2.0 * shape.vector_width * shape.chains * shape.iters * static_cast<double>(launch.global);

  // One repeat, timed after a warm-up launch (which includes any first-launch setup), sets how
  // many repeats make a launch of about kLaunchSeconds.
  const OutOfTurns alone;  // back to back, never in turns with a lab's yardstick
  int repeats = 1;
  const auto run = [&] {
    return peak_fma(launch.args(env.queue), repeats, T(0.999), T(0.001), sums);
  };
  std::ostream* trace = options.verbose ? &out : nullptr;
  const double one = time_launches(1, 1, run, trace).time.min;
  repeats = static_cast<int>(
      std::clamp(std::ceil(kLaunchSeconds / std::max(one, 1e-7)), 1.0, double(1 << 20)));
  const Timing timing = time_launches(1, kReps, run, trace);

  FmaPeak peak;
  peak.gflops = flops_per_repeat * repeats / timing.time.min / 1e9;
  const std::string vector =
      shape.vector_width == 1 ? real : real + std::to_string(shape.vector_width);
  char how[256];
  std::snprintf(how, sizeof how,
                "measured by %s: %d chains of %s fma per work-item, %llu work-items, best of %d "
                "launches of %.0f ms",
                kKernelFile, shape.chains, vector.c_str(),
                static_cast<unsigned long long>(launch.global), kReps, timing.time.min * 1e3);
  peak.how = how;
  return peak;
}

}  // namespace

const char* precision_name(Precision precision) {
  return precision == Precision::fp64 ? "FP64" : "FP32";
}

PeakShape peak_shape(const cl::Device& device, Precision precision) {
  PeakShape shape;
  const std::uint64_t units = device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
  if (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) {
    // A core: a chain per pair of SIMD registers (16 on AVX-512's 32), each a whole register
    // wide (half as many doubles as floats), enough to keep two FMA units busy through their
    // latency; 16 work-items per core, one per work-group, so that the cores share the work
    // evenly.
    const SimdUnit simd = cpu_simd_unit(device);
    const int lanes = precision == Precision::fp64 ? simd.float_lanes / 2 : simd.float_lanes;
    int width = 1;
    while (width * 2 <= std::min(lanes, 16)) width *= 2;
    shape.vector_width = width;
    shape.chains = std::clamp(simd.registers / 2, 4, 16);
    shape.local = 1;
    shape.global = units * 16;
  } else {
    // A GPU: one element per chain (its lanes are work-items), 16 independent chains per
    // work-item, and 8192 work-items per compute unit: 4 waves of the 2048 an NVIDIA SM keeps
    // resident (an AMD CU keeps up to 2560), so every scheduler has ready warps throughout. On
    // an NVIDIA H200 (132 SMs at 1980 MHz, 66.9 TFLOP/s in theory): 65.2 TFLOP/s, where 8
    // chains reach 63.6 (the loop's own instructions take a larger share of the issue slots).
    const std::uint64_t max_group = device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
    shape.vector_width = 1;
    shape.chains = 16;
    shape.local = std::min<std::uint64_t>(256, max_group);
    shape.global = round_up(units * 8192, shape.local);
  }
  return shape;
}

std::string peak_cache_path() { return user_cache_file("LAB_PEAK_CACHE", "peak.json"); }

std::optional<FmaPeak> cached_fma_peak(const cl::Device& device, const Options& options,
                                       Precision precision) {
  json key;
  try {
    key = cache_key(device, peak_source(options).sha256, precision);
  } catch (const std::exception&) {
    return std::nullopt;  // no peak_fma.cl to be found: nothing measured with it either
  }
  const std::string path = peak_cache_path();
  for (const auto& entry : load_entries(path)) {
    if (!same_key(entry, key)) continue;
    const double gflops = entry.value("gflops", 0.0);
    if (!(gflops > 0)) return std::nullopt;
    FmaPeak peak;
    peak.gflops = gflops;
    peak.how = entry.value("how", std::string("measured")) + "; cached in " + path +
               " (LAB_PEAK_REMEASURE=1 measures again)";
    peak.from_cache = true;
    return peak;
  }
  return std::nullopt;
}

FmaPeak fma_peak(Env& env, const Options& options, std::ostream& out, Precision precision,
                 double at_least, bool measure_again) {
  const std::string name = precision_name(precision);
  if (is_oclgrind(env.platform)) {
    return {0, "Oclgrind simulates the device: no " + name + " peak to measure", false};
  }
  if (precision == Precision::fp64 && !has_fp64(env.device)) {
    return {0, "the device has no double precision: no FP64 peak", false};
  }
  const bool replace = measure_again || remeasure_asked();
  const std::optional<FmaPeak> cached =
      replace ? std::nullopt : cached_fma_peak(env.device, options, precision);
  if (cached && cached->gflops >= at_least) return *cached;
  const auto measure_once = [&] {
    return precision == Precision::fp64 ? measure<double>(env, options, out)
                                        : measure<float>(env, options, out);
  };
  FmaPeak peak;
  try {
    // Below a rate a kernel has just reached, the device is still busy: up to kAttempts tries.
    peak = measure_once();
    for (int attempt = 1; attempt < kAttempts && peak.gflops < at_least; ++attempt) {
      const FmaPeak again = measure_once();
      if (again.gflops > peak.gflops) peak = again;
    }
  } catch (const std::exception& error) {
    // The peak is a yardstick, not the lab's work: without it the rows go unrated, not failed.
    std::cerr << "note: the " << name << " peak could not be measured (" << error.what()
              << "): rows are shown without a share of it\n";
    return cached ? *cached : FmaPeak{0, std::string("not measured: ") + error.what(), false};
  }
  if (cached && cached->gflops > peak.gflops) {
    return *cached;  // measured lower again: the device is busy; the cache keeps the higher
  }
  const std::string path = peak_cache_path();
  json entries = load_entries(path);
  const json key = cache_key(env.device, peak_source(options).sha256, precision);
  entries.erase(std::remove_if(entries.begin(), entries.end(),
                               [&](const json& entry) { return same_key(entry, key); }),
                entries.end());
  json entry = key;
  entry["gflops"] = peak.gflops;
  entry["how"] = peak.how;
  entry["measured_at"] = static_cast<std::int64_t>(std::time(nullptr));
  entries.push_back(entry);
  if (!save_entries(path, entries)) peak.how += " (not cached: " + path + " cannot be written)";
  return peak;
}

}  // namespace lab
