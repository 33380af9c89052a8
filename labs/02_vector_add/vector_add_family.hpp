// vector_add_family.hpp: vector_add's variants as a table (lab::Family): one element per
// work-item, or PER_ITEM elements per work-item with a grid stride, over work-groups of LOCAL;
// and the lab's helpers that are not its OpenCL host program (main.cpp is): the guard zones'
// length and what a write there means, the --skip-finish experiment and the report.
#pragma once

#include "lab/lab.hpp"

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace vector_add {

// The problem size: the vectors' length.
using Length = std::uint64_t;
using Family = lab::Family<Length>;
using Variant = lab::Variant<Length>;

// What the options chose.
struct Settings {
  Length n = Length{1} << 24;   // elements
  std::string dtype = "float";  // float or double (--dtype)
  std::string variant;          // "": element, or per_item with --per-item N > 1
  std::string mode = "copy";    // how the buffers are made: copy, use, alloc or write
  bool no_fetch = false;
  bool skip_finish = false;
  // --no-fetch and --skip-finish read the result from the host's own array (USE_HOST_PTR).
  bool host_result() const { return no_fetch || skip_finish; }
};

// -n, --dtype and --variant, added to `cli` first (--help lists them before the tunables).
void add_size_and_variant(lab::Cli& cli, Settings& s);

// --mode, --no-fetch and --skip-finish; then parses the command line and checks it: --per-item
// above 1 chooses per_item, and contradicts --variant element (UsageError).
void parse_options(lab::Cli& cli, Settings& s, lab::TuningOptions& tuning_options);

// Tunables: LOCAL (--local; 0, the default, lets the runtime choose) and PER_ITEM (--per-item).
// Rows: "element" (kernel vector_add) and "per_item" (kernel vector_add_per_item).
const Family& family();

// LOCAL 0 (the runtime's choice) and PER_ITEM 4.
lab::Tuning default_tuning();

// The arguments every vector_add kernel takes: (ulong n, global REAL* a, b, c), REAL "float" or
// "double".
lab::KernelSignature signature(const std::string& real);

// How far past n the furthest launch of the chosen variants reaches (with --tune, every
// candidate's; a work-group the device cannot run never launches): the guard zones' length.
// Throws RuntimeError when arrays that long (of `element`-byte elements) do not fit.
std::uint64_t guard_reach(const lab::Env& env,
                          const lab::VariantDriver<Length, lab::NoExtra>& driver, Length n,
                          std::size_t element);

// --skip-finish: sets c (the buffer over all of `host`, USE_HOST_PTR) to NaN, launches, and counts
// the elements of the host array that already hold a+b before waiting, with the kernel's status
// before and after looking; prints a sentence and returns the figures for the report. Reading
// memory the device may be writing is exactly the bug Liu's Intermediate OpenCL Programming
// shows.
template <typename T>
nlohmann::json look_without_waiting(const cl::CommandQueue& queue, lab::GuardedArray<T>& host,
                                    const cl::Buffer& c, const T* reference, Length n,
                                    const std::function<cl::Event()>& launch, std::ostream& out);

// The yardstick: the faster of a float and a float4 copy kernel over as many bytes as n
// elements of `element` bytes in plain buffers, in work-groups of the tuning's LOCAL too where
// the device allows it (lab::measure_copy).
lab::CopyBaseline measure_yardstick(lab::Env& env, const lab::Options& options,
                                    const lab::Tuning& tuning, Length n, std::size_t element,
                                    std::ostream& out);

// One variant's result row: its rate from `timing` (3 elements of s.dtype read or written per
// element: 12 bytes in float, 24 in double), the check, and the guard zones (a write there is
// said on `err`, with what usually writes there).
lab::Result make_row(const Variant& v, const lab::Tuning& t, const Settings& s,
                     const lab::Timing& timing, const lab::CheckResult& check,
                     const lab::GuardCheck& guard, std::ostream& err);

// The sentence for elements written in c's guard zones, with what usually writes there (past
// the end: padding work-items without the bounds check; before the start: an index below 0), or
// "" when none were.
std::string describe_outside(const lab::GuardCheck& guard);

// The report: each row against the copy (vector_add moves 3 elements' bytes per element, reading
// a and b and writing c; the copy 2), with `details`, printed in the --json/--csv/table format
// chosen. Returns the exit code.
int report(const lab::Cli& cli, const lab::Env& env, std::vector<lab::Result> rows,
           const lab::CopyBaseline& copy, nlohmann::json details, Length n, const std::string& mode,
           const std::string& dtype);

}  // namespace vector_add
