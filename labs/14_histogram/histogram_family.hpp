// histogram_family.hpp: the histogram as a table (lab::Family), one row per way of dealing with
// contention: every element a global atomic; a local histogram per work-group; private counters
// per work-item for few bins; and several copies of the local histogram for skewed inputs.
#pragma once

#include "lab/lab.hpp"

#include <cstdint>
#include <string>

namespace histogram {

// The problem: n keys and the number of bins they fall in.
struct Problem {
  std::uint64_t n = 0;
  std::uint64_t bins = 0;
};

using Family = lab::Family<Problem>;
using Variant = lab::Variant<Problem>;

// The most bins the private row counts in a work-item's own array.
constexpr std::uint64_t kPrivateMaxBins = 64;

// Tunables: LOCAL (--local, work-group size), GROUPS (--groups, work-groups walking the keys a
// grid apart) and COPIES (--copies, replicated's copies of the local histogram). Rows:
// global_atomics, local_atomics, private, replicated.
const Family& family();

// A GPU: groups of 256, 8 per compute unit, 8 copies or as many as half its local memory holds
// for `bins`. A CPU: one group of one work-item per compute unit, one copy.
lab::Tuning default_tuning(const cl::Device& device, std::uint64_t bins);

}  // namespace histogram
