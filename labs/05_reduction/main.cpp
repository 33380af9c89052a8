// reduction: sum x or the dot product x·y, from one work-item per group (the lecture's first
// attempt) to many elements per work-item and one tree, each variant checked against a double
// reference within the rounding bound of its own summation tree and timed from events.
#include "peers.hpp"
#include "reduction_family.hpp"

#include "lab/lab.hpp"

#include <cmath>
#include <iostream>
#include <limits>
#include <optional>
#include <type_traits>

namespace {

struct Settings {
  std::uint64_t n = std::uint64_t{1} << 24;
  std::string op = "sum";
  std::string dtype = "float";
  std::string variant = "all";
  std::string finish = "host";
  bool peers = false;
};

// The kernel every row launches: (ulong n, global REAL* x, y, partial[, local REAL* scratch]).
lab::KernelSignature signature(const reduction::Variant& v, const std::string& real) {
  lab::KernelSignature s{"",
                         {{"", "ulong", "n"},
                          {"global", real + "*", "x"},
                          {"global", real + "*", "y"},
                          {"global", real + "*", v.extra.one_pass ? "total" : "partial"}}};
  if (v.extra.scratch) s.args.push_back({"local", real + "*", "scratch"});
  return s;
}

// The finish on the device: one group of FINISH work-items adds up the partial sums.
struct Finisher {
  cl::Kernel kernel;
  std::uint64_t local = 0;  // a power of two
};

Finisher make_finisher(lab::Env& env, const lab::Options& opt, const std::string& real,
                       std::size_t element, std::ostream& out) {
  const lab::Program program =
      lab::build_program(env, opt, "reduction_finish.cl", {{"REAL", real, "--dtype"}}, out, false);
  Finisher f;
  f.kernel = lab::make_kernel(program, {"reduction_finish",
                                        {{"", "ulong", "count"},
                                         {"global", real + "*", "partial"},
                                         {"global", real + "*", "result"},
                                         {"local", real + "*", "scratch"}}});
  const std::uint64_t limit = std::min<std::uint64_t>(
      {256, f.kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(env.device),
       env.device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>() / element});
  for (f.local = 1; f.local * 2 <= limit;) f.local *= 2;
  return f;
}

// gamma_h = h u / (1 - h u): the worst-case relative rounding of a chain of h operations in
// float (u = 2^-24); infinite when h u >= 1.
double gamma(std::uint64_t h) {
  const double hu = double(h) * std::ldexp(1.0, -24);
  return hu < 1 ? hu / (1 - hu) : std::numeric_limits<double>::infinity();
}

// The terms of the sum and what the host knows of it: x and y (uniform in [0, 1) for float, so a
// long float sum loses digits; in [-R, R] for int, with R small enough that no partial sum can
// overflow 32 bits), the exact sum in double, the sum of the terms' magnitudes (which scales
// every rounding bound), and the lecture's sequential loop in the element type with its error.
template <typename T>
struct Terms {
  lab::HostVector<T> x, y;
  double reference = 0, magnitude = 0;
  T host_loop = 0;
  double host_error = 0, host_bound = 0;
  int range = 0;  // R for int
};

template <typename T>
Terms<T> make_terms(const Settings& s, std::uint64_t seed, std::ostream& out) {
  const bool is_float = std::is_floating_point_v<T>;
  const bool dot = s.op == "dot";
  const std::uint64_t n = s.n;
  Terms<T> terms;
  const double int_limit = double(std::numeric_limits<std::int32_t>::max());
  terms.range = static_cast<int>(std::min(
      9.0, dot ? std::floor(std::sqrt(int_limit / double(n))) : std::floor(int_limit / double(n))));
  if (!is_float && terms.range < 1) {
    throw lab::UsageError("an int " + s.op + " of " + std::to_string(n) +
                          " elements could overflow 32 bits: use --dtype float or a smaller -n");
  }
  const double low = is_float ? 0 : -terms.range, high = is_float ? 1 : terms.range;
  terms.x = lab::random_vector<T>(n, lab::derive_seed(seed, 0), T(low), T(high));
  terms.y = lab::random_vector<T>(n, lab::derive_seed(seed, 1), T(low), T(high));
  const auto& x = terms.x;
  const auto& y = terms.y;
  for (std::uint64_t i = 0; i < n; ++i) {
    const double term = dot ? double(x[i]) * double(y[i]) : double(x[i]);
    terms.reference += term;
    terms.magnitude += std::fabs(term);
    terms.host_loop += dot ? T(x[i] * y[i]) : x[i];
  }
  const std::uint64_t product = dot && is_float ? 1 : 0;  // a float product rounds once more
  terms.host_error = std::fabs(double(terms.host_loop) - terms.reference);
  terms.host_bound = is_float ? gamma(n - 1 + product) * terms.magnitude : 0;
  out << (dot ? "x·y" : "sum x") << ", n = " << n << ", " << (is_float ? "float" : "int")
      << "; reference " << terms.reference << " (double" << (is_float ? "" : ", exact") << ")\n";
  if (is_float) {
    out << "Sequential float loop on the host: error " << terms.host_error;
    if (std::isfinite(terms.host_bound)) {
      out << " (its bound " << terms.host_bound << " = gamma_" << (n - 1 + product)
          << " * sum |terms|)\n";
    } else {
      out << " (no bound: n u >= 1, so a float running sum can lose every digit)\n";
    }
  }
  return terms;
}

template <typename T>
int run(lab::Cli& cli, lab::Env& env, const Settings& s, const lab::TunableOptions& tunable_options,
        const lab::Tuning& defaults) {
  const auto& opt = cli.options();
  const reduction::Family& family = reduction::family();
  const bool is_float = std::is_floating_point_v<T>;
  const bool dot = s.op == "dot";
  const std::string real = is_float ? "float" : "int";
  const std::uint64_t n = s.n;

  // 3. Host data, the reference in double (exact for int), and the plain float loop
  const Terms<T> terms = make_terms<T>(s, opt.seed, cli.out());
  const lab::HostVector<T>& x = terms.x;
  const lab::HostVector<T>& y = terms.y;
  const double reference = terms.reference, magnitude = terms.magnitude;
  const double product = dot && is_float ? 1 : 0;  // a float product rounds once more

  // 4. Each chosen variant's tuning (the defaults, the cache, the command line; every candidate
  //    with --tune); an int-only variant is left out for float, with the reason
  lab::VariantDriver driver(
      cli, env, family, s.variant, tunable_options, defaults, s.dtype + (dot ? " dot" : " sum"),
      double(n), [&](const reduction::Variant& v) { return reduction::cannot_run(v, s.dtype); });
  //    Buffers: x and y copied once, with guard zones as long as the furthest launch reaches;
  //    the partial sums and the total start as the sentinel
  std::uint64_t reach = 0, max_groups = 1;
  driver.each_launch([&](const reduction::Variant& v, const lab::Tuning& t) {
    reach = std::max(reach, v.covers(n, t)[0] - n);
    max_groups = std::max(max_groups, v.extra.groups(n, t));
  });
  lab::GuardedBuffer<T> x_buf(env, lab::BufferMode::copy, CL_MEM_READ_ONLY, n, reach, x.data());
  lab::GuardedBuffer<T> y_buf(env, lab::BufferMode::copy, CL_MEM_READ_ONLY, n, reach, y.data());
  lab::GuardedBuffer<T> partial(env, lab::BufferMode::write, CL_MEM_READ_WRITE, max_groups, 0);
  lab::GuardedBuffer<T> result(env, lab::BufferMode::write, CL_MEM_READ_WRITE, 1, 0);
  const cl::Buffer& second = dot ? y_buf.buffer() : x_buf.buffer();  // a sum reads x only
  const lab::Defines defines = {{"REAL", real, "--dtype"}, {"DOT", dot ? "1" : "0", "--op"}};
  const bool device_finish = s.finish == "device";
  Finisher finisher;
  if (device_finish) finisher = make_finisher(env, opt, real, sizeof(T), cli.out());
  const double bytes = double(n) * sizeof(T) * (dot ? 2 : 1);
  // A row's name, size, times and rates: GB/s of terms read and G elements/s.
  const auto timed_row = [&](const std::string& name, const lab::Timing& timing) {
    lab::Result row;
    row.variant = name;
    row.size = "n=" + std::to_string(n);
    lab::set_timing(row, timing);
    row.rate = lab::gigabytes_per_second(bytes, timing.time.median);
    row.unit = "GB/s";
    row.elements_per_s = double(n) / timing.time.median / 1e9;
    return row;
  };

  // 5-7. One variant with one tuning: build, run, verify (a tuner's trial quietly)
  const auto run_variant = [&](const reduction::Variant& v, const lab::Tuning& t,
                               const lab::Stage& stage) {
    const std::uint64_t local = t.whole(v.extra.local);
    const lab::PreparedKernel prepared = lab::prepare_kernel(
        env, stage.options, stage.out, family, v, n, t, defines, signature(v, real), sizeof(T));
    cl::Kernel kernel = prepared.kernel;
    const std::uint64_t groups = v.extra.groups(n, t);
    kernel.setArg(0, cl_ulong(n));
    kernel.setArg(1, x_buf.buffer());
    kernel.setArg(2, second);
    kernel.setArg(3, v.extra.one_pass ? result.buffer() : partial.buffer());
    if (v.extra.scratch) kernel.setArg(4, cl::Local(local * sizeof(T)));
    const cl::NDRange global = lab::to_ndrange(prepared.range.global);
    const cl::NDRange group = lab::to_ndrange(prepared.range.local);

    partial.reset(env.queue);
    result.reset(env.queue);
    const auto launch = [&] {
      if (v.extra.one_pass) {
        env.queue.enqueueFillBuffer(result.buffer(), T(0), 0, sizeof(T));
      }
      cl::Event event;
      env.queue.enqueueNDRangeKernel(kernel, cl::NullRange, global, group, nullptr, &event);
      return event;
    };
    // The whole reduction, as a program would run it: the kernel, the finish on the device or
    // on the host (the lecture's loop over the partial sums), and the total on the host.
    T total = 0;
    lab::HostVector<T> partials(groups);
    const auto end_to_end = [&] {
      launch();
      if (v.extra.one_pass || device_finish) {
        if (!v.extra.one_pass) {
          finisher.kernel.setArg(0, cl_ulong(groups));
          finisher.kernel.setArg(1, partial.buffer());
          finisher.kernel.setArg(2, result.buffer());
          finisher.kernel.setArg(3, cl::Local(finisher.local * sizeof(T)));
          env.queue.enqueueNDRangeKernel(finisher.kernel, cl::NullRange,
                                         cl::NDRange(finisher.local), cl::NDRange(finisher.local));
        }
        env.queue.enqueueReadBuffer(result.buffer(), CL_TRUE, 0, sizeof(T), &total);
        return;
      }
      env.queue.enqueueReadBuffer(partial.buffer(), CL_TRUE, 0, groups * sizeof(T),
                                  partials.data());
      total = 0;
      for (std::uint64_t g = 0; g < groups; ++g) total += partials[g];
    };
    const lab::Timing timing = lab::time_launches(stage.options, launch, stage.out);
    // The tuner's trials time the kernel only; the total comes from one end-to-end run.
    const lab::Timing whole = stage.trial ? lab::time_on_host(0, 1, end_to_end)
                                          : lab::time_on_host(stage.options, end_to_end);

    // The rounding bound of this variant's own summation tree: the kernel's chain, the finish's,
    // and the product's rounding for a float dot product.
    const std::uint64_t finish_chain =
        v.extra.one_pass ? 0
        : device_finish  ? lab::ceil_div(groups, finisher.local) + lab::log2_ceil(finisher.local)
                         : groups - 1;
    const std::uint64_t height = v.extra.chain(n, t) + finish_chain + std::uint64_t(product);
    const double allowed_error = is_float ? gamma(height) * magnitude : 0;
    const lab::CheckResult check = lab::compare_each(
        &total, &reference, 1, [&](std::size_t) { return allowed_error; }, stage.err,
        "total (" + v.name + ")");
    // Only where there are guard zones (not under Oclgrind), and only for an overflow: a NaN
    // total comes from the sentinel, which the mismatch line explains.
    if (is_float && !check.passed() && !lab::is_oclgrind(env.platform) &&
        std::fabs(double(total)) >= 1e30) {
      stage.err << "reduction: a total of " << double(total)
                << " is what adding the guard zones' 3.4e38 past the end of x gives: the "
                   "kernel most likely read past element n - 1 (check i < n)\n";
    }
    const lab::GuardCheck guard = partial.check_guards(env.queue);
    const std::string outside = lab::describe_guard_writes(
        guard, "the partial sums", "each group writes one partial sum, partial[group id]");
    if (!outside.empty()) stage.err << "reduction: " << outside << "\n";

    lab::Result row = timed_row(v.name, timing);
    row.end_to_end = whole.time;
    row.tunables = t.row(v.tunables);
    row.out_of_bounds = guard.total();
    lab::set_check(row, check);
    if (is_float) {
      char text[120];
      std::snprintf(text, sizeof text, "error %.3g (allowed %.3g, tree height %llu)",
                    std::fabs(double(total) - reference), allowed_error,
                    static_cast<unsigned long long>(height));
      row.note = text;
    }
    return std::optional<lab::Result>(row);
  };
  std::vector<lab::Result> rows = driver.run("GB/s", n, run_variant);
  if constexpr (std::is_same_v<T, float>) {
    if (s.peers) {
      const double any_order = gamma(n + std::uint64_t(product)) * magnitude;
      for (auto peer : {reduction::run_openblas(x, y, dot, opt, cli.out()),
                        reduction::run_clblast(env, x_buf.buffer(), y_buf.buffer(), result.buffer(),
                                               n, dot, opt, cli.out())}) {
        if (!peer) continue;
        const lab::CheckResult check = lab::compare_each(
            &peer->total, &reference, 1, [&](std::size_t) { return any_order; }, std::cerr,
            "total (" + peer->name + ")");
        lab::Result row = timed_row(peer->name, peer->timing);
        lab::set_check(row, check);
        char text[120];
        if (std::isfinite(any_order)) {
          std::snprintf(text, sizeof text, "error %.3g (allowed %.3g, any order)",
                        std::fabs(double(peer->total) - reference), any_order);
        } else {
          std::snprintf(text, sizeof text, "error %.3g (its order is unknown: no bound at this n)",
                        std::fabs(double(peer->total) - reference));
        }
        row.note = peer->note + (peer->note.empty() ? "" : "; ") + text;
        rows.push_back(row);
      }
    }
  }

  // 8. Report: GB/s of terms read, against the copy kernel; speed-up over single
  const lab::CopyBaseline copy = lab::measure_copy(env, opt, n, 0, cli.out());
  lab::Report report("reduction", env.device_name());
  lab::add_against_copy(report, rows, copy, "single");
  report.details()["n"] = n;
  report.details()["op"] = s.op;
  report.details()["dtype"] = s.dtype;
  report.details()["finish"] = s.finish;
  report.details()["reference"] = reference;
  report.details()["sum_of_absolute_terms"] = magnitude;
  report.details()["tolerance"] =
      is_float ? "gamma_h * sum |terms|, gamma_h = h u / (1 - h u), u = 2^-24, h the height of the "
                 "variant's summation tree (its kernel, the finish, and the product for dot)"
               : "exact";
  if (is_float) {
    report.details()["host_float_loop"] = {
        {"total", terms.host_loop}, {"error", terms.host_error}, {"bound", terms.host_bound}};
  } else {
    report.details()["int_range"] = terms.range;
  }
  report.details()["copy"] = copy.details;
  report.print(cli.format(), std::cout);
  return report.exit_code();
}

}  // namespace

int main(int argc, char** argv) {
  return lab::run_main(
      argc, argv, "reduction", "sum or dot product, from one work-item per group to memory speed",
      [](lab::Cli& cli) {
        // 1. Options
        const reduction::Family& family = reduction::family();
        Settings s;
        cli.add_size("-n,--size", s.n, "Number of elements (any n >= 1; 2^20 works too)");
        cli.add_choice("--op", s.op, "sum: x[0] + x[1] + ...; dot: x[0]*y[0] + x[1]*y[1] + ...",
                       {"sum", "dot"});
        cli.add_choice("--dtype", s.dtype, "Element type: float or int (exact)", {"float", "int"});
        lab::add_variant_option(cli, family, s.variant);
        cli.add_choice("--finish", s.finish,
                       "Who adds the per-group partial sums: the host (as in the lecture) or a "
                       "second kernel on the device",
                       {"host", "device"});
        lab::TunableOptions tunable_options(cli, family.tunables);
        cli.add_flag("--peers", s.peers,
                     "Also time OpenBLAS (host) and CLBlast (device) sdot/ssum, when installed");
        cli.parse();
        tunable_options.check();
        const auto& opt = cli.options();
        // An int-only variant is skipped for float (below), so its kernel file is not needed.
        lab::check_kernel_options(opt, family, s.variant, [&](const reduction::Variant& v) {
          return reduction::cannot_run(v, s.dtype).empty();
        });
        lab::check_tunables_used(tunable_options, family, s.variant, lab::notes());

        // 2. Device, and the tunables shaped for it
        lab::Env env = lab::open_device(opt, cli.out());
        const lab::Tuning defaults = reduction::default_tuning(env.device);
        lab::check_memory(env, s.n * 4, 2, 4, "-n");  // x and y (+ copy), host x, y, ...
        return s.dtype == "int" ? run<int>(cli, env, s, tunable_options, defaults)
                                : run<float>(cli, env, s, tunable_options, defaults);
      });
}
