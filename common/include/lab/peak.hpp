// peak.hpp: the device's FP32 peak, measured by an FMA-bound kernel (kernels/peak_fma.cl) and
// cached on disk, the ceiling compute-bound rows (matmul) are measured against.
#pragma once

#include "lab/device.hpp"
#include "lab/options.hpp"

#include <iosfwd>
#include <optional>
#include <string>

namespace lab {

struct Fp32Peak {
  double gflops = 0;  // 0: none (a simulator, or a measurement that failed)
  std::string how;    // one sentence: how it was measured, or why there is none
  bool from_cache = false;
};

// The cache: LAB_PEAK_CACHE if set, else $XDG_CACHE_HOME/opencl-labs/peak.json, else
// $HOME/.cache/opencl-labs/peak.json. One entry per platform, device name, driver version,
// compute units, clock and kernel source (SHA-256 of peak_fma.cl).
std::string peak_cache_path();

// The measured peak of `env`'s device: from the cache when it holds this device with this
// kernel, else measured now (a quarter of a second on a CPU, less on a GPU) and stored. A cache
// that cannot be read or written is not an error: the peak is then measured on every run.
// LAB_PEAK_REMEASURE (set, and not "0") measures again and replaces the cached value.
// `at_least`: a rate a kernel has just reached on this device. A cached peak below it was
// measured while something else used the device: it is measured again (up to 3 times while
// below `at_least`) and the highest kept (and cached), so that a busy moment does not leave a
// ceiling below what kernels reach. Oclgrind simulates a device: no peak there (gflops 0). -v
// prints the launches to `out`.
Fp32Peak fp32_peak(Env& env, const Options& options, std::ostream& out, double at_least = 0);

// The cached peak of `device`, without measuring; nullopt when the cache holds none (or the
// kernel file cannot be found).
std::optional<Fp32Peak> cached_fp32_peak(const cl::Device& device, const Options& options);

// The launch shape fp32_peak uses, from the device's properties: a CPU runs chains as wide as
// the SIMD registers its kernels are compiled for, half as many chains as it has registers; a
// GPU 16 chains of one float and 8192 work-items per compute unit (several waves of every SM).
struct PeakShape {
  int vector_width = 1;     // VW
  int chains = 16;          // CHAINS
  int iters = 256;          // ITERS
  std::uint64_t local = 0;  // work-group size
  std::uint64_t global = 0;
};
PeakShape peak_shape(const cl::Device& device);

}  // namespace lab
