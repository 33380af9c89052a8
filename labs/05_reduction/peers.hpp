// peers.hpp: the libraries the reduction is measured against in the same run, loaded with dlopen
// when installed: OpenBLAS's cblas_sdot / cblas_ssum (cblas_ddot / cblas_dsum for double) on the
// host and CLBlast's CLBlastSdot / CLBlastSsum (CLBlastDdot / CLBlastDsum) on the chosen OpenCL
// device. T is float or double: neither library has an int version.
#pragma once

#include "reference.hpp"

#include "lab/lab.hpp"

#include <optional>
#include <string>
#include <vector>

namespace reduction {

template <typename T>
struct PeerRun {
  std::string name;
  T total = 0;
  lab::Timing timing;  // host clock
  std::string note;
};

// cblas_?dot(x, y) or cblas_?sum(x) on the host, warm-up and repetitions on the host clock.
template <typename T>
std::optional<PeerRun<T>> run_openblas(const lab::HostVector<T>& x, const lab::HostVector<T>& y,
                                       bool dot, const lab::Options& options, std::ostream& out);

// CLBlast?dot or CLBlast?sum over the lab's own device buffers, into `result`, timed on the host
// clock up to clFinish (CLBlast may run more than one kernel).
template <typename T>
std::optional<PeerRun<T>> run_clblast(lab::Env& env, const cl::Buffer& x, const cl::Buffer& y,
                                      const cl::Buffer& result, std::uint64_t n, bool dot,
                                      const lab::Options& options, std::ostream& out);

// The rows of the peers that are installed, each checked against the bound of any order of
// additions in T: OpenBLAS on the host's x and y, CLBlast on the lab's buffers.
template <typename T>
std::vector<lab::Result> peer_rows(lab::Env& env, const Terms<T>& terms, const cl::Buffer& x,
                                   const cl::Buffer& y, const cl::Buffer& result,
                                   const lab::Options& options, std::ostream& out);

}  // namespace reduction
