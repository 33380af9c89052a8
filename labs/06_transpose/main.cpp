// transpose: B = transpose(A) from the naive kernel (uncoalesced writes) through a local-memory
// tile to copy speed, each variant checked element by element and timed against a coalesced copy
// of the same matrix measured in the same run.
#include "transpose_family.hpp"

#include "lab/lab.hpp"
#include "lab/peers.hpp"

#include <iostream>
#include <optional>
#include <type_traits>

namespace {

struct Settings {
  std::string dtype = "float";
  std::string variant = "all";
  bool peers = false;
};

constexpr int kTranspose = 112;  // CLBlast's kYes
// CLBlastSomatcopy and CLBlastDomatcopy: the same arguments, alpha a float or a double.
template <typename T>
using ClblastOmatcopy = int (*)(int, int, std::size_t, std::size_t, T, cl_mem, std::size_t,
                                std::size_t, cl_mem, std::size_t, std::size_t, cl_command_queue*,
                                cl_event*);

// A read of A and a write of B: the family counts 4-byte elements, a double moves twice that.
template <typename T>
double bytes_moved(const transpose::Dims& dims) {
  return transpose::family().work(dims).bytes * double(sizeof(T)) / 4;
}

// One row's run with one tuning: the kernel built and checked, timed from events, and every
// element of B compared with A transposed (A itself for copy).
template <typename T>
struct RunRow {
  lab::Env& env;
  const transpose::Dims& dims;
  lab::GuardedBuffer<T>& a;
  lab::GuardedBuffer<T>& b;
  const lab::HostVector<T>& A;
  const lab::HostVector<T>& At;

  lab::Result operator()(const transpose::Variant& v, const lab::Tuning& t,
                         const lab::Stage& stage) const {
    const std::string real = lab::opencl_type_name<T>();
    const lab::PreparedKernel prepared =
        lab::prepare_kernel(env, stage.options, stage.out, transpose::family(), v, dims, t,
                            lab::real_defines(real), transpose::signature(real), sizeof(T));
    cl::KernelFunctor<cl_int, cl_int, cl::Buffer, cl::Buffer> kernel(prepared.kernel);
    const cl::EnqueueArgs args(env.queue, lab::to_ndrange(prepared.range.global),
                               lab::to_ndrange(prepared.range.local));
    b.reset(env.queue);
    const lab::Timing timing = lab::time_launches(
        stage.options,
        [&] { return kernel(args, dims.height, dims.width, a.buffer(), b.buffer()); }, stage.out);
    const bool transposes = v.extra.transposes;
    lab::CheckResult check;
    {
      const lab::Mapping<T> B = b.fetch(env.queue);
      check = lab::compare(B.data(), transposes ? At.data() : A.data(), A.size(),
                           lab::Tolerance::exact(), stage.err, "B (" + v.name + ")",
                           std::size_t(transposes ? dims.height : dims.width));
    }
    const lab::GuardCheck guard = b.check_guards(env.queue);
    const std::string outside = lab::describe_guard_writes(
        guard, "B (" + v.name + ")",
        "the launch is padded to whole tiles, and work-items outside the matrix need the bounds "
        "checks on both indices");
    if (!outside.empty()) stage.err << "transpose: " << outside << "\n";
    lab::Result row =
        lab::bandwidth_row(v.name, dims.size(), timing, bytes_moved<T>(dims), check, guard.total());
    row.tunables = t.row(v.tunables);
    return row;
  }
};

// CLBlast's transpose (omatcopy, S for float and D for double) of the same A into B, when
// installed: timed on the host clock up to clFinish (CLBlast may run more than one kernel), B
// checked against At.
template <typename T>
std::optional<lab::Result> clblast_row(lab::Env& env, const lab::Options& opt,
                                       const transpose::Dims& dims, lab::GuardedBuffer<T>& a,
                                       lab::GuardedBuffer<T>& b, const lab::HostVector<T>& At,
                                       std::ostream& out) {
  const char* symbol = std::is_same_v<T, double> ? "CLBlastDomatcopy" : "CLBlastSomatcopy";
  const auto omatcopy =
      reinterpret_cast<ClblastOmatcopy<T>>(lab::load_symbol("libclblast.so.1", symbol, out));
  if (omatcopy == nullptr) return std::nullopt;
  b.reset(env.queue);
  const lab::Timing timing = lab::time_on_host(opt, [&] {
    cl_command_queue queue = env.queue();
    cl_event event = nullptr;
    const int status =
        omatcopy(lab::kRowMajor, kTranspose, dims.height, dims.width, T(1), a.buffer()(), 0,
                 dims.width, b.buffer()(), 0, dims.height, &queue, &event);
    if (status != 0) {
      throw lab::RuntimeError(std::string(symbol) + " failed with status " +
                              std::to_string(status));
    }
    env.queue.finish();
    if (event != nullptr) ::clReleaseEvent(event);
  });
  lab::CheckResult check;
  {
    const lab::Mapping<T> B = b.fetch(env.queue);
    check = lab::compare(B.data(), At.data(), At.size(), lab::Tolerance::exact(), std::cerr,
                         "B (CLBlast)", std::size_t(dims.height));
  }
  lab::Result row =
      lab::bandwidth_row("CLBlast omatcopy", dims.size(), timing, bytes_moved<T>(dims), check, 0);
  row.add_note("timed on the host clock up to clFinish");
  lab::mark_peer(row);
  return row;
}

template <typename T>
int run(lab::Cli& cli, lab::Env& env, const Settings& s, const transpose::Dims& dims,
        const lab::TuningOptions& tuning_options, const lab::Tuning& defaults) {
  const auto& opt = cli.options();
  const transpose::Family& family = transpose::family();
  const std::uint64_t elements = dims.elements();

  // 3. Host data and the two references: A itself (for copy) and A transposed
  lab::HostVector<T> A;
  if constexpr (std::is_floating_point_v<T>) {
    A = lab::random_vector<T>(elements, lab::derive_seed(opt.seed, 0), -1, 1);
  } else {
    A = lab::random_vector<T>(elements, lab::derive_seed(opt.seed, 0), -1000000, 1000000);
  }
  lab::HostVector<T> At(elements);
  for (int i = 0; i < dims.height; ++i) {
    for (int j = 0; j < dims.width; ++j) {
      At[std::size_t(j) * dims.height + i] = A[std::size_t(i) * dims.width + j];
    }
  }

  // 4. Each chosen variant's tuning (the defaults, the cache, the command line; every candidate
  //    with --tune), and buffers with guard zones as long as the furthest padded launch reaches
  lab::VariantDriver driver(cli, env, family, s.variant, tuning_options, defaults, s.dtype,
                            double(elements));
  transpose::Reach reach;
  driver.each_launch([&](const transpose::Variant& v, const lab::Tuning& t) {
    const transpose::Reach r = transpose::launch_reach(v, dims, t);
    reach = {std::max(reach.a, r.a), std::max(reach.b, r.b)};
  });
  //    On a CPU device A and B are the lab's own arrays (CL_MEM_USE_HOST_PTR) in 2 MiB pages
  //    where Linux gives them: every row a transpose walks down is a new 4 KiB page, and with
  //    huge pages the TLB keeps up. The copy kernel it is held against gets the same memory.
  //    Oclgrind, which reports itself as a CPU and a GPU, keeps the runtime's buffers, as GPUs do.
  const cl_device_type type = env.device.getInfo<CL_DEVICE_TYPE>();
  const bool cpu = (type & CL_DEVICE_TYPE_CPU) != 0 && (type & CL_DEVICE_TYPE_GPU) == 0;
  lab::GuardedBuffer<T> a_buf(env, cpu ? lab::BufferMode::use : lab::BufferMode::copy,
                              CL_MEM_READ_ONLY, elements, reach.a, A.data(), cpu);
  lab::GuardedBuffer<T> b_buf(env, cpu ? lab::BufferMode::use : lab::BufferMode::write,
                              CL_MEM_WRITE_ONLY, elements, reach.b, nullptr, cpu);

  // 5-7. Each variant with its tuning: build, run, verify; every run (CLBlast's too) followed by
  //      one of the copy kernel over the same number of elements, the rows' yardstick
  //      (the copy kernel moves floats: as many of them as A and B have bytes / 4)
  const lab::CopyBaseline copy =
      lab::measure_copy(env, opt, elements * sizeof(T) / 4, 0, cli.out(),
                        cpu ? lab::CopyMemory::host : lab::CopyMemory::device);
  std::vector<lab::Result> rows = lab::in_turns_with(copy, [&] {
    std::vector<lab::Result> made;
    RunRow<T> run_row{env, dims, a_buf, b_buf, A, At};
    for (std::size_t i = 0; i < driver.rows().size(); ++i) {
      const transpose::Variant& v = *driver.rows()[i];
      const auto progress = driver.progress(i);  // on stderr, while a long run lasts
      const auto chosen = driver.choose(i, "GB/s", dims, [&](auto t, auto trial) {
        return run_row(v, t, trial);  // --tune tries each candidate this way, quietly
      });
      if (!chosen) continue;  // its limits refuse this size (a line said so)
      made.push_back(run_row(v, chosen->tuning, driver.stage()));
      made.back().tuning = chosen->source;
    }
    driver.check_any_ran(made);
    if constexpr (std::is_floating_point_v<T>) {
      if (s.peers) {
        if (auto row = clblast_row(env, opt, dims, a_buf, b_buf, At, cli.out())) {
          made.push_back(*row);
        }
      }
    }
    return made;
  });

  // 8. Report: GB/s (read A + write B) against the copy kernel, and the speed-up over naive
  lab::Report report("transpose", lab::describe_device(env));
  lab::add_against_copy(report, rows, copy, "naive");
  report.details()["height"] = dims.height;
  report.details()["width"] = dims.width;
  report.details()["dtype"] = s.dtype;
  report.details()["tolerance"] = "exact";
  report.details()["copy"] = copy.details;
  report.print(cli.format(), std::cout);
  return report.exit_code();
}

}  // namespace

int main(int argc, char** argv) {
  return lab::run_main(
      argc, argv, "transpose", "B = transpose(A), from uncoalesced to copy speed",
      [](lab::Cli& cli) {
        // 1. Options
        const transpose::Family& family = transpose::family();
        Settings s;
        lab::MatrixSizeOptions size(cli, "Rows of A", "Columns of A");
        cli.add_choice("--dtype", s.dtype, "Element type: float, double or int",
                       {"float", "double", "int"});
        lab::add_variant_option(cli, family, s.variant);
        lab::TuningOptions tuning_options(cli, family.tunables);
        cli.add_flag("--peers", s.peers,
                     "Also time CLBlast's transpose (omatcopy) on the same device, when installed");
        cli.parse();
        tuning_options.check();
        const auto& opt = cli.options();
        const transpose::Dims dims = size.shape();
        lab::check_kernel_options(opt, family, s.variant);
        lab::check_tunables_used(tuning_options, family, s.variant, lab::notes());

        // 2. Device, and the tunables shaped for it
        lab::Env env = lab::open_device(opt, cli.out());
        const lab::Tuning defaults = transpose::default_tuning(env.device);
        lab::check_memory(env, dims.elements() * (s.dtype == "double" ? 8 : 4), 2, 3, "size");
        if (s.dtype == "double") lab::require_fp64(env, "transpose");  // exit 77, one sentence
        cli.out() << "B = transpose(A), A " << dims.text() << ", " << s.dtype << "\n";
        if (s.dtype == "int") return run<int>(cli, env, s, dims, tuning_options, defaults);
        if (s.dtype == "float") return run<float>(cli, env, s, dims, tuning_options, defaults);
        return run<double>(cli, env, s, dims, tuning_options, defaults);
      });
}
