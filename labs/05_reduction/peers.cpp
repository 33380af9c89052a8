// peers.cpp: OpenBLAS and CLBlast reductions through dlopen.
#include "peers.hpp"

#include "lab/peers.hpp"

#include <iostream>
#include <limits>
#include <string>
#include <type_traits>

namespace reduction {
namespace {

// The float and the double routines take the same arguments, of their own type.
template <typename T>
using CblasDot = T (*)(int, const T*, int, const T*, int);
template <typename T>
using CblasSum = T (*)(int, const T*, int);
using ClblastDot = int (*)(std::size_t, cl_mem, std::size_t, cl_mem, std::size_t, std::size_t,
                           cl_mem, std::size_t, std::size_t, cl_command_queue*, cl_event*);
using ClblastSum = int (*)(std::size_t, cl_mem, std::size_t, cl_mem, std::size_t, std::size_t,
                           cl_command_queue*, cl_event*);

}  // namespace

template <typename T>
std::optional<PeerRun<T>> run_openblas(const lab::HostVector<T>& x, const lab::HostVector<T>& y,
                                       bool dot, const lab::Options& options, std::ostream& out) {
  if (x.size() > std::size_t(std::numeric_limits<int>::max())) return std::nullopt;
  const int n = static_cast<int>(x.size());
  const std::string routine = lab::blas_letter<T>() + (dot ? "dot" : "sum");
  PeerRun<T> run;
  std::function<void()> call;
  void* symbol = lab::load_symbol("libopenblas.so.0", ("cblas_" + routine).c_str(), out);
  if (symbol == nullptr) return std::nullopt;
  if (dot) {
    const auto blas_dot = reinterpret_cast<CblasDot<T>>(symbol);
    call = [&, blas_dot] { run.total = blas_dot(n, x.data(), 1, y.data(), 1); };
  } else {
    const auto blas_sum = reinterpret_cast<CblasSum<T>>(symbol);
    call = [&, blas_sum] { run.total = blas_sum(n, x.data(), 1); };
  }
  run.name = "OpenBLAS " + routine + " (host CPU)";
  run.timing = lab::time_on_host(options, call);
  return run;
}

template <typename T>
std::optional<PeerRun<T>> run_clblast(lab::Env& env, const cl::Buffer& x, const cl::Buffer& y,
                                      const cl::Buffer& result, std::uint64_t n, bool dot,
                                      const lab::Options& options, std::ostream& out) {
  PeerRun<T> run;
  std::function<int(cl_command_queue*, cl_event*)> call;
  const std::string routine =
      std::string(std::is_same_v<T, double> ? "D" : "S") + (dot ? "dot" : "sum");
  void* symbol = lab::load_symbol("libclblast.so.1", ("CLBlast" + routine).c_str(), out);
  if (symbol == nullptr) return std::nullopt;
  if (dot) {
    const auto clblast_dot = reinterpret_cast<ClblastDot>(symbol);
    call = [&, clblast_dot](cl_command_queue* queue, cl_event* event) {
      return clblast_dot(n, result(), 0, x(), 0, 1, y(), 0, 1, queue, event);
    };
  } else {
    const auto clblast_sum = reinterpret_cast<ClblastSum>(symbol);
    call = [&, clblast_sum](cl_command_queue* queue, cl_event* event) {
      return clblast_sum(n, result(), 0, x(), 0, 1, queue, event);
    };
  }
  run.name = "CLBlast " + lab::blas_letter<T>() + (dot ? "dot" : "sum");
  // CLBlast runs two kernels (a pass and its finish), and the event it returns covers the last.
  run.timing = lab::time_on_host(options, [&] {
    cl_command_queue queue = env.queue();
    cl_event event = nullptr;
    const int status = call(&queue, &event);
    if (status != 0) {
      throw lab::RuntimeError("CLBlast" + routine + " failed with status " +
                              std::to_string(status));
    }
    env.queue.finish();
    if (event != nullptr) ::clReleaseEvent(event);
  });
  env.queue.enqueueReadBuffer(result, CL_TRUE, 0, sizeof(T), &run.total);
  run.note = "timed on the host clock up to clFinish";
  return run;
}

template <typename T>
std::vector<lab::Result> peer_rows(lab::Env& env, const Terms<T>& terms, const cl::Buffer& x,
                                   const cl::Buffer& y, const cl::Buffer& result,
                                   const lab::Options& options, std::ostream& out) {
  const std::uint64_t n = terms.x.size();
  std::vector<lab::Result> rows;
  for (auto peer : {run_openblas<T>(terms.x, terms.y, terms.dot, options, out),
                    run_clblast<T>(env, x, y, result, n, terms.dot, options, out)}) {
    if (!peer) continue;
    std::string note;
    const lab::CheckResult check =
        check_any_order(terms, peer->total, "total (" + peer->name + ")", std::cerr, note);
    lab::Result row = lab::bandwidth_row(peer->name, lab::Size("n", std::int64_t(n)), peer->timing,
                                         double(n) * sizeof(T) * (terms.dot ? 2 : 1), check, 0);
    row.elements_per_s = double(n) / peer->timing.time.median / 1e9;
    row.add_note(peer->note);
    row.add_note(note);
    lab::mark_peer(row);
    rows.push_back(row);
  }
  return rows;
}

template std::vector<lab::Result> peer_rows<float>(lab::Env&, const Terms<float>&,
                                                   const cl::Buffer&, const cl::Buffer&,
                                                   const cl::Buffer&, const lab::Options&,
                                                   std::ostream&);
template std::vector<lab::Result> peer_rows<double>(lab::Env&, const Terms<double>&,
                                                    const cl::Buffer&, const cl::Buffer&,
                                                    const cl::Buffer&, const lab::Options&,
                                                    std::ostream&);

}  // namespace reduction
