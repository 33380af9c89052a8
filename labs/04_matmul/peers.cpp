// peers.cpp: OpenBLAS and CLBlast SGEMM and DGEMM through dlopen.
#include "peers.hpp"

#include "lab/peers.hpp"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>

namespace matmul {
namespace {

using lab::kNoTrans;
using lab::kRowMajor;
using lab::load_symbol;

// cblas_sgemm and cblas_dgemm: the same arguments, of float or of double.
template <typename T>
using CblasGemm = void (*)(int, int, int, int, int, int, T, const T*, int, const T*, int, T, T*,
                           int);
// CLBlastSgemm and CLBlastDgemm, likewise.
template <typename T>
using ClblastGemm = int (*)(int, int, int, std::size_t, std::size_t, std::size_t, T, cl_mem,
                            std::size_t, std::size_t, cl_mem, std::size_t, std::size_t, T, cl_mem,
                            std::size_t, std::size_t, cl_command_queue*, cl_event*);

// C = A·B through OpenBLAS's cblas_sgemm or cblas_dgemm, into the array it is given; an empty
// function (with a note to `out`) when OpenBLAS is not installed.
template <typename T>
std::function<void(T*)> openblas_gemm(const Problem<T>& problem, std::ostream& out) {
  const auto gemm = reinterpret_cast<CblasGemm<T>>(
      load_symbol("libopenblas.so.0", ("cblas_" + lab::blas_letter<T>() + "gemm").c_str(), out));
  if (gemm == nullptr) return {};
  return [gemm, &problem](T* C) {
    const Dims& d = problem.dims;
    gemm(kRowMajor, kNoTrans, kNoTrans, d.M, d.N, d.K, T(1), problem.A.data(), d.K,
         problem.B.data(), d.N, T(0), C, d.N);
  };
}

}  // namespace

template <typename T>
std::optional<lab::Result> run_openblas(const Problem<T>& problem, const lab::Options& options,
                                        std::ostream& out) {
  const auto gemm = openblas_gemm(problem, out);
  if (!gemm) return std::nullopt;
  const Dims& d = problem.dims;
  lab::HostVector<T> C(static_cast<std::size_t>(d.M) * d.N);
  const lab::Timing time = lab::time_on_host(options, [&] { gemm(C.data()); });
  const lab::CheckResult check = lab::check_matmul(C.data(), problem, "C (OpenBLAS)", std::cerr);
  lab::Result row =
      make_result("OpenBLAS " + lab::blas_letter<T>() + "gemm (host CPU)", d, time, check, Peak{});
  lab::mark_peer(row);
  return row;
}

template <typename T>
std::function<double()> openblas_turn(const Problem<T>& problem) {
  std::ostringstream missing;  // run_openblas prints the note
  const auto gemm = openblas_gemm(problem, missing);
  if (!gemm) return {};
  const Dims& d = problem.dims;
  auto C = std::make_shared<lab::HostVector<T>>(static_cast<std::size_t>(d.M) * d.N);
  // Two calls, the second timed: right after a PoCL launch, OpenBLAS's threads wake up in the
  // first (at N = 512 on a 2-core VM it took nearly twice as long), while the rows' event clock
  // leaves their own start-up out.
  return [gemm, C] {
    gemm(C->data());
    const auto start = std::chrono::steady_clock::now();
    gemm(C->data());
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
}

void note_against_openblas(std::vector<lab::Result>& rows, const std::string& peer) {
  for (lab::Result& row : rows) {
    // The same work in each: a round's speed over OpenBLAS's is the ratio of their rates.
    const std::vector<double> ratios = lab::speed_over_yardstick(row);
    if (ratios.empty()) continue;
    const lab::Stats r = lab::summarize(ratios);
    char text[160];
    std::snprintf(text, sizeof text, "%.2fx %s, taking turns with it (%.2f-%.2f over %zu rounds)",
                  r.median, peer.c_str(), r.min, r.max, ratios.size());
    row.add_note(text);
  }
}

template <typename T>
std::optional<lab::Result> run_clblast(lab::Env& env, const Problem<T>& problem,
                                       Buffers<T>& buffers, const lab::Options& options,
                                       const Peak& peak, std::ostream& out) {
  const std::string name =
      std::string("CLBlast") + (std::is_same_v<T, double> ? "D" : "S") + "gemm";
  const auto gemm =
      reinterpret_cast<ClblastGemm<T>>(load_symbol("libclblast.so.1", name.c_str(), out));
  if (gemm == nullptr) return std::nullopt;
  const Dims& d = problem.dims;
  // CLBlast may run helper kernels (padding, transposing) before its GEMM kernel, and the event
  // it returns covers only the last one: time the whole call on the host, up to clFinish.
  const auto call = [&] {
    cl_command_queue queue = env.queue();
    cl_event event = nullptr;
    const int status =
        gemm(kRowMajor, kNoTrans, kNoTrans, d.M, d.N, d.K, T(1), buffers.a.buffer()(), 0, d.K,
             buffers.b.buffer()(), 0, d.N, T(0), buffers.c.buffer()(), 0, d.N, &queue, &event);
    if (status != 0) {
      throw lab::RuntimeError(name + " failed with status " + std::to_string(status));
    }
    env.queue.finish();
    if (event != nullptr) ::clReleaseEvent(event);
  };
  buffers.c.reset(env.queue);
  const lab::Timing time = lab::time_on_host(options, call);
  lab::HostVector<T> C(static_cast<std::size_t>(d.M) * d.N);
  env.queue.enqueueReadBuffer(buffers.c.buffer(), CL_TRUE, 0, C.size() * sizeof(T), C.data());
  const lab::CheckResult check = lab::check_matmul(C.data(), problem, "C (CLBlast)", std::cerr);
  lab::Result row = make_result("CLBlast " + lab::blas_letter<T>() + "gemm", d, time, check, peak);
  lab::mark_peer(row);
  return row;
}

#define MATMUL_PEERS(T)                                                                       \
  template std::optional<lab::Result> run_openblas<T>(const Problem<T>&, const lab::Options&, \
                                                      std::ostream&);                         \
  template std::function<double()> openblas_turn<T>(const Problem<T>&);                       \
  template std::optional<lab::Result> run_clblast<T>(                                         \
      lab::Env&, const Problem<T>&, Buffers<T>&, const lab::Options&, const Peak&, std::ostream&);
MATMUL_PEERS(float)
MATMUL_PEERS(double)
#undef MATMUL_PEERS

}  // namespace matmul
