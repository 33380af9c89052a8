// coalescing: the row-scan program of Oancea and Henriksen's OpenCL Day 2, accum = A[i][j]^2 -
// accum along every row of A, made coalesced two ways: on the transposed matrix (a transpose before
// and after the scan) and fused (blocks of CHUNK columns staged in local memory). Each variant is
// checked against the sequential host loop and timed against the suite's copy kernel over the same
// matrix.
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

using Launcher = cl::KernelFunctor<cl_int, cl_int, cl::Buffer, cl::Buffer>;

// What a timed run gives beyond B: its timing, and for `transposed` the transposes' part.
struct Timed {
  lab::Timing timing;
  std::string note;
  std::uint64_t stray = 0;  // elements written into At's and Bt's guard zones
  std::vector<lab::TunableValue> tunables;
};

// One row's run with one tuning: the scan (with a transpose before and after it for
// `transposed`) timed from events, B checked element by element, the guard zones read.
template <typename T>
struct RunRow {
  lab::Env& env;
  const coalescing::Dims& dims;
  const std::string& transpose;  // the transpose kernel of `transposed`
  lab::GuardedBuffer<T>& a;
  lab::GuardedBuffer<T>& b;
  const lab::HostVector<T>& want;
  const std::vector<double>& allowed;  // per element, for float
  std::uint64_t reach;
  nlohmann::json& transposes;  // the report's record of the transpose kernel used

  lab::Result operator()(const coalescing::Variant& v, const lab::Tuning& t,
                         const lab::Stage& stage) const {
    const std::string real = lab::opencl_type_name<T>();
    const lab::PreparedKernel prepared =
        lab::prepare_kernel(env, stage.options, stage.out, coalescing::family(), v, dims, t,
                            {{"REAL", real, "--dtype"}}, transpose::signature(real), sizeof(T));
    Launcher scan(prepared.kernel);
    const cl::EnqueueArgs args(env.queue, lab::to_ndrange(prepared.range.global),
                               lab::to_ndrange(prepared.range.local));
    b.reset(env.queue);
    Timed timed;
    if (v.extra.transposes) {
      timed = transposed(scan, args, stage);
    } else {
      timed.timing = lab::time_launches(
          stage.options,
          [&] { return scan(args, dims.height, dims.width, a.buffer(), b.buffer()); }, stage.out);
    }
    lab::CheckResult check;
    {
      const lab::Mapping<T> B = b.fetch(env.queue);
      if constexpr (std::is_floating_point_v<T>) {
        check = lab::compare_each(
            B.data(), want.data(), want.size(), [&](std::size_t i) { return allowed[i]; },
            stage.err, "B (" + v.name + ")", std::size_t(dims.width));
      } else {
        check = lab::compare(B.data(), want.data(), want.size(), lab::Tolerance::exact(), stage.err,
                             "B (" + v.name + ")", std::size_t(dims.width));
      }
    }
    const lab::GuardCheck guard = b.check_guards(env.queue);
    const std::string outside = lab::describe_guard_writes(
        guard, "B (" + v.name + ")",
        "the launch is padded to whole work-groups, and work-items past the last row or column "
        "must not store");
    if (!outside.empty()) stage.err << "coalescing: " << outside << "\n";
    lab::Result row =
        lab::bandwidth_row(v.name, dims.size(), timed.timing, coalescing::family().work(dims).bytes,
                           check, guard.total() + timed.stray);
    row.tunables = t.row(v.tunables);
    row.tunables.insert(row.tunables.end(), timed.tunables.begin(), timed.tunables.end());
    row.add_note(timed.note);
    return row;
  }

  // A (height x width) -> At (width x height), the scan of At's columns, Bt -> B, timed from the
  // first start to the last end: the transpose lab's kernel with its defaults for this device,
  // built beside the scan (--kernel-file does not replace it).
  Timed transposed(Launcher& scan, const cl::EnqueueArgs& scan_args,
                   const lab::Stage& stage) const {
    const std::string real = lab::opencl_type_name<T>();
    const transpose::Variant& tv = transpose::family().variant(transpose);
    const lab::Tuning tt = transpose::default_tuning(env.device);
    const transpose::Dims there{dims.height, dims.width}, back{dims.width, dims.height};
    const lab::PreparedKernel tk =
        lab::prepare_kernel(env, stage.options, stage.out, transpose::family(), tv, there, tt,
                            {{"REAL", real, "--dtype"}}, transpose::signature(real), sizeof(T),
                            /*main_file=*/false);
    const lab::NDRangePlan back_range = tv.plan(back, tt);
    lab::check_ndrange(tk.kernel, env.device, back_range.global, back_range.local, {});
    // The scan reaches as far past At and Bt as past A and B.
    const std::uint64_t elements = want.size();
    lab::GuardedBuffer<T> at(env, lab::BufferMode::write, CL_MEM_READ_WRITE, elements, reach);
    lab::GuardedBuffer<T> bt(env, lab::BufferMode::write, CL_MEM_READ_WRITE, elements, reach);
    Launcher move(tk.kernel);
    const cl::EnqueueArgs there_args(env.queue, lab::to_ndrange(tk.range.global),
                                     lab::to_ndrange(tk.range.local));
    const cl::EnqueueArgs back_args(env.queue, lab::to_ndrange(back_range.global),
                                    lab::to_ndrange(back_range.local));
    Timed timed;
    // The scan of the transposed matrix: its rows are At's columns, `height` of them.
    timed.timing = lab::time_launch_span(
        stage.options,
        [&]() -> std::vector<cl::Event> {
          return {move(there_args, dims.height, dims.width, a.buffer(), at.buffer()),
                  scan(scan_args, dims.height, dims.width, at.buffer(), bt.buffer()),
                  move(back_args, dims.width, dims.height, bt.buffer(), b.buffer())};
        },
        stage.out);
    timed.note = "3 kernels, first start to last end: transpose (" + tv.name +
                 "), scan, transpose back; the matrix moves 3 times";
    timed.tunables = tt.row(tv.tunables);
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
      timed.stray += g.total();
    }
    return timed;
  }
};

template <typename T>
int run(lab::Cli& cli, lab::Env& env, const Settings& s, const coalescing::Dims& dims,
        const lab::TuningOptions& tuning_options, const lab::Tuning& defaults) {
  const auto& opt = cli.options();
  const coalescing::Family& family = coalescing::family();
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
  coalescing::row_scan(dims, A.data(), want.data(), &allowed);

  // 4. Each chosen variant's tuning (the defaults, the cache, the command line; every candidate
  //    with --tune); buffers A and B with guard zones as long as the furthest launch reaches
  //    (`transposed` adds the transposed pair At, Bt)
  lab::VariantDriver driver(cli, env, family, s.variant, tuning_options, defaults, s.dtype,
                            double(elements));
  std::uint64_t reach = 0;
  driver.each_launch([&](const coalescing::Variant& v, const lab::Tuning& t) {
    reach = std::max(reach, coalescing::launch_reach(v, dims, t));
  });
  lab::GuardedBuffer<T> a_buf(env, lab::BufferMode::copy, CL_MEM_READ_ONLY, elements, reach,
                              A.data());
  lab::GuardedBuffer<T> b_buf(env, lab::BufferMode::write, CL_MEM_READ_WRITE, elements, reach);

  // 5-7. Each variant with its tuning: build, run, verify; every run followed by one of the copy
  //      kernel over the same number of elements, the rows' yardstick
  nlohmann::json transposes;
  const lab::CopyBaseline copy = lab::measure_copy(env, opt, elements, 0, cli.out());
  std::vector<lab::Result> rows = lab::in_turns_with(copy, [&] {
    std::vector<lab::Result> made;
    RunRow<T> run_row{env, dims, s.transpose, a_buf, b_buf, want, allowed, reach, transposes};
    for (std::size_t i = 0; i < driver.rows().size(); ++i) {
      const coalescing::Variant& v = *driver.rows()[i];
      const auto progress = driver.progress(i);  // on stderr, while a long run lasts
      const auto chosen = driver.choose(i, "GB/s", dims, [&](auto t, auto trial) {
        return run_row(v, t, trial);  // --tune tries each candidate this way, quietly
      });
      if (!chosen) continue;  // its limits refuse this size (a line said so)
      made.push_back(run_row(v, chosen->tuning, driver.stage()));
      made.back().tuning = chosen->source;
    }
    driver.check_any_ran(made);
    return made;
  });

  // 8. Report: effective GB/s (the program reads A and writes B once) against the copy kernel,
  //    and the speed-up over naive
  lab::Report report("coalescing", lab::describe_device(env));
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
        lab::TuningOptions tuning_options(cli, family.tunables);
        std::vector<std::string> transposes = transpose::family().names();
        transposes.erase(std::remove(transposes.begin(), transposes.end(), "copy"),
                         transposes.end());
        cli.add_choice("--transpose", s.transpose,
                       "The transpose lab's kernel for `transposed`, with its defaults for the "
                       "device (default: blocks on a CPU, multi elsewhere)",
                       transposes);
        cli.parse();
        tuning_options.check();
        const auto& opt = cli.options();
        const coalescing::Dims dims = size.shape();
        lab::check_kernel_options(opt, family, s.variant);
        lab::check_tunables_used(tuning_options, family, s.variant, lab::notes());

        // 2. Device, and the tunables shaped for it
        lab::Env env = lab::open_device(opt, cli.out());
        const lab::Tuning defaults = coalescing::default_tuning(env.device);
        if (s.transpose.empty()) s.transpose = coalescing::default_transpose(env.device);
        // A and B, and At and Bt when `transposed` runs.
        const bool four = s.variant == "all" || s.variant == "transposed";
        lab::check_memory(env, dims.elements() * 4, four ? 4 : 2, 3, "size");
        cli.out() << "row scan of A " << dims.text() << ", " << s.dtype << "\n";
        return s.dtype == "int" ? run<int>(cli, env, s, dims, tuning_options, defaults)
                                : run<float>(cli, env, s, dims, tuning_options, defaults);
      });
}
