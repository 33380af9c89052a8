// records.cpp: expected work-item records, their check, and the grids.
#include "records.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>

const char* const kFieldNames[kPerDimFields] = {
    "get_global_id",  "get_local_id",    "get_group_id",     "get_num_groups",
    "get_local_size", "get_global_size", "get_global_offset"};

namespace {

// What the record of work-item g (counted from the offset) must hold.
std::vector<cl_uint> expected_record(const Grid& grid, const std::uint64_t g[3]) {
  std::vector<cl_uint> r(kRecordSize);
  bool in_range = true;
  for (int d = 0; d < 3; ++d) {
    const std::uint64_t values[kPerDimFields] = {
        g[d] + grid.offset[d], g[d] % grid.local[d],
        g[d] / grid.local[d],  grid.global[d] / grid.local[d],
        grid.local[d],         grid.global[d],
        grid.offset[d]};
    for (int f = 0; f < kPerDimFields; ++f) r[3 * f + d] = static_cast<cl_uint>(values[f]);
    in_range = in_range && g[d] < grid.requested[d];
  }
  r[kWorkDim] = static_cast<cl_uint>(grid.dims);
  r[kInRange] = in_range ? 1 : 0;
  return r;
}

const cl_uint* record_of(const Grid& grid, const lab::HostVector<cl_uint>& records,
                         std::uint64_t g0, std::uint64_t g1, std::uint64_t g2) {
  return &records[(g0 + grid.global[0] * (g1 + grid.global[1] * g2)) * kRecordSize];
}

}  // namespace

std::string field_name(int index) {
  if (index == kWorkDim) return "get_work_dim()";
  if (index == kInRange) return "in_range";
  return std::string(kFieldNames[index / 3]) + "(" + std::to_string(index % 3) + ")";
}

lab::CheckResult check_records(const Grid& grid, const lab::HostVector<cl_uint>& records,
                               std::ostream& err) {
  lab::CheckResult check;
  for (std::uint64_t g2 = 0; g2 < grid.global[2]; ++g2) {
    for (std::uint64_t g1 = 0; g1 < grid.global[1]; ++g1) {
      for (std::uint64_t g0 = 0; g0 < grid.global[0]; ++g0) {
        const std::uint64_t g[3] = {g0, g1, g2};
        const auto want = expected_record(grid, g);
        const cl_uint* got = record_of(grid, records, g0, g1, g2);
        ++check.checked;
        bool wrong = false;
        for (int f = 0; f < kRecordSize; ++f) {
          if (got[f] == want[f]) continue;
          if (!wrong && check.mismatches < lab::kMaxMismatchLines) {
            // The work-item as get_global_id names it: its place in the grid plus the offset.
            err << "  wrong record of work-item (" << g0 + grid.offset[0] << ","
                << g1 + grid.offset[1] << "," << g2 + grid.offset[2] << "): " << field_name(f)
                << " = " << got[f] << ", expected " << want[f];
            if (got[f] == 0x5A5A5A5AU) err << " (the sentinel: this field was never written)";
            err << "\n";
          }
          wrong = true;
        }
        if (wrong) ++check.mismatches;
      }
    }
  }
  if (check.mismatches > lab::kMaxMismatchLines) {
    err << "  ... and " << check.mismatches - lab::kMaxMismatchLines
        << " more: " << check.mismatches << " of " << check.checked
        << " work-items wrote a wrong record\n";
  }
  return check;
}

void print_grids(const Grid& grid, const lab::HostVector<cl_uint>& records, std::ostream& out) {
  const std::uint64_t rows = grid.dims == 1 ? 1 : grid.global[0];
  const std::uint64_t cols = grid.dims == 1 ? grid.global[0] : grid.global[1];
  for (int field = 0; field < 3; ++field) {
    for (int d = 0; d < grid.dims; ++d) {
      const int index = 3 * field + d;
      cl_uint widest = 0;
      for (std::uint64_t i = 0; i < grid.items(); ++i) {
        widest = std::max(widest, records[i * kRecordSize + index]);
      }
      const int width = static_cast<int>(std::to_string(widest).size()) + 1;
      out << "\n" << field_name(index) << "\n";
      for (std::uint64_t z = 0; z < grid.global[2]; ++z) {
        if (grid.dims == 3) out << " [dimension 2 = " << z << "]\n";
        for (std::uint64_t row = 0; row < rows; ++row) {
          for (std::uint64_t col = 0; col < cols; ++col) {
            const cl_uint* r = grid.dims == 1 ? record_of(grid, records, col, 0, 0)
                                              : record_of(grid, records, row, col, z);
            out << std::setw(width) << r[index] << (r[kInRange] ? ' ' : '*');
          }
          out << "\n";
        }
      }
    }
  }
}
