// scan: the prefix sum, inclusive or exclusive, float, double or exact int, any n, from one
// work-group walking the array (Hillis-Steele, Blelloch) to three passes over tiles and one pass
// with decoupled look-back; each variant checked element by element against the host's prefix sum
// (float within the rounding bound of its own order of additions) and timed against a copy.
#include "scan_family.hpp"

#include "lab/lab.hpp"

#include <cmath>
#include <iostream>
#include <limits>
#include <type_traits>

namespace {

struct Settings {
  std::uint64_t n = std::uint64_t{1} << 22;
  std::string dtype = "float";
  std::string mode = "inclusive";
  std::string variant = "all";
};

// The host's prefix sums: exact for int (wrapping like the device's 32-bit int), for float and
// double a compensated sum in long double rounded once to double, with the prefix sums of |in|
// that bound a scan's rounding.
struct Reference {
  std::vector<double> want;
  std::vector<double> magnitude;  // sum of |in[j]| over the elements out[i] adds
  // want[i]'s own error: its rounding to double, and long double's, far smaller.
  double error(std::size_t i) const {
    return lab::unit_roundoff<double>() * std::fabs(want[i]) + std::ldexp(magnitude[i], -60);
  }
};

template <typename T>
Reference prefix_sums(const lab::HostVector<T>& in, bool exclusive) {
  const std::uint64_t n = in.size();
  Reference r;
  r.want.resize(n);
  r.magnitude.resize(n);
  lab::CompensatedSum sum;
  double magnitude = 0;
  std::int64_t exact = 0;
  const auto prefix = [&] {
    return std::is_integral_v<T> ? double(std::int32_t(std::uint32_t(exact))) : double(sum.value());
  };
  for (std::uint64_t i = 0; i < n; ++i) {
    if (exclusive) {
      r.want[i] = prefix();
      r.magnitude[i] = magnitude;
    }
    sum.add(in[i]);
    exact += std::int64_t(in[i]);
    magnitude += std::fabs(double(in[i]));
    if (!exclusive) {
      r.want[i] = prefix();
      r.magnitude[i] = magnitude;
    }
  }
  return r;
}

// gamma_k = k u / (1 - k u), u the type's unit roundoff (2^-24 float, 2^-53 double): the bound on
// the relative error of a chain of k additions (Higham), times the sum of the magnitudes it adds.
double gamma(std::uint64_t chain, double u) {
  const double k = double(chain) * u;
  return k < 1 ? k / (1 - k) : std::numeric_limits<double>::infinity();
}

lab::KernelSignature signature(const std::string& name, const std::string& real,
                               const std::string& passes, bool add) {
  if (add) {
    return {
        name,
        {{"", "ulong", "n"}, {"global", real + "*", "out"}, {"global", real + "*", "sums", true}}};
  }
  lab::KernelSignature s{
      name,
      {{"", "ulong", "n"}, {"global", real + "*", "in", true}, {"global", real + "*", "out"}}};
  if (passes == "three_pass") s.args.push_back({"global", real + "*", "sums"});
  if (passes == "decoupled") {
    s.args.push_back({"global", "ulong*", "state"});
    s.args.push_back({"", "ulong", "launch"});
  }
  return s;
}

// One row's run with one tuning: the row's kernels (and pass 2's) launched as one scan, timed
// from the first command's start to the last one's end, and every element checked.
template <typename T>
struct RunRow {
  lab::Env& env;
  const lab::HostVector<T>& in_host;
  const Reference& reference;
  lab::GuardedBuffer<T>& in;
  lab::GuardedBuffer<T>& out;
  cl::Buffer& sums;   // three_pass: one per tile
  cl::Buffer& state;  // decoupled: the ticket and a word per tile per 4 bytes of T
  const lab::Defines& defines;
  const cl::Kernel& scan_sums;
  std::uint64_t sums_local;

  lab::Result operator()(const scan::Variant& v, const lab::Tuning& t,
                         const lab::Stage& stage) const {
    const std::uint64_t n = in_host.size();
    const std::string real = lab::opencl_type_name<T>();
    const lab::PreparedKernel prepared = lab::prepare_kernel(
        env, stage.options, stage.out, scan::family(), scan::for_shape(v, t), n, t, defines,
        signature(v.kernel_name, real, v.extra.passes, false), sizeof(T));
    cl::Kernel kernel = prepared.kernel;
    kernel.setArg(0, cl_ulong(n));
    kernel.setArg(1, in.buffer());
    kernel.setArg(2, out.buffer());
    const std::uint64_t tile = v.extra.tile(t);
    const std::uint64_t tiles = std::max<std::uint64_t>(1, lab::ceil_div(n, tile));
    cl::Kernel add;
    if (v.extra.passes == "three_pass") {
      kernel.setArg(3, sums);
      add = lab::make_kernel(prepared.program,
                             signature(v.extra.add_kernel, real, v.extra.passes, true));
      add.setArg(0, cl_ulong(n));
      add.setArg(1, out.buffer());
      add.setArg(2, sums);
      cl::Kernel pass2 = scan_sums;
      pass2.setArg(0, cl_ulong(tiles));
      pass2.setArg(1, sums);
      pass2.setArg(2, cl::Local(sums_local * sizeof(T)));
    }
    // decoupled: the state zeroed once; each launch then numbered, its tickets counted on from
    // the last launch's and its words stamped with its number
    cl_ulong launches = 0;
    if (v.extra.passes == "decoupled") {
      kernel.setArg(3, state);
      env.queue.enqueueFillBuffer(state, cl_ulong(0), 0,
                                  (tiles * (sizeof(T) / 4) + 1) * sizeof(cl_ulong));
      env.queue.finish();
    }
    const cl::NDRange global = lab::to_ndrange(prepared.range.global);
    const cl::NDRange local = lab::to_ndrange(prepared.range.local);
    out.reset(env.queue);
    const auto launch = [&] {
      std::vector<cl::Event> events(1);
      if (v.extra.passes == "decoupled") kernel.setArg(4, launches++);
      env.queue.enqueueNDRangeKernel(kernel, cl::NullRange, global, local, nullptr, &events.back());
      if (v.extra.passes == "three_pass") {
        events.resize(3);
        env.queue.enqueueNDRangeKernel(scan_sums, cl::NullRange, cl::NDRange(sums_local),
                                       cl::NDRange(sums_local), nullptr, &events[1]);
        env.queue.enqueueNDRangeKernel(add, cl::NullRange, global, local, nullptr, &events[2]);
      }
      return events;
    };
    const lab::Timing timing = lab::time_launch_span(stage.options, launch, stage.out);

    const std::uint64_t step = v.extra.chain_step(t);
    const std::uint64_t base = v.extra.base(n, t, sums_local);
    lab::CheckResult check;
    {
      const lab::Mapping<T> got = out.fetch(env.queue);
      const auto allowed = [&](std::size_t i) {
        if (std::is_integral_v<T>) return 0.0;
        return gamma(base + (step ? i / step : 0), lab::unit_roundoff<T>()) *
                   reference.magnitude[i] +
               reference.error(i);
      };
      check = lab::compare_each(got.data(), reference.want.data(), n, allowed, stage.err,
                                "out (" + v.name + ")");
    }
    const lab::GuardCheck guard = out.check_guards(env.queue);
    const std::string outside = lab::describe_guard_writes(
        guard, "out (" + v.name + ")", "work-items past n must not write: check i < n");
    if (!outside.empty()) stage.err << "scan: " << outside << "\n";
    lab::Result row = lab::bandwidth_row(v.name, lab::Size("n", std::int64_t(n)), timing,
                                         scan::family().work(n).bytes * double(sizeof(T)) / 4,
                                         check, guard.total());
    row.elements_per_s = double(n) / timing.time.median / 1e9;
    row.tunables = t.row(v.tunables);
    if (v.extra.passes == "three_pass") row.add_note("3 kernels, first start to last end");
    return row;
  }
};

template <typename T>
int run(lab::Cli& cli, lab::Env& env, const Settings& s, const lab::TuningOptions& tuning_options,
        const lab::Tuning& defaults) {
  const auto& opt = cli.options();
  const std::string real = lab::opencl_type_name<T>();
  const std::uint64_t n = s.n;
  const bool exclusive = s.mode == "exclusive";
  cli.out() << "out = " << s.mode << " scan of in, n = " << n << ", " << s.dtype << "\n";

  // 3. Host data: floats or doubles in [-1, 1) or ints in [-3, 3], and the host's prefix sums
  lab::HostVector<T> in_host =
      std::is_integral_v<T> ? lab::random_vector<T>(n, lab::derive_seed(opt.seed, 0), T(-3), T(3))
                            : lab::random_vector<T>(n, lab::derive_seed(opt.seed, 0), T(-1), T(1));
  const Reference reference = prefix_sums(in_host, exclusive);

  // 4. Each chosen variant's tuning; decoupled is left out where 64-bit atomics are missing.
  //    Buffers: in copied once and out, with guard zones; the tiles' sums and the look-back state
  //    sized for the largest number of tiles any row uses
  lab::VariantDriver driver(
      cli, env, scan::family(), s.variant, tuning_options, defaults, s.dtype + " " + s.mode,
      double(n), [&](const scan::Variant& v) { return scan::cannot_run(v, env.device); });
  std::uint64_t tiles = 1, reach = 0;
  driver.each_launch([&](const scan::Variant& v, const lab::Tuning& t) {
    const std::uint64_t tile = v.extra.tile(t);
    tiles = std::max(tiles, lab::ceil_div(n, tile));
    reach = std::max(reach, lab::round_up(n, tile) - n);  // a tile's work-items past n
  });
  lab::GuardedBuffer<T> in(env, lab::BufferMode::copy, CL_MEM_READ_ONLY, n, reach, in_host.data());
  lab::GuardedBuffer<T> out(env, lab::BufferMode::write, CL_MEM_READ_WRITE, n, reach);
  cl::Buffer sums(env.context, CL_MEM_READ_WRITE, tiles * sizeof(T));
  cl::Buffer state(env.context, CL_MEM_READ_WRITE,
                   (tiles * (sizeof(T) / 4) + 1) * sizeof(cl_ulong));
  lab::Defines defines = lab::real_defines(real);
  defines.push_back({"EXCLUSIVE", exclusive ? "1" : "0", "--mode"});
  const std::uint64_t sums_local = scan::sums_local(env.device);
  const lab::Program sums_program =
      lab::build_program(env, opt, "scan_sums.cl", lab::real_defines(real), cli.out(), false);
  const cl::Kernel scan_sums =
      lab::make_kernel(sums_program, {"scan_sums",
                                      {{"", "ulong", "count"},
                                       {"global", real + "*", "sums"},
                                       {"local", real + "*", "chunk_before"}}});

  // 5-7. Each variant with its tuning: build, run, verify; every run followed by one of the copy
  //      kernel (over as many bytes: n * sizeof(T) / 4 floats), the rows' yardstick
  const lab::CopyBaseline copy = lab::measure_copy(env, opt, n * sizeof(T) / 4, 0, cli.out());
  std::vector<lab::Result> rows = lab::in_turns_with(copy, [&] {
    std::vector<lab::Result> made;
    RunRow<T> run_row{env,  in_host, reference, in,        out,
                      sums, state,   defines,   scan_sums, sums_local};
    for (std::size_t i = 0; i < driver.rows().size(); ++i) {
      const scan::Variant& v = *driver.rows()[i];
      const auto progress = driver.progress(i);  // on stderr, while a long run lasts
      const auto chosen = driver.choose(i, "GB/s", n, [&](auto t, auto trial) {
        return run_row(v, t, trial);  // --tune tries each candidate this way, quietly
      });
      if (!chosen) continue;  // its limits refuse this size (a line said so)
      made.push_back(run_row(v, chosen->tuning, driver.stage()));
      made.back().tuning = chosen->source;
    }
    driver.check_any_ran(made);
    return made;
  });

  // 8. Report: GB/s (each element read once and written once) against the copy kernel;
  //    speed-up over hillis_steele
  lab::Report report("scan", lab::describe_device(env));
  lab::add_against_copy(report, rows, copy, "hillis_steele");
  auto& details = report.details();
  details["n"] = n;
  details["dtype"] = s.dtype;
  details["mode"] = s.mode;
  details["tolerance"] = std::is_integral_v<T>
                             ? "exact"
                             : std::string(
                                   "gamma_k * sum |in[j]| over the elements out[i] adds "
                                   "+ the reference's rounding, gamma_k = k u / (1 - k "
                                   "u), u = ") +
                                   (std::is_same_v<T, double> ? "2^-53" : "2^-24") +
                                   ", k the longest chain of additions of the variant's own order";
  details["copy"] = copy.details;
  report.print(cli.format(), std::cout);
  return report.exit_code();
}

}  // namespace

int main(int argc, char** argv) {
  return lab::run_main(
      argc, argv, "scan", "prefix sum, from one work-group to one pass with decoupled look-back",
      [](lab::Cli& cli) {
        // 1. Options
        const scan::Family& family = scan::family();
        Settings s;
        cli.add_size("-n,--size", s.n, "Number of elements (any n >= 1; default 2^22)");
        cli.add_choice("--dtype", s.dtype, "Element type: float, double or int (exact)",
                       {"float", "double", "int"});
        cli.add_choice("--mode", s.mode,
                       "inclusive: out[i] = in[0] + ... + in[i]; exclusive: up to in[i-1]",
                       {"inclusive", "exclusive"});
        lab::add_variant_option(cli, family, s.variant);
        lab::TuningOptions tuning_options(cli, family.tunables);
        cli.parse();
        tuning_options.check();
        const auto& opt = cli.options();
        lab::check_kernel_options(opt, family, s.variant);
        lab::check_tunables_used(tuning_options, family, s.variant, lab::notes());

        // 2. Device, and the tunables shaped for it
        lab::Env env = lab::open_device(opt, cli.out());
        lab::Tuning defaults = scan::default_tuning(env.device, s.dtype == "double" ? 8 : 4);
        defaults = scan::vec_dividing(defaults, tuning_options.apply(defaults));
        // in and out (+ copy), host in, reference
        lab::check_memory(env, s.n * (s.dtype == "double" ? 8 : 4), 2, 4, "-n");
        if (s.dtype == "int") return run<int>(cli, env, s, tuning_options, defaults);
        if (s.dtype == "float") return run<float>(cli, env, s, tuning_options, defaults);
        lab::require_fp64(env, "scan");  // exit 77 with a sentence on a device without it
        return run<double>(cli, env, s, tuning_options, defaults);
      });
}
