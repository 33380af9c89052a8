// peak.hpp: the device's FP32 and FP64 peaks, each measured by an FMA-bound kernel
// (kernels/peak_fma.cl, in float or in double) and cached on disk: the ceilings compute-bound
// rows (matmul) are measured against.
#pragma once

#include "lab/device.hpp"
#include "lab/options.hpp"

#include <iosfwd>
#include <optional>
#include <string>

namespace lab {

// Which multiply-add: float's (FP32) or double's (FP64).
enum class Precision { fp32, fp64 };

// "FP32" or "FP64".
const char* precision_name(Precision precision);

struct FmaPeak {
  double gflops = 0;  // 0: none (a simulator, a device without fp64, or a failed measurement)
  std::string how;    // one sentence: how it was measured, or why there is none
  bool from_cache = false;
};

// The cache: LAB_PEAK_CACHE if set, else $XDG_CACHE_HOME/opencl-labs/peak.json, else
// $HOME/.cache/opencl-labs/peak.json. One entry per platform, device name, driver version,
// compute units, clock, precision and kernel source (SHA-256 of peak_fma.cl).
std::string peak_cache_path();

// The measured peak of `env`'s device in `precision`: from the cache when it holds this device
// with this kernel, else measured now (a quarter of a second on a CPU, less on a GPU) and
// stored. A cache that cannot be read or written is not an error: the peak is then measured on
// every run. LAB_PEAK_REMEASURE (set, and not "0") measures again and replaces the cached value.
// `at_least`: a rate a kernel has just reached on this device. A cached peak below it was
// measured while something else used the device: it is measured again (up to 3 times while
// below `at_least`) and the highest kept (and cached), so that a busy moment does not leave a
// ceiling below what kernels reach. Oclgrind simulates a device, and a device without double
// precision has no FP64 peak: gflops 0 there. -v prints the launches to `out`. `measure_again`:
// as LAB_PEAK_REMEASURE, measured now and the cached value replaced.
FmaPeak fma_peak(Env& env, const Options& options, std::ostream& out,
                 Precision precision = Precision::fp32, double at_least = 0,
                 bool measure_again = false);

// The cached peak of `device` in `precision`, without measuring; nullopt when the cache holds
// none (or the kernel file cannot be found).
std::optional<FmaPeak> cached_fma_peak(const cl::Device& device, const Options& options,
                                       Precision precision = Precision::fp32);

// The launch shape fma_peak uses, from the device's properties: a CPU runs chains as wide as
// the SIMD registers its kernels are compiled for (half as many doubles as floats), half as many
// chains as it has registers; a GPU 16 chains of one element and 8192 work-items per compute
// unit (several waves of every SM).
struct PeakShape {
  int vector_width = 1;     // VW
  int chains = 16;          // CHAINS
  int iters = 256;          // ITERS
  std::uint64_t local = 0;  // work-group size
  std::uint64_t global = 0;
};
PeakShape peak_shape(const cl::Device& device, Precision precision = Precision::fp32);

}  // namespace lab
