// timing.hpp: durations from OpenCL profiling events, repeated runs, min/median/max.
#pragma once

#include "lab/cli.hpp"

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

// The timed launches of one measurement: kernel times and the mean of the waits before them.
struct Timing {
  Stats kernel;                     // start_to_end of each timed launch
  double mean_queued_to_start = 0;  // seconds, queued_to_submit + submit_to_start, averaged
};

// Runs `launch` warmup times untimed, then reps times, waiting for each returned event and
// reading its profiling times. With a `trace` stream, prints each timed launch's three stages.
Timing time_launches(int warmup, int reps, const std::function<cl::Event()>& launch,
                     std::ostream* trace = nullptr);

// The same with the lab's --warmup and --reps; -v prints the stages of each launch to `out`.
Timing time_launches(const Options& options, const std::function<cl::Event()>& launch,
                     std::ostream& out);

// Why a median of `seconds` is too short to compare rates with (a percentage of a copy kernel),
// or "" when it is long enough: at least 20 ticks of the device's profiling timer (a 5% rounding
// error at most; NVIDIA's tick is 1 us) and 10 us, below which launch overhead, not the memory
// system, sets the time.
std::string too_short_to_compare(double seconds, const cl::Device& device);

}  // namespace lab
