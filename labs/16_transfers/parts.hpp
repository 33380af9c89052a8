// parts.hpp: what the transfers lab's main.cpp shares with its parts, one file each:
// bandwidth.cpp (host-device transfers by path and size, with a fit of latency and bandwidth) and
// rect.cpp (rectangular copies of a sub-matrix).
#pragma once

#include "lab/lab.hpp"

#include <CL/opencl.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace transfers {

// The lab's own options (main.cpp's step 1).
struct Settings {
  std::string part = "all";
  std::uint64_t min_bytes = 4096;         // the sweep's first size
  std::uint64_t max_bytes = 64ull << 20;  // its last; sizes double in between
  lab::Shape2D matrix{4096, 4096};        // rect: the matrix on the device, floats
};

// Steps 4-9: the buffers of each path made once at the largest size, then for each size from
// min_bytes to max_bytes, doubling: every path timed in both directions (and device to device,
// and memcpy on the host), its last transfer checked byte for byte; each path's times fitted as
// t = a + n/b. One row per path and direction, at the largest size; the sweep and the fits go to
// `details`.
std::vector<lab::Result> bandwidth(lab::Cli& cli, lab::Env& env, const Settings& s,
                                   nlohmann::json& details);

// Steps 10-12: a matrix on the device and the sub-matrix in its middle (half its height and
// width) read with enqueueReadBufferRect, row by row, and as the same bytes in one piece, then
// written back with enqueueWriteBufferRect; each checked element by element.
std::vector<lab::Result> rect(lab::Cli& cli, lab::Env& env, const Settings& s,
                              nlohmann::json& details);

}  // namespace transfers
