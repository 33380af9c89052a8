// matmul: C = A·B up the Clemson GPGPU lecture's optimisation ladder (naive, one row per work-item,
// a private row of A, a local column of B, block tiling, register tiling), each variant checked
// element by element against a host reference and timed from events.
#include "matmul.hpp"
#include "peers.hpp"

#include "lab/lab.hpp"

#include <chrono>
#include <iostream>
#include <optional>
#include <type_traits>

namespace {

struct Settings {
  std::uint64_t n = 512, m = 0, k = 0, cols = 0;  // -n square; -M -N -K override one dimension
  std::string variant = "all";
  std::string dtype = "float";
  double peak = 0;
  bool peers = false;
};

// The peak a type's rows are rated against: FP64 for double, FP32 otherwise.
template <typename T>
lab::Precision precision_of() {
  return std::is_same_v<T, double> ? lab::Precision::fp64 : lab::Precision::fp32;
}

template <typename T>
int run(lab::Cli& cli, lab::Env& env, const Settings& s, const matmul::Dims& dims,
        const lab::TuningOptions& tuning_options, const lab::Tuning& defaults, matmul::Peak peak) {
  const auto& opt = cli.options();
  // 3. Host data and the reference (in double, on every host core)
  const auto reference_start = std::chrono::steady_clock::now();
  matmul::Problem<T> problem =
      lab::make_matmul_problem<T>(dims, opt.seed, "matmul: host data and reference");
  const double reference_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - reference_start).count();
  cli.out() << "Host reference (double, all cores): " << lab::format_seconds(reference_seconds)
            << "\n";

  // 4. Each chosen variant's tuning (the defaults, the cache, the command line; every candidate
  //    with --tune), and buffers with guard zones as long as the furthest padded launch reaches
  const matmul::Family& family = matmul::family();
  lab::VariantDriver driver(cli, env, family, s.variant, tuning_options, defaults, s.dtype,
                            double(dims.M) * dims.N * dims.K);
  matmul::Reach reach;
  driver.each_launch([&](const matmul::Variant& variant, const lab::Tuning& t) {
    const matmul::Reach r = matmul::launch_reach(variant, dims, t);
    reach = {std::max(reach.a, r.a), std::max(reach.b, r.b), std::max(reach.c, r.c)};
  });
  matmul::Buffers<T> buffers = matmul::make_buffers(env, problem, reach);

  // 5-7. Build, run and verify each chosen variant (matmul::run_variant in run.cpp); a variant
  //      whose limits the sizes break is skipped under --variant all.
  //      With --peers (float or double), OpenBLAS's row is timed first, on its own; then every
  //      run takes turns with one OpenBLAS SGEMM (DGEMM) on the host, so a row's ratio to OpenBLAS
  //      compares runs
  //      made a moment apart (on a CPU that PoCL shares with OpenBLAS, rates drift by tens of
  //      per cent within minutes)
  std::optional<lab::Result> openblas;
  std::optional<lab::InTurnsWith> turns;
  if constexpr (std::is_floating_point_v<T>) {
    if (s.peers) openblas = matmul::run_openblas(problem, opt, cli.out());
    if (openblas) turns.emplace(matmul::openblas_turn(problem));
  }
  std::vector<lab::Result> rows;
  for (std::size_t i = 0; i < driver.rows().size(); ++i) {
    const matmul::Variant& variant = *driver.rows()[i];
    const auto progress = driver.progress(i);  // on stderr, while a long run lasts
    if (variant.kernel_file.empty()) {         // sequential: the host loop, timed on the host clock
      if (auto row = matmul::run_sequential(problem, cli.out())) rows.push_back(*row);
      continue;
    }
    const auto chosen = driver.choose(i, "GFLOP/s", dims, [&](auto t, auto trial) {
      return matmul::run_variant(env, variant, t, trial, problem, buffers, peak);
    });
    if (!chosen) continue;  // its limits refuse these sizes (a line said so)
    rows.push_back(
        matmul::run_variant(env, variant, chosen->tuning, driver.stage(), problem, buffers, peak));
    rows.back().tuning = chosen->source;
  }
  driver.check_any_ran(rows);
  if constexpr (std::is_floating_point_v<T>) {
    if (openblas) rows.push_back(*openblas);
    if (s.peers) {
      if (auto row = matmul::run_clblast(env, problem, buffers, opt, peak, cli.out())) {
        rows.push_back(*row);
      }
    }
  }
  turns.reset();
  matmul::note_against_openblas(rows,
                                std::is_same_v<T, double> ? "OpenBLAS dgemm" : "OpenBLAS sgemm");
  // A row faster than the measured peak shows that the peak was measured while something else
  // used the device: lab::fma_peak measures it again and keeps (and caches) the higher.
  double fastest = 0;
  for (const auto& row : rows) {
    if (row.reference && row.reference->name == peak.name) fastest = std::max(fastest, row.rate);
  }
  if (peak.name.find("peak (measured)") != std::string::npos && fastest > peak.gflops) {
    const lab::FmaPeak again = lab::fma_peak(env, opt, cli.out(), precision_of<T>(), fastest);
    peak.gflops = again.gflops;
    peak.how = again.how;
    for (auto& row : rows) {
      if (row.reference && row.reference->name == peak.name) matmul::rate_against_peak(row, peak);
    }
  }

  // 8. Report, with the speed-up over naive when it ran
  const auto naive = std::find_if(rows.begin(), rows.end(),
                                  [](const lab::Result& r) { return r.variant == "naive"; });
  const double naive_rate = naive != rows.end() ? naive->rate : 0.0;
  lab::Report report("matmul", lab::describe_device(env));
  for (auto& row : rows) {
    if (naive_rate > 0) row.speedup = row.rate / naive_rate;
    report.add(row);
  }
  report.details()["dims"] = {{"M", dims.M}, {"N", dims.N}, {"K", dims.K}};
  report.details()["dtype"] = s.dtype;
  report.details()["tolerance"] =
      std::is_floating_point_v<T>
          ? std::string(
                "per row: (gamma_K(u) + gamma_K(2^-53)) * sum_k |A(i,k)| * max_j "
                "|B(k,j)|, the device's rounding and the double reference's, gamma_K(u) "
                "= K u / (1 - K u), u = ") +
                (std::is_same_v<T, double> ? "2^-53" : "2^-24")
          : "exact";
  report.details()["reference_seconds"] = reference_seconds;
  report.details()["peak_gflops"] = peak.gflops;
  report.details()["peak_how"] = peak.how;
  // What each row ran with (the defaults, the cache or the command line), by variant.
  for (const auto& row : report.results()) {
    for (const auto& t : row.tunables) {
      report.details()["tunables"][row.variant][t.name] = {{"value", t.value},
                                                           {"origin", lab::origin_name(t.origin)}};
    }
  }
  report.print(cli.format(), std::cout);
  cli.out() << "Peak: " << peak.how << "\n";
  return report.exit_code();
}

}  // namespace

int main(int argc, char** argv) {
  return lab::run_main(
      argc, argv, "matmul", "C = A·B up the optimisation ladder", [](lab::Cli& cli) {
        // 1. Options
        Settings s;
        cli.add_size("-n,--size", s.n, "Square size: M = N = K (default 512)");
        cli.add_size("-M,--rows", s.m, "M: rows of A and C (overrides -n)");
        cli.add_size("-N,--cols", s.cols, "N: columns of B and C (overrides -n)");
        cli.add_size("-K,--inner", s.k, "K: columns of A, rows of B (overrides -n)");
        lab::add_variant_option(cli, matmul::family(), s.variant);
        cli.add_choice("--dtype", s.dtype, "Element type: float, double or int (exact)",
                       {"float", "double", "int"});
        // The tunables' options (--local, --ts, --kmax, --regtile, --staging, --tunable), from the
        // table. Bounds no device reaches are usage errors; smaller values that a device cannot
        // run are refused before launch with its limit.
        lab::TuningOptions tuning_options(cli, matmul::family().tunables);
        cli.add_positive("--peak", s.peak,
                         "FP32 peak (FP64 with --dtype double) in GFLOP/s (default: measured on "
                         "the device, cached)",
                         1e-3, 1e9);
        cli.add_flag("--peers", s.peers,
                     "Also time OpenBLAS (host) and CLBlast (device) SGEMM (DGEMM with --dtype "
                     "double), when installed");
        cli.parse();
        tuning_options.check();
        const auto& opt = cli.options();
        const matmul::Dims dims{static_cast<int>(s.m ? s.m : s.n),
                                static_cast<int>(s.cols ? s.cols : s.n),
                                static_cast<int>(s.k ? s.k : s.n)};
        const std::uint64_t largest =
            std::max({std::uint64_t(dims.M) * dims.K, std::uint64_t(dims.K) * dims.N,
                      std::uint64_t(dims.M) * dims.N});
        if (std::max({s.m, s.cols, s.k, s.n}) > std::uint64_t{matmul::kMaxDimension} ||
            largest >= (std::uint64_t{1} << 31)) {
          throw lab::UsageError(
              "matrices of more than 2^31 elements are not supported (the kernels "
              "index with int): choose smaller sizes");
        }
        // A size whose host reference alone would take hours is refused before any work.
        lab::check_matmul_reference_time(dims, s.dtype);
        lab::check_kernel_options(opt, matmul::family(), s.variant);
        lab::check_tunables_used(tuning_options, matmul::family(), s.variant, lab::notes());
        if (!opt.kernel_file.empty() && s.variant != "all" &&
            matmul::family().variant(s.variant).kernel_file.empty()) {
          throw lab::UsageError(
              "--kernel-file replaces a device kernel, and sequential runs on the host: choose "
              "another --variant");
        }

        // 2. Device, and the tunables shaped for it
        lab::Env env = lab::open_device(opt, cli.out());
        const bool fp64 = s.dtype == "double";
        if (fp64) lab::require_fp64(env, "matmul");  // exit 77 with a sentence without it
        const std::size_t element = fp64 ? 8 : 4;
        const lab::Tuning defaults = matmul::default_tuning(env.device, element);
        //    The peak float (double) rows are rated against: --peak, else the FP32 (FP64) peak
        //    measured on the device by kernels/peak_fma.cl (once: the result is cached,
        //    lab/peak.hpp)
        const std::string precision = fp64 ? "FP64" : "FP32";
        matmul::Peak peak{s.peak, "given with --peak", precision + " peak (given)",
                          precision + " peak"};
        if (s.peak == 0 && s.dtype != "int") {
          const lab::FmaPeak measured = lab::fma_peak(
              env, opt, cli.out(), fp64 ? lab::Precision::fp64 : lab::Precision::fp32);
          peak = {measured.gflops, measured.how, precision + " peak (measured)",
                  precision + " peak"};
        } else if (s.peak == 0) {
          peak.how = "none: int rows are not rated against a floating-point peak";
        }
        lab::check_memory(env, largest * element, 3, 5, "size");
        cli.out() << "C = A·B, " << dims.text() << ", " << s.dtype << "\n";
        if (s.dtype == "int") return run<int>(cli, env, s, dims, tuning_options, defaults, peak);
        if (fp64) return run<double>(cli, env, s, dims, tuning_options, defaults, peak);
        return run<float>(cli, env, s, dims, tuning_options, defaults, peak);
      });
}
