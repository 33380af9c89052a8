// spaces.hpp: memory_spaces' four demonstrations, each a function that builds its kernels, runs
// them, checks every element against the host, and returns one row per kernel.
#pragma once

#include "lab/lab.hpp"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace spaces {

std::vector<lab::Part> parts();  // constant, tiles, rows, private, each with its kernel file

struct Settings {
  std::uint64_t n = std::uint64_t{1} << 24;   // constant and private: elements of the input
  std::uint64_t local = 256;                  // 1-D parts' work-group size (0: the runtime's)
  std::uint64_t height = 4096, width = 4096;  // tiles: the matrices
  std::vector<std::uint64_t> tile{16, 16};    // tiles: TILE_DIM_X, TILE_DIM_Y
  bool no_barrier = false;                    // tiles and rows: build with -D BARRIER=0
  std::uint64_t columns = 16384, row_count = 16, row_length = 512;  // rows: M, R, K
  std::vector<std::uint64_t> private_sizes{4, 16, 64, 256};         // private: PRIVATE_SIZE
};

// What every demonstration uses.
struct Context {
  lab::Env& env;
  const lab::Options& options;
  const Settings& settings;
  std::ostream& out;
  std::ostream& err;
};

// The 1-3-5-3-1 stencil with its weights in __global, __constant and program-scope __constant
// memory; GB/s against the copy kernel over the same elements.
std::vector<lab::Result> constant_table(Context& c, const lab::CopyBaseline& copy);
// fill_tiles with TILE_DIM_X, TILE_DIM_Y, N and M as -D options, and the golden check of Part 3:
// Work-Groups and Synchronization.
std::vector<lab::Result> tiles(Context& c);
// Y = B A with each row of B staged in local memory: async_work_group_copy against a copy the
// work-items share by hand.
std::vector<lab::Result> rows(Context& c);
// One row per private array size: time, GB/s against the copy kernel, and the private memory the
// driver reports (what spilled, on a GPU).
std::vector<lab::Result> private_arrays(Context& c, const lab::CopyBaseline& copy);

// Throws RuntimeError when a tile does not fit the device: more work-items than a group may have,
// or two tiles of floats beyond its local memory.
void check_tile(const cl::Device& device, const std::vector<std::uint64_t>& tile);

}  // namespace spaces
