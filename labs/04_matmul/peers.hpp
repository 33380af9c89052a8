// peers.hpp: the libraries matmul is measured against in the same run, loaded with dlopen when
// they are installed, so the lab itself needs only libOpenCL: OpenBLAS's cblas_sgemm (float) or
// cblas_dgemm (double) on the host CPU and CLBlast's CLBlastSgemm or CLBlastDgemm on the chosen
// OpenCL device. T is float or double.
#pragma once

#include "matmul.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace matmul {

// cblas_sgemm or cblas_dgemm from libopenblas.so.0, timed with the host clock (warm-up, then
// repetitions), its result checked like any variant. Empty (with a note to `out`) when OpenBLAS
// is not installed.
template <typename T>
std::optional<lab::Result> run_openblas(const Problem<T>& problem, const lab::Options& options,
                                        std::ostream& out);

// One GEMM of `problem` through OpenBLAS on the host for lab::InTurnsWith: it runs the call and
// returns its seconds. Empty when OpenBLAS is not installed (run_openblas says so).
template <typename T>
std::function<double()> openblas_turn(const Problem<T>& problem);

// A note on each row that took turns with OpenBLAS (`peer`: "OpenBLAS sgemm" or "OpenBLAS
// dgemm"): its rate over OpenBLAS's in the same round, the median and the spread over the rounds.
void note_against_openblas(std::vector<lab::Result>& rows, const std::string& peer);

// CLBlastSgemm or CLBlastDgemm from libclblast.so.1 on env's queue, timed on the host clock
// from the call to clFinish (the event CLBlast returns covers only its last kernel), its result
// checked.
template <typename T>
std::optional<lab::Result> run_clblast(lab::Env& env, const Problem<T>& problem,
                                       Buffers<T>& buffers, const lab::Options& options,
                                       const Peak& peak, std::ostream& out);

}  // namespace matmul
