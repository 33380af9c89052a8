// timing.cpp: event durations and simple statistics.
#include "lab/timing.hpp"

#include <algorithm>
#include <numeric>
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

Timing time_launches(int warmup, int reps, const std::function<cl::Event()>& launch) {
  for (int i = 0; i < warmup; ++i) launch().wait();
  std::vector<double> kernel;
  double waiting = 0;
  for (int i = 0; i < reps; ++i) {
    cl::Event event = launch();
    event.wait();
    const EventTimes times = event_times(event);
    kernel.push_back(std::chrono::duration<double>(times.start_to_end).count());
    waiting +=
        std::chrono::duration<double>(times.queued_to_submit + times.submit_to_start).count();
  }
  return Timing{summarize(kernel), waiting / std::max(reps, 1)};
}

}  // namespace lab
