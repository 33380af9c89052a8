// matmul.hpp: the matmul family: its variants with their tunables, limits and launch shapes, the
// host reference, and the one run/time/verify path every variant goes through.
#pragma once

#include "lab/lab.hpp"
#include "lab/matmul_reference.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace matmul {

// Bounds of the command line: no device runs a work-group side above kMaxGroupSide, and the
// kernels index with int, so no dimension (or KMAX) goes above kMaxDimension.
constexpr int kMaxGroupSide = 65536;
constexpr int kMaxDimension = 1 << 30;

// C (M×N) = A (M×K) · B (K×N), row-major; its inputs and host reference (lab/matmul_reference.hpp).
using Dims = lab::MatmulDims;
template <typename T>
using Problem = lab::MatmulProblem<T>;

// The ladder as a table (lab::Family): each row names its kernel, plans its NDRange and lists
// the tunables it uses, by the kernel's macro names:
//   LOCAL_2D (naive: LOCAL_2D x LOCAL_2D work-groups) and LOCAL_1D (the row variants), both --local
//   TS (tiled: tile side, --ts), KMAX (row_private, row_local: capacity of a row, --kmax)
//   BLOCK, WPT (regtile_simple: block of C per work-group, --block; elements per work-item, --wpt)
//   TSM, TSN, TSK, WPTM, WPTN, VWN (regtiled, --regtile) and STAGE (regtiled, --staging)
// The rows, in order: "sequential" (the host loop), "naive_global", "naive", "row",
// "row_private", "row_local", "tiled", "regtile_simple", "regtiled".
using Family = lab::Family<Dims>;
using Variant = lab::Variant<Dims>;
const Family& family();
constexpr const char* kSequential = "sequential";

// What every variant's kernel is built with and takes, for an element type ("float", "double",
// "int"): -DREAL and -DREAL4 (and -DFP64=1 for double, lab::real_defines), and (int M, int N,
// int K, global REAL* A, B, C); the name is the row's.
lab::Defines element_defines(const std::string& real);
lab::KernelSignature signature(const std::string& real);

// Tunables shaped for the device and the element's size in bytes: on a GPU, large register
// tiles and a 128-work-item group fill its many lanes (a double takes two registers, so fewer
// per work-item); on a CPU, PoCL runs a group's work-items in loops on one core, and smaller
// blocks that stay in its caches win, with vectors as wide as its SIMD registers (see the
// handout).
lab::Tuning default_tuning(const cl::Device& device, std::size_t element = 4);

// What float and double rows are rated against: the FP32 or FP64 peak measured on the device
// (lab::fma_peak) or given with --peak, its name in the report, its short name in the table,
// and a sentence saying where it came from.
struct Peak {
  double gflops = 0;  // 0: none (int rows, Oclgrind)
  std::string how;
  std::string name = "FP32 peak (measured)";
  std::string short_name = "FP32 peak";
};

// How far past the end of A, B and C (in elements) a variant's padded launch can reach when its
// kernel leaves out the bounds checks: the guard zones must be at least this long.
struct Reach {
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  std::uint64_t c = 0;
};
Reach launch_reach(const Variant& variant, const Dims& dims, const lab::Tuning& tuning);

// The problem on the device: A and B copied once, C written by every variant in turn, each with
// guard zones (lab::GuardedBuffer) as long as `reach`.
template <typename T>
struct Buffers {
  lab::GuardedBuffer<T> a;
  lab::GuardedBuffer<T> b;
  lab::GuardedBuffer<T> c;
};
template <typename T>
Buffers<T> make_buffers(lab::Env& env, Problem<T>& problem, const Reach& reach);

// One row with one tuning, printing where `stage` says: builds the variant's kernel with its
// tunables as -D and checks the launch against the device (lab::prepare_kernel), launches it
// (warm-up, timed repetitions) and compares every element of C with the reference. Throws
// UsageError or RuntimeError when the variant cannot run with these sizes and tunables on this
// device.
template <typename T>
lab::Result run_variant(lab::Env& env, const Variant& variant, const lab::Tuning& tuning,
                        const lab::Stage& stage, const Problem<T>& problem, Buffers<T>& buffers,
                        const Peak& peak);

// The sequential host loop (the Clemson GPGPU lecture's "Sequential C"), timed once on the host
// clock and checked like a variant; empty with a note to `out` when it would take too long.
template <typename T>
std::optional<lab::Result> run_sequential(const Problem<T>& problem, std::ostream& out);

// Fills a result's rate (from the family's work model), percent of peak, timing and status.
lab::Result make_result(const std::string& name, const Dims& dims, const lab::Timing& timing,
                        const lab::CheckResult& check, const Peak& peak);

// Sets a row's reference to `peak` (none when its gflops is 0).
void rate_against_peak(lab::Result& row, const Peak& peak);

}  // namespace matmul
