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
  // Oclgrind's reports, condensed, whichever way the lab ends.
  struct Summary {
    ~Summary() { summarize_oclgrind_log(std::cerr); }
  } summary;
  try {
    return body(cli);
  } catch (const Error& error) {
    if (error.exit_code() != kExitPassed) std::cerr << name << ": error: " << error.what() << "\n";
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
}

}  // namespace lab
