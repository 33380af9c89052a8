// pipeline.cpp: the profiling lab's pipeline, its timestamps, and the checks they must pass.
#include "pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ostream>
#include <sstream>

namespace profiling {
namespace {

// vector_add's arguments, checked against the kernel file (a student's copy too).
lab::KernelSignature signature() {
  return {"vector_add",
          {{"", "ulong", "n"},
           {"global", "float*", "a", true},
           {"global", "float*", "b", true},
           {"global", "float*", "c"}}};
}

double us(cl_ulong from, cl_ulong to) { return to >= from ? double(to - from) / 1e3 : 0.0; }

Stamps stamps_of(const cl::Event& event) {
  return {event.getProfilingInfo<CL_PROFILING_COMMAND_QUEUED>(),
          event.getProfilingInfo<CL_PROFILING_COMMAND_SUBMIT>(),
          event.getProfilingInfo<CL_PROFILING_COMMAND_START>(),
          event.getProfilingInfo<CL_PROFILING_COMMAND_END>()};
}

// The first broken promise of one run's timestamps for command `c`, or "".
std::string broken_promise(const Run& run, std::size_t c) {
  const Stamps& s = run.stamps[c];
  const std::string name = command_names()[c];
  char text[300];
  if (!(s.queued <= s.submit && s.submit <= s.start && s.start <= s.end)) {
    std::snprintf(text, sizeof text,
                  "%s's timestamps are out of order (queued %llu, submit %llu, start %llu, end "
                  "%llu ns): each stage must follow the one before",
                  name.c_str(), (unsigned long long)s.queued, (unsigned long long)s.submit,
                  (unsigned long long)s.start, (unsigned long long)s.end);
    return text;
  }
  if (c > 0 && s.start < run.stamps[c - 1].end) {
    std::snprintf(text, sizeof text,
                  "%s started %.1f us before %s ended: an in-order queue runs each command only "
                  "after the one before it has finished",
                  name.c_str(), us(s.start, run.stamps[c - 1].end), command_names()[c - 1]);
    return text;
  }
  return "";
}

}  // namespace

const std::array<const char*, kCommands>& command_names() {
  static const std::array<const char*, kCommands> names{"write a", "write b", "kernel vector_add",
                                                        "read c"};
  return names;
}

Inputs make_inputs(std::uint64_t n, std::uint64_t seed) {
  Inputs in;
  in.a = lab::random_vector<float>(n, lab::derive_seed(seed, 0), 0.0f, 1.0f);
  in.b = lab::random_vector<float>(n, lab::derive_seed(seed, 1), 0.0f, 1.0f);
  in.reference.resize(n);
  for (std::uint64_t i = 0; i < n; ++i) in.reference[i] = in.a[i] + in.b[i];
  return in;
}

Pipeline::Pipeline(lab::Env& env, const lab::Options& options, const Settings& settings,
                   std::ostream& out)
    : env_(env),
      settings_(settings),
      program_(lab::build_program(env, options, "vector_add.cl", {}, out)),
      kernel_(lab::make_kernel(program_, signature())),
      launch_(lab::plan_1d(kernel_, env.device, settings.n, settings.local)),
      a_(env, lab::BufferMode::write, CL_MEM_READ_ONLY, settings.n, launch_.global - settings.n),
      b_(env, lab::BufferMode::write, CL_MEM_READ_ONLY, settings.n, launch_.global - settings.n),
      c_(env, lab::BufferMode::write, CL_MEM_WRITE_ONLY, settings.n, launch_.global - settings.n),
      result_(settings.n),
      err_(std::cerr) {
  out << "Pipeline: write a, write b, vector_add over " << settings.n << " elements ("
      << launch_.global << " work-items"
      << (launch_.local == 0 ? ", groups chosen by the runtime"
                             : ", groups of " + std::to_string(launch_.local))
      << "), read c, clFinish; " << (settings.blocking ? "blocking" : "non-blocking")
      << " transfers\n";
}

Run Pipeline::run(const Inputs& in, bool timed, int index) {
  const std::size_t bytes = settings_.n * sizeof(float);
  const cl_bool blocking = settings_.blocking ? CL_TRUE : CL_FALSE;
  cl::CommandQueue& queue = env_.queue;
  std::array<cl::Event, kCommands> events;
  c_.reset(queue);

  const auto start = std::chrono::steady_clock::now();
  queue.enqueueWriteBuffer(a_.buffer(), blocking, 0, bytes, in.a.data(), nullptr, &events[0]);
  queue.enqueueWriteBuffer(b_.buffer(), blocking, 0, bytes, in.b.data(), nullptr, &events[1]);
  kernel_.setArg(0, cl_ulong{settings_.n});
  kernel_.setArg(1, a_.buffer());
  kernel_.setArg(2, b_.buffer());
  kernel_.setArg(3, c_.buffer());
  queue.enqueueNDRangeKernel(kernel_, cl::NullRange, cl::NDRange(launch_.global),
                             launch_.local == 0 ? cl::NullRange : cl::NDRange(launch_.local),
                             nullptr, &events[2]);
  queue.enqueueReadBuffer(c_.buffer(), blocking, 0, bytes, result_.data(), nullptr, &events[3]);
  queue.finish();
  const auto end = std::chrono::steady_clock::now();

  Run run;
  run.wall_s = std::chrono::duration<double>(end - start).count();
  for (std::size_t c = 0; c < kCommands; ++c) {
    run.stamps[c] = stamps_of(events[c]);
    lab::trace_command(events[c], command_names()[c],
                       timed ? nlohmann::json{{"run", index + 1}}
                             : nlohmann::json{{"warm-up", true}, {"run", index + 1}});
  }
  // Every element of every run; the first failing run prints its mismatches.
  std::ostringstream quiet;
  const lab::CheckResult check =
      lab::compare(result_.data(), in.reference.data(), settings_.n, lab::Tolerance::exact(),
                   reported_mismatch_ ? quiet : err_, "c");
  run.wrong = check.mismatches;
  run.mismatches = check.first;
  reported_mismatch_ = reported_mismatch_ || !check.passed();
  const lab::GuardCheck guard = c_.check_guards(queue);
  run.out_of_bounds = guard.total();
  if (run.out_of_bounds > 0 && !reported_guard_) {
    err_ << "profiling: "
         << lab::describe_guard_writes(guard, "c",
                                       "padding work-items need the bounds check `if (i < n)`")
         << "\n";
    reported_guard_ = true;
  }
  return run;
}

Runs run_pipelines(Pipeline& pipeline, const Inputs& in, const lab::Options& options) {
  // The rule lab::time_on_host applies, made here because the report needs each run's timestamps,
  // which time_on_host does not hand back: once a pipeline takes over kLongRunSeconds, no more
  // warm-ups and at most kLongRunReps timed runs.
  Runs runs;
  int reps = options.reps;
  bool long_run = false;
  const auto seen = [&](const Run& run) {
    if (run.wall_s <= lab::kLongRunSeconds || long_run) return;
    long_run = true;
    if (reps > lab::kLongRunReps) {
      char text[120];
      std::snprintf(text, sizeof text, "over %g s a run: %d timed runs, not %d",
                    lab::kLongRunSeconds, lab::kLongRunReps, reps);
      runs.made.note = text;
      reps = lab::kLongRunReps;
    }
  };
  for (int i = 0; i < options.warmup && !long_run; ++i) {
    seen(pipeline.run(in, /*timed=*/false, i));
    ++runs.made.warmup;
  }
  for (int i = 0; i < reps; ++i) {
    runs.timed.push_back(pipeline.run(in, /*timed=*/true, i));
    seen(runs.timed.back());
  }
  runs.made.reps = static_cast<int>(runs.timed.size());
  return runs;
}

void print_last_run(const Run& run, std::ostream& out) {
  const cl_ulong origin = run.stamps[0].queued;
  out << "\nThe last run, in us from the first command's QUEUED (device profiling clock):\n";
  char line[200];
  std::snprintf(line, sizeof line, "  %-18s %10s %10s %10s %10s | %14s %14s %12s\n", "command",
                "queued", "submit", "start", "end", "queued->submit", "submit->start",
                "start->end");
  out << line;
  for (std::size_t c = 0; c < kCommands; ++c) {
    const Stamps& s = run.stamps[c];
    std::snprintf(line, sizeof line, "  %-18s %10.1f %10.1f %10.1f %10.1f | %14.1f %14.1f %12.1f\n",
                  command_names()[c], us(origin, s.queued), us(origin, s.submit),
                  us(origin, s.start), us(origin, s.end), us(s.queued, s.submit),
                  us(s.submit, s.start), us(s.start, s.end));
    out << line;
  }
  const double busy = [&] {
    double sum = 0;
    for (const Stamps& s : run.stamps) sum += us(s.start, s.end);
    return sum;
  }();
  std::snprintf(line, sizeof line,
                "  host clock around the pipeline %.1f us; first QUEUED to last END %.1f us; "
                "commands running %.1f us (%.0f%% of the host's time)\n\n",
                run.wall_s * 1e6, us(origin, run.stamps.back().end), busy,
                run.wall_s > 0 ? 100.0 * busy / (run.wall_s * 1e6) : 0.0);
  out << line;
}

void report_runs(const Runs& pipelines, const Settings& settings, cl_ulong resolution_ns,
                 lab::Report& report, std::ostream& out, std::ostream& err) {
  const std::vector<Run>& runs = pipelines.timed;
  const lab::Timing& made = pipelines.made;
  // Each row's times with the runs made: its warm-ups and timed runs in --json, the timed runs in
  // the table and --csv, and the long-run rule's note when it cut them.
  const auto set_times = [&made](lab::Result& row, const std::vector<double>& seconds,
                                 const char* clock) {
    lab::Timing timing = made;
    timing.time = lab::summarize(seconds);
    timing.clock = clock;
    lab::set_timing(row, timing);
  };
  const std::string counted = std::to_string(made.warmup) + " warm-up and " +
                              std::to_string(runs.size()) + " timed run" +
                              (runs.size() == 1 ? "" : "s");
  char line[200];
  std::snprintf(line, sizeof line,
                "Medians of the timed runs (%s made), in us:\n  %-18s %14s %14s %12s\n",
                counted.c_str(), "command", "queued->submit", "submit->start", "start->end");
  out << line;
  const lab::Size size("n", std::int64_t(settings.n));
  const double bytes[kCommands] = {4.0 * settings.n, 4.0 * settings.n, 12.0 * settings.n,
                                   4.0 * settings.n};
  nlohmann::json stages = nlohmann::json::object();
  for (std::size_t c = 0; c < kCommands; ++c) {
    std::vector<double> running, queued_to_submit, submit_to_start;
    std::string broken;
    for (const Run& run : runs) {
      const Stamps& s = run.stamps[c];
      running.push_back(us(s.start, s.end) * 1e-6);
      queued_to_submit.push_back(us(s.queued, s.submit) * 1e-6);
      submit_to_start.push_back(us(s.submit, s.start) * 1e-6);
      if (broken.empty()) broken = broken_promise(run, c);
    }
    lab::Result row;
    row.variant = command_names()[c];
    row.size = size;
    set_times(row, running, "event");
    row.rate = lab::gigabytes_per_second(bytes[c], row.time->median);
    row.unit = "GB/s";
    row.passed = broken.empty();
    row.checked = 1;
    if (!broken.empty()) {
      err << "profiling: " << broken << "\n";
      row.wrong = 1;
    }
    if (c == 2) {  // the kernel's result, in every run
      std::size_t wrong = 0, outside = 0;
      for (const Run& run : runs) {
        wrong += run.wrong;
        outside += run.out_of_bounds;
        if (row.mismatches.empty()) row.mismatches = run.mismatches;
      }
      row.checked = settings.n * runs.size();
      row.wrong += wrong;
      row.out_of_bounds = outside;
      row.passed = row.passed && wrong == 0 && outside == 0;
    }
    const lab::Stats q = lab::summarize(queued_to_submit), st = lab::summarize(submit_to_start);
    stages[command_names()[c]] = {{"queued_to_submit_median_s", q.median},
                                  {"submit_to_start_median_s", st.median},
                                  {"start_to_end_median_s", row.time->median}};
    std::snprintf(line, sizeof line, "  %-18s %14.1f %14.1f %12.1f\n", command_names()[c],
                  q.median * 1e6, st.median * 1e6, row.time->median * 1e6);
    out << line;
    report.add(row);
  }

  // The whole pipeline on both clocks. The commands are enqueued after the host starts its clock
  // and end before clFinish returns, so their span cannot be longer than the host's time (give or
  // take two ticks of the profiling timer).
  std::vector<double> wall, span;
  std::string broken;
  for (const Run& run : runs) {
    wall.push_back(run.wall_s);
    const double events_s = us(run.stamps[0].queued, run.stamps.back().end) * 1e-6;
    span.push_back(events_s);
    if (broken.empty() && events_s > run.wall_s + 2e-9 * double(resolution_ns) + 1e-6) {
      char text[240];
      std::snprintf(text, sizeof text,
                    "the commands' timestamps span %.1f us, more than the %.1f us the host "
                    "measured around them: the device's profiling clock disagrees with the host's",
                    events_s * 1e6, run.wall_s * 1e6);
      broken = text;
    }
  }
  lab::Result row;
  row.variant = "pipeline (host clock)";
  row.size = size;
  // The one note every format prints: --csv and --summary have no column for the warm-ups.
  row.add_note(counted + " of the whole pipeline");
  set_times(row, wall, "host");
  const lab::Stats events = lab::summarize(span);
  std::snprintf(line, sizeof line,
                "  the whole pipeline: %.1f us on the host clock, %.1f us from the first QUEUED "
                "to the last END\n\n",
                row.time->median * 1e6, events.median * 1e6);
  out << line;
  row.passed = broken.empty();
  row.checked = runs.size();
  if (!broken.empty()) {
    err << "profiling: " << broken << "\n";
    row.wrong = 1;
  }
  report.add(row);
  report.details()["stages"] = stages;
  report.details()["event_span_median_s"] = events.median;
  report.details()["wall_median_s"] = row.time->median;
}

}  // namespace profiling
