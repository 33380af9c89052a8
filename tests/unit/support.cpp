// support.cpp: where the unit tests find the suite's kernels.
#include "support.hpp"

#include <filesystem>

namespace test {

std::string kernel_dir() {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path here = fs::read_symlink("/proc/self/exe", error).parent_path();
  const fs::path build = here / ".." / "bin" / "kernels";
  if (fs::is_directory(build, error)) return build.lexically_normal().string();
  return (here / LAB_TESTS_TO_KERNELS).lexically_normal().string();
}

}  // namespace test
