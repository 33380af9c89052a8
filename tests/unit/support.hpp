// support.hpp: what several unit tests share: an argv for a Cli, the options a lab run by CTest
// starts from, and where the suite's kernels are.
#pragma once

#include "lab/cli.hpp"

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace test {

// argv for a Cli: a vector of strings that outlives the parse.
struct Args {
  explicit Args(std::vector<std::string> words) : storage(std::move(words)) {
    for (auto& w : storage) pointers.push_back(w.data());
  }
  int argc() { return static_cast<int>(pointers.size()); }
  char** argv() { return pointers.data(); }
  std::vector<std::string> storage;
  std::vector<char*> pointers;
};

// The suite's kernels, as the labs find them: build/bin/kernels from build/tests/unit_tests, or
// the installed share folder from PREFIX/libexec/opencl-labs/tests/unit_tests.
std::string kernel_dir();

// The platform the suite pins (LAB_PLATFORM), so the tests use PoCL even where another platform,
// a GPU say, comes first; the suite's kernels as a --kernel-dir (the tests' own folder is neither
// a lab's nor an installed lab's).
inline lab::Options suite_options() {
  lab::Options options;
  if (const char* platform = std::getenv("LAB_PLATFORM")) options.platform = platform;
  options.kernel_dir = kernel_dir();
  return options;
}

}  // namespace test
