// peers.cpp: OpenBLAS and CLBlast SGEMM through dlopen.
#include "peers.hpp"

#include "lab/peers.hpp"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>

namespace matmul {
namespace {

using lab::kNoTrans;
using lab::kRowMajor;
using lab::load_symbol;

using CblasSgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*,
                            int, float, float*, int);
using ClblastSgemm = int (*)(int, int, int, std::size_t, std::size_t, std::size_t, float, cl_mem,
                             std::size_t, std::size_t, cl_mem, std::size_t, std::size_t, float,
                             cl_mem, std::size_t, std::size_t, cl_command_queue*, cl_event*);

// C = A·B through OpenBLAS's cblas_sgemm, into the array it is given; an empty function (with a
// note to `out`) when OpenBLAS is not installed.
std::function<void(float*)> openblas_sgemm(const Problem<float>& problem, std::ostream& out) {
  const auto sgemm =
      reinterpret_cast<CblasSgemm>(load_symbol("libopenblas.so.0", "cblas_sgemm", out));
  if (sgemm == nullptr) return {};
  return [sgemm, &problem](float* C) {
    const Dims& d = problem.dims;
    sgemm(kRowMajor, kNoTrans, kNoTrans, d.M, d.N, d.K, 1.0f, problem.A.data(), d.K,
          problem.B.data(), d.N, 0.0f, C, d.N);
  };
}

}  // namespace

std::optional<lab::Result> run_openblas(const Problem<float>& problem, const lab::Options& options,
                                        std::ostream& out) {
  const auto sgemm = openblas_sgemm(problem, out);
  if (!sgemm) return std::nullopt;
  const Dims& d = problem.dims;
  lab::HostVector<float> C(static_cast<std::size_t>(d.M) * d.N);
  const lab::Timing time = lab::time_on_host(options, [&] { sgemm(C.data()); });
  const lab::CheckResult check = check_result(C.data(), problem, "C (OpenBLAS)", std::cerr);
  lab::Result row = make_result("OpenBLAS sgemm (host CPU)", d, time, check, Peak{});
  lab::mark_peer(row);
  return row;
}

std::function<double()> openblas_turn(const Problem<float>& problem) {
  std::ostringstream missing;  // run_openblas prints the note
  const auto sgemm = openblas_sgemm(problem, missing);
  if (!sgemm) return {};
  const Dims& d = problem.dims;
  auto C = std::make_shared<lab::HostVector<float>>(static_cast<std::size_t>(d.M) * d.N);
  // Two calls, the second timed: right after a PoCL launch, OpenBLAS's threads wake up in the
  // first (at N = 512 on a 2-core VM it took nearly twice as long), while the rows' event clock
  // leaves their own start-up out.
  return [sgemm, C] {
    sgemm(C->data());
    const auto start = std::chrono::steady_clock::now();
    sgemm(C->data());
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
}

void note_against_openblas(std::vector<lab::Result>& rows) {
  for (lab::Result& row : rows) {
    // The same work in each: a round's speed over OpenBLAS's is the ratio of their rates.
    const std::vector<double> ratios = lab::speed_over_yardstick(row);
    if (ratios.empty()) continue;
    const lab::Stats r = lab::summarize(ratios);
    char text[160];
    std::snprintf(text, sizeof text,
                  "%.2fx OpenBLAS sgemm, taking turns with it (%.2f-%.2f over %zu rounds)",
                  r.median, r.min, r.max, ratios.size());
    row.add_note(text);
  }
}

std::optional<lab::Result> run_clblast(lab::Env& env, const Problem<float>& problem,
                                       Buffers<float>& buffers, const lab::Options& options,
                                       const Peak& peak, std::ostream& out) {
  const auto sgemm =
      reinterpret_cast<ClblastSgemm>(load_symbol("libclblast.so.1", "CLBlastSgemm", out));
  if (sgemm == nullptr) return std::nullopt;
  const Dims& d = problem.dims;
  // CLBlast may run helper kernels (padding, transposing) before its GEMM kernel, and the event
  // it returns covers only the last one: time the whole call on the host, up to clFinish.
  const auto call = [&] {
    cl_command_queue queue = env.queue();
    cl_event event = nullptr;
    const int status =
        sgemm(kRowMajor, kNoTrans, kNoTrans, d.M, d.N, d.K, 1.0f, buffers.a.buffer()(), 0, d.K,
              buffers.b.buffer()(), 0, d.N, 0.0f, buffers.c.buffer()(), 0, d.N, &queue, &event);
    if (status != 0) {
      throw lab::RuntimeError("CLBlastSgemm failed with status " + std::to_string(status));
    }
    env.queue.finish();
    if (event != nullptr) ::clReleaseEvent(event);
  };
  buffers.c.reset(env.queue);
  const lab::Timing time = lab::time_on_host(options, call);
  lab::HostVector<float> C(static_cast<std::size_t>(d.M) * d.N);
  env.queue.enqueueReadBuffer(buffers.c.buffer(), CL_TRUE, 0, C.size() * sizeof(float), C.data());
  const lab::CheckResult check = check_result(C.data(), problem, "C (CLBlast)", std::cerr);
  lab::Result row = make_result("CLBlast sgemm", d, time, check, peak);
  lab::mark_peer(row);
  return row;
}

}  // namespace matmul
