// overlap.cpp: the transfers lab's third part, steps 13-17. A pipeline of chunks: each chunk is
// uploaded from pinned memory, a kernel (events_busy) works on it, and its result is downloaded
// into pinned memory. Run in one in-order queue, each command waits for the one before it; split
// across two queues (copies, kernels) or three (uploads, kernels, downloads), a chunk's kernel
// waits for its upload and its download for its kernel through events, and the device may run
// one chunk's copy while another chunk's kernel runs. Each run's span is read from the events'
// timestamps, drawn as a timeline and held against the span the stage times predict; every
// element of every run is checked against the host's result.
#ifndef CL_HPP_ENABLE_EXCEPTIONS  // the same settings as common/CMakeLists.txt gives every lab
#define CL_HPP_ENABLE_EXCEPTIONS  // OpenCL errors as cl::Error exceptions
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_TARGET_OPENCL_VERSION 120
#define CL_HPP_CL_1_2_DEFAULT_BUILD
#endif
#include <CL/opencl.hpp>

#include "lab/host_threads.hpp"
#include "lab/lab.hpp"
#include "parts.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace transfers {
namespace {

enum Stage { kUpload = 0, kKernel = 1, kDownload = 2 };
const char* const kStageNames[] = {"upload", "kernel", "download"};

// One command of the pipeline: its stage and its chunk.
struct Command {
  Stage stage;
  std::uint64_t chunk;
};

// A way of running the pipeline: its queues, by name, the queue each stage goes to (an index
// into queues), and the order the host enqueues the commands in. In that order a chunk's stages
// come one after another, so a command's event is there to wait for when the next stage is
// enqueued.
struct Variant {
  std::string name;
  std::vector<std::string> queues;
  std::array<std::size_t, 3> queue_of;
  std::vector<Command> order;

  // Whether a command of `stage` waits for its chunk's previous stage through that stage's
  // event: when the two go to different queues (on one in-order queue, the order is the wait).
  bool waits(Stage stage) const {
    return stage != kUpload && queue_of[stage - 1] != queue_of[stage];
  }
};

std::vector<Variant> pipeline_variants(std::uint64_t chunks) {
  Variant one{"1 queue", {"in-order queue"}, {0, 0, 0}, {}};
  Variant two{"2 queues", {"copy queue", "compute queue"}, {0, 1, 0}, {}};
  Variant three{"3 queues", {"upload queue", "compute queue", "download queue"}, {0, 1, 2}, {}};
  for (std::uint64_t c = 0; c < chunks; ++c) {
    // One queue: upload, kernel, download, chunk after chunk.
    one.order.insert(one.order.end(), {{kUpload, c}, {kKernel, c}, {kDownload, c}});
    // Two: the copy queue uploads chunk c before it downloads chunk c - 1, so the next upload is
    // not held behind a download that waits for a kernel still running.
    two.order.insert(two.order.end(), {{kUpload, c}, {kKernel, c}});
    if (c > 0) two.order.push_back({kDownload, c - 1});
    // Three: each stage on its own queue.
    three.order.insert(three.order.end(), {{kUpload, c}, {kKernel, c}, {kDownload, c}});
  }
  two.order.push_back({kDownload, chunks - 1});
  return {one, two, three};
}

// The span the stage times predict for `variant`: each command starts when its queue's previous
// command and its chunk's previous stage have ended, and takes its stage's time. Commands on
// different queues are assumed to run at the same time (an upload beside a download too: a
// PCIe link carries both directions at once).
double predicted_span(const Variant& variant, const std::array<double, 3>& stage_s,
                      std::uint64_t chunks) {
  std::vector<double> queue_free(variant.queues.size(), 0.0);
  std::vector<std::array<double, 3>> ended(chunks, {0.0, 0.0, 0.0});
  double span = 0;
  for (const Command& cmd : variant.order) {
    const double after_stage = cmd.stage == kUpload ? 0.0 : ended[cmd.chunk][cmd.stage - 1];
    const std::size_t queue = variant.queue_of[cmd.stage];
    const double start = std::max(queue_free[queue], after_stage);
    const double end = start + stage_s[cmd.stage];
    queue_free[queue] = end;
    ended[cmd.chunk][cmd.stage] = end;
    span = std::max(span, end);
  }
  return span;
}

struct Stamp {
  Stage stage;
  std::uint64_t chunk;
  cl_ulong start, end;
};

// What one run's timestamps say: its span (first start to last end), and the time commands spent
// running beside another (their times added up, less the time anything ran).
struct RunTimes {
  double span_s = 0;
  double overlapped_s = 0;
  cl_ulong origin = 0;
};

RunTimes run_times(std::vector<Stamp> stamps) {
  RunTimes t;
  std::sort(stamps.begin(), stamps.end(),
            [](const Stamp& a, const Stamp& b) { return a.start < b.start; });
  t.origin = stamps.front().start;
  cl_ulong last = 0, busy = 0, covered = 0, reach = stamps.front().start;
  for (const Stamp& s : stamps) {
    busy += s.end - s.start;
    if (s.end > reach) {
      covered += s.end - std::max(s.start, reach);
      reach = s.end;
    }
    last = std::max(last, s.end);
  }
  t.span_s = double(last - t.origin) * 1e-9;
  t.overlapped_s = double(busy - covered) * 1e-9;
  return t;
}

// A run drawn as three lanes, one per stage, `scale_s` seconds to `columns` characters: each
// command is its chunk's last digit from its start to its end (one character at least).
void draw_timeline(std::ostream& out, const std::vector<Stamp>& stamps, cl_ulong origin,
                   double scale_s, std::size_t columns) {
  for (int stage = 0; stage < 3; ++stage) {
    std::string lane(columns, '.');
    for (const Stamp& s : stamps) {
      if (s.stage != stage) continue;
      const auto column = [&](cl_ulong t) {
        const double at = double(t - origin) * 1e-9 / scale_s * double(columns);
        return std::min(columns - 1, std::size_t(std::max(0.0, at)));
      };
      const std::size_t from = column(s.start), to = std::max(from, column(s.end));
      for (std::size_t c = from; c <= to && c < columns; ++c) {
        lane[c] = char('0' + s.chunk % 10);
      }
    }
    // Trailing dots after the run's end say nothing: they go.
    lane.erase(lane.find_last_not_of('.') + 1);
    out << "    " << std::left << std::setw(9) << kStageNames[stage] << std::right << lane << "\n";
  }
}

}  // namespace

std::vector<lab::Result> overlap(lab::Cli& cli, lab::Env& env, const Settings& s,
                                 nlohmann::json& details) {
  const lab::Options& opt = cli.options();
  std::ostream& out = cli.out();
  const std::uint64_t chunks = s.chunks, n = s.chunk, bytes = n * sizeof(cl_uint);
  const std::uint64_t total = chunks * n;

  // 13. The kernel, events_busy: `work` steps of integer arithmetic on every element, so that a
  //     chunk's kernel can be made to take about as long as its copies
  const lab::Program program = lab::build_program(env, opt, "events_busy.cl", {}, out, false);
  cl::Kernel kernel = lab::make_kernel(program, {"events_busy",
                                                 {{"", "ulong", "n"},
                                                  {"", "uint", "work"},
                                                  {"", "uint", "salt"},
                                                  {"global", "uint*", "in"},
                                                  {"global", "uint*", "out"}}});
  const std::uint64_t local =
      std::min<std::uint64_t>(256, kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(env.device));
  const lab::Launch1D launch = lab::plan_1d(kernel, env.device, n, local);
  kernel.setArg(0, static_cast<cl_ulong>(n));
  kernel.setArg(2, static_cast<cl_uint>(0));

  // 14. Pinned host memory for every chunk's input and output (ALLOC_HOST_PTR buffers, mapped
  //     once: their pointers are the host side of every upload and download), and a buffer on
  //     the device for each chunk's input and output, so that no chunk waits for another's
  const std::uint64_t total_bytes = total * sizeof(cl_uint);
  cl::Buffer pinned_in(env.context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, total_bytes);
  cl::Buffer pinned_out(env.context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, total_bytes);
  auto* input = static_cast<cl_uint*>(
      env.queue.enqueueMapBuffer(pinned_in, CL_TRUE, CL_MAP_WRITE, 0, total_bytes));
  auto* output = static_cast<cl_uint*>(
      env.queue.enqueueMapBuffer(pinned_out, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, total_bytes));
  const lab::HostVector<cl_uint> values =
      lab::random_vector<cl_uint>(total, lab::derive_seed(opt.seed, 4), 0u, 0xffffffffu);
  std::copy(values.begin(), values.end(), input);
  std::vector<cl::Buffer> device_in, device_out;
  for (std::uint64_t c = 0; c < chunks; ++c) {
    device_in.emplace_back(env.context, CL_MEM_READ_ONLY, bytes);
    device_out.emplace_back(env.context, CL_MEM_WRITE_ONLY, bytes);
  }

  // 15. The kernel's work: with --work as given; else one chunk's upload and kernel timed, and
  //     the work doubled until the kernel takes as long as the upload (at most 2^20 steps), then
  //     set between the last two by a straight line
  const auto time_kernel = [&](cl_uint work) {
    kernel.setArg(1, work);
    kernel.setArg(3, device_in[0]);
    kernel.setArg(4, device_out[0]);
    return lab::time_launches(1, 3,
                              [&] {
                                cl::Event event;
                                env.queue.enqueueNDRangeKernel(
                                    kernel, cl::NullRange, cl::NDRange(launch.global),
                                    cl::NDRange(launch.local), nullptr, &event);
                                event.wait();
                                return event;
                              })
        .time.median;
  };
  const double upload_s =
      lab::time_launches(1, 3, [&] {
        cl::Event event;
        env.queue.enqueueWriteBuffer(device_in[0], CL_FALSE, 0, bytes, input, nullptr, &event);
        event.wait();
        return event;
      }).time.median;
  cl_uint work = static_cast<cl_uint>(s.work);
  if (s.work == 0) {
    cl_uint low = 1;
    double low_s = time_kernel(1);
    work = 1;
    while (low_s < upload_s && low < (1u << 20)) {
      const cl_uint high = low * 2;
      const double high_s = time_kernel(high);
      if (high_s >= upload_s) {
        const double slope = (high_s - low_s) / double(high - low);
        work = slope > 0 ? static_cast<cl_uint>(double(low) + (upload_s - low_s) / slope) : high;
        work = std::max(low, std::min(high, work));
        break;
      }
      low = work = high;
      low_s = high_s;
    }
  }
  kernel.setArg(1, work);
  lab::HostVector<cl_uint> want(total);
  lab::busy_reference(values.data(), want.data(), total, work, 0);  // salt 0

  std::ostringstream said;
  said << "overlap: " << chunks << (chunks == 1 ? " chunk" : " chunks") << " of "
       << lab::format_bytes(double(bytes)) << " (" << n << " uints), each uploaded, run through "
       << "events_busy with work " << work
       << (s.work == 0 ? " (chosen to match one upload of " + lab::format_seconds(upload_s) + ")"
                       : std::string(" (--work)"))
       << " and downloaded";
  out << "\n";
  lab::print_wrapped(out, "", said.str(), 0);

  // The queues: the lab's in-order queue, and four more of the same device and context, all
  // recording profiling information on the device's one clock
  cl::CommandQueue copy_queue(env.context, env.device, CL_QUEUE_PROFILING_ENABLE);
  cl::CommandQueue compute_queue(env.context, env.device, CL_QUEUE_PROFILING_ENABLE);
  cl::CommandQueue upload_queue(env.context, env.device, CL_QUEUE_PROFILING_ENABLE);
  cl::CommandQueue download_queue(env.context, env.device, CL_QUEUE_PROFILING_ENABLE);
  const std::vector<Variant> variants = pipeline_variants(chunks);
  const std::vector<std::vector<cl::CommandQueue*>> queues = {
      {&env.queue},
      {&copy_queue, &compute_queue},
      {&upload_queue, &compute_queue, &download_queue}};
  if (lab::Trace* trace = lab::active_trace()) {
    for (std::size_t v = 0; v < variants.size(); ++v) {
      for (std::size_t q = 0; q < queues[v].size(); ++q) {
        trace->name_queue(*queues[v][q], variants[v].queues[q]);
      }
    }
  }

  // 16. One run of a variant: the commands enqueued in its order, each flushed at once so that
  //     the device can start it, each waiting for its chunk's previous stage through that
  //     stage's event when the two are on different queues (on one in-order queue, the order
  //     is the wait); then every queue finished and the timestamps read
  const auto run = [&](std::size_t v) {
    const Variant& variant = variants[v];
    std::vector<std::array<cl::Event, 3>> events(chunks);
    for (const Command& cmd : variant.order) {
      cl::CommandQueue& queue = *queues[v][variant.queue_of[cmd.stage]];
      const std::uint64_t c = cmd.chunk;
      std::vector<cl::Event> wait;
      if (variant.waits(cmd.stage)) wait.push_back(events[c][cmd.stage - 1]);
      const std::vector<cl::Event>* after = wait.empty() ? nullptr : &wait;
      cl::Event& event = events[c][cmd.stage];
      if (cmd.stage == kUpload) {
        queue.enqueueWriteBuffer(device_in[c], CL_FALSE, 0, bytes, input + c * n, after, &event);
      } else if (cmd.stage == kKernel) {
        kernel.setArg(3, device_in[c]);  // the arguments are taken when the kernel is enqueued
        kernel.setArg(4, device_out[c]);
        queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(launch.global),
                                   cl::NDRange(launch.local), after, &event);
      } else {
        queue.enqueueReadBuffer(device_out[c], CL_FALSE, 0, bytes, output + c * n, after, &event);
      }
      queue.flush();
    }
    for (cl::CommandQueue* queue : queues[v]) queue->finish();
    std::vector<Stamp> stamps;
    for (std::uint64_t c = 0; c < chunks; ++c) {
      for (int stage = 0; stage < 3; ++stage) {
        const cl::Event& e = events[c][stage];
        stamps.push_back({Stage(stage), c, e.getProfilingInfo<CL_PROFILING_COMMAND_START>(),
                          e.getProfilingInfo<CL_PROFILING_COMMAND_END>()});
        lab::trace_command(e, std::string(kStageNames[stage]) + " chunk " + std::to_string(c));
      }
    }
    return stamps;
  };

  // 17. The variants in turns, round after round (--warmup rounds untimed, then --reps), the
  //     buffers cleared before each run and every element checked after it
  const std::size_t count = variants.size();
  std::vector<std::vector<double>> spans(count), overlapped(count);
  std::vector<std::vector<Stamp>> last(count);  // each variant's last run, and its times
  std::vector<RunTimes> last_times(count);
  std::vector<lab::CheckResult> checks(count);
  std::vector<std::string> broken(count);          // the first dependency a run broke, or ""
  std::array<std::vector<double>, 3> stage_times;  // of the 1-queue runs
  int reps = opt.reps;
  std::string long_note;
  for (int round = -opt.warmup; round < reps; ++round) {
    for (std::size_t v = 0; v < count; ++v) {
      // Every buffer cleared first: a stage that ran before the one it waits for then reads
      // zeros, not the right values a previous run left there
      std::memset(output, 0, total_bytes);
      for (std::uint64_t c = 0; c < chunks; ++c) {
        env.queue.enqueueFillBuffer(device_in[c], cl_uint{0}, 0, bytes);
        env.queue.enqueueFillBuffer(device_out[c], cl_uint{0}, 0, bytes);
      }
      env.queue.finish();
      std::vector<Stamp> stamps = run(v);
      if (round < 0) continue;
      const RunTimes t = run_times(stamps);
      spans[v].push_back(t.span_s);
      overlapped[v].push_back(t.overlapped_s);
      if (v == 0) {
        for (const Stamp& st : stamps)
          stage_times[st.stage].push_back(double(st.end - st.start) * 1e-9);
      }
      if (checks[v].mismatches == 0) {  // after a wrong run, the first one's mismatches stand
        const std::size_t before = checks[v].checked;
        checks[v] = lab::compare(output, want.data(), total, lab::Tolerance::exact(), std::cerr,
                                 "overlap " + variants[v].name, n);
        checks[v].checked += before;
      }
      // Each stage after the one it waits for: else the wait list is missing an event
      for (std::uint64_t c = 0; c < chunks && broken[v].empty(); ++c) {
        std::array<const Stamp*, 3> of{};
        for (const Stamp& st : stamps) {
          if (st.chunk == c) of[st.stage] = &st;
        }
        for (int stage = 1; stage < 3 && broken[v].empty(); ++stage) {
          if (of[stage]->start < of[stage - 1]->end) {
            broken[v] = std::string("the ") + kStageNames[stage] + " of chunk " +
                        std::to_string(c) + " started before its " + kStageNames[stage - 1] +
                        " ended: the command needs the " + kStageNames[stage - 1] +
                        "'s event in its wait list";
          }
        }
      }
      last[v] = std::move(stamps);
      last_times[v] = t;
      if (t.span_s > lab::kLongRunSeconds && reps > lab::kLongRunReps) {
        reps = std::max(round + 1, lab::kLongRunReps);
        long_note = "runs past " + lab::format_seconds(lab::kLongRunSeconds) + ": " +
                    std::to_string(reps) + " rounds timed";
      }
    }
  }
  for (cl::CommandQueue* queue :
       {&env.queue, &copy_queue, &compute_queue, &upload_queue, &download_queue}) {
    queue->finish();
  }
  env.queue.enqueueUnmapMemObject(pinned_in, input);
  env.queue.enqueueUnmapMemObject(pinned_out, output);
  env.queue.finish();

  // What the stage times predict, from the 1-queue runs' medians, against what each variant's
  // timestamps show
  std::array<double, 3> stage_s{};
  for (int stage = 0; stage < 3; ++stage)
    stage_s[stage] = lab::summarize(stage_times[stage]).median;
  out << "  stage times (medians of the 1-queue runs): upload " << lab::format_seconds(stage_s[0])
      << ", kernel " << lab::format_seconds(stage_s[1]) << ", download "
      << lab::format_seconds(stage_s[2]) << "\n";
  // The timelines share one scale, the longest of the last runs, so a shorter span shows shorter
  double scale_s = 0;
  for (const RunTimes& times : last_times) scale_s = std::max(scale_s, times.span_s);
  if (scale_s <= 0) scale_s = 1e-9;  // a device whose clock did not move between commands
  lab::print_wrapped(out, "  ",
                     "timelines of each variant's last run: a lane per stage, one character " +
                         lab::format_seconds(scale_s / 64.0) +
                         ", each command drawn as its chunk's last digit");
  std::vector<lab::Result> rows;
  nlohmann::json variants_json = nlohmann::json::object();
  const double one_predicted = predicted_span(variants[0], stage_s, chunks);
  const double one_median = lab::summarize(spans[0]).median;
  bool any_overlap = false;
  for (std::size_t v = 0; v < count; ++v) {
    const lab::Stats span = lab::summarize(spans[v]);
    const double predicted = predicted_span(variants[v], stage_s, chunks);
    const double most_overlap = *std::max_element(overlapped[v].begin(), overlapped[v].end());
    const double median_overlap = lab::summarize(overlapped[v]).median;
    if (v > 0 && most_overlap > 0) any_overlap = true;
    const lab::Timing timing = lab::timing_of(spans[v], opt.warmup, "event", long_note);
    lab::Result row;
    row.variant = "overlap " + variants[v].name;
    row.size = lab::Size("n", std::int64_t(total))
                   .add("work", std::int64_t(work))
                   .label(std::to_string(chunks) + " x " + lab::format_bytes(double(bytes)));
    lab::set_timing(row, timing);
    row.rate = lab::gigabytes_per_second(2.0 * double(total_bytes), span.median);
    row.unit = "GB/s";
    lab::set_check(row, checks[v]);
    if (!broken[v].empty()) {
      row.failures.push_back(broken[v]);
      row.passed = false;
      std::cerr << "transfers: overlap " << variants[v].name << ": " << broken[v] << "\n";
    }
    if (checks[v].mismatches > 0) {
      std::cerr << "transfers: overlap " << variants[v].name << ": " << checks[v].mismatches
                << " elements wrong (rows are chunks): a stage read a buffer before the stage "
                   "it depends on had filled it, or the kernel is wrong\n";
    }
    std::ostringstream note;
    note << std::fixed << std::setprecision(2);
    if (v == 0) {
      note << "every command waits for the one before it; the stage times add up to "
           << lab::format_seconds(one_predicted);
    } else {
      row.speedup = one_median / span.median;
      note << one_median / span.median << "x the 1-queue span; the stage times predict "
           << one_predicted / predicted << "x (" << lab::format_seconds(predicted) << ")";
    }
    row.add_note(note.str());
    std::ostringstream side;
    side << "overlap between commands: " << lab::format_seconds(median_overlap)
         << " in the median run, " << lab::format_seconds(most_overlap) << " at most";
    row.add_note(side.str());
    rows.push_back(std::move(row));

    const cl_ulong origin = last_times[v].origin;
    out << "\n  " << variants[v].name << " (";
    for (std::size_t q = 0; q < variants[v].queues.size(); ++q) {
      out << (q ? ", " : "") << variants[v].queues[q];
    }
    out << "): " << lab::format_seconds(span.median) << " (predicted "
        << lab::format_seconds(predicted) << ")\n";
    draw_timeline(out, last[v], origin, scale_s, 64);
    nlohmann::json drawn = nlohmann::json::array();  // the last run, for the report's timeline
    for (const Stamp& st : last[v]) {
      drawn.push_back({{"stage", kStageNames[st.stage]},
                       {"chunk", st.chunk},
                       {"start_s", double(st.start - origin) * 1e-9},
                       {"end_s", double(st.end - origin) * 1e-9}});
    }
    variants_json[variants[v].name] = {{"queues", variants[v].queues},
                                       {"span_s", spans[v]},
                                       {"overlapped_s", overlapped[v]},
                                       {"predicted_span_s", predicted},
                                       {"last_run", drawn}};
  }
  // What the timestamps say, in a sentence: whether commands overlapped at all, and whether that
  // shortened the pipeline
  double best = 0;
  std::string best_name;
  for (const lab::Result& row : rows) {
    if (row.speedup && *row.speedup > best) {
      best = *row.speedup;
      best_name = row.variant;
    }
  }
  std::ostringstream finding;
  finding << std::fixed << std::setprecision(2);
  if (!any_overlap) {
    finding << "No two commands ran at the same time in any run: every command started after the "
               "one before it had ended, whatever queue it was on, so this device (or its "
               "driver) runs one command at a time and more queues cannot shorten the pipeline.";
  } else if (best >= 1.1) {
    std::size_t b = 1;
    while (b + 1 < count && "overlap " + variants[b].name != best_name) ++b;
    finding << "Copies ran while kernels ran, and the pipeline got shorter: " << variants[b].name
            << " finished " << best << "x as fast as 1 queue (the stage times predict "
            << one_predicted / predicted_span(variants[b], stage_s, chunks) << "x).";
  } else {
    finding << "Commands ran side by side in the timestamps, yet the pipeline got no shorter: "
               "the stages share what the device has (on a CPU, the same cores make the copies "
               "and run the kernels), so each ran slower beside the others.";
  }
  out << "\n";
  lab::print_wrapped(out, "", finding.str(), 0);
  details["overlap"] = {
      {"chunks", chunks},          {"chunk_elements", n},        {"work", work},
      {"work_given", s.work != 0}, {"upload_probe_s", upload_s}, {"stage_s", stage_s},
      {"variants", variants_json}, {"finding", finding.str()}};
  return rows;
}

}  // namespace transfers
