// ndrange.hpp: NDRange arithmetic and the checks OpenCL 1.2 applies to a launch, with reasons.
#pragma once

#include <CL/opencl.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace lab {

// The smallest multiple of `multiple` that is >= value (multiple >= 1).
std::uint64_t round_up(std::uint64_t value, std::uint64_t multiple);

// How many blocks of `block` cover `value`: value / block rounded up (block >= 1).
std::uint64_t ceil_div(std::uint64_t value, std::uint64_t block);

// The smallest b with 2^b >= value: log2 rounded up (0 for 0 and 1).
std::uint64_t log2_ceil(std::uint64_t value);

// "16x16" for {16, 16}.
std::string format_dims(const std::vector<std::uint64_t>& dims);

cl::NDRange to_ndrange(const std::vector<std::uint64_t>& dims);

// What a launch asks of a device besides its shape, and the sentences that say what to change
// when the device cannot give it. The advice names the tunable ("choose a smaller TS (--ts)").
struct LaunchLimits {
  std::uint64_t dynamic_local_bytes = 0;  // __local kernel arguments, added to the kernel's own
  std::uint64_t private_bytes = 0;        // private arrays per work-item the kernel declares
  std::string group_advice = "choose a smaller local size";
  std::string local_advice = "choose smaller tiles";
  std::string private_advice = "choose a smaller local size";
  std::string tuning;  // the tunables' values, quoted in the sentences ("KMAX=1024")
};

// Checks a launch of `kernel` on `device` before it is enqueued: 1 to 3 dimensions, local sizes
// within CL_DEVICE_MAX_WORK_ITEM_SIZES, their product within CL_KERNEL_WORK_GROUP_SIZE and equal
// to the kernel's reqd_work_group_size if it has one, local dividing global in every dimension,
// CL_KERNEL_LOCAL_MEM_SIZE plus the dynamic local memory within CL_DEVICE_LOCAL_MEM_SIZE, and, on
// a CPU device, the group's private arrays within what a host thread's stack can spare. Throws
// UsageError (dimensions) or RuntimeError (device limits) with the numbers and what to change. An
// empty `local` lets the runtime choose.
void check_ndrange(const cl::Kernel& kernel, const cl::Device& device,
                   const std::vector<std::uint64_t>& global,
                   const std::vector<std::uint64_t>& local, const LaunchLimits& limits = {});

// What a CPU device's host thread can spare for one work-group's private arrays: PoCL runs a
// group's work-items on one thread, whose stack holds all their private arrays.
std::uint64_t cpu_private_budget();

}  // namespace lab

namespace lab {

// A 1-D launch of at least `items` work-items: with a local size, the global size is padded up to
// whole work-groups (the kernel bounds-checks); with local 0 the runtime picks the work-group.
struct Launch1D {
  std::uint64_t items = 0;
  std::uint64_t global = 0;
  std::uint64_t local = 0;
  cl::EnqueueArgs args(cl::CommandQueue& queue) const;
};

// Plans and checks (check_ndrange) a 1-D launch of `kernel`.
Launch1D plan_1d(const cl::Kernel& kernel, const cl::Device& device, std::uint64_t items,
                 std::uint64_t local);

}  // namespace lab
