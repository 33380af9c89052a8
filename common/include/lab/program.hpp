// program.hpp: finding a kernel file and building it with visible options.
#pragma once

#include "lab/cli.hpp"
#include "lab/device.hpp"

#include <CL/opencl.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace lab {

// Where kernels may live, in lookup order: --kernel-file > --kernel-dir > LAB_KERNEL_DIR >
// kernels/ beside the executable > the source tree's kernels/. (LAB_KERNEL_DIR reaches
// kernel_dir through the command line's environment fallback.)
struct KernelLookup {
  std::string kernel_file;  // replaces the main kernel file when set
  std::string kernel_dir;
  std::string exe_dir;
  std::string source_dir;
};

// The lookup the lab's options imply, with the executable's directory and the source tree.
KernelLookup kernel_lookup(const Options& options);

// Candidate paths for `file` in lookup order. --kernel-file counts only for the main file.
std::vector<std::string> kernel_candidates(const std::string& file, const KernelLookup& lookup,
                                           bool main_file);

// The first candidate that exists; throws RuntimeError listing every path tried.
std::string find_kernel_file(const std::string& file, const KernelLookup& lookup, bool main_file);

// -D flags from name/value pairs: {{"TS", "16"}} -> "-DTS=16".
std::string defines(const std::vector<std::pair<std::string, std::string>>& values);

// Loads `file` (the lab's main kernel file when main_file), builds it for env.device with
// `build_options` plus --build-options, and prints the build log and throws when it fails.
// With -v it prints the path and the options.
cl::Program build_program(const Env& env, const Options& options, const std::string& file,
                          const std::string& build_options, std::ostream& out,
                          bool main_file = true);

}  // namespace lab
