// matmul_reference.cpp: a matrix product's inputs and its host reference, blocked and on every
// host core, with the bound each row of a device's result is held to.
#include "lab/matmul_reference.hpp"

#include "lab/cli.hpp"
#include "lab/error.hpp"
#include "lab/progress.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <type_traits>

namespace lab {
namespace {

// Rows [begin, end) of the reference, blocked so a block of B stays in cache while IB rows use it.
template <typename T>
void reference_rows(MatmulProblem<T>& p, int begin, int end) {
  using R = double;  // exact for int; for float and double, its rounding is in the bound
  constexpr int IB = 16, JB = 512;
  const int N = p.dims.N, K = p.dims.K;
  std::vector<R> acc(IB * JB);
  for (int ib = begin; ib < end; ib += IB) {
    const int rows = std::min(IB, end - ib);
    for (int jb = 0; jb < N; jb += JB) {
      const int cols = std::min(JB, N - jb);
      std::fill(acc.begin(), acc.end(), R(0));
      for (int k = 0; k < K; ++k) {
        const T* b = &p.B[static_cast<std::size_t>(k) * N + jb];
        for (int r = 0; r < rows; ++r) {
          const R a = p.A[static_cast<std::size_t>(ib + r) * K + k];
          R* c = &acc[static_cast<std::size_t>(r) * JB];
          for (int j = 0; j < cols; ++j) c[j] += a * b[j];
        }
      }
      for (int r = 0; r < rows; ++r) {
        std::copy(&acc[static_cast<std::size_t>(r) * JB],
                  &acc[static_cast<std::size_t>(r) * JB] + cols,
                  &p.C_ref[static_cast<std::size_t>(ib + r) * N + jb]);
      }
    }
  }
}

}  // namespace

Size MatmulDims::size() const {
  return Size("m", std::int64_t(M))
      .add("n", std::int64_t(N))
      .add("k", std::int64_t(K))
      .label(text());
}

std::string MatmulDims::text() const {
  if (M == N && N == K) return "N=" + std::to_string(N);
  return "M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" + std::to_string(K);
}

template <typename T>
MatmulProblem<T> make_matmul_problem(const MatmulDims& dims, std::uint64_t seed,
                                     const std::string& what) {
  MatmulProblem<T> p;
  p.dims = dims;
  // A large reference takes minutes: it says how far along it is (lab/progress.hpp), in blocks
  // of 16 rows of C.
  const int blocks = (dims.M + 15) / 16;
  Progress progress(what, blocks);
  const std::size_t a_size = static_cast<std::size_t>(dims.M) * dims.K;
  const std::size_t b_size = static_cast<std::size_t>(dims.K) * dims.N;
  if constexpr (std::is_floating_point_v<T>) {
    p.A = random_vector<T>(a_size, derive_seed(seed, 0), -1, 1);
    p.B = random_vector<T>(b_size, derive_seed(seed, 1), -1, 1);
  } else {
    p.A = random_vector<T>(a_size, derive_seed(seed, 0), -9, 9);
    p.B = random_vector<T>(b_size, derive_seed(seed, 1), -9, 9);
  }
  p.C_ref.assign(static_cast<std::size_t>(dims.M) * dims.N, 0.0);

  // The reference, on every host core: blocks of 16 rows handed out one by one.
  std::atomic<int> next{0};
  const int threads = std::max(1, std::min<int>(blocks, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (int b = next++; b < blocks; b = next++) {
        reference_rows(p, 16 * b, std::min(dims.M, 16 * b + 16));
        progress.add(1);
      }
    });
  }
  for (auto& thread : pool) thread.join();

  p.row_tolerance.assign(dims.M, 0.0);
  if constexpr (std::is_floating_point_v<T>) {
    // The device's rounding in the type's u, plus the reference's own: a K-term dot product in
    // double, within gamma_K for u = 2^-53 (for float a small share of the bound; for double it
    // doubles it, still a bound of double's accuracy).
    const auto gamma_k = [&](double u) { return dims.K * u / (1.0 - dims.K * u); };
    const double gamma = gamma_k(unit_roundoff<T>()) + gamma_k(unit_roundoff<double>());
    std::vector<double> b_max(dims.K, 0.0);
    for (int k = 0; k < dims.K; ++k) {
      for (int j = 0; j < dims.N; ++j) {
        b_max[k] =
            std::max(b_max[k], std::fabs(double(p.B[static_cast<std::size_t>(k) * dims.N + j])));
      }
    }
    for (int i = 0; i < dims.M; ++i) {
      double sum = 0;
      for (int k = 0; k < dims.K; ++k) {
        sum += std::fabs(double(p.A[static_cast<std::size_t>(i) * dims.K + k])) * b_max[k];
      }
      p.row_tolerance[i] = gamma * sum;
    }
  }
  return p;
}

template <typename T>
double matmul_reference_rate() {
  // 64 rows of C per host thread (4 blocks each), 512 x 512: about 10 ms on every core.
  const int threads = std::max(1u, std::thread::hardware_concurrency());
  const MatmulDims sample{64 * threads, 512, 512};
  const auto start = std::chrono::steady_clock::now();
  make_matmul_problem<T>(sample, 1, "");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return double(sample.M) * sample.N * sample.K / std::max(seconds, 1e-9);
}

void check_matmul_reference_time(const MatmulDims& dims, const std::string& dtype) {
  const double macs = double(dims.M) * dims.N * dims.K;
  if (macs < 1e9) return;  // a second at most on any host: not worth measuring
  double limit = kHostTimeLimit;
  if (const char* text = std::getenv("LAB_HOST_TIME_LIMIT"); text != nullptr && *text != '\0') {
    limit = parse_positive("LAB_HOST_TIME_LIMIT", text, 1e-3, 1e9);
  }
  const double rate =
      dtype == "double" ? matmul_reference_rate<double>() : matmul_reference_rate<float>();
  const double seconds = macs / rate;
  if (seconds <= limit) return;
  char numbers[160];
  std::snprintf(numbers, sizeof numbers, "%.1e multiply-adds at %.1e a second on this host", macs,
                rate);
  throw UsageError(dims.text() + " would need about " + format_duration(seconds) +
                   " for the host reference alone (" + numbers + "), over the limit of " +
                   format_duration(limit) + " (LAB_HOST_TIME_LIMIT): choose sizes " +
                   "whose M*N*K is at most about " +
                   std::to_string(std::lround(std::cbrt(limit * rate))) + "^3");
}

template <typename T>
CheckResult check_matmul(const T* C, const MatmulProblem<T>& problem, const std::string& name,
                         std::ostream& err) {
  const auto& tolerance = problem.row_tolerance;
  const std::size_t columns = problem.dims.N;
  return compare_each(
      C, problem.C_ref.data(), problem.C_ref.size(),
      [&](std::size_t index) { return tolerance[index / columns]; }, err, name, columns);
}

#define LAB_MATMUL_REFERENCE(T)                                                               \
  template MatmulProblem<T> make_matmul_problem<T>(const MatmulDims&, std::uint64_t,          \
                                                   const std::string&);                       \
  template double matmul_reference_rate<T>();                                                 \
  template CheckResult check_matmul<T>(const T*, const MatmulProblem<T>&, const std::string&, \
                                       std::ostream&);
LAB_MATMUL_REFERENCE(float)
LAB_MATMUL_REFERENCE(double)
LAB_MATMUL_REFERENCE(int)
#undef LAB_MATMUL_REFERENCE

}  // namespace lab
