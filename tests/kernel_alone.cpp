// kernel_alone.cpp: builds kernel files as they stand, with no -D options, through the labs' own
// build path (lab::build_program) on the suite's device (LAB_PLATFORM). A reader opens a kernel
// file alone, and an editor or a compiler run on it alone must find every macro it uses: each
// tunable and type has an #ifndef default. Usage: kernel_alone FILE.cl...; exit 0 when every file
// builds, 1 when one does not (its build log goes to stderr, and one line names each such file).
#include "lab/lab.hpp"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: kernel_alone FILE.cl...\n";
    return 2;
  }
  lab::Options options;
  if (const char* platform = std::getenv("LAB_PLATFORM")) options.platform = platform;
  std::ostringstream quiet;
  try {
    const lab::Env env = lab::open_device(options, quiet);
    int failed = 0;
    for (int i = 1; i < argc; ++i) {
      const std::filesystem::path path(argv[i]);
      options.kernel_dir = path.parent_path().string();
      try {
        lab::build_program(env, options, path.filename().string(), {}, quiet, true);
        std::cout << "builds alone: " << path.string() << "\n";
      } catch (const lab::Error& e) {
        std::cerr << "kernel_alone: " << path.string()
                  << " does not build without -D options: " << e.what() << "\n";
        ++failed;
      }
    }
    return failed == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "kernel_alone: " << e.what() << "\n";
    return 3;
  }
}
