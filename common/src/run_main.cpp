// run_main.cpp: the one place where exceptions become messages and exit codes.
#include "lab/lab.hpp"

#include <cstdio>
#include <iostream>
#include <new>

namespace lab {

int run_main(int argc, char** argv, const std::string& name, const std::string& description,
             const std::function<int(Cli&)>& body, LabKind kind) {
  // Kernel printf bypasses our buffers: line-buffer stdout so output stays in order.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  Cli cli(name, description, argc, argv, kind);
  const auto oclgrind_verdict = [&name](int code) {
    // Oclgrind's reports, condensed; a kernel it caught reading or writing out of bounds, racing
    // or using uninitialised values is wrong even when its results matched.
    const std::size_t problems = summarize_oclgrind_log(std::cerr);
    if (problems == 0 || code != kExitPassed) return code;
    std::cerr << name << ": Oclgrind reported " << problems
              << " problem(s) in the kernels above: the results matched, but the kernel is "
                 "wrong\n";
    return static_cast<int>(kExitFailed);
  };
  const auto run = [&]() -> int {
    try {
      return body(cli);
    } catch (const Error& error) {
      if (error.exit_code() != kExitPassed) {
        std::cerr << name << ": error: " << error.what() << "\n";
      }
      return error.exit_code();
    } catch (const cl::Error& error) {
      std::cerr << name << ": OpenCL error: " << describe(error) << "\n";
      return kExitRuntime;
    } catch (const std::bad_alloc&) {
      std::cerr << name << ": error: out of host memory: use a smaller size\n";
      return kExitRuntime;
    } catch (const std::exception& error) {
      std::cerr << name << ": error: " << error.what() << "\n";
      return kExitRuntime;
    }
  };
  return oclgrind_verdict(run());
}

}  // namespace lab
