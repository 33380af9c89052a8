// vector_add_family.hpp: vector_add's variants as a table (lab::Family): one element per
// work-item, or PER_ITEM elements per work-item with a grid stride, over work-groups of LOCAL.
#pragma once

#include "lab/lab.hpp"

#include <cstdint>

namespace vector_add {

// The problem size: the vectors' length.
using Length = std::uint64_t;
using Family = lab::Family<Length>;
using Variant = lab::Variant<Length>;

// Tunables: LOCAL (--local; 0, the default, lets the runtime choose) and PER_ITEM (--per-item).
// Rows: "element" (kernel vector_add) and "per_item" (kernel vector_add_per_item).
const Family& family();

// LOCAL 0 (the runtime's choice) and PER_ITEM 4.
lab::Tuning default_tuning();

// The arguments every vector_add kernel takes: (ulong n, global float* a, b, c).
lab::KernelSignature signature();

}  // namespace vector_add
