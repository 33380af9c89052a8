// parts.hpp: what the transfers lab's main.cpp shares with its parts, one file each:
// bandwidth.cpp (host-device transfers by path and size, with a fit of latency and bandwidth) and
// rect.cpp (rectangular copies of a sub-matrix) and overlap.cpp (a pipeline of uploads, kernels
// and downloads in one queue and across several).
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
  std::uint64_t chunks = 8;               // overlap: the pipeline's chunks
  std::uint64_t chunk = 4ull << 20;       // overlap: uints in a chunk (16 MiB)
  std::uint64_t work = 0;                 // overlap: the kernel's steps; 0 chooses
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

// Steps 13-17: `chunks` chunks, each uploaded from pinned memory, run through events_busy and
// downloaded into pinned memory, in one in-order queue, across two queues (copies, kernels) and
// across three (uploads, kernels, downloads) with events between a chunk's stages; the variants
// run in turns, every element of every run checked. One row per variant: the span from the first
// command's start to the last one's end, against the span the stage times predict, and the time
// commands ran side by side; each variant's last run drawn as a timeline.
std::vector<lab::Result> overlap(lab::Cli& cli, lab::Env& env, const Settings& s,
                                 nlohmann::json& details);

}  // namespace transfers
