// coalescing: seed 004's row-scan program, accum = A[i][j]^2 - accum along every row of A, made
// coalesced two ways: on the transposed matrix (a transpose before and after the scan) and fused
// (blocks of CHUNK columns staged in local memory). Each variant is checked against the
// sequential host loop and timed against the suite's copy kernel over the same matrix.
#include "coalescing_family.hpp"
#include "transpose_family.hpp"

#include "lab/lab.hpp"

#include <cmath>
#include <iostream>
#include <limits>
#include <type_traits>

namespace {

struct Settings {
  std::string dtype = "float";
  std::string variant = "all";
  std::string transpose;  // the transpose kernel of `transposed`; "" for the device's default
};

// The sequential program: B[i][j] = A[i][j]^2 - B[i][j-1], B[i][-1] = 0. For floats, `allowed`
// gets each element's error bound: every step rounds once or twice (a * a, then the
// subtraction, or once when the compiler fuses them) and passes the earlier error on unchanged
// (the chain only flips its sign), so the error of B[i][j] is at most 2u times the sum of
// |A[i][k]^2| + |B[i][k]| over k <= j, u = 2^-24. For int the loop wraps as the device does.
template <typename T>
void row_scan(const coalescing::Dims& d, const T* A, T* B, std::vector<double>* allowed) {
  const double u = std::ldexp(1.0, -24);
  for (int i = 0; i < d.height; ++i) {
    const std::size_t row = std::size_t(i) * d.width;
    if constexpr (std::is_floating_point_v<T>) {
      double accum = 0, magnitude = 0;
      for (int j = 0; j < d.width; ++j) {
        const double a = A[row + j];
        accum = a * a - accum;
        magnitude += a * a + std::fabs(accum);
        B[row + j] = static_cast<T>(accum);
        (*allowed)[row + j] = 2 * u * magnitude + std::numeric_limits<float>::denorm_min();
      }
    } else {
      std::uint32_t accum = 0;
      for (int j = 0; j < d.width; ++j) {
        const std::uint32_t a = static_cast<std::uint32_t>(A[row + j]);
        accum = a * a - accum;
        B[row + j] = static_cast<T>(accum);
      }
    }
  }
}

template <typename T>
int run(lab::Cli& cli, lab::Env& env, const Settings& s, const coalescing::Dims& dims,
        const lab::TunableOptions& tunable_options, const lab::Tuning& defaults) {
  const auto& opt = cli.options();
  const coalescing::Family& family = coalescing::family();
  const std::string real = std::is_floating_point_v<T> ? "float" : "int";
  const std::uint64_t elements = dims.elements();

  // 3. Host data and the sequential program's result
  lab::HostVector<T> A;
  if constexpr (std::is_floating_point_v<T>) {
    A = lab::random_vector<T>(elements, lab::derive_seed(opt.seed, 0), -1, 1);
  } else {
    A = lab::random_vector<T>(elements, lab::derive_seed(opt.seed, 0), -30, 30);
  }
  lab::HostVector<T> want(elements);
  std::vector<double> allowed(std::is_floating_point_v<T> ? elements : 0);
  row_scan(dims, A.data(), want.data(), &allowed);

  // 4. Each chosen variant's tuning (the defaults, the cache, the command line; every candidate
  //    with --tune); buffers A and B with guard zones as long as the furthest launch reaches
  //    (`transposed` adds the transposed pair At, Bt)
  lab::VariantDriver driver(cli, env, family, s.variant, tunable_options, defaults, s.dtype,
                            double(elements));
  std::uint64_t reach = 0;
  driver.each_launch([&](const coalescing::Variant& v, const lab::Tuning& t) {
    reach = std::max(reach, coalescing::launch_reach(v, dims, t));
  });
  lab::GuardedBuffer<T> a_buf(env, lab::BufferMode::copy, CL_MEM_READ_ONLY, elements, reach,
                              A.data());
  lab::GuardedBuffer<T> b_buf(env, lab::BufferMode::write, CL_MEM_READ_WRITE, elements, reach);
  const double bytes = family.work(dims).bytes;  // read A, write B once
  const lab::KernelSignature scan_signature{"",
                                            {{"", "int", "height"},
                                             {"", "int", "width"},
                                             {"global", real + "*", "A"},
                                             {"global", real + "*", "B"}}};
  const lab::Defines element_define{{"REAL", real, "--dtype"}};

  // 5-7. Each variant with its tuning: build, run, verify
  nlohmann::json transposes;
  const auto run_variant = [&](const coalescing::Variant& v, const lab::Tuning& t,
                               const lab::Stage& stage) {
    const lab::PreparedKernel prepared =
        lab::prepare_kernel(env, stage.options, stage.out, family, v, dims, t, element_define,
                            scan_signature, sizeof(T));
    cl::KernelFunctor<cl_int, cl_int, cl::Buffer, cl::Buffer> scan(prepared.kernel);
    const cl::EnqueueArgs scan_args(env.queue, lab::to_ndrange(prepared.range.global),
                                    lab::to_ndrange(prepared.range.local));
    b_buf.reset(env.queue);
    lab::Timing timing;
    std::string note;
    std::uint64_t stray = 0;  // elements written into At's and Bt's guard zones
    std::vector<lab::TunableValue> transpose_tunables;
    if (!v.extra.transposes) {
      timing = lab::time_launches(
          stage.options,
          [&] { return scan(scan_args, dims.height, dims.width, a_buf.buffer(), b_buf.buffer()); },
          stage.out);
    } else {
      // A (height x width) -> At (width x height), scan At's columns, Bt -> B: the transpose
      // lab's kernel with its defaults for this device, built beside the scan.
      const transpose::Family& transposes_family = transpose::family();
      const transpose::Variant& tv = transposes_family.variant(s.transpose);
      const lab::Tuning tt = transpose::default_tuning(env.device);
      const transpose::Dims there{dims.height, dims.width}, back{dims.width, dims.height};
      const lab::PreparedKernel tk =
          lab::prepare_kernel(env, stage.options, stage.out, transposes_family, tv, there, tt,
                              element_define, scan_signature, sizeof(T),
                              /*main_file=*/false);
      const lab::NDRangePlan back_range = tv.plan(back, tt);
      lab::check_ndrange(tk.kernel, env.device, back_range.global, back_range.local, {});
      // The scan reaches as far past At and Bt as past A and B.
      lab::GuardedBuffer<T> at(env, lab::BufferMode::write, CL_MEM_READ_WRITE, elements, reach);
      lab::GuardedBuffer<T> bt(env, lab::BufferMode::write, CL_MEM_READ_WRITE, elements, reach);
      cl::KernelFunctor<cl_int, cl_int, cl::Buffer, cl::Buffer> move(tk.kernel);
      const cl::EnqueueArgs there_args(env.queue, lab::to_ndrange(tk.range.global),
                                       lab::to_ndrange(tk.range.local));
      const cl::EnqueueArgs back_args(env.queue, lab::to_ndrange(back_range.global),
                                      lab::to_ndrange(back_range.local));
      // The scan of the transposed matrix: its rows are At's columns, `height` of them.
      timing = lab::time_launch_span(
          stage.options,
          [&]() -> std::vector<cl::Event> {
            return {move(there_args, dims.height, dims.width, a_buf.buffer(), at.buffer()),
                    scan(scan_args, dims.height, dims.width, at.buffer(), bt.buffer()),
                    move(back_args, dims.width, dims.height, bt.buffer(), b_buf.buffer())};
          },
          stage.out);
      note = "3 kernels, first start to last end: transpose (" + tv.name +
             "), scan, transpose back; the matrix moves 3 times";
      transpose_tunables = tt.row(tv.tunables);
      if (!stage.trial) transposes = {{"kernel", tv.name}, {"tunables", tt.text(tv.tunables)}};
      // The scan's own reads and writes past At and Bt land in their guard zones.
      using Named = std::pair<lab::GuardedBuffer<T>*, const char*>;
      for (const auto& [buffer, name] : {Named{&at, "At"}, Named{&bt, "Bt"}}) {
        const lab::GuardCheck g = buffer->check_guards(env.queue);
        const std::string past = lab::describe_guard_writes(
            g, std::string(name) + " (transposed)",
            "the scan's work-items must stay inside the transposed matrices: i < height, j < "
            "width");
        if (!past.empty()) stage.err << "coalescing: " << past << "\n";
        stray += g.total();
      }
    }
    lab::CheckResult check;
    {
      const lab::Mapping<T> B = b_buf.fetch(env.queue);
      if constexpr (std::is_floating_point_v<T>) {
        check = lab::compare_each(
            B.data(), want.data(), elements, [&](std::size_t i) { return allowed[i]; }, stage.err,
            "B (" + v.name + ")", std::size_t(dims.width));
      } else {
        check = lab::compare(B.data(), want.data(), elements, lab::Tolerance::exact(), stage.err,
                             "B (" + v.name + ")", std::size_t(dims.width));
      }
    }
    const lab::GuardCheck guard = b_buf.check_guards(env.queue);
    const std::string outside = lab::describe_guard_writes(
        guard, "B (" + v.name + ")",
        "the launch is padded to whole work-groups, and work-items past the last row or column "
        "must not store");
    if (!outside.empty()) stage.err << "coalescing: " << outside << "\n";
    lab::Result row =
        lab::bandwidth_row(v.name, dims.text(), timing, bytes, check, guard.total() + stray);
    row.tunables = t.row(v.tunables);
    row.tunables.insert(row.tunables.end(), transpose_tunables.begin(), transpose_tunables.end());
    row.note = note;
    return row;
  };
  std::vector<lab::Result> rows = driver.run("GB/s", dims, run_variant);

  // 8. Report: effective GB/s (the program reads A and writes B once) against the suite's copy
  //    kernel over the same number of elements, and the speed-up over naive
  const lab::CopyBaseline copy = lab::measure_copy(env, opt, elements, 0, cli.out());
  lab::Report report("coalescing", env.device_name());
  lab::add_against_copy(report, rows, copy, "naive");
  report.details()["height"] = dims.height;
  report.details()["width"] = dims.width;
  report.details()["dtype"] = s.dtype;
  report.details()["tolerance"] =
      std::is_floating_point_v<T>
          ? "per element: 2u * sum over the row so far of (a^2 + |accum|), u = 2^-24"
          : "exact (wrapping int arithmetic)";
  if (!transposes.is_null()) report.details()["transpose"] = transposes;
  report.details()["copy"] = copy.details;
  report.print(cli.format(), std::cout);
  return report.exit_code();
}

}  // namespace

int main(int argc, char** argv) {
  return lab::run_main(
      argc, argv, "coalescing", "the row-scan program: uncoalesced, transposed, fused",
      [](lab::Cli& cli) {
        // 1. Options
        const coalescing::Family& family = coalescing::family();
        Settings s;
        lab::MatrixSizeOptions size(cli, "Rows of A: independent chains",
                                    "Columns of A: the length of each chain");
        cli.add_choice("--dtype", s.dtype, "Element type: float or int", {"float", "int"});
        lab::add_variant_option(cli, family, s.variant);
        lab::TunableOptions tunable_options(cli, family.tunables);
        std::vector<std::string> transposes = transpose::family().names();
        transposes.erase(std::remove(transposes.begin(), transposes.end(), "copy"),
                         transposes.end());
        cli.add_choice("--transpose", s.transpose,
                       "The transpose lab's kernel for `transposed`, with its defaults for the "
                       "device (default: blocks on a CPU, multi elsewhere)",
                       transposes);
        cli.parse();
        tunable_options.check();
        const auto& opt = cli.options();
        const coalescing::Dims dims = size.shape();
        lab::check_kernel_options(opt, family, s.variant);
        lab::check_tunables_used(tunable_options, family, s.variant, lab::notes());

        // 2. Device, and the tunables shaped for it
        lab::Env env = lab::open_device(opt, cli.out());
        const lab::Tuning defaults = coalescing::default_tuning(env.device);
        if (s.transpose.empty()) s.transpose = coalescing::default_transpose(env.device);
        // A and B, and At and Bt when `transposed` runs.
        const bool four = s.variant == "all" || s.variant == "transposed";
        lab::check_memory(env, dims.elements() * 4, four ? 4 : 2, 3, "size");
        cli.out() << "row scan of A " << dims.text() << ", " << s.dtype << "\n";
        return s.dtype == "int" ? run<int>(cli, env, s, dims, tunable_options, defaults)
                                : run<float>(cli, env, s, dims, tunable_options, defaults);
      });
}
