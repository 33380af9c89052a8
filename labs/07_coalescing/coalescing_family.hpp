// coalescing_family.hpp: the row-scan program of Oancea and Henriksen's OpenCL Day 2 as a table
// (lab::Family). Every row i of A is an independent chain, accum = A[i][j]^2 - accum, B[i][j] =
// accum, walked three ways: one row per work-item (naive: uncoalesced), on the transposed matrix
// (transposed: coalesced, with a transpose before and after), and in blocks of CHUNK columns staged
// in local memory (fused). One kernel file each, kernels/coalescing_<variant>.cl.
#pragma once

#include "lab/lab.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace coalescing {

// A and B are height x width, row-major.
using Dims = lab::Shape2D;

struct Steps {
  bool transposes = false;  // transposed: the host transposes A before the scan and B after it
};

using Family = lab::Family<Dims, Steps>;
using Variant = lab::Variant<Dims, Steps>;

// Tunables: LOCAL (--local, work-items per work-group = rows per group) and CHUNK (--chunk,
// fused's columns per block). Rows: naive, transposed, fused.
const Family& family();

// LOCAL 16, CHUNK 16 on every device (measured best on an H100; no better shape on PoCL).
lab::Tuning default_tuning(const cl::Device& device);

// How far past the end of A, B, At or Bt (elements) a launch of `variant` would reach if its
// kernel checked no index: the guard zones' length.
std::uint64_t launch_reach(const Variant& variant, const Dims& dims, const lab::Tuning& tuning);

// The transpose kernel the transposed variant uses unless told: blocks on a CPU, multi on others.
std::string default_transpose(const cl::Device& device);

// The sequential program on the host: B[i][j] = A[i][j]^2 - B[i][j-1], B[i][-1] = 0. For float,
// `allowed` gets each element's error bound: every step rounds once or twice (a * a, then the
// subtraction, or once when the compiler fuses them) and passes the earlier error on unchanged
// (the chain only flips its sign), so the error of B[i][j] is at most 2u times the sum of
// |A[i][k]^2| + |B[i][k]| over k <= j, u = 2^-24. For int the loop wraps as the device does, and
// `allowed` is not used.
template <typename T>
void row_scan(const Dims& d, const T* A, T* B, std::vector<double>* allowed);

}  // namespace coalescing
