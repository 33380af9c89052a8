// matmul.cpp: variants, tunables, the reference and the shared run/verify path.
#include "matmul.hpp"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <iostream>
#include <thread>
#include <type_traits>

namespace matmul {
namespace {

using Sizes = std::vector<std::uint64_t>;

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

// The NDRange a variant launches: dimension 0 along j (columns of C), dimension 1 along i.
struct Shape {
  Sizes global;
  Sizes local;
};

Shape launch_shape(const std::string& variant, const Dims& d, const Tuning& t) {
  const std::uint64_t M = d.M, N = d.N;
  if (variant == "naive" || variant == "naive_global") {
    const std::uint64_t l = t.local_2d;
    return {{lab::round_up(N, l), lab::round_up(M, l)}, {l, l}};
  }
  if (variant == "row" || variant == "row_private" || variant == "row_local") {
    return {{lab::round_up(M, t.local_1d)}, {static_cast<std::uint64_t>(t.local_1d)}};
  }
  if (variant == "tiled") {
    const std::uint64_t ts = t.ts;
    return {{lab::round_up(N, ts), lab::round_up(M, ts)}, {ts, ts}};
  }
  const std::uint64_t rtsn = t.tsn / t.wptn, rtsm = t.tsm / t.wptm;  // regtiled
  return {{ceil_div(N, t.tsn) * rtsn, ceil_div(M, t.tsm) * rtsm}, {rtsn, rtsm}};
}

// Bytes of __local memory the variant's kernel declares for these tunables.
std::uint64_t local_bytes(const std::string& variant, const Tuning& t, std::size_t element) {
  if (variant == "tiled") return 2ull * t.ts * t.ts * element;
  if (variant == "row_local") return static_cast<std::uint64_t>(t.kmax) * element;
  if (variant == "regtiled" && t.stage) return 2ull * t.tsk * (t.tsm + 4 + t.tsn) * element;
  return 0;
}

// Bytes of private memory each work-item's arrays take for these tunables.
std::uint64_t private_bytes(const std::string& variant, const Tuning& t, std::size_t element) {
  if (variant == "row_private" || variant == "row_local") {
    return static_cast<std::uint64_t>(t.kmax) * element;
  }
  return 0;
}

// What a CPU device may keep in private arrays for one work-group. PoCL runs a group's
// work-items on one host thread, whose stack holds all their private arrays; a new thread gets
// the process's default stack size (from RLIMIT_STACK, 8 MiB usually, 2 MiB when that is
// unlimited), and the rest of the kernel needs room too, so half of it.
std::uint64_t cpu_private_budget() {
  pthread_attr_t defaults;
  std::size_t stack = 2u << 20;
  if (::pthread_getattr_default_np(&defaults) == 0) {
    ::pthread_attr_getstacksize(&defaults, &stack);
    ::pthread_attr_destroy(&defaults);
  }
  return stack / 2;
}

std::string local_memory_advice(const std::string& variant) {
  if (variant == "tiled") return "choose a smaller --ts";
  if (variant == "row_local") return "choose a smaller --kmax (it must still be >= K)";
  return "choose smaller --regtile block sizes";
}

// The kernel's -D tunables, each with the option that sets it (--build-options may not override
// them: the host sizes the launch from the same values).
lab::Defines kernel_defines(const std::string& variant, const Dims& d, const Tuning& t,
                            bool is_float) {
  lab::Defines defs = {{"REAL", is_float ? "float" : "int", "--dtype"}};
  const auto add = [&defs](const char* name, int value, const char* option) {
    defs.push_back({name, std::to_string(value), option});
  };
  if (variant == "row_private" || variant == "row_local") add("KMAX", t.kmax, "--kmax");
  if (variant == "tiled") add("TS", t.ts, "--ts");
  if (variant == "regtiled") {
    defs.push_back({"REAL4", is_float ? "float4" : "int4", "--dtype"});
    add("TSM", t.tsm, "--regtile");
    add("TSN", t.tsn, "--regtile");
    add("TSK", t.tsk, "--regtile");
    add("WPTM", t.wptm, "--regtile");
    add("WPTN", t.wptn, "--regtile");
    add("VWN", t.vwn, "--regtile");
    add("STAGE", t.stage, "--staging");
    add("EXACT", d.M % t.tsm == 0 && d.N % t.tsn == 0 && d.K % t.tsk == 0, "");
  }
  return defs;
}

// Rows [begin, end) of the reference, blocked so a block of B stays in cache while IB rows use it.
template <typename T>
void reference_rows(Problem<T>& p, int begin, int end) {
  constexpr int IB = 16, JB = 512;
  const int N = p.dims.N, K = p.dims.K;
  std::vector<double> acc(IB * JB);
  for (int ib = begin; ib < end; ib += IB) {
    const int rows = std::min(IB, end - ib);
    for (int jb = 0; jb < N; jb += JB) {
      const int cols = std::min(JB, N - jb);
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int k = 0; k < K; ++k) {
        const T* b = &p.B[static_cast<std::size_t>(k) * N + jb];
        for (int r = 0; r < rows; ++r) {
          const double a = p.A[static_cast<std::size_t>(ib + r) * K + k];
          double* c = &acc[static_cast<std::size_t>(r) * JB];
          for (int j = 0; j < cols; ++j) c[j] += a * b[j];
        }
      }
      for (int r = 0; r < rows; ++r) {
        std::copy(&acc[static_cast<std::size_t>(r) * JB],
                  &acc[static_cast<std::size_t>(r) * JB] + cols,
                  &p.C_ref[static_cast<std::size_t>(ib + r) * N + jb]);
      }
    }
  }
}

}  // namespace

std::string Dims::text() const {
  if (M == N && N == K) return "N=" + std::to_string(N);
  return "M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" + std::to_string(K);
}

std::string Tuning::regtile_text() const {
  return std::to_string(tsm) + "," + std::to_string(tsn) + "," + std::to_string(tsk) + "," +
         std::to_string(wptm) + "," + std::to_string(wptn) + "," + std::to_string(vwn);
}

Tuning default_tuning(const cl::Device& device) {
  Tuning t;
  if (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) return t;
  // CPU (PoCL): no local staging; groups of 16 work-items stacked along i share a panel of B
  // through the cache, each computing 8×(2 SIMD vectors) elements in registers.
  const int width = static_cast<int>(device.getInfo<CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT>());
  t.stage = false;
  t.vwn = width >= 16 ? 16 : (width >= 8 ? 8 : 4);
  t.wptm = 8;
  t.wptn = 2 * t.vwn;
  t.tsn = t.wptn;
  t.tsm = 128;  // 16 work-items per group share the panel of B
  t.tsk = 64;   // slices of K the whole group finishes before the next (cache blocking)
  return t;
}

const std::vector<std::string>& variant_names() {
  static const std::vector<std::string> names = {
      kSequential, "naive_global", "naive", "row", "row_private", "row_local", "tiled", "regtiled"};
  return names;
}

Peak estimate_fp32_peak(const cl::Device& device) {
  const double units = device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
  const double mhz = device.getInfo<CL_DEVICE_MAX_CLOCK_FREQUENCY>();
  const std::string vendor = device.getInfo<CL_DEVICE_VENDOR>();
  double lanes;
  std::string why;
  if (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) {
    // FP32 lanes per compute unit are not an OpenCL query: 128 per SM on recent NVIDIA GPUs,
    // 64 per CU on AMD and others.
    lanes = vendor.find("NVIDIA") != std::string::npos ? 128 : 64;
    why = "lanes per compute unit assumed";
  } else {
    // A CPU core: two FMA units of the preferred float vector width.
    lanes = 2.0 * device.getInfo<CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT>();
    why = "2 FMA units x preferred float width";
  }
  Peak peak;
  peak.gflops = units * mhz / 1000.0 * lanes * 2.0;
  char text[160];
  std::snprintf(text, sizeof text, "estimate: %.0f CUs x %.0f MHz x %.0f lanes (%s) x 2 (FMA)",
                units, mhz, lanes, why.c_str());
  peak.how = text;
  return peak;
}

template <typename T>
Problem<T> make_problem(const Dims& dims, std::uint64_t seed) {
  Problem<T> p;
  p.dims = dims;
  const std::size_t a_size = static_cast<std::size_t>(dims.M) * dims.K;
  const std::size_t b_size = static_cast<std::size_t>(dims.K) * dims.N;
  if constexpr (std::is_floating_point_v<T>) {
    p.A = lab::random_vector<T>(a_size, lab::derive_seed(seed, 0), -1, 1);
    p.B = lab::random_vector<T>(b_size, lab::derive_seed(seed, 1), -1, 1);
  } else {
    p.A = lab::random_vector<T>(a_size, lab::derive_seed(seed, 0), -9, 9);
    p.B = lab::random_vector<T>(b_size, lab::derive_seed(seed, 1), -9, 9);
  }
  p.C_ref.assign(static_cast<std::size_t>(dims.M) * dims.N, 0.0);

  // The reference, on every host core: blocks of 16 rows handed out one by one.
  std::atomic<int> next{0};
  const int blocks = (dims.M + 15) / 16;
  const int threads = std::max(1, std::min<int>(blocks, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (int b = next++; b < blocks; b = next++) {
        reference_rows(p, 16 * b, std::min(dims.M, 16 * b + 16));
      }
    });
  }
  for (auto& thread : pool) thread.join();

  p.row_tolerance.assign(dims.M, 0.0);
  if constexpr (std::is_floating_point_v<T>) {
    const double u = std::ldexp(1.0, -24);
    const double gamma = dims.K * u / (1.0 - dims.K * u);
    std::vector<double> b_max(dims.K, 0.0);
    for (int k = 0; k < dims.K; ++k) {
      for (int j = 0; j < dims.N; ++j) {
        b_max[k] =
            std::max(b_max[k], std::fabs(double(p.B[static_cast<std::size_t>(k) * dims.N + j])));
      }
    }
    for (int i = 0; i < dims.M; ++i) {
      double sum = 0;
      for (int k = 0; k < dims.K; ++k) {
        sum += std::fabs(double(p.A[static_cast<std::size_t>(i) * dims.K + k])) * b_max[k];
      }
      p.row_tolerance[i] = gamma * sum;
    }
  }
  return p;
}

std::string capacity_problem(const std::string& variant, const Dims& dims, const Tuning& t) {
  if ((variant == "row_private" || variant == "row_local") && dims.K > t.kmax) {
    const char* what = variant == "row_private" ? "a row of A in a private array"
                                                : "a row of A and a column of B in arrays";
    return variant + " keeps " + what + " of KMAX = " + std::to_string(t.kmax) +
           " elements, but K = " + std::to_string(dims.K) + ": pass --kmax " +
           std::to_string(dims.K) + " or more (larger arrays cost private and local memory), or " +
           "choose another variant";
  }
  if (variant == "regtiled") {
    if (t.wptm % 4 != 0 || t.tsk % 4 != 0 || t.tsm % t.wptm != 0 || t.tsn % t.wptn != 0 ||
        (t.vwn != 4 && t.vwn != 8 && t.vwn != 16) || t.wptn % t.vwn != 0) {
      return "--regtile " + t.regtile_text() +
             ": WPTM and TSK must be multiples of 4, VWN 4, 8 or 16 and a divisor of WPTN, and "
             "TSM and TSN multiples of WPTM and WPTN";
    }
    // Each work-item keeps WPTM×WPTN accumulators in registers and the compiler unrolls over
    // them and over TSK: beyond these, no device keeps them in registers and compilers take
    // minutes.
    if (std::int64_t{t.wptm} * t.wptn > kMaxRegisterTile || t.tsk > kMaxSlice) {
      return "--regtile " + t.regtile_text() + ": WPTM x WPTN must be at most " +
             std::to_string(kMaxRegisterTile) + " elements per work-item and TSK at most " +
             std::to_string(kMaxSlice);
    }
    const std::int64_t group = std::int64_t{t.tsm / t.wptm} * (t.tsn / t.wptn);
    if ((std::int64_t{t.tsm} * t.tsk) % (4 * group) != 0 ||
        (std::int64_t{t.tsk} * t.tsn) % (4 * group) != 0) {
      return "--regtile " + t.regtile_text() + ": each of the " + std::to_string(group) +
             " work-items must copy a whole number of 4-vectors of each slice, so TSM*TSK and "
             "TSK*TSN must be multiples of " +
             std::to_string(4 * group) + ": raise TSK";
    }
  }
  return "";
}

lab::Result make_result(const std::string& variant, const Dims& dims, const lab::Stats& time,
                        const lab::CheckResult& check, const Peak& peak) {
  lab::Result row;
  row.variant = variant;
  row.size = dims.text();
  row.time = time;
  row.rate = lab::gigaflops(dims.flops(), time.median);
  row.unit = "GFLOP/s";
  if (peak.gflops > 0) {
    row.percent = 100.0 * row.rate / peak.gflops;
    row.reference = "peak ~" + std::to_string(static_cast<long>(std::lround(peak.gflops)));
  }
  lab::set_check(row, check);
  return row;
}

Reach launch_reach(const std::string& variant, const Dims& d, const Tuning& t) {
  // Rows, columns and K the launch covers: the sizes rounded up to whole work-groups or tiles.
  std::uint64_t rows = d.M, cols = d.N, inner = d.K;
  if (variant == "naive" || variant == "naive_global") {
    rows = lab::round_up(d.M, t.local_2d), cols = lab::round_up(d.N, t.local_2d);
  } else if (variant == "row" || variant == "row_private" || variant == "row_local") {
    rows = lab::round_up(d.M, t.local_1d);
  } else if (variant == "tiled") {
    rows = lab::round_up(d.M, t.ts), cols = lab::round_up(d.N, t.ts);
    inner = lab::round_up(d.K, t.ts);
  } else if (variant == "regtiled") {
    rows = lab::round_up(d.M, t.tsm), cols = lab::round_up(d.N, t.tsn);
    inner = lab::round_up(d.K, t.tsk);
  }
  // The last element a kernel without bounds checks touches, row-major, minus the matrix's size.
  const auto past = [](std::uint64_t r, std::uint64_t c, std::uint64_t width, std::uint64_t size) {
    return (r - 1) * width + c - size;
  };
  const std::uint64_t M = d.M, N = d.N, K = d.K;
  return Reach{past(rows, inner, K, M * K), past(inner, cols, N, K * N),
               past(rows, cols, N, M * N)};
}

template <typename T>
Buffers<T> make_buffers(lab::Env& env, Problem<T>& problem, const Reach& reach) {
  const std::size_t c_size = static_cast<std::size_t>(problem.dims.M) * problem.dims.N;
  return Buffers<T>{
      lab::GuardedBuffer<T>(env, lab::BufferMode::copy, CL_MEM_READ_ONLY, problem.A.size(), reach.a,
                            problem.A.data()),
      lab::GuardedBuffer<T>(env, lab::BufferMode::copy, CL_MEM_READ_ONLY, problem.B.size(), reach.b,
                            problem.B.data()),
      lab::GuardedBuffer<T>(env, lab::BufferMode::write, CL_MEM_WRITE_ONLY, c_size, reach.c)};
}

template <typename T>
lab::CheckResult check_result(const T* C, const Problem<T>& problem, const std::string& name) {
  const auto& tolerance = problem.row_tolerance;
  const std::size_t columns = problem.dims.N;
  return lab::compare_each(
      C, problem.C_ref.data(), problem.C_ref.size(),
      [&](std::size_t index) { return tolerance[index / columns]; }, std::cerr, name, columns);
}

template <typename T>
lab::Result run_variant(const std::string& variant, const Problem<T>& problem, Buffers<T>& buffers,
                        Context& context) {
  const Dims& d = problem.dims;
  const Tuning& t = context.tuning;
  lab::Env& env = context.env;
  const std::string limit = capacity_problem(variant, d, t);
  if (!limit.empty()) throw lab::UsageError(limit);

  // The tunables decide the work-group, local memory and private arrays: check them before
  // building, so a device limit is a sentence, not a crash.
  const Shape shape = launch_shape(variant, d, t);
  const std::uint64_t group =
      shape.local.size() == 2 ? shape.local[0] * shape.local[1] : shape.local[0];
  const std::uint64_t device_max = env.device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  if (group > device_max) {
    throw lab::RuntimeError("matmul_" + variant + " would use work-groups of " +
                            lab::format_dims(shape.local) + " = " + std::to_string(group) +
                            " work-items, more than the device's maximum of " +
                            std::to_string(device_max) + ": choose smaller tile or local sizes");
  }
  const std::uint64_t needed = local_bytes(variant, t, sizeof(T));
  const std::uint64_t available = env.device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  if (needed > available) {
    throw lab::RuntimeError("matmul_" + variant + " needs " + lab::format_bytes(double(needed)) +
                            " of local memory with these tunables, but the device has " +
                            lab::format_bytes(double(available)) + ": " +
                            local_memory_advice(variant));
  }
  const bool is_cpu = (env.device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) != 0;
  const std::uint64_t per_item = private_bytes(variant, t, sizeof(T));
  if (is_cpu && per_item * group > cpu_private_budget()) {
    throw lab::RuntimeError(
        "matmul_" + variant + " keeps " + lab::format_bytes(double(per_item)) +
        " of private memory per work-item (KMAX = " + std::to_string(t.kmax) +
        "); a CPU device runs the " + std::to_string(group) +
        " work-items of a group on one thread whose stack holds them all, and " +
        lab::format_bytes(double(per_item * group)) + " exceed the " +
        lab::format_bytes(double(cpu_private_budget())) +
        " it can spare: choose a smaller --local or --kmax");
  }

  const bool is_float = std::is_floating_point_v<T>;
  const lab::Program program =
      lab::build_program(env, context.options, "matmul_" + variant + ".cl",
                         kernel_defines(variant, d, t, is_float), context.out);
  const std::string real = is_float ? "float" : "int";
  cl::KernelFunctor<cl_int, cl_int, cl_int, cl::Buffer, cl::Buffer, cl::Buffer> kernel(
      lab::make_kernel(program, {"matmul_" + variant,
                                 {{"", "int", "M"},
                                  {"", "int", "N"},
                                  {"", "int", "K"},
                                  {"global", real + "*", "A"},
                                  {"global", real + "*", "B"},
                                  {"global", real + "*", "C"}}}));
  lab::check_ndrange(kernel.getKernel(), env.device, shape.global, shape.local);

  // C starts as the sentinel (NaN, or 0x5A5A5A5A for int) with intact guards, so an element this
  // variant leaves unwritten fails even when an earlier variant wrote it right.
  buffers.c.reset(env.queue);
  const auto launch = [&] {
    return kernel(
        cl::EnqueueArgs(env.queue, lab::to_ndrange(shape.global), lab::to_ndrange(shape.local)),
        d.M, d.N, d.K, buffers.a.buffer(), buffers.b.buffer(), buffers.c.buffer());
  };

  // One launch first; a variant that takes seconds gets fewer repetitions.
  int warmup = context.options.warmup;
  int reps = context.options.reps;
  std::string note;
  if (warmup > 0) {
    cl::Event first = launch();
    first.wait();
    --warmup;
    if (std::chrono::duration<double>(lab::event_times(first).start_to_end).count() > 1.0 &&
        reps > 3) {
      warmup = 0;
      note = "over a second a launch: 3 timed runs, not " + std::to_string(reps);
      reps = 3;
    }
  }
  const lab::Timing timing =
      lab::time_launches(warmup, reps, launch, context.options.verbose ? &context.out : nullptr);
  lab::CheckResult check;
  {
    const lab::Mapping<T> C = buffers.c.fetch(env.queue);
    check = check_result(C.data(), problem, "C (" + variant + ")");
  }
  const lab::GuardCheck guard = buffers.c.check_guards(env.queue);
  const std::string outside = lab::describe_guard_writes(
      guard, "C (" + variant + ")",
      "the launch is padded to whole work-groups or tiles, and work-items outside C need the "
      "bounds check on i and j");
  if (!outside.empty()) std::cerr << "matmul: " << outside << "\n";
  lab::Result row = make_result(variant, d, timing.kernel, check, is_float ? context.peak : Peak{});
  row.out_of_bounds = guard.total();
  row.passed = row.passed && guard.total() == 0;
  row.note = note;
  return row;
}

template <typename T>
std::optional<lab::Result> run_sequential(const Problem<T>& problem, std::ostream& out) {
  const Dims& d = problem.dims;
  // About a second at a few hundred million multiply-adds per second; larger runs are skipped.
  constexpr double kMaxMultiplyAdds = 1 << 29;
  if (double(d.M) * d.N * d.K > kMaxMultiplyAdds) {
    out << "  (skipped the sequential host loop: " << d.text()
        << " is over 2^29 multiply-adds, seconds to minutes on one core)\n";
    return std::nullopt;
  }
  lab::HostVector<T> C(static_cast<std::size_t>(d.M) * d.N);
  const auto start = std::chrono::steady_clock::now();
  // The lecture's triple loop, as written: C(i,j) accumulated in memory, k innermost.
  for (int i = 0; i < d.M; ++i) {
    for (int j = 0; j < d.N; ++j) {
      T& c = C[static_cast<std::size_t>(i) * d.N + j];
      c = 0;
      for (int k = 0; k < d.K; ++k) {
        c += problem.A[static_cast<std::size_t>(i) * d.K + k] *
             problem.B[static_cast<std::size_t>(k) * d.N + j];
      }
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  lab::Stats time = lab::summarize({seconds});
  const lab::CheckResult check = check_result(C.data(), problem, "C (sequential)");
  lab::Result row = make_result("sequential (host)", d, time, check, Peak{});
  row.note = "the host loop, one core, timed once on the host clock";
  return row;
}

template Problem<float> make_problem<float>(const Dims&, std::uint64_t);
template Problem<int> make_problem<int>(const Dims&, std::uint64_t);
template Buffers<float> make_buffers<float>(lab::Env&, Problem<float>&, const Reach&);
template Buffers<int> make_buffers<int>(lab::Env&, Problem<int>&, const Reach&);
template lab::CheckResult check_result<float>(const float*, const Problem<float>&,
                                              const std::string&);
template lab::CheckResult check_result<int>(const int*, const Problem<int>&, const std::string&);
template lab::Result run_variant<float>(const std::string&, const Problem<float>&, Buffers<float>&,
                                        Context&);
template lab::Result run_variant<int>(const std::string&, const Problem<int>&, Buffers<int>&,
                                      Context&);
template std::optional<lab::Result> run_sequential<float>(const Problem<float>&, std::ostream&);
template std::optional<lab::Result> run_sequential<int>(const Problem<int>&, std::ostream&);

}  // namespace matmul
