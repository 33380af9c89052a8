// kernel_check.cpp: the Oclgrind run that stands behind a student's PASSED.
#include "lab/kernel_check.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

extern char** environ;

namespace lab {
namespace {

KernelCheck& verdict() {
  static KernelCheck check;
  return check;
}

std::string lowercase(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string environment_text(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// Oclgrind's OpenCL runtime as an ICD, found beside the `oclgrind` command on PATH.
std::string oclgrind_icd_library() {
  std::istringstream path(environment_text("PATH"));
  for (std::string dir; std::getline(path, dir, ':');) {
    if (dir.empty() || ::access((dir + "/oclgrind").c_str(), X_OK) != 0) continue;
    const std::filesystem::path prefix = std::filesystem::path(dir).parent_path();
    for (const char* lib : {"lib/oclgrind", "lib", "lib64/oclgrind", "lib64",
                            "lib/x86_64-linux-gnu/oclgrind", "lib/aarch64-linux-gnu/oclgrind"}) {
      const auto candidate = prefix / lib / "liboclgrind-rt-icd.so";
      if (std::filesystem::is_regular_file(candidate)) return candidate.string();
    }
  }
  return "";
}

// The command line for the check: the lab's own, less what chooses a device or an output, with
// one timed launch. Options that take a value lose it too, in every spelling CLI11 accepts. The
// kernel is built without optimisation (-cl-opt-disable after the student's own --build-options):
// a store past a private array is undefined behaviour that the optimiser may delete, and then
// Oclgrind would never see it.
std::vector<std::string> check_arguments(int argc, char** argv, const std::string& build_options) {
  const std::vector<std::string> with_value = {"-p",       "--platform",    "-d",
                                               "--device", "--type",        "--reps",
                                               "--warmup", "--tune-budget", "--build-options",
                                               "--trace"};
  const std::vector<std::string> flags = {"--json",  "--csv", "--summary", "--tune",
                                          "--peers", "-v",    "--verbose"};
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") {
      for (; i < argc; ++i) args.emplace_back(argv[i]);
      break;
    }
    if (std::find(flags.begin(), flags.end(), word) != flags.end()) continue;
    bool dropped = false;
    for (const auto& option : with_value) {
      if (word == option) {
        ++i;  // and its value
        dropped = true;
      } else if (word.rfind(option + "=", 0) == 0 ||
                 (option.size() == 2 && word.size() > 2 && word.rfind(option, 0) == 0)) {
        dropped = true;  // --reps=3, -p0
      }
      if (dropped) break;
    }
    if (!dropped) args.push_back(word);
  }
  args.insert(args.end(), {"--reps", "1", "--warmup", "0", "--build-options",
                           build_options + (build_options.empty() ? "" : " ") + "-cl-opt-disable"});
  return args;
}

std::vector<std::string> file_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The last line of the check's own output that says why it failed ("mismatch ...", "...: error:
// ..."), for a run that ended with exit 1 but no Oclgrind report.
std::string failure_line(const std::vector<std::string>& lines) {
  std::string found;
  for (const auto& line : lines) {
    const auto text = line.substr(std::min(line.size(), line.find_first_not_of(" \t")));
    if (text.rfind("mismatch", 0) == 0 && found.empty()) found = text;
    if (text.find(": error: ") != std::string::npos) found = text;
  }
  return found;
}

// Runs `args` with `env` added, stdout discarded and stderr into `err`; the exit code, or -1 when
// it had to be killed after `limit` seconds.
int run_child(const std::string& program, const std::vector<std::string>& args,
              const std::vector<std::pair<std::string, std::string>>& env, const std::string& err,
              double limit) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) return -2;
  if (child == 0) {
    ::setpgid(0, 0);
    for (const auto& [name, value] : env) {
      if (value.empty()) {
        ::unsetenv(name.c_str());
      } else {
        ::setenv(name.c_str(), value.c_str(), 1);
      }
    }
    const int null = ::open("/dev/null", O_WRONLY);
    const int log = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (null >= 0) ::dup2(null, 1);
    if (log >= 0) ::dup2(log, 2);
    std::vector<char*> words;
    words.push_back(const_cast<char*>(program.c_str()));
    for (const auto& arg : args) words.push_back(const_cast<char*>(arg.c_str()));
    words.push_back(nullptr);
    ::execve(program.c_str(), words.data(), environ);
    ::_exit(127);
  }
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  while (::waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() - start > std::chrono::duration<double>(limit)) {
      ::kill(-child, SIGKILL);
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
}

// How a kind of report ranks when choosing the one to quote: lower first.
int rank_of(const std::string& kind) {
  const std::string text = lowercase(kind);
  if (text.find("data race") != std::string::npos) return 0;
  if (text.find("invalid read") != std::string::npos ||
      text.find("invalid write") != std::string::npos) {
    return 1;
  }
  if (text.find("divergence") != std::string::npos || text.find("barrier") != std::string::npos) {
    return 2;
  }
  if (text.find("uninitiali") != std::string::npos) return 4;
  return 3;
}

struct Access {
  std::string entity;  // "Global(1,0,0) Local(1,0,0) Group(0,0,0)"
  int line = 0;
  std::string source;
};

struct Problem {
  std::string kind;  // "Read-write data race at local memory"
  std::string kernel;
  std::vector<Access> accesses;
};

// What a report points at, in words: by its kind, and for a race on an image by where it was.
std::string cause_of(const Problem& problem) {
  switch (rank_of(problem.kind)) {
    case 0:
      if (std::any_of(problem.accesses.begin(), problem.accesses.end(), [](const Access& a) {
            return a.source.find("write_image") != std::string::npos;
          })) {
        // A write_image outside the image is undefined; Oclgrind lands it on a pixel inside,
        // where another work-item's write meets it.
        return "two work-items wrote the same pixel of an image: a work-item outside the image "
               "must not write (check its (x, y) against the image's width and height), and no "
               "two work-items may compute the same (x, y)";
      }
      return "two work-items used the same element with nothing ordering them: a barrier missing "
             "or in the wrong place, or an update that is not atomic";
    case 1:
      return "an index outside the buffer: check the bounds and the last work-items";
    case 2:
      return "a barrier that not every work-item of the group reaches";
    case 4:
      return "a value read before anything wrote it (an element or variable never set)";
    default:
      return "see Oclgrind's full report";
  }
}

std::string without_blanks(const std::string& text) {
  const auto begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  const auto end = text.find_last_not_of(" \t\r");
  return text.substr(begin, end - begin + 1);
}

std::vector<Problem> parse_reports(const std::vector<std::string>& lines) {
  std::vector<Problem> problems;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.empty() || line[0] == '\t' || line[0] == ' ') {
      if (problems.empty()) continue;
      Problem& problem = problems.back();
      const std::string text = without_blanks(line);
      if (text.rfind("Kernel:", 0) == 0) problem.kernel = without_blanks(text.substr(7));
      for (const char* lead : {"Entity:", "First entity:", "Second entity:"}) {
        if (text.rfind(lead, 0) == 0) {
          problem.accesses.push_back(
              Access{without_blanks(text.substr(std::string(lead).size())), 0, ""});
        }
      }
      if (text.rfind("At line ", 0) == 0 && !problem.accesses.empty()) {
        problem.accesses.back().line = std::atoi(text.c_str() + 8);
        if (i + 1 < lines.size()) {
          const std::string source = without_blanks(lines[i + 1]);
          if (source != "(source not available)") problem.accesses.back().source = source;
        }
      }
      continue;
    }
    if (line.rfind("Oclgrind", 0) == 0) continue;  // its own remarks
    Problem problem;
    problem.kind = line.substr(0, line.find(" address"));
    problems.push_back(problem);
  }
  return problems;
}

// "(3,0,0)" from "Global(3,0,0) Local(3,0,0) Group(0,0,0)".
std::string work_item(const std::string& entity) {
  const auto open = entity.find("Global(");
  if (open == std::string::npos) return entity;
  const auto close = entity.find(')', open);
  return entity.substr(open + 6, close - open - 5);
}

}  // namespace

const KernelCheck& kernel_check() { return verdict(); }

std::string oclgrind_sentence(const std::vector<std::string>& lines, const std::string& file,
                              std::size_t* count) {
  const auto problems = parse_reports(lines);
  if (count != nullptr) *count = problems.size();
  if (problems.empty()) return "";
  // The most telling kind, and of that kind the first report that names a kernel line.
  const auto known_line = [](const Problem& p) {
    return std::any_of(p.accesses.begin(), p.accesses.end(),
                       [](const Access& a) { return a.line > 0; });
  };
  const Problem* best = &problems.front();
  for (const auto& p : problems) {
    const int rank = rank_of(p.kind), best_rank = rank_of(best->kind);
    if (rank < best_rank || (rank == best_rank && known_line(p) && !known_line(*best))) best = &p;
  }
  // Oclgrind stops reporting after a thousand ("1000 errors generated - suppressing further").
  const bool capped = std::any_of(lines.begin(), lines.end(), [](const std::string& line) {
    return line.rfind("Oclgrind", 0) == 0 && line.find("suppressing") != std::string::npos;
  });
  std::string text = "Oclgrind found " + std::string(capped ? "at least " : "") +
                     std::to_string(problems.size()) + " problem" +
                     (problems.size() == 1 ? "" : "s") + "; the first: " + lowercase(best->kind);
  if (!best->kernel.empty()) text += " in kernel " + best->kernel;
  std::vector<std::string> parts;
  for (const auto& access : best->accesses) {
    std::string part = "work-item " + work_item(access.entity);
    if (access.line > 0) {
      part += " at " + file + ":" + std::to_string(access.line);
      if (!access.source.empty()) part += " (" + access.source + ")";
    }
    parts.push_back(part);
  }
  if (parts.size() == 2) {
    text += ", between " + parts[0] + " and " + parts[1];
  } else if (parts.size() == 1) {
    text += ", by " + parts[0];
  }
  return text + ": " + cause_of(*best);
}

void check_kernel_under_oclgrind(const std::string& lab, int argc, char** argv,
                                 const Options& options) {
  KernelCheck& check = verdict();
  const std::string mode = lowercase(environment_text("LAB_OCLGRIND_CHECK"));
  if (mode == "child") return;
  if (lowercase(options.platform).find("oclgrind") != std::string::npos ||
      lowercase(environment_text("LD_PRELOAD")).find("oclgrind") != std::string::npos) {
    return;  // the lab runs on Oclgrind itself, and summarises its report at the end
  }
  if (mode == "off" || mode == "0") {
    check.state = KernelCheck::State::unchecked;
    check.sentence =
        "the Oclgrind check was turned off (LAB_OCLGRIND_CHECK=off): races and accesses "
        "out of bounds went unchecked";
    return;
  }
  const std::string library = oclgrind_icd_library();
  if (library.empty()) {
    check.state = KernelCheck::State::unchecked;
    check.sentence =
        "Oclgrind is not installed, so races and accesses out of bounds went unchecked: "
        "install it (scripts/setup.sh, or apt install oclgrind)";
    return;
  }
  char folder_template[] = "/tmp/lab-oclgrind-XXXXXX";
  const char* made = ::mkdtemp(folder_template);
  if (made == nullptr) {
    check.state = KernelCheck::State::unchecked;
    check.sentence = "no temporary folder for the Oclgrind check: races went unchecked";
    return;
  }
  const std::string folder = made;
  {
    std::ofstream icd(folder + "/oclgrind.icd");
    icd << library << "\n";
  }
  const std::string log = folder + "/oclgrind.log", err = folder + "/output.txt";
  const std::string file = !options.kernel_file.empty() ? options.kernel_file : "your kernel";
  std::cerr << lab << ": checking " << file
            << " under Oclgrind (data races, accesses out of bounds)\n";
  // The simulator is about a thousand times slower than PoCL: the check gets 30 s
  // (LAB_OCLGRIND_TIME_LIMIT), and at most half the run's own limit, so that a check that hangs
  // leaves the run time to say why.
  double limit = 30;
  if (const char* text = std::getenv("LAB_OCLGRIND_TIME_LIMIT"); text != nullptr && *text != '\0') {
    limit = std::max(0.5, std::atof(text));
  }
  if (const char* text = std::getenv("LAB_TIME_LIMIT"); text != nullptr && *text != '\0') {
    limit = std::min(limit, std::max(0.5, std::atof(text) / 2));
  }
  char limit_text[32];
  std::snprintf(limit_text, sizeof limit_text, "%g", limit);
  const std::string asan = environment_text("ASAN_OPTIONS");
  const int code = run_child(
      "/proc/self/exe", check_arguments(argc, argv, options.build_options),
      {{"OCL_ICD_VENDORS", folder},
       {"OCL_ICD_FILENAMES", ""},
       {"OCLGRIND_LOG", log},
       {"OCLGRIND_DATA_RACES", "1"},
       {"OCLGRIND_CHECK_API", "1"},
       // One simulator thread: work-groups run in order, so the first finding reported (and
       // the grade's sentence) is the same on every run, and a grader's checks side by side
       // do not each take every core.
       {"OCLGRIND_NUM_THREADS", "1"},
       {"LAB_PLATFORM", "oclgrind"},
       {"LAB_DEVICE", ""},
       {"LAB_DEVICE_TYPE", ""},
       {"LAB_OCLGRIND_CHECK", "child"},
       {"LAB_REPORT_FILE", ""},
       {"LAB_TIME_LIMIT", limit_text},
       // A sanitizer build's run: LeakSanitizer's exit check fails inside Oclgrind's LLVM, and
       // Oclgrind 21.10's clReleaseMemObject deletes an image through its base type (ASan's
       // new-delete-type-mismatch), which would end the check before it writes its log
       {"ASAN_OPTIONS",
        (asan.empty() ? "" : asan + ":") + "detect_leaks=0:new_delete_type_mismatch=0"}},
      err, limit + 5);
  const auto report = file_lines(log);
  const auto output = file_lines(err);
  check.sentence = oclgrind_sentence(report, file, &check.problems);
  if (!check.sentence.empty()) {
    check.state = KernelCheck::State::failed;
    check.log = folder + "/oclgrind.log";
  } else if (code == 0) {
    check.state = KernelCheck::State::clean;
  } else if (code == 1) {
    // Wrong results on the simulator with no report: a race PoCL's runs hide, or a kernel that
    // is wrong everywhere; or no build at all there.
    const std::string why = failure_line(output);
    check.state = KernelCheck::State::failed;
    check.wrong_results = true;
    if (why.find("failed to build") != std::string::npos) {
      check.sentence =
          "under Oclgrind the kernel did not build (" + why +
          "): Oclgrind runs the lab with its own device's default tunables, so a kernel must "
          "take what a tunable sets from its macro (VW, TILE, ...), not write it in";
    } else {
      check.sentence =
          "under Oclgrind, which runs a group's work-items in another order, the "
          "results were wrong" +
          (why.empty() ? std::string() : " (" + why + ")") +
          ": where they are right on the device itself, a missing barrier or an update that is "
          "not atomic is the usual cause";
    }
  } else {
    check.state = KernelCheck::State::unchecked;
    const std::string why = failure_line(output);
    check.sentence =
        code == -1
            ? "Oclgrind did not finish this size within " + std::string(limit_text) +
                  " s at this size, so races went unchecked: the handout's grading command runs a "
                  "size small enough for the simulator"
            : "Oclgrind could not run this command (exit " + std::to_string(code) +
                  (why.empty() ? "" : ": " + why) + "): races went unchecked";
  }
  if (check.state == KernelCheck::State::failed && !check.log.empty()) {
    std::filesystem::remove(err);
    std::filesystem::remove(folder + "/oclgrind.icd");
  } else {
    std::error_code ignored;
    std::filesystem::remove_all(folder, ignored);
  }
}

}  // namespace lab
