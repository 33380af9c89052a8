// pipeline.hpp: the profiling lab's upload-compute-download pipeline and what its timestamps show.
#pragma once

#include "lab/lab.hpp"

#include <array>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace profiling {

struct Settings {
  std::uint64_t n = std::uint64_t{1} << 22;  // elements of a, b and c
  std::uint64_t local = 256;                 // work-group size, 0: the runtime chooses
  bool blocking = false;                     // blocking writes and read
};

struct Inputs {
  lab::HostVector<float> a, b, reference;  // reference = a + b, computed on the host
};
Inputs make_inputs(std::uint64_t n, std::uint64_t seed);

// The four timestamps of one command (ns, device profiling clock).
struct Stamps {
  cl_ulong queued = 0, submit = 0, start = 0, end = 0;
};

// The commands of one pipeline, in the order they are enqueued.
constexpr std::size_t kCommands = 4;
const std::array<const char*, kCommands>& command_names();  // "write a", ..., "read c"

struct Run {
  std::array<Stamps, kCommands> stamps;
  double wall_s = 0;              // host clock: before the first enqueue to after clFinish
  std::size_t wrong = 0;          // elements of c that differ from the reference
  std::size_t out_of_bounds = 0;  // elements written past the end of c
  std::vector<lab::Mismatch> mismatches;
};

// Buffers a, b and c (c with a guard zone past its end), the vector_add kernel, and one
// pipeline per run().
class Pipeline {
 public:
  Pipeline(lab::Env& env, const lab::Options& options, const Settings& settings, std::ostream& out);
  // Write a, write b, the kernel, read c, clFinish; checks c. `timed` false marks a warm-up in
  // the trace, where `index` (from 0 among the runs of its kind) numbers the run.
  Run run(const Inputs& in, bool timed, int index);

 private:
  lab::Env& env_;
  Settings settings_;
  lab::Program program_;
  cl::Kernel kernel_;
  lab::Launch1D launch_;
  lab::GuardedBuffer<float> a_, b_, c_;
  lab::HostVector<float> result_;
  std::ostream& err_;
  bool reported_mismatch_ = false;
  bool reported_guard_ = false;
};

// The timed runs, and how many runs of each kind were made (Timing's warmup, reps and note; its
// times unset): --warmup untimed pipelines, then --reps timed ones, under the suite's long-run
// rule on the pipeline's host clock.
struct Runs {
  std::vector<Run> timed;
  lab::Timing made;
};
Runs run_pipelines(Pipeline& pipeline, const Inputs& in, const lab::Options& options);

// Prints the last run's timestamps, relative to its first command's QUEUED, and its stages.
void print_last_run(const Run& run, std::ostream& out);

// Adds a row per command (start->end over the timed runs) and one for the whole pipeline (host
// clock against event span) to `report`, after checking in every run what the timestamps promise:
// queued <= submit <= start <= end for each command, each command of the in-order queue starting
// after the previous one ended, the commands' span within the host's wall time, and c right. A
// broken promise fails its row with a sentence on `err`. Every row carries the runs made; the
// pipeline row's note counts them too.
// Also prints the median of each stage to `out`.
void report_runs(const Runs& runs, const Settings& settings, cl_ulong resolution_ns,
                 lab::Report& report, std::ostream& out, std::ostream& err);

}  // namespace profiling
