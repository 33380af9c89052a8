// matmul_reference.hpp: a matrix product's inputs and its host reference, for the labs that
// multiply matrices (matmul, multi_device): random A and B, C computed in double on every host
// core, and the per-row bound a device's result is held to.
#pragma once

#include "lab/data.hpp"
#include "lab/report.hpp"
#include "lab/verify.hpp"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace lab {

// C (M×N) = A (M×K) · B (K×N), row-major.
struct MatmulDims {
  int M = 0;
  int N = 0;
  int K = 0;
  double flops() const { return 2.0 * M * N * K; }
  std::string text() const;  // "M=64 N=64 K=64" or "N=1024" when square
  Size size() const;         // {m, n, k} with text() for words
};

// Inputs and the reference result. Float and double inputs are uniform in [-1, 1) and the
// reference is computed in double; int inputs are uniform in [-9, 9] and the reference is exact.
template <typename T>
struct MatmulProblem {
  MatmulDims dims;
  HostVector<T> A;
  HostVector<T> B;
  std::vector<double> C_ref;  // exact for int (|values| < 2^53)
  // Per row of C, the largest error allowed: gamma_K * sum_k |A(i,k)| * max_j |B(k,j)|, where
  // gamma_K = K u / (1 - K u), u the type's unit roundoff (2^-24, 2^-53): the worst-case
  // rounding of a K-term dot product in any order; plus the reference's own, gamma_K for
  // u = 2^-53 (a double row is held to twice double's bound). 0 for int.
  std::vector<double> row_tolerance;
};

// The inputs from `seed` and the reference, blocked and on every host core; a large one says how
// far along it is on stderr, as `what` (lab/progress.hpp).
template <typename T>
MatmulProblem<T> make_matmul_problem(const MatmulDims& dims, std::uint64_t seed,
                                     const std::string& what);

// Multiply-adds per second of the host reference (make_matmul_problem<T>) on this host's cores,
// measured on a small problem in a few milliseconds.
template <typename T>
double matmul_reference_rate();

// Refuses (UsageError, exit 2) sizes whose host reference alone would take longer than
// LAB_HOST_TIME_LIMIT seconds (default kHostTimeLimit), estimated from matmul_reference_rate<T>()
// for `dtype` ("float", "double" or "int"), with the time it would take and the size that fits.
constexpr double kHostTimeLimit = 3600;
void check_matmul_reference_time(const MatmulDims& dims, const std::string& dtype);

// Compares a device result (M×N, row-major) with the reference: exact for int, within
// row_tolerance for float and double.
template <typename T>
CheckResult check_matmul(const T* C, const MatmulProblem<T>& problem, const std::string& name,
                         std::ostream& err);

}  // namespace lab
