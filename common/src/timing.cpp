// timing.cpp: event durations and simple statistics.
#include "lab/timing.hpp"

#include "lab/progress.hpp"
#include "lab/trace.hpp"

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

namespace {

// The yardstick that runs take turns with (InTurnsWith), or none.
thread_local const detail::Yardstick* yardstick = nullptr;

void settle_before_run() {
  if (yardstick != nullptr && yardstick->settle) yardstick->settle();
}

double yardstick_seconds() {
  settle_before_run();
  return yardstick->run_seconds();
}

// The loop both clocks share: `run(timed, index)` makes one run and returns its seconds.
Timing repeat(int warmup, int reps, const std::function<double(bool, int)>& run,
              double long_run_seconds = kLongRunSeconds) {
  Timing timing;
  const int asked = reps;
  bool long_run = false;
  const auto seen = [&](double seconds) {
    if (seconds <= long_run_seconds || long_run) return;
    long_run = true;
    if (reps > kLongRunReps) {
      reps = kLongRunReps;
      char text[120];
      std::snprintf(text, sizeof text, "over %g s a run: %d timed runs, not %d", long_run_seconds,
                    kLongRunReps, asked);
      timing.note = text;
    }
  };
  for (int i = 0; i < warmup && !long_run; ++i) {
    Progress::note("warm-up " + std::to_string(i + 1) + " of " + std::to_string(warmup));
    settle_before_run();
    const double seconds = run(false, i);
    // The first run may set things up (a library compiling its kernels): it is timed apart and
    // left out of the rule.
    if (i == 0) {
      timing.first_warmup = seconds;
    } else {
      seen(seconds);
    }
    if (yardstick != nullptr) yardstick_seconds();
    ++timing.warmup;
  }
  for (int i = 0; i < reps; ++i) {
    Progress::note("run " + std::to_string(i + 1) + " of " + std::to_string(reps));
    settle_before_run();
    timing.seconds.push_back(run(true, i));
    seen(timing.seconds.back());
    if (yardstick != nullptr) timing.yardstick.push_back(yardstick_seconds());
  }
  timing.time = summarize(timing.seconds);
  timing.reps = static_cast<int>(timing.seconds.size());
  return timing;
}

}  // namespace

namespace {

// One completed launch: traced, its stages printed to `trace` when timed, its queue wait added to
// `waiting` when timed; returns its start_to_end seconds. `label` prefixes the printed line.
double launch_seconds(const cl::Event& event, bool timed, int index, std::ostream* trace,
                      const std::string& label, double& waiting) {
  trace_command(event, "", timed ? nlohmann::json::object() : nlohmann::json{{"warm-up", true}});
  const EventTimes times = event_times(event);
  if (timed && trace != nullptr) {
    char line[200];
    std::snprintf(
        line, sizeof line,
        "  %slaunch %d: queued->submit %.1f us, submit->start %.1f us, start->end %.1f us\n",
        label.c_str(), index + 1, times.queued_to_submit.count() / 1e3,
        times.submit_to_start.count() / 1e3, times.start_to_end.count() / 1e3);
    *trace << line;
  }
  if (timed) {
    waiting +=
        std::chrono::duration<double>(times.queued_to_submit + times.submit_to_start).count();
  }
  return std::chrono::duration<double>(times.start_to_end).count();
}

}  // namespace

InTurnsWith::InTurnsWith(std::function<cl::Event()> launch, std::function<void()> settle_step)
    : InTurnsWith(std::function<double()>([launch = std::move(launch)] {
                    cl::Event event = launch();
                    event.wait();
                    return std::chrono::duration<double>(event_times(event).start_to_end).count();
                  }),
                  std::move(settle_step)) {}

InTurnsWith::InTurnsWith(std::function<double()> run_seconds, std::function<void()> settle_step)
    : yardstick_{std::move(run_seconds), std::move(settle_step)} {
  if (yardstick != nullptr) throw std::logic_error("InTurnsWith: a yardstick is already set");
  yardstick = &yardstick_;
}

InTurnsWith::~InTurnsWith() { yardstick = nullptr; }

Timing timing_of(const std::vector<double>& seconds, int warmup, const std::string& clock,
                 const std::string& note) {
  Timing timing;
  timing.time = summarize(seconds);
  timing.seconds = seconds;
  timing.reps = int(seconds.size());
  timing.warmup = warmup;
  timing.clock = clock;
  timing.note = note;
  return timing;
}

OutOfTurns::OutOfTurns() : set_aside_(yardstick) { yardstick = nullptr; }

OutOfTurns::~OutOfTurns() { yardstick = set_aside_; }

Timing time_launches(int warmup, int reps, const std::function<cl::Event()>& launch,
                     std::ostream* trace) {
  double waiting = 0;
  Timing timing = repeat(warmup, reps, [&](bool timed, int index) {
    cl::Event event = launch();
    event.wait();
    return launch_seconds(event, timed, index, trace, "", waiting);
  });
  timing.clock = "event";
  timing.mean_queued_to_start = waiting / std::max(timing.reps, 1);
  return timing;
}

std::vector<Timing> time_launches_in_turns(const Options& options,
                                           const std::vector<std::function<cl::Event()>>& launches,
                                           const std::vector<std::string>& names,
                                           std::ostream& out) {
  if (names.size() != launches.size()) {
    throw std::logic_error("time_launches_in_turns: one name per launch");
  }
  std::vector<std::vector<double>> seconds(launches.size());
  std::vector<double> waiting(launches.size(), 0.0);
  // A round runs every launch once; the long-run rule looks at the round's longest launch.
  const Timing rounds = repeat(options.warmup, options.reps, [&](bool timed, int index) {
    double longest = 0;
    for (std::size_t k = 0; k < launches.size(); ++k) {
      cl::Event event = launches[k]();
      event.wait();
      const double run = launch_seconds(event, timed, index, options.verbose ? &out : nullptr,
                                        names[k] + " ", waiting[k]);
      if (timed) seconds[k].push_back(run);
      longest = std::max(longest, run);
    }
    return longest;
  });
  std::vector<Timing> timings(launches.size());
  for (std::size_t k = 0; k < launches.size(); ++k) {
    timings[k].time = summarize(seconds[k]);
    timings[k].seconds = seconds[k];
    timings[k].yardstick = rounds.yardstick;
    timings[k].warmup = rounds.warmup;
    timings[k].reps = rounds.reps;
    timings[k].clock = "event";
    timings[k].note = rounds.note;
    timings[k].mean_queued_to_start = waiting[k] / std::max(rounds.reps, 1);
  }
  return timings;
}

Timing time_launches(const Options& options, const std::function<cl::Event()>& launch,
                     std::ostream& out) {
  return time_launches(options.warmup, options.reps, launch, options.verbose ? &out : nullptr);
}

Timing time_launch_span(const Options& options,
                        const std::function<std::vector<cl::Event>()>& launch, std::ostream& out) {
  double waiting = 0;
  Timing timing = repeat(options.warmup, options.reps, [&](bool timed, int index) {
    const std::vector<cl::Event> events = launch();
    if (events.empty()) throw std::logic_error("time_launch_span: the launch enqueued nothing");
    cl::Event::waitForEvents(events);
    if (active_trace() != nullptr) {
      // The last kernel made names a span's kernel only when the span holds one kernel.
      const auto type = [](const cl::Event& e) { return e.getInfo<CL_EVENT_COMMAND_TYPE>(); };
      const auto kernels = std::count_if(events.begin(), events.end(), [&](const cl::Event& e) {
        return type(e) == CL_COMMAND_NDRANGE_KERNEL;
      });
      for (const cl::Event& event : events) {
        trace_command(event, kernels == 1 ? "" : command_type_name(type(event)),
                      timed ? nlohmann::json::object() : nlohmann::json{{"warm-up", true}});
      }
    }
    const EventTimes first = event_times(events.front());
    const auto end = events.back().getProfilingInfo<CL_PROFILING_COMMAND_END>();
    const auto start = events.front().getProfilingInfo<CL_PROFILING_COMMAND_START>();
    const double span = end > start ? double(end - start) * 1e-9 : 0.0;
    if (timed && options.verbose) {
      char line[120];
      std::snprintf(line, sizeof line,
                    "  launch %d: %zu commands, first start -> last end %.1f us\n", index + 1,
                    events.size(), span * 1e6);
      out << line;
    }
    if (timed) {
      waiting +=
          std::chrono::duration<double>(first.queued_to_submit + first.submit_to_start).count();
    }
    return span;
  });
  timing.clock = "event";
  timing.mean_queued_to_start = waiting / std::max(timing.reps, 1);
  return timing;
}

Timing time_on_host(int warmup, int reps, const std::function<void()>& run, double long_run) {
  Timing timing = repeat(
      warmup, reps,
      [&](bool, int) {
        const auto start = std::chrono::steady_clock::now();
        run();
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      },
      long_run);
  timing.clock = "host";
  return timing;
}

Timing time_on_host(const Options& options, const std::function<void()>& run) {
  return time_on_host(options.warmup, options.reps, run);
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
