// ndrange.cpp: launch-shape checks that explain CL_INVALID_WORK_GROUP_SIZE before it happens.
#include "lab/ndrange.hpp"

#include "lab/device.hpp"
#include "lab/error.hpp"

#include <pthread.h>

#include <numeric>

namespace lab {
namespace {

std::string join(const std::vector<std::size_t>& values) {
  std::string text;
  for (const auto v : values) text += (text.empty() ? "" : " ") + std::to_string(v);
  return text;
}

// Up to four local sizes that divide `global` and fit `limit`, largest first: the suggestion.
std::string divisors_hint(std::uint64_t global, std::uint64_t limit) {
  std::string text;
  int found = 0;
  for (std::uint64_t d = std::min(global, limit); d >= 1 && found < 4; --d) {
    if (global % d == 0) {
      text += (text.empty() ? "" : ", ") + std::to_string(d);
      ++found;
    }
  }
  return text;
}

}  // namespace

std::uint64_t round_up(std::uint64_t value, std::uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

std::uint64_t ceil_div(std::uint64_t value, std::uint64_t block) {
  return (value + block - 1) / block;
}

std::uint64_t log2_ceil(std::uint64_t value) {
  std::uint64_t bits = 0;
  while (bits < 64 && (std::uint64_t{1} << bits) < value) ++bits;
  return bits;
}

std::string format_dims(const std::vector<std::uint64_t>& dims) {
  std::string text;
  for (const auto d : dims) text += (text.empty() ? "" : "x") + std::to_string(d);
  return text;
}

cl::NDRange to_ndrange(const std::vector<std::uint64_t>& dims) {
  switch (dims.size()) {
    case 1:
      return cl::NDRange(dims[0]);
    case 2:
      return cl::NDRange(dims[0], dims[1]);
    case 3:
      return cl::NDRange(dims[0], dims[1], dims[2]);
    default:
      return cl::NullRange;
  }
}

std::uint64_t cpu_private_budget() {
  // A new thread gets the process's default stack size (from RLIMIT_STACK, 8 MiB usually, 2 MiB
  // when that is unlimited), and the rest of the kernel needs room too: half of it.
  pthread_attr_t defaults;
  std::size_t stack = 2u << 20;
  if (::pthread_getattr_default_np(&defaults) == 0) {
    ::pthread_attr_getstacksize(&defaults, &stack);
    ::pthread_attr_destroy(&defaults);
  }
  return stack / 2;
}

void check_ndrange(const cl::Kernel& kernel, const cl::Device& device,
                   const std::vector<std::uint64_t>& global,
                   const std::vector<std::uint64_t>& local, const LaunchLimits& limits) {
  if (global.empty() || global.size() > 3) {
    throw UsageError("an NDRange has 1, 2 or 3 dimensions, not " + std::to_string(global.size()) +
                     ": give 1 to 3 sizes");
  }
  const std::string name = kernel.getInfo<CL_KERNEL_FUNCTION_NAME>();
  const std::string with = limits.tuning.empty() ? "" : " with " + limits.tuning;

  // Local memory: what the compiled kernel declares plus its __local arguments.
  const std::uint64_t local_bytes =
      kernel.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(device) + limits.dynamic_local_bytes;
  const std::uint64_t local_available = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  if (local_bytes > local_available) {
    throw RuntimeError(name + " needs " + format_bytes(double(local_bytes)) + " of local memory" +
                       with + " (CL_KERNEL_LOCAL_MEM_SIZE" +
                       (limits.dynamic_local_bytes ? " plus its __local arguments" : "") +
                       "), but the device has " + format_bytes(double(local_available)) + ": " +
                       limits.local_advice);
  }
  if (local.empty()) return;
  if (local.size() != global.size()) {
    throw UsageError("the local size has " + std::to_string(local.size()) +
                     " dimensions but the global size has " + std::to_string(global.size()) +
                     ": give one local size per global dimension");
  }
  const auto item_max = device.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>();
  const std::size_t device_max = device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  const std::size_t kernel_max = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device);

  for (std::size_t d = 0; d < local.size(); ++d) {
    if (local[d] > item_max[d]) {
      throw RuntimeError(
          "invalid work-group size: local size " + std::to_string(local[d]) + " in dimension " +
          std::to_string(d) + " exceeds the device's maximum work-item size " +
          std::to_string(item_max[d]) + " (CL_DEVICE_MAX_WORK_ITEM_SIZES = " + join(item_max) +
          "): choose a local size of at most " + std::to_string(item_max[d]) + " there");
    }
  }
  const std::uint64_t items =
      std::accumulate(local.begin(), local.end(), std::uint64_t{1}, std::multiplies<>());
  if (items > kernel_max) {
    throw RuntimeError("invalid work-group size: " + format_dims(local) + " = " +
                       std::to_string(items) + " work-items per group exceeds the maximum of " +
                       std::to_string(kernel_max) + " for kernel " + name +
                       " on this device (CL_KERNEL_WORK_GROUP_SIZE; device maximum " +
                       std::to_string(device_max) + ")" + with + ": " + limits.group_advice);
  }
  // A kernel compiled for one work-group shape (reqd_work_group_size) runs only with that shape.
  const auto required = kernel.getWorkGroupInfo<CL_KERNEL_COMPILE_WORK_GROUP_SIZE>(device);
  if (required[0] != 0) {
    std::vector<std::uint64_t> padded = local;
    padded.resize(3, 1);
    if (!std::equal(padded.begin(), padded.end(), required.begin())) {
      throw RuntimeError("kernel " + name + " was compiled for work-groups of " +
                         format_dims({required[0], required[1], required[2]}) +
                         " (reqd_work_group_size), but the launch uses " + format_dims(local) +
                         ": the attribute and the host's plan must agree" + with);
    }
  }
  // On a CPU, one host thread runs a whole work-group and its stack holds every private array.
  // The arrays' size comes from the caller: PoCL reports CL_KERNEL_PRIVATE_MEM_SIZE as 1 KiB for
  // every kernel, whatever it declares.
  const bool cpu = (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) != 0;
  const std::uint64_t per_item = limits.private_bytes;
  if (cpu && per_item * items > cpu_private_budget()) {
    throw RuntimeError(
        name + " keeps " + format_bytes(double(per_item)) + " of private memory per work-item" +
        (limits.tuning.empty() ? "" : " (" + limits.tuning + ")") + "; a CPU device runs the " +
        std::to_string(items) +
        " work-items of a group on one thread whose stack holds them all, and " +
        format_bytes(double(per_item * items)) + " exceed the " +
        format_bytes(double(cpu_private_budget())) + " it can spare: " + limits.private_advice);
  }
  for (std::size_t d = 0; d < local.size(); ++d) {
    if (global[d] % local[d] != 0) {
      throw RuntimeError(
          "invalid work-group size: local size " + std::to_string(local[d]) +
          " does not divide global size " + std::to_string(global[d]) + " in dimension " +
          std::to_string(d) + " (" + std::to_string(global[d]) + " = " +
          std::to_string(global[d] / local[d]) + " x " + std::to_string(local[d]) + " + " +
          std::to_string(global[d] % local[d]) +
          "); OpenCL 1.2 launches whole work-groups only: pad the global size to " +
          std::to_string(round_up(global[d], local[d])) +
          " and bounds-check in the kernel, or use a local size that divides " +
          std::to_string(global[d]) + " (" +
          divisors_hint(global[d], std::min<std::uint64_t>(item_max[d], kernel_max)) + ")");
    }
  }
}

}  // namespace lab

namespace lab {

cl::EnqueueArgs Launch1D::args(cl::CommandQueue& queue) const {
  if (local == 0) return cl::EnqueueArgs(queue, cl::NDRange(global));
  return cl::EnqueueArgs(queue, cl::NDRange(global), cl::NDRange(local));
}

Launch1D plan_1d(const cl::Kernel& kernel, const cl::Device& device, std::uint64_t items,
                 std::uint64_t local) {
  Launch1D launch{items, local == 0 ? items : round_up(items, local), local};
  if (local != 0) check_ndrange(kernel, device, {launch.global}, {local});
  return launch;
}

}  // namespace lab
