// flags.hpp: buffer_flags' five ways to make a buffer, its four demonstrations of what each lets
// the host see, and the timed matmul per mode.
#pragma once

#include "lab/lab.hpp"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace flags {

// copy:  CL_MEM_COPY_HOST_PTR, the runtime copies the host array when the buffer is made.
// use:   CL_MEM_USE_HOST_PTR, the buffer is the host array; results visible after a map or read.
// alloc: CL_MEM_ALLOC_HOST_PTR, the runtime allocates host-reachable memory; filled and read
//        through map/unmap.
// write: a plain buffer, clEnqueueWriteBuffer in and clEnqueueReadBuffer out.
// map:   a plain buffer, filled and read through map/unmap.
enum class Mode { copy, use, alloc, write, map };
const std::vector<std::string>& mode_names();
Mode parse_mode(const std::string& name);
// "copy" -> {copy, copy} for A and B; "copy/use" -> {copy, use}.
std::pair<Mode, Mode> parse_pair(const std::string& text);
std::string flag_name(Mode mode);  // "CL_MEM_COPY_HOST_PTR", ..., "no host flag"

// The demonstrations (buffer_flags.cl) and the timing (matmul's naive kernel, never replaced by
// --kernel-file).
std::vector<lab::Part> parts();

struct Settings {
  std::uint64_t n = 256;           // matmul side; the demonstrations use n*n elements
  std::vector<std::string> modes;  // timing: modes of A and B ("": all five)
  std::string c_mode =
      "use";  // timing: the mode of C (Liu's Intermediate OpenCL Programming fixes it to USE)
};

// The device, the demonstrations' program and what they share.
struct Demos {
  lab::Env& env;
  const lab::Options& options;
  lab::Program program;
  std::uint64_t n;  // elements
  std::ostream& out;
  std::ostream& err;
};

// Each demonstration runs its kernel, checks what the flag promises (every element), and
// returns its row; what the device shows beyond the promise is printed, not graded.
lab::Result copy_snapshot(Demos& d);
lab::Result use_visibility(Demos& d);
lab::Result alloc_map(Demos& d);
lab::Result nofetch_finish(Demos& d);

// The matrixMul-time-copy of Liu's Intermediate OpenCL Programming against -time-use, for every
// mode of A and B with C fixed: create, upload, kernel, download and total per run (median over
// --reps after --warmup), C checked in every run. Prints the stage table and returns one row per
// mode.
std::vector<lab::Result> time_modes(lab::Env& env, const lab::Options& options,
                                    const Settings& settings, std::ostream& out, std::ostream& err,
                                    nlohmann::json& details);

}  // namespace flags
