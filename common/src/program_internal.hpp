// program_internal.hpp: what the three files behind lab/program.hpp share, and no lab needs.
// program_lookup.cpp finds and reads a kernel file, program_build.cpp builds it, and
// program_checks.cpp checks the kernel the host takes from it.
#pragma once

#include "lab/error.hpp"
#include "lab/program.hpp"

#include <string>

namespace lab::detail {

// The text of the kernel file at `path`; RuntimeError when it cannot be read.
std::string read_kernel_source(const std::string& path);

// Whether `path`, holding `source`, is the suite's own `file`: one of its copies (beside the
// executable or installed), or a file with the same contents.
bool is_suite_file(const std::string& path, const std::string& source, const std::string& file,
                   const KernelLookup& lookup);

// The error a kernel problem becomes: the student's kernel is wrong (exit 1), or the suite's
// kernel does not work on this device (exit 3).
inline Error kernel_error(bool student, const std::string& message) {
  if (student) return Error(kExitFailed, message);
  return RuntimeError(message);
}

// What the compiler wrote to standard error since load_kernel (held so that it follows the build
// log), standard error restored; "" the second time.
std::string release_compiler_output(const KernelText& text);

}  // namespace lab::detail
