// timing.hpp: durations from OpenCL profiling events, repeated runs, min/median/max.
#pragma once

#include "lab/options.hpp"

#include <CL/opencl.hpp>

#include <chrono>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace lab {

using Nanoseconds = std::chrono::duration<double, std::nano>;

// The four timestamps of one command, as durations between them.
struct EventTimes {
  Nanoseconds queued_to_submit{};  // waiting in the host-side queue
  Nanoseconds submit_to_start{};   // sent to the device, not yet running
  Nanoseconds start_to_end{};      // running: what the labs report as kernel time
};

// Reads CL_PROFILING_COMMAND_{QUEUED,SUBMIT,START,END}. The event must have completed.
EventTimes event_times(const cl::Event& event);

struct Stats {
  double min = 0;  // seconds
  double median = 0;
  double max = 0;
  double mean = 0;
  std::size_t count = 0;
};

// Min, median, max and mean of `seconds` (which must not be empty).
Stats summarize(std::vector<double> seconds);

// How one measurement ran: the times of its timed runs, and how many runs of each kind it made.
struct Timing {
  Stats time;                       // per timed run: start_to_end (event clock) or call to finish
  double mean_queued_to_start = 0;  // seconds, queued_to_submit + submit_to_start (event clock)
  int warmup = 0;                   // untimed runs made
  int reps = 0;                     // timed runs made (time.count)
  std::string clock;                // "event" or "host"
  std::string note;                 // why fewer runs were made than asked, or ""
  std::vector<double> seconds;      // the timed runs, in order
  double first_warmup = 0;          // seconds of the first warm-up (0: none), setup included
  // The yardstick's runs, one after each timed run (InTurnsWith), or empty.
  std::vector<double> yardstick;
};

// A Timing of runs timed by the lab itself rather than by time_launches or time_on_host (a job
// spread over several queues, a span read from several events): `seconds` the timed runs in
// order, on `clock` ("event" or "host"), after `warmup` untimed ones; `note` as Timing::note.
Timing timing_of(const std::vector<double>& seconds, int warmup, const std::string& clock,
                 const std::string& note = "");

// A yardstick that measurements take turns with. While one lives, every run that time_launches,
// time_launches_in_turns, time_launch_span and time_on_host make (warm-ups too) is followed by
// one run of `launch`, and each Timing keeps the yardstick's seconds from its own rounds. On a
// machine whose speed drifts (a shared VM, a GPU changing clocks), a ratio to the yardstick then
// compares runs made a moment apart, not minutes apart. One at a time per thread.
// A `settle` step, when given, runs (untimed) before every run of either side: the copy
// yardstick's cache flush (CopyBaseline::settle), so that neither side's time includes writing
// back what the other left in the cache.
namespace detail {
struct Yardstick {
  std::function<double()> run_seconds;  // one run, waited for: its seconds
  std::function<void()> settle;         // before each run of either side, or empty
};
}  // namespace detail

class InTurnsWith {
 public:
  // A kernel: `launch` enqueues it and returns its event, timed on the event clock.
  explicit InTurnsWith(std::function<cl::Event()> launch, std::function<void()> settle = {});
  // A library call on the host clock (OpenBLAS): `run_seconds` makes one run and returns its
  // seconds.
  explicit InTurnsWith(std::function<double()> run_seconds, std::function<void()> settle = {});
  ~InTurnsWith();
  InTurnsWith(const InTurnsWith&) = delete;
  InTurnsWith& operator=(const InTurnsWith&) = delete;

 private:
  detail::Yardstick yardstick_;
};

// Sets aside the yardstick of the InTurnsWith in force, if any, while it lives: runs timed
// meanwhile are made back to back, as a program repeating them would make them. For absolute
// times held against a peer timed the same way (the reduction's end to end against PyTorch's),
// not for shares of the yardstick.
class OutOfTurns {
 public:
  OutOfTurns();
  ~OutOfTurns();
  OutOfTurns(const OutOfTurns&) = delete;
  OutOfTurns& operator=(const OutOfTurns&) = delete;

 private:
  const detail::Yardstick* set_aside_;
};

// The long-run rule every measurement follows: once a run (a timed one, or a warm-up after the
// first) takes more than kLongRunSeconds, no more warm-ups are made and at most kLongRunReps runs
// are timed, which the Timing's note says. The first warm-up is left out: it may include setup
// that later runs skip (a library compiling its kernels on its first call), and is kept apart in
// Timing::first_warmup.
constexpr double kLongRunSeconds = 1.0;
constexpr int kLongRunReps = 3;

// The event clock, for our kernels: runs `launch` warmup times untimed, then reps times, waiting
// for each returned event and reading its profiling times. With a `trace` stream, prints each
// timed launch's three stages.
Timing time_launches(int warmup, int reps, const std::function<cl::Event()>& launch,
                     std::ostream* trace = nullptr);

// The same with the lab's --warmup and --reps; -v prints the stages of each launch to `out`.
Timing time_launches(const Options& options, const std::function<cl::Event()>& launch,
                     std::ostream& out);

// Several launches timed against each other on a machine whose speed drifts (a shared CPU, a GPU
// changing clocks): they take turns, one run of each per round, with the lab's --warmup and
// --reps rounds, so a slow second costs every launch a run rather than one launch its median.
// Returns one Timing per launch; -v prints each timed launch's stages after its name in `names`.
std::vector<Timing> time_launches_in_turns(const Options& options,
                                           const std::vector<std::function<cl::Event()>>& launches,
                                           const std::vector<std::string>& names,
                                           std::ostream& out);

// A launch of several commands in an in-order queue (a transpose, a kernel, a transpose back):
// `launch` enqueues them and returns their events, and each run is timed from the first
// command's start to the last one's end on the event clock, gaps between them included.
Timing time_launch_span(const Options& options,
                        const std::function<std::vector<cl::Event>()>& launch, std::ostream& out);

// The host clock, for libraries whose events do not cover all their work (CLBlast) and for host
// code: times each call of `run`, which must return only when the work is done (clFinish).
// `long_run` replaces kLongRunSeconds (for tests).
Timing time_on_host(int warmup, int reps, const std::function<void()>& run,
                    double long_run = kLongRunSeconds);
Timing time_on_host(const Options& options, const std::function<void()>& run);

// Why a median of `seconds` is too short to compare rates with (a percentage of a copy kernel),
// or "" when it is long enough: at least 20 ticks of the device's profiling timer (a 5% rounding
// error at most; NVIDIA's tick is 1 us) and 10 us, below which launch overhead, not the memory
// system, sets the time.
std::string too_short_to_compare(double seconds, const cl::Device& device);

}  // namespace lab
