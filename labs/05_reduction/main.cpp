// reduction: sum x or the dot product x·y, from one work-item per group (the Clemson GPGPU
// lecture's first attempt) to many elements per work-item and one tree, each variant checked
// against a double reference within the rounding bound of its own summation tree and timed from
// events.
#include "peers.hpp"
#include "reduction_family.hpp"
#include "reference.hpp"

#include "lab/lab.hpp"

#include <cmath>
#include <cstring>
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

// The kernel every row launches: (ulong n, global const REAL* x, y, partial[, local REAL*
// scratch]).
lab::KernelSignature signature(const reduction::Variant& v, const std::string& real) {
  lab::KernelSignature s{"",
                         {{"", "ulong", "n"},
                          {"global", real + "*", "x", true},
                          {"global", real + "*", "y", true},
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
      lab::build_program(env, opt, "reduction_finish.cl", lab::real_defines(real), out, false);
  Finisher f;
  f.kernel = lab::make_kernel(program, {"reduction_finish",
                                        {{"", "ulong", "count"},
                                         {"global", real + "*", "partial", true},
                                         {"global", real + "*", "result"},
                                         {"local", real + "*", "scratch"}}});
  const std::uint64_t limit = std::min<std::uint64_t>(
      {256, f.kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(env.device),
       env.device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>() / element});
  for (f.local = 1; f.local * 2 <= limit;) f.local *= 2;
  return f;
}

// One row's run with one tuning: the kernel timed from its events, the whole reduction (the
// kernel, the finish, the total on the host) timed on the host, and the total checked against the
// rounding bound of the row's own summation tree.
template <typename T>
struct RunRow {
  lab::Env& env;
  const reduction::Terms<T>& terms;
  lab::GuardedBuffer<T>& x;
  lab::GuardedBuffer<T>& y;
  lab::GuardedBuffer<T>& partial;
  lab::GuardedBuffer<T>& result;
  const lab::Defines& defines;
  const Finisher* finisher;  // null: the host adds the partial sums

  lab::Result operator()(const reduction::Variant& v, const lab::Tuning& t,
                         const lab::Stage& stage) const {
    const std::uint64_t n = terms.x.size();
    const std::string real = lab::opencl_type_name<T>();
    const lab::PreparedKernel prepared =
        lab::prepare_kernel(env, stage.options, stage.out, reduction::family(), v, n, t, defines,
                            signature(v, real), sizeof(T));
    cl::Kernel kernel = prepared.kernel;
    kernel.setArg(0, cl_ulong(n));
    kernel.setArg(1, x.buffer());
    kernel.setArg(2, terms.dot ? y.buffer() : x.buffer());  // a sum reads x only
    kernel.setArg(3, v.extra.one_pass ? result.buffer() : partial.buffer());
    if (v.extra.scratch) kernel.setArg(4, cl::Local(t.whole(v.extra.local) * sizeof(T)));
    partial.reset(env.queue);
    result.reset(env.queue);
    // The launch, with a profiling event for the event clock, or without one for the end-to-end
    // time: a user waiting for the total asks for no event (on the H100 asking for one added about
    // 8 us to each launch).
    const auto enqueue = [&](cl::Event* event) {
      if (v.extra.one_pass) env.queue.enqueueFillBuffer(result.buffer(), T(0), 0, sizeof(T));
      env.queue.enqueueNDRangeKernel(kernel, cl::NullRange, lab::to_ndrange(prepared.range.global),
                                     lab::to_ndrange(prepared.range.local), nullptr, event);
    };
    const auto launch = [&] {
      cl::Event event;
      enqueue(&event);
      return event;
    };
    const std::uint64_t groups = v.extra.groups(n, t);
    T total = 0;
    lab::HostVector<T> partials(groups);
    const auto end_to_end = [&] {
      enqueue(nullptr);
      total = finish(v, partials);
    };
    const lab::Timing timing = lab::time_launches(stage.options, launch, stage.out);
    // The tuner's trials time the kernel only; the total comes from one end-to-end run. The end
    // to end is an absolute time, held against PyTorch's (timed back to back): its runs are made
    // back to back too, out of turns with the copy kernel.
    const lab::Timing whole = [&] {
      const lab::OutOfTurns apart;
      return stage.trial ? lab::time_on_host(0, 1, end_to_end)
                         : lab::time_on_host(stage.options, end_to_end);
    }();

    // The height of this row's summation tree: the kernel's chain, the finish's, and the
    // product's rounding for a float dot product.
    const std::uint64_t finish_chain =
        v.extra.one_pass ? 0
        : finisher       ? lab::ceil_div(groups, finisher->local) + lab::log2_ceil(finisher->local)
                         : groups - 1;
    const std::uint64_t height = v.extra.chain(n, t) + finish_chain + terms.product_rounding();
    std::string note;
    const lab::CheckResult check =
        reduction::check_total(terms, total, height, "total (" + v.name + ")", stage.err, note);
    // Only where there are guard zones (not under Oclgrind), and only for an overflow: a NaN
    // total comes from the sentinel, which the mismatch line explains.
    if (std::is_floating_point_v<T> && !check.passed() && !lab::is_oclgrind(env.platform) &&
        std::fabs(double(total)) >= 1e30) {
      T guard;  // an element of the guard zones, as the kernel reads it past the end of x
      std::memset(&guard, lab::kGuardByte, sizeof guard);
      stage.err << "reduction: a total of " << double(total) << " is what adding the guard zones' "
                << double(guard)
                << " past the end of x gives: the kernel most likely read past element n - 1 "
                   "(check i < n)\n";
    }
    const lab::GuardCheck guard = partial.check_guards(env.queue);
    const std::string outside = lab::describe_guard_writes(
        guard, "the partial sums", "each group writes one partial sum, partial[group id]");
    if (!outside.empty()) stage.err << "reduction: " << outside << "\n";

    lab::Result row = lab::bandwidth_row(v.name, lab::Size("n", std::int64_t(n)), timing,
                                         bytes_read(terms), check, guard.total());
    row.elements_per_s = double(n) / timing.time.median / 1e9;
    row.end_to_end = whole.time;
    row.tunables = t.row(v.tunables);
    row.add_note(note);
    return row;
  }

  // The total from the kernel's output: its own (one pass), the device finish's, or the host's
  // loop over the partial sums (as the Clemson GPGPU lecture does it).
  T finish(const reduction::Variant& v, lab::HostVector<T>& partials) const {
    const std::uint64_t groups = partials.size();
    T total = 0;
    if (!v.extra.one_pass && finisher == nullptr) {
      env.queue.enqueueReadBuffer(partial.buffer(), CL_TRUE, 0, groups * sizeof(T),
                                  partials.data());
      for (std::uint64_t g = 0; g < groups; ++g) total += partials[g];
      return total;
    }
    if (!v.extra.one_pass) {
      cl::Kernel k = finisher->kernel;
      k.setArg(0, cl_ulong(groups));
      k.setArg(1, partial.buffer());
      k.setArg(2, result.buffer());
      k.setArg(3, cl::Local(finisher->local * sizeof(T)));
      env.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(finisher->local),
                                     cl::NDRange(finisher->local));
    }
    env.queue.enqueueReadBuffer(result.buffer(), CL_TRUE, 0, sizeof(T), &total);
    return total;
  }

  // Bytes of terms read: n elements, twice for a dot product.
  static double bytes_read(const reduction::Terms<T>& terms) {
    return double(terms.x.size()) * sizeof(T) * (terms.dot ? 2 : 1);
  }
};

template <typename T>
int run(lab::Cli& cli, lab::Env& env, const Settings& s, const lab::TuningOptions& tuning_options,
        const lab::Tuning& defaults) {
  const auto& opt = cli.options();
  const std::string real = lab::opencl_type_name<T>();
  const std::uint64_t n = s.n;

  // 3. Host data, the reference in double (exact for int), and the plain float loop
  const reduction::Terms<T> terms = reduction::make_terms<T>(n, s.op, opt.seed, cli.out());

  // 4. Each chosen variant's tuning (the defaults, the cache, the command line; every candidate
  //    with --tune); an int-only variant is left out for float, with the reason
  lab::VariantDriver driver(
      cli, env, reduction::family(), s.variant, tuning_options, defaults,
      s.dtype + (terms.dot ? " dot" : " sum"), double(n),
      [&](const reduction::Variant& v) { return reduction::cannot_run(v, s.dtype); });
  //    Buffers: x and y copied once, with guard zones as long as the furthest launch reaches;
  //    the partial sums and the total start as the sentinel
  std::uint64_t reach = 0, max_groups = 1;
  driver.each_launch([&](const reduction::Variant& v, const lab::Tuning& t) {
    reach = std::max(reach, v.covers(n, t)[0] - n);
    max_groups = std::max(max_groups, v.extra.groups(n, t));
  });
  const auto copied = [&](const lab::HostVector<T>& host) {
    return lab::GuardedBuffer<T>(env, lab::BufferMode::copy, CL_MEM_READ_ONLY, n, reach,
                                 host.data());
  };
  lab::GuardedBuffer<T> x = copied(terms.x), y = copied(terms.y);
  lab::GuardedBuffer<T> partial(env, lab::BufferMode::write, CL_MEM_READ_WRITE, max_groups, 0);
  lab::GuardedBuffer<T> result(env, lab::BufferMode::write, CL_MEM_READ_WRITE, 1, 0);
  lab::Defines defines = lab::real_defines(real);
  defines.push_back({"DOT", terms.dot ? "1" : "0", "--op"});
  std::optional<Finisher> finisher;
  if (s.finish == "device") finisher = make_finisher(env, opt, real, sizeof(T), cli.out());

  // 5-7. Each variant with its tuning: build, run, verify; every run (the peers' too) followed by
  //      one of the copy kernel, the rows' yardstick
  //      (the copy moves as many bytes as the terms: 2n floats for n doubles)
  const lab::CopyBaseline copy = lab::measure_copy(env, opt, n * sizeof(T) / 4, 0, cli.out());
  std::vector<lab::Result> rows = lab::in_turns_with(copy, [&] {
    std::vector<lab::Result> made;
    RunRow<T> run_row{env, terms, x, y, partial, result, defines, finisher ? &*finisher : nullptr};
    for (std::size_t i = 0; i < driver.rows().size(); ++i) {
      const reduction::Variant& v = *driver.rows()[i];
      const auto progress = driver.progress(i);  // on stderr, while a long run lasts
      const auto chosen = driver.choose(i, "GB/s", n, [&](auto t, auto trial) {
        return run_row(v, t, trial);  // --tune tries each candidate this way, quietly
      });
      if (!chosen) continue;  // its limits refuse this size (a line said so)
      made.push_back(run_row(v, chosen->tuning, driver.stage()));
      made.back().tuning = chosen->source;
    }
    driver.check_any_ran(made);
    if constexpr (std::is_floating_point_v<T>) {
      if (s.peers) {
        for (lab::Result& row : reduction::peer_rows(env, terms, x.buffer(), y.buffer(),
                                                     result.buffer(), opt, cli.out())) {
          made.push_back(row);
        }
      }
    }
    return made;
  });

  // 8. Report: GB/s of terms read, against the copy kernel; speed-up over single
  lab::Report report("reduction", lab::describe_device(env));
  lab::add_against_copy(report, rows, copy, "single");
  auto& details = report.details();
  details["n"] = n;
  details["op"] = s.op;
  details["dtype"] = s.dtype;
  details["finish"] = s.finish;
  details["reference"] = terms.reference;
  details["sum_of_absolute_terms"] = terms.magnitude;
  if constexpr (std::is_floating_point_v<T>) {
    const std::string u = "u = 2^-" + std::to_string(std::numeric_limits<T>::digits);
    const std::string h =
        "h the height of the variant's summation tree (its kernel, the finish, and the product "
        "for dot)";
    details["tolerance"] =
        "gamma_h * sum |terms| + the reference's rounding, gamma_h = h u / (1 - h u), " + u + ", " +
        h;
    details["host_loop"] = {
        {"total", terms.host_loop}, {"error", terms.host_error}, {"bound", terms.host_bound}};
  } else {
    details["tolerance"] = "exact";
    details["int_range"] = terms.range;
  }
  details["copy"] = copy.details;
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
        cli.add_choice("--dtype", s.dtype,
                       "Element type: float, double (the same terms, widened) or int (exact)",
                       {"float", "double", "int"});
        lab::add_variant_option(cli, family, s.variant);
        cli.add_choice("--finish", s.finish,
                       "Who adds the per-group partial sums: the host (as in Bailey's notes) or a "
                       "second kernel on the device",
                       {"host", "device"});
        lab::TuningOptions tuning_options(cli, family.tunables);
        cli.add_flag("--peers", s.peers,
                     "Also time OpenBLAS (host) and CLBlast (device) sdot/ssum (ddot/dsum in "
                     "double), when installed");
        cli.parse();
        tuning_options.check();
        const auto& opt = cli.options();
        // An int-only variant is skipped for float (below), so its kernel file is not needed.
        lab::check_kernel_options(opt, family, s.variant, [&](const reduction::Variant& v) {
          return reduction::cannot_run(v, s.dtype).empty();
        });
        lab::check_tunables_used(tuning_options, family, s.variant, lab::notes());

        // 2. Device, and the tunables shaped for it
        lab::Env env = lab::open_device(opt, cli.out());
        const lab::Tuning defaults = reduction::default_tuning(env.device);
        lab::check_memory(env, s.n * (s.dtype == "double" ? 8 : 4), 2, 4,
                          "-n");  // x and y (+ copy), host x, y, ...
        if (s.dtype == "int") return run<int>(cli, env, s, tuning_options, defaults);
        if (s.dtype == "float") return run<float>(cli, env, s, tuning_options, defaults);
        lab::require_fp64(env, "reduction");  // exit 77 with a sentence on a device without it
        return run<double>(cli, env, s, tuning_options, defaults);
      });
}
