// peers.hpp: the libraries the reduction is measured against in the same run, loaded with dlopen
// when installed: OpenBLAS's cblas_sdot / cblas_ssum on the host and CLBlast's CLBlastSdot /
// CLBlastSsum on the chosen OpenCL device (float only: neither has an int version).
#pragma once

#include "reference.hpp"

#include "lab/lab.hpp"

#include <optional>
#include <string>
#include <vector>

namespace reduction {

struct PeerRun {
  std::string name;
  float total = 0;
  lab::Timing timing;  // host clock
  std::string note;
};

// cblas_sdot(x, y) or cblas_ssum(x) on the host, warm-up and repetitions on the host clock.
std::optional<PeerRun> run_openblas(const lab::HostVector<float>& x,
                                    const lab::HostVector<float>& y, bool dot,
                                    const lab::Options& options, std::ostream& out);

// CLBlastSdot or CLBlastSsum over the lab's own device buffers, into `result`, timed on the host
// clock up to clFinish (CLBlast may run more than one kernel).
std::optional<PeerRun> run_clblast(lab::Env& env, const cl::Buffer& x, const cl::Buffer& y,
                                   const cl::Buffer& result, std::uint64_t n, bool dot,
                                   const lab::Options& options, std::ostream& out);

// The rows of the peers that are installed, each checked against the bound of any order of
// additions: OpenBLAS on the host's x and y, CLBlast on the lab's buffers.
std::vector<lab::Result> peer_rows(lab::Env& env, const Terms<float>& terms, const cl::Buffer& x,
                                   const cl::Buffer& y, const cl::Buffer& result,
                                   const lab::Options& options, std::ostream& out);

}  // namespace reduction
