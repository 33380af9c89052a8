// histogram: n keys counted into 2 to 4096 bins, from one global atomic per key to histograms of
// each work-group's own in local memory, private counters and replicated copies; uniform, skewed
// and constant inputs show what contention costs. Every bin is checked exactly against the host,
// and the counts must add up to n.
#include "histogram_family.hpp"

#include "lab/lab.hpp"

#include <array>
#include <cmath>
#include <iostream>
#include <numeric>
#include <random>

namespace {

struct Settings {
  std::uint64_t n = std::uint64_t{1} << 24;
  std::uint64_t bins = 256;
  std::string input = "uniform";
  std::string variant = "all";
};

// The keys, from a seeded generator: uniform over the bins; skewed (exponential: about a quarter
// of the keys in the first 2% of the bins); or constant (every key in the middle bin, the worst
// contention there is).
lab::HostVector<cl_uint> make_keys(const Settings& s, std::uint64_t seed) {
  lab::HostVector<cl_uint> keys(s.n);
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::uint64_t> uniform(0, s.bins - 1);
  std::exponential_distribution<double> exponential(1.0);
  for (auto& key : keys) {
    if (s.input == "constant") {
      key = cl_uint(s.bins / 2);
    } else if (s.input == "skewed") {
      const double at = exponential(random) * double(s.bins) / 16.0;
      key = cl_uint(std::min<double>(at, double(s.bins - 1)));
    } else {
      key = cl_uint(uniform(random));
    }
  }
  return keys;
}

// One row's run with one tuning: two histograms taking turns (each launch counts into one and
// zeroes the other for the next launch, so the host zeroes only the first, once), every launch
// timed, and the last launch's bins compared with the host's and their total with n.
struct RunRow {
  lab::Env& env;
  const histogram::Problem& problem;
  lab::GuardedBuffer<cl_uint>& keys;
  std::array<lab::GuardedBuffer<cl_uint>*, 2> hists;
  const lab::HostVector<cl_uint>& want;

  lab::Result operator()(const histogram::Variant& v, const lab::Tuning& t,
                         const lab::Stage& stage) const {
    const lab::PreparedKernel prepared =
        lab::prepare_kernel(env, stage.options, stage.out, histogram::family(), v, problem, t, {},
                            {"",
                             {{"", "ulong", "n"},
                              {"global", "uint*", "keys"},
                              {"global", "uint*", "hist"},
                              {"global", "uint*", "next_hist"}}},
                            sizeof(cl_uint));
    cl::Kernel kernel = prepared.kernel;
    kernel.setArg(0, cl_ulong(problem.n));
    kernel.setArg(1, keys.buffer());
    env.queue.enqueueFillBuffer(hists[0]->buffer(), cl_uint(0), 0, problem.bins * sizeof(cl_uint));
    std::size_t launches = 0;
    const auto launch = [&] {
      kernel.setArg(2, hists[launches % 2]->buffer());
      kernel.setArg(3, hists[(launches + 1) % 2]->buffer());
      ++launches;
      cl::Event event;
      env.queue.enqueueNDRangeKernel(kernel, cl::NullRange, lab::to_ndrange(prepared.range.global),
                                     lab::to_ndrange(prepared.range.local), nullptr, &event);
      return event;
    };
    const lab::Timing timing = lab::time_launches(stage.options, launch, stage.out);
    const std::size_t last = (launches - 1) % 2;  // the last launch's hist; the other, its next

    lab::CheckResult check;
    std::uint64_t total = 0;
    {
      const lab::Mapping<cl_uint> got = hists[last]->fetch(env.queue);
      total = std::accumulate(got.data(), got.data() + problem.bins, std::uint64_t{0});
      check = lab::compare(got.data(), want.data(), problem.bins, lab::Tolerance::exact(),
                           stage.err, "hist (" + v.name + ")");
    }
    // (the host's bins add up to n, so a total that does not is also a wrong bin above; this
    // says what usually causes it)
    if (total != problem.n) {
      stage.err << "histogram: " << v.name << ": the bins add up to " << total
                << ", not n = " << problem.n << ": "
                << (total < problem.n
                        ? "counts were lost: an increment or a merge that is not atomic, a "
                          "missing barrier, or a group's counts never added to hist"
                        : "keys were counted twice, or bins were not zeroed (group 0 zeroes "
                          "next_hist for the next launch)")
                << "\n";
    }
    std::size_t outside_writes = 0;
    const std::pair<std::string, std::size_t> buffers[] = {{"hist", last}, {"next_hist", 1 - last}};
    for (const auto& [name, index] : buffers) {
      const lab::GuardCheck guard = hists[index]->check_guards(env.queue);
      const std::string outside = lab::describe_guard_writes(
          guard, name + " (" + v.name + ")", "every key is below --bins: check the bin index");
      if (!outside.empty()) stage.err << "histogram: " << outside << "\n";
      outside_writes += guard.total();
    }
    lab::Result row = lab::bandwidth_row(
        v.name,
        lab::Size("n", std::int64_t(problem.n))
            .add("items", std::int64_t(problem.bins))
            .label("n=" + std::to_string(problem.n) + " bins=" + std::to_string(problem.bins)),
        timing, histogram::family().work(problem).bytes, check, outside_writes);
    row.elements_per_s = double(problem.n) / timing.time.median / 1e9;
    row.tunables = t.row(v.tunables);
    return row;
  }
};

int run(lab::Cli& cli, lab::Env& env, const Settings& s, const lab::TuningOptions& tuning_options,
        const lab::Tuning& defaults) {
  const auto& opt = cli.options();
  const histogram::Problem problem{s.n, s.bins};

  // 3. Host data and the host's histogram
  const lab::HostVector<cl_uint> keys_host = make_keys(s, lab::derive_seed(opt.seed, 0));
  lab::HostVector<cl_uint> want(s.bins, 0);
  for (const cl_uint key : keys_host) ++want[key];

  // 4. Each chosen variant's tuning; buffers: the keys copied once, two histograms with guard zones
  lab::VariantDriver driver(cli, env, histogram::family(), s.variant, tuning_options, defaults,
                            s.input + " " + std::to_string(s.bins) + " bins", double(s.n));
  lab::GuardedBuffer<cl_uint> keys(env, lab::BufferMode::copy, CL_MEM_READ_ONLY, s.n, 0,
                                   keys_host.data());
  lab::GuardedBuffer<cl_uint> hist(env, lab::BufferMode::write, CL_MEM_READ_WRITE, s.bins, s.bins);
  lab::GuardedBuffer<cl_uint> next_hist(env, lab::BufferMode::write, CL_MEM_READ_WRITE, s.bins,
                                        s.bins);

  // 5-7. Each variant with its tuning: build, run, verify; every run followed by one of the copy
  //      kernel, the rows' yardstick
  const lab::CopyBaseline copy = lab::measure_copy(env, opt, s.n, 0, cli.out());
  std::vector<lab::Result> rows = lab::in_turns_with(copy, [&] {
    std::vector<lab::Result> made;
    RunRow run_row{env, problem, keys, {&hist, &next_hist}, want};
    for (std::size_t i = 0; i < driver.rows().size(); ++i) {
      const histogram::Variant& v = *driver.rows()[i];
      const auto progress = driver.progress(i);  // on stderr, while a long run lasts
      const auto chosen = driver.choose(i, "GB/s", problem, [&](auto t, auto trial) {
        return run_row(v, t, trial);  // --tune tries each candidate this way, quietly
      });
      if (!chosen) continue;  // its limits refuse this size (a line said so)
      made.push_back(run_row(v, chosen->tuning, driver.stage()));
      made.back().tuning = chosen->source;
    }
    driver.check_any_ran(made);
    return made;
  });

  // 8. Report: GB/s of keys read (4 bytes each) against the copy kernel; speed-up over
  //    global_atomics
  lab::Report report("histogram", lab::describe_device(env));
  lab::add_against_copy(report, rows, copy, "global_atomics");
  auto& details = report.details();
  details["n"] = s.n;
  details["bins"] = s.bins;
  details["input"] = s.input;
  details["fullest_bin"] = *std::max_element(want.begin(), want.end());
  details["copy"] = copy.details;
  report.print(cli.format(), std::cout);
  return report.exit_code();
}

}  // namespace

int main(int argc, char** argv) {
  return lab::run_main(
      argc, argv, "histogram", "counting keys into bins: atomics, privatization, contention",
      [](lab::Cli& cli) {
        // 1. Options
        const histogram::Family& family = histogram::family();
        Settings s;
        cli.add_size("-n,--size", s.n, "Number of keys (any n >= 1; default 2^24)");
        cli.add_count("--bins", s.bins, "Number of bins, 2 to 4096 (default 256)", 2, 4096);
        cli.add_choice("--input", s.input,
                       "uniform over the bins, skewed toward the first bins, or constant (every "
                       "key in one bin)",
                       {"uniform", "skewed", "constant"});
        lab::add_variant_option(cli, family, s.variant);
        lab::TuningOptions tuning_options(cli, family.tunables);
        cli.parse();
        tuning_options.check();
        const auto& opt = cli.options();
        lab::check_kernel_options(opt, family, s.variant);
        lab::check_tunables_used(tuning_options, family, s.variant, lab::notes());

        // 2. Device, and the tunables shaped for it
        lab::Env env = lab::open_device(opt, cli.out());
        const lab::Tuning defaults = histogram::default_tuning(env.device, s.bins);
        lab::check_memory(env, s.n * 4, 1, 2, "-n");  // the keys (+ the copy), host keys
        return run(cli, env, s, tuning_options, defaults);
      });
}
