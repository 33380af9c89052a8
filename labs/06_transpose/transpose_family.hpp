// transpose_family.hpp: the transpose family as a table (lab::Family): a coalesced copy (the
// ceiling), the naive transpose, and local-tile transposes (plain, padded, diagonal order, several
// elements per work-item), one kernel file each, kernels/transpose_<variant>.cl.
#pragma once

#include "lab/lab.hpp"

#include <cstdint>
#include <string>

namespace transpose {

// A (height x width) is transposed into B (width x height), both row-major.
using Dims = lab::Shape2D;

struct Shape {
  bool transposes = true;  // false for copy, whose B equals A
};

using Family = lab::Family<Dims, Shape>;
using Variant = lab::Variant<Dims, Shape>;

// Tunables: TILE (--tile, the tile side, a -D), MULTI_TILE (--multi-tile, multi's tile side),
// ROWS (--rows-per-item, multi's elements per work-item), ALIGN (--align) for aligned, BLOCK_ROWS
// (--block-rows), STRIP (--strip), STRIPS (--strips) and STREAM (--streaming-stores) for blocks.
// Rows: copy, naive, coalesced, padded, diagonal, multi, aligned, blocks.
const Family& family();

// A GPU: TILE 16, multi and aligned 64 x 64 with ROWS 16 and ALIGN 16, blocks 16 rows a
// work-item, 16 work-items down a strip. A CPU: TILE 16, multi 16 x 16 with ROWS 16, blocks 16
// rows a work-item, 8 work-items along the rows, streaming stores.
lab::Tuning default_tuning(const cl::Device& device);

// How far past the end of A and B (elements) a padded launch reaches without bounds checks.
struct Reach {
  std::uint64_t a = 0;
  std::uint64_t b = 0;
};
Reach launch_reach(const Variant& variant, const Dims& dims, const lab::Tuning& tuning);

// The arguments every row takes, (int height, int width, global REAL* A, global REAL* B), with
// REAL `real`; the coalescing lab's scan takes the same.
lab::KernelSignature signature(const std::string& real);

}  // namespace transpose
