// vector_types.hpp: vector_types' two demonstrations: copy bandwidth per vector width, and the
// vector notation (literals, swizzles, halves, conversions, arithmetic) checked on the device.
#pragma once

#include "lab/lab.hpp"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace vector_types {

inline const std::string kCopyFile = "vector_types_copy.cl";  // bandwidth's kernel file
inline const std::string kOpsFile = "vector_types_ops.cl";    // operations' kernel file
std::vector<lab::Part> parts();                               // bandwidth, operations

struct Settings {
  std::uint64_t n = std::uint64_t{1} << 24;           // bandwidth: floats copied
  std::vector<std::uint64_t> widths{1, 2, 4, 8, 16};  // bandwidth: VW of each copy kernel
  std::string stores = "auto";                        // bandwidth: plain, streaming, both, auto
  std::optional<std::uint64_t> local;                 // work-group size (0: the runtime's;
                                                      // none: group_size() picks)
  std::uint64_t items = 4099;                         // operations: vectors per kernel
  std::vector<std::string> operations;                // operations: kernels to run (all when empty)
};

// --stores: auto (streaming on a CPU device, plain elsewhere), plain, streaming, both.
const std::vector<std::string>& store_names();

// Throws UsageError unless every width is 1, 2, 4, 8 or 16 (each at most once).
void check_widths(const std::vector<std::uint64_t>& widths);

// What both demonstrations use.
struct Context {
  lab::Env& env;
  const lab::Options& options;
  const Settings& settings;
  std::ostream& out;
  std::ostream& err;
};

// The work-group size for `kernel`: --local where it was given, otherwise the kernel's largest
// (CL_KERNEL_WORK_GROUP_SIZE) on a CPU device, where a work-group is one task for one thread and
// each task has a fixed cost, and 256 elsewhere.
std::uint64_t group_size(const Context& c, const cl::Kernel& kernel);

// The bandwidth part's rows (one per width, each as a fraction of the best, and on a CPU device
// the host's multi-threaded memcpy) and what the report's details record about them.
struct Bandwidth {
  std::vector<lab::Result> rows;
  nlohmann::json details = nlohmann::json::object();
};
Bandwidth copy_bandwidth(Context& c);

// The names of the operations' kernels, in the order they run, and joined by `separator`.
std::vector<std::string> operation_names();
std::string operation_list(const std::string& separator);
// The --operations list ("swizzles,halves"; "" for all) as names; UsageError for an unknown one.
std::vector<std::string> parse_operations(const std::string& text);
// One row per operation kernel, every component checked against the host.
std::vector<lab::Result> operations(Context& c);

}  // namespace vector_types
