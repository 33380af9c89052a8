// bandwidth.hpp: the device's copy bandwidth, the yardstick for memory-bound kernels.
#pragma once

#include "lab/device.hpp"
#include "lab/options.hpp"
#include "lab/report.hpp"
#include "lab/timing.hpp"
#include "lab/verify.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace lab {

struct CopyBaseline {
  double rate = 0;     // GB/s of the faster copy kernel, 8 bytes moved per element
  bool passed = true;  // both copies were checked element by element
  // Whether the copy ran long enough to compare another kernel's rate with; if not, why.
  bool measurable = true;
  std::string why_not_measurable;
  nlohmann::json details = nlohmann::json::object();  // each kernel's rate and times
  double bytes = 0;                                   // moved by one run: 8 per element
  // One run of the faster kernel over the same buffers, for InTurnsWith: the rows then take turns
  // with the copy, and relate_to_copy compares each row with the copy's runs in its own rounds.
  std::function<cl::Event()> launch;
  // Run before each run in turns with the copy when one copy run moves more bytes than the
  // device's cache holds (empty otherwise): the cache_flush kernel reads zeros over twice the
  // cache, so that the lines the copy wrote are written back before the next kernel starts, not
  // during it, and the same for the lines that kernel wrote before the copy starts.
  std::function<void()> settle;
};

// Where the copy's buffers live: memory the runtime allocates (device), or host arrays in huge
// pages through CL_MEM_USE_HOST_PTR (host: on a CPU device the kernels then run on that memory).
// A lab whose rows run on such arrays asks for host, so that the yardstick runs on the same kind
// of memory as they do.
enum class CopyMemory { device, host };

// Times the float and float4 copy kernels of kernels/vector_copy.cl over n floats (warm-up and
// repetitions from `options`, work-group size `local`, 0 for the runtime's choice) and returns
// the faster. Devices differ in which shape copies fastest, so the better of the two is the fair
// yardstick. Measure it before the rows and run them with in_turns_with, so that each row is held
// against the copy's runs between its own.
CopyBaseline measure_copy(Env& env, const Options& options, std::uint64_t n, std::uint64_t local,
                          std::ostream& out, CopyMemory memory = CopyMemory::device);

// The rows `rows()` returns (the lab's variants, and its peers where it has them), measured in
// turns with `copy` (InTurnsWith): one copy run after every run they make.
template <typename Rows>
std::vector<Result> in_turns_with(const CopyBaseline& copy, Rows&& rows) {
  const InTurnsWith turns(copy.launch, copy.settle);
  return rows();
}

// Puts `row` against the copy: its percent of the copy's rate and a "copy kernel N GB/s"
// reference, or a note saying why the copy is too short to compare with. A row timed in turns
// with the copy is held against the copy's runs from its own rounds (their median, and the
// lowest and highest share of one round); any other against `copy` as measured. A copy that
// failed its check fails the row too.
void relate_to_copy(Result& row, const CopyBaseline& copy);

// A row in GB/s: `bytes` moved per run over the median time, with the runs and the check. A row
// whose kernel wrote `out_of_bounds` elements into guard zones fails, however right the data.
Result bandwidth_row(const std::string& variant, const Size& size, const Timing& timing,
                     double bytes, const CheckResult& check, std::uint64_t out_of_bounds);

// Adds `rows` to `report` in their order, each against the copy (relate_to_copy) and as a
// speed-up over the row named `baseline` when there is one.
void add_against_copy(Report& report, std::vector<Result>& rows, const CopyBaseline& copy,
                      const std::string& baseline);

}  // namespace lab
