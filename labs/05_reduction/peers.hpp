// peers.hpp: the libraries the reduction is measured against in the same run, loaded with dlopen
// when installed: OpenBLAS's cblas_sdot / cblas_ssum on the host and CLBlast's CLBlastSdot /
// CLBlastSsum on the chosen OpenCL device (float only: neither has an int version).
#pragma once

#include "lab/lab.hpp"

#include <optional>
#include <string>

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

}  // namespace reduction
