// device.hpp: choosing a platform and device, and the context and profiling queue on it.
#pragma once

#include "lab/options.hpp"

#include <CL/opencl.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace lab {

// One device as --list numbers it: index among all devices, and platform/device indices.
struct DeviceEntry {
  int index = 0;           // position in the list of every device, what -d N selects
  int platform_index = 0;  // what -p N selects
  int device_index = 0;    // position inside its platform (what -p P -d N selects)
  cl::Platform platform;
  cl::Device device;
};

// Every platform the ICD loader knows, in -p order, also those that show no device. Throws
// RuntimeError when there is none.
std::vector<cl::Platform> all_platforms();

// Every device of every platform, in --list order. Throws RuntimeError when no platform exists.
std::vector<DeviceEntry> all_devices();

// The devices of the platform -p (or LAB_PLATFORM) selects, in --list order; of every platform
// without -p. For labs that use several devices at once (multi_device).
std::vector<DeviceEntry> platform_devices(const std::vector<DeviceEntry>& devices,
                                          const Options& options);

// Applies -p, -d and --type (and their LAB_* fallbacks) to `devices`. Without -d, the first GPU
// among the candidates wins, else the first device. Throws UsageError when nothing matches.
DeviceEntry choose_device(const std::vector<DeviceEntry>& devices, const Options& options);

void print_device_list(std::ostream& out);

// The chosen device with a context and an in-order queue that records profiling information.
struct Env {
  cl::Platform platform;
  cl::Device device;
  cl::Context context;
  cl::CommandQueue queue;

  std::string device_name() const;
  std::string platform_name() const;
  std::string opencl_c_version() const;
};

// The first half of open_device, for a lab that makes its context and queue itself: the device
// chosen and its line printed, context and queue left empty.
Env pick_device(const Options& options, std::ostream& out);

// Names the queue's track in the --trace file (nothing without --trace).
void trace_queue(const cl::CommandQueue& queue);

// Chooses the device from the options and prints one line naming platform, device and OpenCL C
// version to `out`. On Oclgrind's platform, unless OCLGRIND_LOG is set, Oclgrind's reports go to
// a temporary log that summarize_oclgrind_log() condenses. Then makes the context and an in-order
// queue that records profiling information.
Env open_device(const Options& options, std::ostream& out);

// Whether `platform` is Oclgrind's simulator, which checks every memory access itself (the labs
// put no guard zones there and condense its report).
bool is_oclgrind(const cl::Platform& platform);

// Whether `device` computes in double precision: CL_DEVICE_DOUBLE_FP_CONFIG is not 0 (a device
// with cl_khr_fp64, or OpenCL 3.0's __opencl_c_fp64 feature, reports its double arithmetic there).
bool has_fp64(const cl::Device& device);
// For `--dtype double`: a SkipError (exit 77) with one sentence when the device has no double
// precision, so the lab never gets as far as a kernel's #error and its build log.
void require_fp64(const Env& env, const std::string& lab);

// Prints how many problems Oclgrind reported, the first in full, a count of each kind and the
// log's path, and returns that number; prints nothing (and removes the empty log) when it found
// none or the lab did not run on Oclgrind.
std::size_t summarize_oclgrind_log(std::ostream& out);

// "pthread-skylake-avx512" in place of "pthread-skylake-avx512-Intel(R) Xeon(R) Processor": the
// device name shortened for table columns.
std::string short_device_name(const std::string& name);

// The SIMD unit a CPU device's kernels are compiled for: floats per vector register and how many
// vector registers there are (what a register-tiled kernel may fill with accumulators).
struct SimdUnit {
  int float_lanes = 4;
  int registers = 16;
  std::string isa;  // "AVX-512", "AVX2", "AVX", "SSE" or "preferred float width N"
};

// PoCL names a CPU device after the LLVM CPU it generates code for ("pthread-haswell",
// "pthread-skylake-avx512", "pthread-znver3"), so a known name decides. Otherwise the preferred
// float vector width does; it describes the host, which can have wider registers than the code
// PoCL generates (POCL_KERNELLIB_NAME=avx2 on an AVX-512 machine).
SimdUnit cpu_simd_unit(const cl::Device& device);
SimdUnit cpu_simd_unit(const std::string& device_name, int preferred_float_width);

// An info string without the padding some drivers add: surrounding blanks and trailing NULs
// ("OpenCL C 1.2 " -> "OpenCL C 1.2").
std::string trim_info(std::string text);

// "GPU", "CPU", "ACCELERATOR", ... for CL_DEVICE_TYPE bits.
std::string device_type_name(cl_device_type type);

// The device as a report records it: name, vendor, type, compute units, driver version, OpenCL
// version and OpenCL C version, and its platform's name, vendor and version. A results page
// merged from several machines tells their devices and drivers apart by it.
nlohmann::json describe_device(const Env& env);
nlohmann::json describe_device(const cl::Device& device);

// Sizes in bytes for people: "1.50 GiB", "48 KiB".
std::string format_bytes(double bytes);

}  // namespace lab

namespace lab {

// Checks that `count` buffers of `bytes` each fit the device (CL_DEVICE_MAX_MEM_ALLOC_SIZE per
// buffer, CL_DEVICE_GLOBAL_MEM_SIZE together) and that `host_copies` arrays of that size fit the
// host's memory. Throws RuntimeError naming the limit; `shrink` says what to change ("-n").
void check_memory(const Env& env, std::uint64_t bytes, int count, int host_copies,
                  const std::string& shrink);

}  // namespace lab
