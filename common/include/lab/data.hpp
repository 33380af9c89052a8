// data.hpp: host arrays aligned for zero-copy buffers, filled with seeded random values.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <random>
#include <type_traits>
#include <vector>

namespace lab {

// 128-byte alignment: PoCL warns about less for CL_MEM_USE_HOST_PTR, and it suits cache lines.
constexpr std::size_t kHostAlignment = 128;

template <typename T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <typename U>
  AlignedAllocator(const AlignedAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_alloc();
    return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{kHostAlignment}));
  }
  void deallocate(T* p, std::size_t) noexcept {
    ::operator delete (p, std::align_val_t{kHostAlignment});
  }
  template <typename U>
  bool operator==(const AlignedAllocator<U>&) const noexcept {
    return true;
  }
  template <typename U>
  bool operator!=(const AlignedAllocator<U>&) const noexcept {
    return false;
  }
};

template <typename T>
using HostVector = std::vector<T, AlignedAllocator<T>>;

// Asks Linux for transparent huge pages (2 MiB) for the whole 2 MiB pieces of [p, p + bytes),
// with madvise(MADV_HUGEPAGE): Debian's and Ubuntu's default ("madvise") gives them only to
// memory that asks. A kernel that walks a matrix down its columns touches a new 4 KiB page with
// every row, and the TLB holds a few thousand translations; a 2 MiB page covers 512 small ones.
// Advice only, taken into account for memory not touched yet; elsewhere it does nothing.
void ask_for_huge_pages(void* p, std::size_t bytes);

// n value-initialised elements in memory that asked for huge pages before it was first touched.
// For arrays that buffers use in place (CL_MEM_USE_HOST_PTR) on a CPU device.
template <typename T>
HostVector<T> huge_page_vector(std::size_t n) {
  HostVector<T> values;
  values.reserve(n);
  ask_for_huge_pages(values.data(), n * sizeof(T));
  values.resize(n);
  return values;
}

// The OpenCL C name of a lab's element type, as its kernels' REAL: "float", "double" or "int".
template <typename T>
const char* opencl_type_name() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int>,
                "the labs use float, double or int");
  return std::is_same_v<T, float> ? "float" : std::is_same_v<T, double> ? "double" : "int";
}

// The unit roundoff u of a floating-point type (2^-24 for float, 2^-53 for double): a sum or
// product rounded once is within a factor 1 + u of the exact one. 0 for an integer type.
template <typename T>
double unit_roundoff() {
  if constexpr (std::is_floating_point_v<T>) {
    return std::ldexp(1.0, -std::numeric_limits<T>::digits);
  } else {
    return 0;
  }
}

// Neumaier's compensated sum in long double: `compensation` collects what each addition to `sum`
// rounds off, so value() is off the exact sum by about long double's rounding of it alone. The
// references of the reduction and scan labs, held far inside any float or double bound.
struct CompensatedSum {
  long double sum = 0;
  long double compensation = 0;
  void add(long double term) {
    const long double next = sum + term;
    compensation += std::fabs(sum) >= std::fabs(term) ? (sum - next) + term : (term - next) + sum;
    sum = next;
  }
  long double value() const { return sum + compensation; }
};

// Fills values uniformly in [lo, hi) (floating point) or [lo, hi] (integers), reproducibly from
// seed; for arrays whose memory was chosen first (huge_page_vector).
template <typename T>
void fill_random(HostVector<T>& values, std::uint64_t seed, T lo, T hi) {
  std::mt19937_64 engine(seed);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<T> dist(lo, hi);
    for (auto& v : values) v = dist(engine);
  } else {
    std::uniform_int_distribution<T> dist(lo, hi);
    for (auto& v : values) v = dist(engine);
  }
}

// n values as fill_random makes them.
template <typename T>
HostVector<T> random_vector(std::size_t n, std::uint64_t seed, T lo, T hi) {
  HostVector<T> values(n);
  fill_random(values, seed, lo, hi);
  return values;
}

// A seed for the k-th input array of a lab, so arrays differ but stay reproducible.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream);

}  // namespace lab
