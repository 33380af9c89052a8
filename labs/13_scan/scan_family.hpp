// scan_family.hpp: the prefix sum (scan) as a table (lab::Family), one row per step of the
// ladder: Hillis-Steele and Blelloch by one work-group, Blelloch's tiles in three passes, larger
// tiles scanned in registers in three passes, and one pass with decoupled look-back (plain, then
// fast).
#pragma once

#include "lab/lab.hpp"

#include <cstdint>
#include <functional>
#include <string>

namespace scan {

// The problem size: the array's length.
using Length = std::uint64_t;

// What the scan rows carry beyond the shared columns.
struct Shape {
  // "single" (one work-group walks the array), "three_pass" (tiles, their sums, the sums added
  // back) or "decoupled" (one pass, tiles handed out by a ticket).
  std::string passes = "single";
  std::string add_kernel;  // three_pass: pass 3's kernel, in the row's own file
  // The file built instead of the row's kernel_file for work-groups of one work-item (GROUP 1, a
  // CPU's shape: scan_streaming.cl), with the same kernels; "" when the row has one file.
  std::string one_item_file;
  // Elements one work-group scans at a time.
  std::function<std::uint64_t(const lab::Tuning&)> tile;
  // The longest chain of additions behind out[i]: base + i / chain_step (chain_step 0: none),
  // pass 2 of a three-pass row run by `sums_local` work-items. It bounds a float scan's rounding
  // (gamma_chain * sum |in[j]|, j up to i).
  std::function<std::uint64_t(Length n, const lab::Tuning&, std::uint64_t sums_local)> base;
  std::function<std::uint64_t(const lab::Tuning&)> chain_step;
};

using Family = lab::Family<Length, Shape>;
using Variant = lab::Variant<Length, Shape>;

// Tunables: LOCAL (--local, the one-group rows' work-group size, a power of two), GROUP (--local
// too, the tiled rows' work-group size), PER_ITEM (--per-item, elements a work-item of a tiled row
// scans) and VEC (--vec, elements it adds as one vector). Rows: hillis_steele, blelloch,
// three_pass, registers, decoupled_simple, decoupled.
const Family& family();

// A GPU: groups of 64 for the one-group rows; the tiled rows groups of 256 with 32 elements per
// work-item (tiles of 8192, the fastest decoupled pass on an H100), one element at a time.
// A CPU (PoCL runs a group's work-items one after another on one core): groups of 8 for the
// one-group rows; the tiled rows one work-item a group, with 65536 elements (a 256 KiB tile, read
// again from the core's cache) as vectors as wide as the SIMD unit (lab::cpu_simd_unit).
// `element`: the element's size in bytes (a double's tile on a GPU is 128 work-items of 32, half
// as many elements in the same 32 KiB; a CPU's vectors hold half as many doubles).
lab::Tuning default_tuning(const cl::Device& device, std::size_t element = 4);

// `defaults` with VEC's default halved until it divides the PER_ITEM of `chosen` (the defaults
// with the command line applied), so that --per-item alone never asks for a width that cannot be.
lab::Tuning vec_dividing(lab::Tuning defaults, const lab::Tuning& chosen);

// The work-items pass 2 of a three-pass scan uses (one work-group): 256, or fewer on a small
// device.
std::uint64_t sums_local(const cl::Device& device);

// `variant` with the kernel file `tuning` builds: its one_item_file when GROUP is 1.
Variant for_shape(const Variant& variant, const lab::Tuning& tuning);

// Why `variant` cannot run on `device` ("" when it can): the one-pass rows need 64-bit atomics.
std::string cannot_run(const Variant& variant, const cl::Device& device);

}  // namespace scan
