// bandwidth.cpp: copy kernels timed and checked, the best one kept.
#include "lab/bandwidth.hpp"

#include "lab/data.hpp"
#include "lab/ndrange.hpp"
#include "lab/program.hpp"
#include "lab/progress.hpp"
#include "lab/report.hpp"
#include "lab/timing.hpp"
#include "lab/verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <utility>

namespace lab {

namespace {

// CopyBaseline::settle for a copy run moving `bytes`: a launch of cache_flush, waited for, over
// zeros as large as what one copy run moves, and at least twice the cache the device reports
// (some report less than their last cache: an H100 reports 4.12 MiB and has 50 MB of L2);
// none when the data fit in that cache (then the runs are meant to find them there) or the
// device reports no cache.
std::function<void()> cache_flush(Env& env, const Program& program, double bytes) {
  const std::uint64_t cache = env.device.getInfo<CL_DEVICE_GLOBAL_MEM_CACHE_SIZE>();
  if (cache == 0 || bytes <= static_cast<double>(cache)) return {};
  const std::uint64_t quads =
      std::min<std::uint64_t>(std::max<std::uint64_t>(2 * cache, static_cast<std::uint64_t>(bytes)),
                              env.device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>()) /
      16;
  cl::Buffer zeros(env.context, CL_MEM_READ_ONLY, quads * 16);
  env.queue.enqueueFillBuffer(zeros, 0.0f, 0, quads * 16);
  cl::Buffer sink(env.context, CL_MEM_WRITE_ONLY, sizeof(float));
  cl::KernelFunctor<cl_ulong, cl::Buffer, cl::Buffer> flush(make_kernel(
      program,
      {"cache_flush",
       {{"", "ulong", "n"}, {"global", "float4*", "data", true}, {"global", "float*", "sink"}}}));
  const Launch1D shape = plan_1d(flush.getKernel(), env.device, quads, 0);
  return [flush, shape, queue = env.queue, quads, zeros, sink]() mutable {
    flush(shape.args(queue), quads, zeros, sink).wait();
  };
}

}  // namespace

CopyBaseline measure_copy(Env& env, const Options& options, std::uint64_t n, std::uint64_t local,
                          std::ostream& out, CopyMemory memory) {
  const std::uint64_t bytes = n * sizeof(float);
  // On stderr while it lasts, when long (lab/progress.hpp): "copy kernel, run 2 of 10, 14 s".
  const Progress progress("copy kernel");
  // (shared: with host memory the buffers use the arrays, which must outlive every launch)
  const bool host = memory == CopyMemory::host;
  const auto source =
      std::make_shared<HostVector<float>>(host ? huge_page_vector<float>(n) : HostVector<float>(n));
  fill_random(*source, derive_seed(options.seed, 99), -1.0f, 1.0f);
  const auto target =
      std::make_shared<HostVector<float>>(host ? huge_page_vector<float>(n) : HostVector<float>());
  const cl::Buffer src(env.context,
                       CL_MEM_READ_ONLY | (host ? CL_MEM_USE_HOST_PTR : CL_MEM_COPY_HOST_PTR),
                       bytes, source->data());
  const cl::Buffer dst(env.context, CL_MEM_WRITE_ONLY | (host ? CL_MEM_USE_HOST_PTR : 0), bytes,
                       host ? target->data() : nullptr);
  const Program program = build_program(env, options, "vector_copy.cl", {}, out, false);

  CopyBaseline best;
  best.bytes = 8.0 * static_cast<double>(n);
  const std::pair<const char*, std::uint64_t> kernels[] = {{"vector_copy", 1}, {"vector_copy4", 4}};
  for (const auto& [name, per_item] : kernels) {
    cl::KernelFunctor<cl_ulong, cl::Buffer, cl::Buffer> copy(make_kernel(
        program,
        {name,
         {{"", "ulong", "n"}, {"global", "float*", "src", true}, {"global", "float*", "dst"}}}));
    const Launch1D shape = plan_1d(copy.getKernel(), env.device, ceil_div(n, per_item), local);
    // (copies of the functor, buffers, arrays and queue, so that the launch outlives this
    // function)
    const std::function<cl::Event()> launch = [copy, shape, queue = env.queue, n, src, dst, source,
                                               target]() mutable {
      return copy(shape.args(queue), n, src, dst);
    };
    const Timing timing = time_launches(options, launch, out);
    HostVector<float> copied(n);
    env.queue.enqueueReadBuffer(dst, CL_TRUE, 0, bytes, copied.data());
    const bool passed =
        compare(copied.data(), source->data(), n, Tolerance::exact(), std::cerr, name).passed();
    const double rate = gigabytes_per_second(8.0 * static_cast<double>(n), timing.time.median);
    if (rate > best.rate) {
      best.rate = rate;
      best.launch = launch;
      best.why_not_measurable = too_short_to_compare(timing.time.median, env.device);
      best.measurable = best.why_not_measurable.empty();
      if (!best.measurable)
        best.why_not_measurable = "the copy kernel's " + best.why_not_measurable;
    }
    best.passed = best.passed && passed;
    best.details[name] = {{"rate_gb_s", rate},
                          {"median_s", timing.time.median},
                          {"min_s", timing.time.min},
                          {"passed", passed}};
  }
  best.details["rate_gb_s"] = best.rate;
  best.settle = cache_flush(env, program, best.bytes);
  return best;
}

void relate_to_copy(Result& row, const CopyBaseline& copy) {
  if (copy.measurable) {
    Reference reference{"copy kernel", copy.rate, "GB/s", ""};
    const std::vector<double> speeds = speed_over_yardstick(row);
    if (!speeds.empty() && row.time && row.time->median > 0) {
      // Each round's share is the row's rate over the copy's: its speed over the copy's, times
      // its bytes (from its rate) over the copy's.
      const double bytes = row.rate * 1e9 * row.time->median;
      reference.value = gigabytes_per_second(copy.bytes, summarize(row.yardstick_seconds).median);
      reference.rounds = static_cast<int>(row.yardstick_seconds.size());
      const Stats spread = summarize(speeds);
      reference.share_min = spread.min * bytes / copy.bytes;
      reference.share_max = spread.max * bytes / copy.bytes;
    }
    char text[64];
    std::snprintf(text, sizeof text, "copy kernel %.*f GB/s", reference.value < 10 ? 2 : 0,
                  reference.value);
    reference.text = text;
    set_reference(row, reference);
  } else {
    row.add_note(copy.why_not_measurable);
  }
  row.passed = row.passed && copy.passed;
}

Result bandwidth_row(const std::string& variant, const Size& size, const Timing& timing,
                     double bytes, const CheckResult& check, std::uint64_t out_of_bounds) {
  Result row;
  row.variant = variant;
  row.size = size;
  set_timing(row, timing);
  row.rate = gigabytes_per_second(bytes, timing.time.median);
  row.unit = "GB/s";
  set_check(row, check);
  row.out_of_bounds = out_of_bounds;
  row.passed = row.passed && out_of_bounds == 0;
  return row;
}

void add_against_copy(Report& report, std::vector<Result>& rows, const CopyBaseline& copy,
                      const std::string& baseline) {
  const auto base = std::find_if(rows.begin(), rows.end(),
                                 [&](const Result& r) { return r.variant == baseline; });
  const double base_rate = base != rows.end() ? base->rate : 0.0;
  for (Result& row : rows) {
    if (base_rate > 0) row.speedup = row.rate / base_rate;
    relate_to_copy(row, copy);
    report.add(row);
  }
}

}  // namespace lab
