// peers.cpp: OpenBLAS and CLBlast reductions through dlopen.
#include "peers.hpp"

#include "lab/peers.hpp"

#include <iostream>
#include <limits>

namespace reduction {
namespace {

using CblasSdot = float (*)(int, const float*, int, const float*, int);
using CblasSsum = float (*)(int, const float*, int);
using ClblastSdot = int (*)(std::size_t, cl_mem, std::size_t, cl_mem, std::size_t, std::size_t,
                            cl_mem, std::size_t, std::size_t, cl_command_queue*, cl_event*);
using ClblastSsum = int (*)(std::size_t, cl_mem, std::size_t, cl_mem, std::size_t, std::size_t,
                            cl_command_queue*, cl_event*);

}  // namespace

std::optional<PeerRun> run_openblas(const lab::HostVector<float>& x,
                                    const lab::HostVector<float>& y, bool dot,
                                    const lab::Options& options, std::ostream& out) {
  if (x.size() > std::size_t(std::numeric_limits<int>::max())) return std::nullopt;
  const int n = static_cast<int>(x.size());
  PeerRun run;
  std::function<void()> call;
  if (dot) {
    const auto sdot =
        reinterpret_cast<CblasSdot>(lab::load_symbol("libopenblas.so.0", "cblas_sdot", out));
    if (sdot == nullptr) return std::nullopt;
    call = [&, sdot] { run.total = sdot(n, x.data(), 1, y.data(), 1); };
  } else {
    const auto ssum =
        reinterpret_cast<CblasSsum>(lab::load_symbol("libopenblas.so.0", "cblas_ssum", out));
    if (ssum == nullptr) return std::nullopt;
    call = [&, ssum] { run.total = ssum(n, x.data(), 1); };
  }
  run.name = std::string("OpenBLAS ") + (dot ? "sdot" : "ssum") + " (host CPU)";
  run.timing = lab::time_on_host(options, call);
  return run;
}

std::optional<PeerRun> run_clblast(lab::Env& env, const cl::Buffer& x, const cl::Buffer& y,
                                   const cl::Buffer& result, std::uint64_t n, bool dot,
                                   const lab::Options& options, std::ostream& out) {
  PeerRun run;
  std::function<int(cl_command_queue*, cl_event*)> call;
  if (dot) {
    const auto sdot =
        reinterpret_cast<ClblastSdot>(lab::load_symbol("libclblast.so.1", "CLBlastSdot", out));
    if (sdot == nullptr) return std::nullopt;
    call = [&, sdot](cl_command_queue* queue, cl_event* event) {
      return sdot(n, result(), 0, x(), 0, 1, y(), 0, 1, queue, event);
    };
  } else {
    const auto ssum =
        reinterpret_cast<ClblastSsum>(lab::load_symbol("libclblast.so.1", "CLBlastSsum", out));
    if (ssum == nullptr) return std::nullopt;
    call = [&, ssum](cl_command_queue* queue, cl_event* event) {
      return ssum(n, result(), 0, x(), 0, 1, queue, event);
    };
  }
  run.name = std::string("CLBlast ") + (dot ? "sdot" : "ssum");
  // CLBlast runs two kernels (a pass and its finish), and the event it returns covers the last.
  run.timing = lab::time_on_host(options, [&] {
    cl_command_queue queue = env.queue();
    cl_event event = nullptr;
    const int status = call(&queue, &event);
    if (status != 0) {
      throw lab::RuntimeError("CLBlast " + std::string(dot ? "Sdot" : "Ssum") +
                              " failed with status " + std::to_string(status));
    }
    env.queue.finish();
    if (event != nullptr) ::clReleaseEvent(event);
  });
  env.queue.enqueueReadBuffer(result, CL_TRUE, 0, sizeof(float), &run.total);
  run.note = "timed on the host clock up to clFinish";
  return run;
}

std::vector<lab::Result> peer_rows(lab::Env& env, const Terms<float>& terms, const cl::Buffer& x,
                                   const cl::Buffer& y, const cl::Buffer& result,
                                   const lab::Options& options, std::ostream& out) {
  const std::uint64_t n = terms.x.size();
  std::vector<lab::Result> rows;
  for (auto peer : {run_openblas(terms.x, terms.y, terms.dot, options, out),
                    run_clblast(env, x, y, result, n, terms.dot, options, out)}) {
    if (!peer) continue;
    std::string note;
    const lab::CheckResult check =
        check_any_order(terms, peer->total, "total (" + peer->name + ")", std::cerr, note);
    lab::Result row = lab::bandwidth_row(peer->name, lab::Size("n", std::int64_t(n)), peer->timing,
                                         double(n) * sizeof(float) * (terms.dot ? 2 : 1), check, 0);
    row.elements_per_s = double(n) / peer->timing.time.median / 1e9;
    row.add_note(peer->note);
    row.add_note(note);
    lab::mark_peer(row);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace reduction
