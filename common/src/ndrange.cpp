// ndrange.cpp: launch-shape checks that explain CL_INVALID_WORK_GROUP_SIZE before it happens.
#include "lab/ndrange.hpp"

#include "lab/error.hpp"

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

void check_ndrange(const cl::Kernel& kernel, const cl::Device& device,
                   const std::vector<std::uint64_t>& global,
                   const std::vector<std::uint64_t>& local) {
  if (global.empty() || global.size() > 3) {
    throw UsageError("an NDRange has 1, 2 or 3 dimensions, not " + std::to_string(global.size()) +
                     ": give 1 to 3 sizes");
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
  const std::string name = kernel.getInfo<CL_KERNEL_FUNCTION_NAME>();

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
                       std::to_string(device_max) + "): choose a smaller local size");
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
