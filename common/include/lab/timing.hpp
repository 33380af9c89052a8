// timing.hpp: durations from OpenCL profiling events, repeated runs, min/median/max.
#pragma once

#include <CL/opencl.hpp>

#include <chrono>
#include <functional>
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
// reading its profiling times.
Timing time_launches(int warmup, int reps, const std::function<cl::Event()>& launch);

}  // namespace lab
