// host_threads.hpp: host references that run on every hardware thread, for kernels whose host
// model would otherwise take the host far longer than the device.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

namespace lab {

// Calls body(begin, end) on contiguous ranges that cover [0, n), one range per hardware thread,
// and returns when all of them are done. body must be safe to call from several threads at once
// on ranges that do not overlap.
template <typename Body>
void for_each_range(std::size_t n, Body body) {
  const std::size_t threads = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t block = (n + threads - 1) / threads;
  std::vector<std::thread> pool;
  for (std::size_t begin = 0; begin < n; begin += block) {
    pool.emplace_back(body, begin, std::min(n, begin + block));
  }
  for (std::thread& thread : pool) thread.join();
}

// The host's model of kernels/events_busy.cl, which the events and transfers labs run:
// out[i] = `work` steps of the LCG and xorshift from in[i] ^ salt, with the kernel's unsigned
// 32-bit arithmetic, so the device must match it exactly.
inline void busy_reference(const std::uint32_t* in, std::uint32_t* out, std::size_t n,
                           std::uint32_t work, std::uint32_t salt) {
  for_each_range(n, [=](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      std::uint32_t x = in[i] ^ salt;
      for (std::uint32_t step = 0; step < work; ++step) {
        x = x * 1664525u + 1013904223u;
        x ^= x >> 15;
      }
      out[i] = x;
    }
  });
}

}  // namespace lab
