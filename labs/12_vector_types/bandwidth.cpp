// bandwidth.cpp: vector_types' copy bandwidth per vector width (like clpeak's), each width's copy
// checked element by element, and on a CPU device the host's own memcpy split over as many
// threads as the device has compute units, timed in the same run.
#include "vector_types.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <ostream>
#include <thread>

namespace vector_types {
namespace {

std::string type_name(std::uint64_t width) {
  return width == 1 ? "float" : "float" + std::to_string(width);
}

std::string rate_text(double rate) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f GB/s", rate < 10 ? 2 : 0, rate);
  return text;
}

// The host's copy, dst = src with memcpy, slice t of `threads` equal slices on thread t. One call
// copies once and returns its seconds, from the first thread's start to the last one's end, so
// starting the threads is not counted against memcpy.
class HostCopy {
 public:
  HostCopy(std::uint64_t n, std::uint64_t seed, unsigned threads)
      : src_(lab::random_vector<float>(n, seed, -1.0f, 1.0f)), dst_(n), threads_(threads) {}

  double operator()() {
    using Clock = std::chrono::steady_clock;
    const std::uint64_t n = src_.size();
    std::vector<Clock::time_point> start(threads_), end(threads_);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads_; ++t) {
      pool.emplace_back([&, t] {
        const std::uint64_t lo = n * t / threads_, hi = n * (t + 1) / threads_;
        start[t] = Clock::now();
        std::memcpy(dst_.data() + lo, src_.data() + lo, (hi - lo) * sizeof(float));
        end[t] = Clock::now();
      });
    }
    for (std::thread& thread : pool) thread.join();
    const auto first = *std::min_element(start.begin(), start.end());
    const auto last = *std::max_element(end.begin(), end.end());
    return std::chrono::duration<double>(last - first).count();
  }

  lab::CheckResult check(std::ostream& err) const {
    return lab::compare(dst_.data(), src_.data(), src_.size(), lab::Tolerance::exact(), err,
                        "memcpy dst");
  }

 private:
  lab::HostVector<float> src_;
  lab::HostVector<float> dst_;
  unsigned threads_;
};

// Every width against memcpy on a shared machine whose bandwidth drifts from second to second:
// each kernel takes turns with memcpy, run by run, and its share is the median of its runs'
// ratios. Timing the widths one after another would let a slow second favour one of them.
struct Paired {
  lab::Timing host;                          // memcpy's runs
  std::vector<std::vector<double>> kernel;   // per launch: the kernel's seconds, run by run
  std::vector<std::vector<double>> partner;  // per launch: the memcpy seconds paired with them
  // Launch k's share of memcpy's rate: the median of its runs' ratios.
  double share(std::size_t k) const {
    std::vector<double> ratios;
    for (std::size_t i = 0; i < kernel[k].size(); ++i)
      ratios.push_back(partner[k][i] / kernel[k][i]);
    return lab::summarize(ratios).median;
  }
};
Paired alternate(const lab::Options& options,
                 const std::vector<std::function<cl::Event()>>& launches, HostCopy& host_copy) {
  const auto kernel_seconds = [](const std::function<cl::Event()>& launch) {
    cl::Event event = launch();
    event.wait();
    return lab::event_times(event).start_to_end.count() * 1e-9;
  };
  // The long-run rule of lab::time_launches: once a run takes over kLongRunSeconds, no more
  // warm-ups and at most kLongRunReps timed rounds.
  double longest = 0;
  int warmups = 0;
  for (; warmups < options.warmup && longest <= lab::kLongRunSeconds; ++warmups) {
    for (const auto& launch : launches) {
      longest = std::max({longest, kernel_seconds(launch), host_copy()});
    }
  }
  Paired paired;
  paired.kernel.resize(launches.size());
  paired.partner.resize(launches.size());
  std::vector<double> host_seconds;
  for (int i = 0; i < options.reps; ++i) {
    if (longest > lab::kLongRunSeconds && i >= lab::kLongRunReps) break;
    for (std::size_t k = 0; k < launches.size(); ++k) {
      const double kernel = kernel_seconds(launches[k]);
      host_seconds.push_back(host_copy());
      paired.kernel[k].push_back(kernel);
      paired.partner[k].push_back(host_seconds.back());
      longest = std::max({longest, kernel, host_seconds.back()});
    }
  }
  paired.host.time = lab::summarize(host_seconds);
  paired.host.warmup = warmups * int(launches.size());
  paired.host.reps = int(host_seconds.size());
  paired.host.clock = "host";
  return paired;
}

// "4096, the kernel's largest: ..." for the bandwidth part's header.
std::string describe_group_sizes(const Context& c, std::uint64_t local) {
  if (c.settings.local) {
    return local == 0 ? "the runtime's choice (--local 0)" : std::to_string(local) + " (--local)";
  }
  if (c.env.device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) {
    return std::to_string(local) +
           ", the kernel's largest: on a CPU device a work-group is one task for one thread, "
           "and fewer, larger tasks cost less to hand out";
  }
  return std::to_string(local);
}

// Whether each pass over the widths streams its stores: --stores, with auto resolved for the
// device.
std::vector<bool> streaming_modes(const Context& c) {
  std::string stores = c.settings.stores;
  if (stores == "auto") {
    const bool cpu = c.env.device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU;
    stores = cpu ? "streaming" : "plain";
  }
  if (stores == "both") return {false, true};
  return {stores == "streaming"};
}

}  // namespace

std::uint64_t group_size(const Context& c, const cl::Kernel& kernel) {
  if (c.settings.local) return *c.settings.local;
  const std::uint64_t largest = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(c.env.device);
  if (c.env.device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) return largest;
  return std::min<std::uint64_t>(256, largest);
}

const std::vector<std::string>& store_names() {
  static const std::vector<std::string> names{"auto", "plain", "streaming", "both"};
  return names;
}

std::vector<lab::Part> parts() { return {{"bandwidth", kCopyFile}, {"operations", kOpsFile}}; }

void check_widths(const std::vector<std::uint64_t>& widths) {
  for (std::size_t i = 0; i < widths.size(); ++i) {
    const std::uint64_t w = widths[i];
    if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16) {
      throw lab::UsageError("--widths: " + std::to_string(w) +
                            " is not a vector width: OpenCL C has float, float2, float4, float8 "
                            "and float16 (a float3 is stored as 4): choose from 1, 2, 4, 8, 16");
    }
    if (std::find(widths.begin(), widths.begin() + i, w) != widths.begin() + i) {
      throw lab::UsageError("--widths: " + std::to_string(w) + " is listed twice");
    }
  }
}

namespace {

// The one of `rows` (indices into `results`) with the highest rate.
std::size_t fastest(const std::vector<std::size_t>& rows, const std::vector<lab::Result>& results) {
  return *std::max_element(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
    return results[a].rate < results[b].rate;
  });
}

// Each row whose copy was right gets the best such row as its reference; returns those rows
// (none when every width's copy was wrong).
std::vector<std::size_t> rank_widths(Context& c, Bandwidth& result) {
  std::vector<std::size_t> passed;  // rows whose copy was right, the only ones ranked
  for (std::size_t k = 0; k < result.rows.size(); ++k) {
    if (result.rows[k].passed) passed.push_back(k);
  }
  if (passed.empty()) {
    c.out << "best width: none, every width's copy was wrong (see the mismatches above)\n";
    return passed;
  }
  const lab::Result& top_row = result.rows[fastest(passed, result.rows)];
  for (const std::size_t k : passed) {
    lab::Reference reference{"best width " + top_row.variant, top_row.rate, "GB/s",
                             "best, " + top_row.variant + " " + rate_text(top_row.rate)};
    reference.short_name = "best width";
    lab::set_reference(result.rows[k], reference);
  }
  result.details["best"] = {{"type", top_row.variant}, {"rate_gb_s", top_row.rate}};
  c.out << "best width: " << top_row.variant << " at " << rate_text(top_row.rate) << "\n";
  return passed;
}

// A CPU device's memory is the host's: its copy should reach what memcpy reaches on as many
// threads as the device has compute units. The right widths take turns with memcpy; the one
// closest to it, and memcpy's own row, are added to `result`.
void compare_with_memcpy(Context& c, std::uint64_t n,
                         const std::vector<std::function<cl::Event()>>& launches,
                         const std::vector<std::size_t>& passed, Bandwidth& result) {
  if (!(c.env.device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU)) return;
  const lab::Result& top_row = result.rows[fastest(passed, result.rows)];
  const unsigned threads = c.env.device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
  const std::string short_run = lab::too_short_to_compare(top_row.time->median, c.env.device);
  if (!short_run.empty()) {
    c.out << "no comparison with memcpy: the best copy's " << short_run << "\n";
    return;
  }
  HostCopy host_copy(n, lab::derive_seed(c.options.seed, 7), threads);
  std::vector<std::function<cl::Event()>> ranked;
  for (const std::size_t k : passed) ranked.push_back(launches[k]);
  const Paired paired = alternate(c.options, ranked, host_copy);
  std::vector<double> shares;  // per ranked row: the median of its paired ratios
  std::string list;
  for (std::size_t i = 0; i < passed.size(); ++i) {
    const std::string& variant = result.rows[passed[i]].variant;
    shares.push_back(paired.share(i));
    result.details["widths"][variant]["memcpy_share"] = shares.back();
    char part[64];
    std::snprintf(part, sizeof part, "%s%s %.0f%%", i == 0 ? "" : ", ", variant.c_str(),
                  100.0 * shares.back());
    list += part;
  }
  const std::size_t closest =
      std::size_t(std::max_element(shares.begin(), shares.end()) - shares.begin());
  const std::string& name = result.rows[passed[closest]].variant;
  const auto rate = [&](const std::vector<double>& seconds) {
    return lab::gigabytes_per_second(8.0 * double(n), lab::summarize(seconds).median);
  };
  lab::Result host = lab::bandwidth_row("memcpy " + std::to_string(threads) + " threads",
                                        lab::Size("n", std::int64_t(n)), paired.host,
                                        8.0 * double(n), host_copy.check(c.err), 0);
  char text[240];
  std::snprintf(text, sizeof text,
                "closest to the host's memcpy over %u threads: %s at %.0f%% of it (in the runs "
                "that alternated with memcpy, %s against %s)",
                threads, name.c_str(), 100.0 * shares[closest],
                rate_text(rate(paired.kernel[closest])).c_str(),
                rate_text(rate(paired.partner[closest])).c_str());
  c.out << text << "\n";
  c.out << "each width took turns with memcpy, " << paired.kernel.front().size()
        << " runs each; the medians of their ratios to it: " << list << "\n";
  host.add_note(text);
  result.details["host_memcpy"] = {{"threads", threads},
                                   {"rate_gb_s", host.rate},
                                   {"median_s", host.time->median},
                                   {"best_width", name},
                                   {"best_width_share", shares[closest]}};
  result.rows.push_back(host);
}

}  // namespace

Bandwidth copy_bandwidth(Context& c) {
  const Settings& s = c.settings;
  const std::uint64_t n = s.n;
  c.out << "\nbandwidth: dst = src over " << n << " floats (" << lab::format_bytes(4.0 * double(n))
        << " each way), VW floats per work-item through one floatVW load and store\n";
  // One copy kernel per store mode and width, planned before the buffers: dst's guard zone covers
  // the widest launch's overreach.
  struct Copy {
    std::string name;
    std::uint64_t width;
    bool stream;
    cl::KernelFunctor<cl_ulong, cl::Buffer, cl::Buffer> kernel;
    lab::Launch1D launch;
  };
  std::vector<Copy> copies;
  for (const bool stream : streaming_modes(c)) {
    for (const std::uint64_t w : s.widths) {
      const lab::Program program = lab::build_program(
          c.env, c.options, kCopyFile,
          {{"VW", std::to_string(w), "--widths"}, {"STREAM", stream ? "1" : "0", "--stores"}},
          c.out);
      cl::KernelFunctor<cl_ulong, cl::Buffer, cl::Buffer> copy(lab::make_kernel(
          program,
          {"copy_vw",
           {{"", "ulong", "n"}, {"global", "float*", "src", true}, {"global", "float*", "dst"}}}));
      const lab::Launch1D launch = lab::plan_1d(copy.getKernel(), c.env.device, lab::ceil_div(n, w),
                                                group_size(c, copy.getKernel()));
      copies.push_back({type_name(w) + (stream ? " streaming" : ""), w, stream, copy, launch});
    }
  }
  c.out << "work-group size: " << describe_group_sizes(c, copies.front().launch.local) << "\n";
  // A kernel that drops the check for the last, partial vector writes into the guard zone instead
  // of past the buffer. src holds that many random floats past n (the kernels are told n), so what
  // such a kernel copies never looks like guard bytes.
  std::uint64_t reach = 0;
  for (const Copy& copy : copies) reach = std::max(reach, copy.launch.global * copy.width - n);
  const auto source =
      lab::random_vector<float>(n + reach, lab::derive_seed(c.options.seed, 0), -1.0f, 1.0f);
  lab::GuardedBuffer<float> src(c.env, lab::BufferMode::copy, CL_MEM_READ_ONLY, n + reach, 0,
                                source.data());
  lab::GuardedBuffer<float> dst(c.env, lab::BufferMode::write, CL_MEM_WRITE_ONLY, n, reach);

  // Each width's copy is checked from one run into a reset dst; then the widths are timed taking
  // turns, one run each per round, so a slow second on a shared machine cannot reorder them.
  Bandwidth result;
  std::vector<std::function<cl::Event()>> launches;
  std::vector<std::string> names;
  struct Checked {
    lab::CheckResult check;
    std::uint64_t outside = 0;  // guard elements written
  };
  std::vector<Checked> checked;
  for (Copy& copy : copies) {
    launches.push_back([&, kernel = copy.kernel, launch = copy.launch]() mutable {
      return kernel(launch.args(c.env.queue), n, src.buffer(), dst.buffer());
    });
    names.push_back(copy.name);
    dst.reset(c.env.queue);
    launches.back()().wait();
    Checked one;
    {
      const lab::Mapping<float> got = dst.fetch(c.env.queue);
      one.check = lab::compare(got.data(), source.data(), n, lab::Tolerance::exact(), c.err,
                               "dst (" + copy.name + ")");
    }
    const lab::GuardCheck guard = dst.check_guards(c.env.queue);
    const std::string outside = lab::describe_guard_writes(
        guard, "dst (" + copy.name + ")",
        "the work-item with the last, partial vector must copy it float by float, and "
        "padding work-items must copy nothing");
    if (!outside.empty()) c.err << "vector_types: " << outside << "\n";
    one.outside = guard.total();
    checked.push_back(one);
  }
  const std::vector<lab::Timing> timings =
      lab::time_launches_in_turns(c.options, launches, names, c.out);
  for (std::size_t k = 0; k < copies.size(); ++k) {
    const Copy& copy = copies[k];
    const lab::Timing& timing = timings[k];
    lab::Result row = lab::bandwidth_row(copy.name, lab::Size("n", std::int64_t(n)), timing,
                                         8.0 * double(n), checked[k].check, checked[k].outside);
    row.tunables = {{"VW", std::int64_t(copy.width)}, {"STREAM", copy.stream ? 1 : 0}};
    const std::string short_run = lab::too_short_to_compare(timing.time.median, c.env.device);
    if (!short_run.empty()) row.add_note("this copy's " + short_run);
    result.details["widths"][copy.name] = {{"rate_gb_s", row.rate},
                                           {"median_s", timing.time.median},
                                           {"min_s", timing.time.min},
                                           {"local", copy.launch.local},
                                           {"passed", row.passed}};
    result.rows.push_back(row);
  }

  // Each width as a fraction of the best that copied correctly; on a CPU, against memcpy.
  const std::vector<std::size_t> passed = rank_widths(c, result);
  if (!passed.empty()) compare_with_memcpy(c, n, launches, passed, result);
  return result;
}

}  // namespace vector_types
