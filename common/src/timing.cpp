// timing.cpp: event durations and simple statistics.
#include "lab/timing.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <ostream>
#include <stdexcept>

namespace lab {

EventTimes event_times(const cl::Event& event) {
  const auto queued = event.getProfilingInfo<CL_PROFILING_COMMAND_QUEUED>();
  const auto submit = event.getProfilingInfo<CL_PROFILING_COMMAND_SUBMIT>();
  const auto start = event.getProfilingInfo<CL_PROFILING_COMMAND_START>();
  const auto end = event.getProfilingInfo<CL_PROFILING_COMMAND_END>();
  // Timestamps are unsigned; a driver that reports them out of order must not wrap around.
  const auto span = [](cl_ulong from, cl_ulong to) {
    return Nanoseconds(to >= from ? static_cast<double>(to - from) : 0.0);
  };
  return EventTimes{span(queued, submit), span(submit, start), span(start, end)};
}

Stats summarize(std::vector<double> seconds) {
  if (seconds.empty()) throw std::invalid_argument("summarize: no samples");
  std::sort(seconds.begin(), seconds.end());
  const std::size_t n = seconds.size();
  Stats stats;
  stats.count = n;
  stats.min = seconds.front();
  stats.max = seconds.back();
  stats.median = n % 2 == 1 ? seconds[n / 2] : (seconds[n / 2 - 1] + seconds[n / 2]) / 2.0;
  stats.mean = std::accumulate(seconds.begin(), seconds.end(), 0.0) / static_cast<double>(n);
  return stats;
}

Timing time_launches(int warmup, int reps, const std::function<cl::Event()>& launch,
                     std::ostream* trace) {
  for (int i = 0; i < warmup; ++i) launch().wait();
  std::vector<double> kernel;
  double waiting = 0;
  for (int i = 0; i < reps; ++i) {
    cl::Event event = launch();
    event.wait();
    const EventTimes times = event_times(event);
    kernel.push_back(std::chrono::duration<double>(times.start_to_end).count());
    if (trace != nullptr) {
      char line[160];
      std::snprintf(
          line, sizeof line,
          "  launch %d: queued->submit %.1f us, submit->start %.1f us, start->end %.1f us\n", i + 1,
          times.queued_to_submit.count() / 1e3, times.submit_to_start.count() / 1e3,
          times.start_to_end.count() / 1e3);
      *trace << line;
    }
    waiting +=
        std::chrono::duration<double>(times.queued_to_submit + times.submit_to_start).count();
  }
  return Timing{summarize(kernel), waiting / std::max(reps, 1)};
}

Timing time_launches(const Options& options, const std::function<cl::Event()>& launch,
                     std::ostream& out) {
  return time_launches(options.warmup, options.reps, launch, options.verbose ? &out : nullptr);
}

std::string too_short_to_compare(double seconds, const cl::Device& device) {
  const double tick = device.getInfo<CL_DEVICE_PROFILING_TIMER_RESOLUTION>() * 1e-9;
  const double shortest = std::max(20 * tick, 10e-6);
  if (seconds >= shortest) return "";
  char text[200];
  std::snprintf(text, sizeof text,
                "%.2f us is below the %.0f us a rate needs to mean something (launch overhead "
                "dominates): use a larger size",
                seconds * 1e6, shortest * 1e6);
  return text;
}

}  // namespace lab
