// data.hpp: host arrays aligned for zero-copy buffers (large ones in huge pages), filled with
// seeded random values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <random>
#include <type_traits>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace lab {

// 128-byte alignment: PoCL warns about less for CL_MEM_USE_HOST_PTR, and it suits cache lines.
constexpr std::size_t kHostAlignment = 128;

// Host arrays of 2 MiB or more start on a 2 MiB boundary and are offered to Linux's transparent
// huge pages (madvise MADV_HUGEPAGE: Debian and Ubuntu give them only where asked). A kernel that
// walks a matrix down its columns touches a new 4 KiB page with every row, and the TLB that
// translates addresses holds a few thousand pages; with 2 MiB pages it covers 512 times as much.
// Buffers made on this memory (CL_MEM_USE_HOST_PTR on a CPU device) give the kernels the pages too.
constexpr std::size_t kHugePage = std::size_t(2) << 20;
inline std::size_t host_alignment(std::size_t bytes) {
  return bytes >= kHugePage ? kHugePage : kHostAlignment;
}

template <typename T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <typename U>
  AlignedAllocator(const AlignedAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_alloc();
    const std::size_t bytes = n * sizeof(T);
    void* p = ::operator new (bytes, std::align_val_t{host_alignment(bytes)});
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= kHugePage) ::madvise(p, bytes, MADV_HUGEPAGE);  // advice only: errors ignored
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    ::operator delete (p, std::align_val_t{host_alignment(n * sizeof(T))});
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

// The OpenCL C name of a lab's element type, as its kernels' REAL: "float" or "int".
template <typename T>
const char* opencl_type_name() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, int>, "the labs use float or int");
  return std::is_same_v<T, float> ? "float" : "int";
}

// n values uniform in [lo, hi) (floating point) or [lo, hi] (integers), reproducible from seed.
template <typename T>
HostVector<T> random_vector(std::size_t n, std::uint64_t seed, T lo, T hi) {
  std::mt19937_64 engine(seed);
  HostVector<T> values(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<T> dist(lo, hi);
    for (auto& v : values) v = dist(engine);
  } else {
    std::uniform_int_distribution<T> dist(lo, hi);
    for (auto& v : values) v = dist(engine);
  }
  return values;
}

// A seed for the k-th input array of a lab, so arrays differ but stay reproducible.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream);

}  // namespace lab
