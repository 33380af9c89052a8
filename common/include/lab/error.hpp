// error.hpp: the lab's exception types, exit codes, and OpenCL error names with hints.
#pragma once

#include <CL/opencl.hpp>

#include <ostream>
#include <stdexcept>
#include <string>

namespace lab {

// Exit codes every lab uses (documented in docs/reference.md, "Exit codes").
enum ExitCode : int {
  kExitPassed = 0,    // result verified
  kExitFailed = 1,    // verification failed
  kExitUsage = 2,     // bad command line
  kExitRuntime = 3,   // OpenCL or run-time error: build failure, work-group size, resources
  kExitSkipped = 77,  // the device lacks a feature the lab needs (CTest SKIP_RETURN_CODE)
};

// An error with the exit code it maps to. The message is one line that says what to do.
class Error : public std::runtime_error {
 public:
  Error(int exit_code, const std::string& message)
      : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// The command line asked for something impossible (exit 2).
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& message) : Error(kExitUsage, message) {}
};

// The device, driver or system could not do what was asked (exit 3).
class RuntimeError : public Error {
 public:
  explicit RuntimeError(const std::string& message) : Error(kExitRuntime, message) {}
};

// The device lacks a feature the lab needs (exit 77).
class SkipError : public Error {
 public:
  explicit SkipError(const std::string& message) : Error(kExitSkipped, message) {}
};

// Notes and warnings that do not stop a run (an option the chosen part does not read, a tuning
// cache that cannot be used). Labs write them here, one "LAB: note: ..." or "LAB: warning: ..."
// line each; run_main prints them on stderr once the run has reached its result (passed or
// failed) and drops them when it ends in an error, whose one line then stands alone.
std::ostream& notes();

// The notes held so far, emptied.
std::string take_notes();

// "CL_INVALID_WORK_GROUP_SIZE" for -54; "unknown OpenCL error" for codes the spec does not name.
const char* cl_error_name(cl_int code);

// A sentence on the usual cause of an error and what to try, or "" when there is nothing useful.
std::string cl_error_hint(cl_int code);

// "clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE (-11): <hint>"
std::string describe(const cl::Error& error);

}  // namespace lab
