// driver.cpp: a row's kernel, built and checked against the device before any launch.
#include "lab/driver.hpp"

#include "lab/error.hpp"
#include "lab/ndrange.hpp"
#include "lab/program.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>

namespace lab {

void check_before_build(const Env& env, const KernelPlan& plan) {
  const auto& local = plan.range.local;
  if (!local.empty()) {
    // Before building: a work-group above the device's maximum can never run.
    const std::uint64_t group =
        std::accumulate(local.begin(), local.end(), std::uint64_t{1}, std::multiplies<>());
    const std::uint64_t device_max = env.device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
    if (group > device_max) {
      throw RuntimeError(plan.signature.name + " would use work-groups of " +
                         (local.size() > 1 ? format_dims(local) + " = " : "") +
                         std::to_string(group) + " work-items" +
                         (plan.tuning.empty() ? "" : " with " + plan.tuning) +
                         ", more than the device's maximum of " + std::to_string(device_max) +
                         ": " + plan.limits.group_advice);
    }
  }
  const std::uint64_t local_available = env.device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  const std::uint64_t declared = plan.declared_local_bytes + plan.limits.dynamic_local_bytes;
  if (declared > local_available) {
    // Rounded, the two can read the same ("2.00 MiB ... has 2 MiB"): then in bytes.
    std::string need = format_bytes(double(declared));
    std::string have = format_bytes(double(local_available));
    const auto unit = [](const std::string& text) { return text.substr(text.find(' ')); };
    if (unit(need) == unit(have) && std::fabs(std::stod(need) - std::stod(have)) < 0.01) {
      need = std::to_string(declared) + " bytes";
      have = std::to_string(local_available) + " bytes";
    }
    throw RuntimeError(plan.signature.name + " needs " + need + " of local memory" +
                       (plan.tuning.empty() ? "" : " with " + plan.tuning) +
                       (plan.limits.dynamic_local_bytes ? " (its __local arguments and arrays)"
                                                        : " (its __local arrays)") +
                       ", but the device has " + have + ": " + plan.limits.local_advice);
  }
}

PreparedKernel prepare_kernel(Env& env, const Options& options, std::ostream& out,
                              const KernelPlan& plan) {
  check_before_build(env, plan);
  const auto& local = plan.range.local;
  PreparedKernel prepared;
  try {
    prepared.program =
        build_program(env, options, plan.kernel_file, plan.defines, out, plan.main_file);
  } catch (const Error& e) {
    // Some compilers refuse a kernel whose __local arrays exceed the device (NVIDIA's: "uses too
    // much shared data") instead of reporting CL_KERNEL_LOCAL_MEM_SIZE: name the tunables.
    const std::string what = e.what();
    if (e.exit_code() != kExitRuntime || what.find("failed to build") == std::string::npos ||
        plan.tuning.empty()) {
      throw;
    }
    throw RuntimeError(what + " (built with " + plan.tuning +
                       "; if the log says the kernel uses too much local or shared memory, " +
                       plan.limits.local_advice + ")");
  }
  prepared.kernel = make_kernel(prepared.program, plan.signature);
  check_ndrange(prepared.kernel, env.device, plan.range.global, local, plan.limits);
  prepared.range = plan.range;
  prepared.tuning = plan.tuning;
  return prepared;
}

}  // namespace lab
