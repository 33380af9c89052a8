// run.cpp: how matmul runs a variant: the guarded buffers, the one launch/time/verify path every
// variant goes through (with EDGES=pad's copies, each result checked against the host reference
// of lab/matmul_reference.hpp), and the sequential host loop.
#include "matmul.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <type_traits>

namespace matmul {
namespace {

using Sizes = std::vector<std::uint64_t>;
using lab::Tuning;

}  // namespace

lab::Result make_result(const std::string& name, const Dims& dims, const lab::Timing& timing,
                        const lab::CheckResult& check, const Peak& peak) {
  lab::Result row;
  row.variant = name;
  row.size = dims.size();
  lab::set_timing(row, timing);
  row.rate = lab::gigaflops(family().work(dims).flops, timing.time.median);
  row.unit = "GFLOP/s";
  rate_against_peak(row, peak);
  lab::set_check(row, check);
  return row;
}

void rate_against_peak(lab::Result& row, const Peak& peak) {
  if (peak.gflops > 0) {
    lab::Reference reference{peak.name, peak.gflops, "GFLOP/s",
                             peak.short_name + " ~" + std::to_string(std::lround(peak.gflops))};
    reference.short_name = peak.short_name;
    lab::set_reference(row, reference);
  }
}

Reach launch_reach(const Variant& variant, const Dims& d, const Tuning& t) {
  // Rows, columns and K the launch covers: the sizes rounded up to whole work-groups or tiles.
  const Sizes covered = variant.covers ? variant.covers(d, t) : Sizes{};
  const std::uint64_t M = d.M, N = d.N, K = d.K;
  const std::uint64_t rows = covered.empty() ? M : covered[0];
  const std::uint64_t cols = covered.empty() ? N : covered[1];
  const std::uint64_t inner = covered.empty() ? K : covered[2];
  // The last element a kernel without bounds checks touches, row-major, minus the matrix's size.
  const auto past = [](std::uint64_t r, std::uint64_t c, std::uint64_t width, std::uint64_t size) {
    return (r - 1) * width + c - size;
  };
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

using Launcher = cl::KernelFunctor<cl_int, cl_int, cl_int, cl::Buffer, cl::Buffer, cl::Buffer>;

// EDGES=pad: A and B copied into buffers of `p` (whole tiles) padded with zeros, the exact kernel
// on them, and C copied back out, timed from the first copy's start to the last one's end.
template <typename T>
lab::Timing time_padded(Launcher& kernel, const cl::EnqueueArgs& args, const Dims& d, const Dims& p,
                        Buffers<T>& buffers, lab::Env& env, const lab::Stage& stage) {
  const std::size_t e = sizeof(T);
  cl::Buffer ap(env.context, CL_MEM_READ_WRITE, std::size_t(p.M) * p.K * e);
  cl::Buffer bp(env.context, CL_MEM_READ_WRITE, std::size_t(p.K) * p.N * e);
  cl::Buffer cp(env.context, CL_MEM_READ_WRITE, std::size_t(p.M) * p.N * e);
  env.queue.enqueueFillBuffer(ap, T(0), 0, std::size_t(p.M) * p.K * e);
  env.queue.enqueueFillBuffer(bp, T(0), 0, std::size_t(p.K) * p.N * e);
  // Copies `rows` rows of `width` elements between row pitches `from` and `to` (elements),
  // starting `src_at` and `dst_at` bytes into the buffers. The guarded buffers are passed whole
  // with their data's offset: PoCL 3.1 crashes on rect copies from or to sub-buffers.
  const auto copy_rows = [&](const cl::Buffer& src, std::size_t src_at, const cl::Buffer& dst,
                             std::size_t dst_at, int rows, int width, int from, int to) {
    cl::Event event;
    env.queue.enqueueCopyBufferRect(
        src, dst, {src_at, 0, 0}, {dst_at, 0, 0}, {std::size_t(width) * e, std::size_t(rows), 1},
        std::size_t(from) * e, 0, std::size_t(to) * e, 0, nullptr, &event);
    return event;
  };
  const auto& a = buffers.a;
  const auto& b = buffers.b;
  const auto& c = buffers.c;
  return lab::time_launch_span(
      stage.options,
      [&]() -> std::vector<cl::Event> {
        return {copy_rows(a.whole(), a.data_offset_bytes(), ap, 0, d.M, d.K, d.K, p.K),
                copy_rows(b.whole(), b.data_offset_bytes(), bp, 0, d.K, d.N, d.N, p.N),
                kernel(args, p.M, p.N, p.K, ap, bp, cp),
                copy_rows(cp, 0, c.whole(), c.data_offset_bytes(), d.M, d.N, p.N, d.N)};
      },
      stage.out);
}

template <typename T>
lab::Result run_variant(lab::Env& env, const Variant& variant, const Tuning& t,
                        const lab::Stage& stage, const Problem<T>& problem, Buffers<T>& buffers,
                        const Peak& peak) {
  const Dims& d = problem.dims;
  const bool is_float = std::is_floating_point_v<T>;
  const std::string real = lab::opencl_type_name<T>();
  // EDGES=pad with sizes that are not multiples of the tiles: A and B are copied into buffers
  // padded with zeros to whole tiles, the exact kernel (no bounds checks, whole vectors) runs on
  // them, and C is copied back out; the copies are part of the time.
  const bool uses_edges = std::find(variant.tunables.begin(), variant.tunables.end(), "EDGES") !=
                          variant.tunables.end();
  const bool pad = uses_edges && t["EDGES"] == 1 &&
                   (d.M % t["TSM"] != 0 || d.N % t["TSN"] != 0 || d.K % t["TSK"] != 0);
  const Dims run_dims =
      pad ? Dims{int(lab::round_up(d.M, t.whole("TSM"))), int(lab::round_up(d.N, t.whole("TSN"))),
                 int(lab::round_up(d.K, t.whole("TSK")))}
          : d;
  const lab::PreparedKernel prepared =
      lab::prepare_kernel(env, stage.options, stage.out, family(), variant, run_dims, t,
                          element_defines(real), signature(real), sizeof(T));
  Launcher kernel(prepared.kernel);

  // C starts as the sentinel (NaN, or 0x5A5A5A5A for int) with intact guards, so an element this
  // variant leaves unwritten fails even when an earlier variant wrote it right.
  buffers.c.reset(env.queue);
  const cl::EnqueueArgs args(env.queue, lab::to_ndrange(prepared.range.global),
                             lab::to_ndrange(prepared.range.local));
  lab::Timing timing;
  if (!pad) {
    const auto launch = [&] {
      return kernel(args, d.M, d.N, d.K, buffers.a.buffer(), buffers.b.buffer(),
                    buffers.c.buffer());
    };
    timing = lab::time_launches(stage.options, launch, stage.out);
  } else {
    timing = time_padded(kernel, args, d, run_dims, buffers, env, stage);
  }
  lab::CheckResult check;
  {
    const lab::Mapping<T> C = buffers.c.fetch(env.queue);
    check = lab::check_matmul(C.data(), problem, "C (" + variant.name + ")", stage.err);
  }
  const lab::GuardCheck guard = buffers.c.check_guards(env.queue);
  const std::string outside = lab::describe_guard_writes(
      guard, "C (" + variant.name + ")",
      "the launch is padded to whole work-groups or tiles, and work-items outside C need the "
      "bounds check on i and j");
  if (!outside.empty()) stage.err << "matmul: " << outside << "\n";
  lab::Result row = make_result(variant.name, d, timing, check, is_float ? peak : Peak{});
  row.tunables = t.row(variant.tunables);
  if (pad) {
    row.add_note("padded to " + run_dims.text() +
                 ": copies in, the exact kernel, a copy out, first start to last end");
  }
  row.out_of_bounds = guard.total();
  row.passed = row.passed && guard.total() == 0;
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
  // The Clemson GPGPU lecture's triple loop, as written: C(i,j) accumulated in memory, k innermost.
  const auto loop = [&] {
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
  };
  const lab::Timing timing = lab::time_on_host(0, 1, loop);
  const lab::CheckResult check = lab::check_matmul(C.data(), problem, "C (sequential)", std::cerr);
  lab::Result row = make_result("sequential (host)", d, timing, check, Peak{});
  row.add_note("the host loop, one core, timed once on the host clock");
  return row;
}

// The element types the lab runs: float, double and int.
#define MATMUL_INSTANTIATE(T)                                                                      \
  template Buffers<T> make_buffers<T>(lab::Env&, Problem<T>&, const Reach&);                       \
  template lab::Result run_variant<T>(lab::Env&, const Variant&, const Tuning&, const lab::Stage&, \
                                      const Problem<T>&, Buffers<T>&, const Peak&);                \
  template std::optional<lab::Result> run_sequential<T>(const Problem<T>&, std::ostream&);
MATMUL_INSTANTIATE(float)
MATMUL_INSTANTIATE(double)
MATMUL_INSTANTIATE(int)
#undef MATMUL_INSTANTIATE

}  // namespace matmul
