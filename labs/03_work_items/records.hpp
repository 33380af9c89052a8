// records.hpp: the work_items lab's record layout, the values a launch implies, grid printing.
#pragma once

#include "lab/data.hpp"
#include "lab/verify.hpp"

#include <CL/opencl.hpp>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

using Dims = std::vector<std::uint64_t>;

// One record per work-item, as kernels/work_items_record.cl writes it: 7 per-dimension fields of
// 3 values each, then get_work_dim() and the in-range flag.
constexpr int kPerDimFields = 7;
constexpr int kLocalSize = 4;  // the field index of get_local_size
constexpr int kWorkDim = 3 * kPerDimFields;
constexpr int kInRange = kWorkDim + 1;
constexpr int kRecordSize = kWorkDim + 2;
extern const char* const kFieldNames[kPerDimFields];

// A launch as three dimensions; dimensions the launch lacks have size 1 and offset 0.
struct Grid {
  int dims = 0;
  std::uint64_t global[3] = {1, 1, 1};
  std::uint64_t local[3] = {1, 1, 1};
  std::uint64_t offset[3] = {0, 0, 0};
  std::uint64_t requested[3] = {1, 1, 1};
  std::uint64_t items() const { return global[0] * global[1] * global[2]; }
};

// "get_local_id(1)", "get_work_dim()", "in_range" for a field index of a record.
std::string field_name(int index);

// Compares every field of every record with what `grid` implies (global id = group id x local
// size + local id + offset, ...), counting work-items whose record is wrong and printing the
// first wrong field of at most 10 of them to `err`, named by global id (offset included).
lab::CheckResult check_records(const Grid& grid, const lab::HostVector<cl_uint>& records,
                               std::ostream& err);

// One grid per id function and dimension: rows along dimension 0, columns along dimension 1, as
// Liu's Intermediate OpenCL Programming prints globalId[d][id0][id1]; a 3-D launch prints one block
// per slice of dimension 2. Padding work-items (outside the requested size) are marked with '*'.
void print_grids(const Grid& grid, const lab::HostVector<cl_uint>& records, std::ostream& out);
