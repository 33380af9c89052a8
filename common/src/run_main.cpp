// run_main.cpp: the one place where exceptions become messages and exit codes.
#include "lab/lab.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>
#include <string>
#include <thread>

namespace lab {
namespace {

// The student's kernels the command line names, as the watch's sentences say it ("your kernel
// FILE", "your kernels in DIR"; LAB_KERNEL_DIR counts), or "" when the lab runs only the suite's.
std::string student_kernel(int argc, char** argv) {
  const auto words = [](const std::string& option, const std::string& path) {
    return option == "--kernel-file" ? "your kernel " + path : "your kernels in " + path;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    for (const std::string option : {"--kernel-file", "--kernel-dir"}) {
      if (arg == option) return words(option, i + 1 < argc ? argv[i + 1] : "");
      if (arg.rfind(option + "=", 0) == 0) return words(option, arg.substr(option.size() + 1));
    }
  }
  const char* dir = std::getenv("LAB_KERNEL_DIR");
  return dir != nullptr && *dir != '\0' ? words("--kernel-dir", dir) : "";
}

// Seconds a run with a student's kernel may take: LAB_TIME_LIMIT, else 300. A value that is not a
// positive number is a usage error, not a silent 300.
double time_limit() {
  const char* text = std::getenv("LAB_TIME_LIMIT");
  if (text == nullptr || *text == '\0') return 300;
  return parse_positive("LAB_TIME_LIMIT", text, 0.001, 1e6);
}

// Runs `run` in a child process and waits for it, so that a student's kernel that crashes the
// OpenCL runtime (PoCL does, on a barrier some work-items never reach) or never ends becomes a
// sentence and exit 1 instead of a core dump or a hang.
int run_watched(const std::string& name, const std::string& kernel, double limit,
                const std::function<int()>& run) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) return run();  // no process to spare: run unwatched
  if (child == 0) {
    const int code = run();
    std::cout.flush();
    std::exit(code);
  }
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  while (::waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() - start > std::chrono::duration<double>(limit)) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      std::cerr << name << ": error: the run with " << kernel << " did not finish within " << limit
                << " s (LAB_TIME_LIMIT): a loop that never ends, or a barrier some work-items "
                   "never reach, is the usual cause; run a small size under oclgrind\n";
      return kExitFailed;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFSIGNALED(status)) {
    std::cerr << name << ": error: the run with " << kernel << " was killed by signal "
              << WTERMSIG(status) << " (" << ::strsignal(WTERMSIG(status))
              << "): an index far outside a buffer, a private array too large for a work-item's "
                 "stack, or a barrier that some work-items of a group never reach (inside a "
                 "branch, or in a loop whose end differs between work-items), crashes PoCL like "
                 "this; run a small size under oclgrind to find it\n";
    return kExitFailed;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : static_cast<int>(kExitRuntime);
}

// The lab as the user typed it: "opencl-labs matmul" when the installed launcher started it (it
// sets OPENCL_LABS_COMMAND to its own name), else the lab's own name.
std::string command_name(const std::string& lab) {
  const char* launcher = std::getenv("OPENCL_LABS_COMMAND");
  return launcher != nullptr && *launcher != '\0' ? std::string(launcher) + " " + lab : lab;
}

}  // namespace

int run_main(int argc, char** argv, const std::string& lab, const std::string& description,
             const std::function<int(Cli&)>& body, LabKind kind) {
  // Kernel printf bypasses our buffers: line-buffer stdout so output stays in order.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const std::string name = command_name(lab);
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
  const auto run_body = [&]() -> int {
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
  const auto run = [&]() -> int {
    const int code = run_body();
    const std::string held = take_notes();
    if (code == kExitPassed || code == kExitFailed) std::cerr << held;
    // What Oclgrind found in the student's kernel, on one line of its own (the table wraps it).
    const KernelCheck& check = kernel_check();
    if (code == kExitFailed && check.state == KernelCheck::State::failed && !check.wrong_results) {
      std::cerr << name << ": error: " << check.sentence << "\n";
    }
    // The trace shows what ran, also when the lab failed or stopped with an error.
    finish_trace(lab, code == kExitPassed || code == kExitFailed);
    return code;
  };
  const auto whole = [&] { return oclgrind_verdict(run()); };
  const std::string kernel = kind == LabKind::runs_kernels ? student_kernel(argc, argv) : "";
  if (kernel.empty()) return whole();
  double limit = 0;
  try {
    limit = time_limit();
  } catch (const Error& error) {
    std::cerr << name << ": error: " << error.what() << "\n";
    return error.exit_code();
  }
  return run_watched(name, kernel, limit, whole);
}

}  // namespace lab
