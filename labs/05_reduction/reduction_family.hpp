// reduction_family.hpp: the reduction family as a table (lab::Family): from one work-item per group
// (the Clemson GPGPU lecture's first attempt) to many elements per work-item and one tree (multi),
// each variant one kernel file kernels/reduction_<variant>.cl with the same arguments.
#pragma once

#include "lab/lab.hpp"

#include <cstdint>
#include <functional>

namespace reduction {

using Length = std::uint64_t;

// What the reduction rows carry beyond the shared columns.
struct Shape {
  bool scratch = false;   // takes a __local REAL* scratch of LOCAL elements (after its buffers)
  bool tree = false;      // reduces each group as a tree: LOCAL must be a power of two
  bool int_only = false;  // atomic: OpenCL 1.2's atomic_add is for 32-bit integers only
  bool one_pass = false;  // writes the total itself: no partial sums to finish
  std::string local = "LOCAL";  // the tunable that sets its work-group size
  // How many partial sums the kernel writes, and the longest chain of additions any term goes
  // through inside it (the height of its summation tree, which bounds its rounding error).
  std::function<std::uint64_t(Length n, const lab::Tuning&)> groups;
  std::function<std::uint64_t(Length n, const lab::Tuning&)> chain;
};

using Family = lab::Family<Length, Shape>;
using Variant = lab::Variant<Length, Shape>;

// Tunables: LOCAL (--local, the work-group size), and for multi and atomic MULTI_LOCAL
// (--multi-local), GROUPS (--groups) and, multi only, VW (--vector-width). Rows: single,
// local_single, interleaved, interleaved_strided, sequential, first_add, multi, atomic.
const Family& family();

// A GPU: groups of 256, 8 multi groups per compute unit, float4 loads. A CPU: LOCAL 256, and
// multi with one work-item per group, one group per core and the SIMD unit's vector width.
lab::Tuning default_tuning(const cl::Device& device);

// Why `variant` cannot run on `dtype` elements at all ("" when it can): an int-only row under
// float.
std::string cannot_run(const Variant& variant, const std::string& dtype);

}  // namespace reduction
