// peers.hpp: the libraries matmul is measured against in the same run, loaded with dlopen when
// they are installed, so the lab itself needs only libOpenCL: OpenBLAS's cblas_sgemm on the host
// CPU and CLBlast's CLBlastSgemm on the chosen OpenCL device.
#pragma once

#include "matmul.hpp"

#include <functional>
#include <optional>
#include <vector>

namespace matmul {

// cblas_sgemm from libopenblas.so.0, timed with the host clock (warm-up, then repetitions), its
// result checked like any variant. Empty (with a note to `out`) when OpenBLAS is not installed.
std::optional<lab::Result> run_openblas(const Problem<float>& problem, const lab::Options& options,
                                        std::ostream& out);

// One cblas_sgemm of `problem` on the host for lab::InTurnsWith: it runs the call and returns
// its seconds. Empty when OpenBLAS is not installed (run_openblas says so).
std::function<double()> openblas_turn(const Problem<float>& problem);

// A note on each row that took turns with OpenBLAS: its rate over OpenBLAS's in the same round,
// the median and the spread over the rounds.
void note_against_openblas(std::vector<lab::Result>& rows);

// CLBlastSgemm from libclblast.so.1 on env's queue, timed on the host clock from the call to
// clFinish (the event CLBlast returns covers only its last kernel), its result checked.
std::optional<lab::Result> run_clblast(lab::Env& env, const Problem<float>& problem,
                                       Buffers<float>& buffers, const lab::Options& options,
                                       const Peak& peak, std::ostream& out);

}  // namespace matmul
