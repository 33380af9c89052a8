// opencl-labs: the one command an installed suite puts on the PATH. `opencl-labs` runs the tour
// (every lab once on the default device, one line each); `opencl-labs LAB ARGS...` runs one lab;
// `opencl-labs grade SUBMISSIONS` grades a class (scripts/grade.py, installed with the labs).
// The labs themselves live beside this program in a build tree (build/bin) and in
// PREFIX/libexec/opencl-labs once installed, so their short names (events, profiling, transpose)
// never collide with other packages' commands in /usr/bin.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "lab/terminal.hpp"

namespace {

namespace fs = std::filesystem;

// Filled in by CMake: the labs in course order, and where the installed tree keeps them,
// relative to this program's folder.
const std::vector<std::string> kLabs = {LAB_LAUNCHER_LABS};
// Each lab's short run, for --quick: tiny sizes, one repetition (a lab without one runs as in the
// tour).
const std::vector<std::pair<std::string, std::string>> kQuick = {LAB_LAUNCHER_QUICK};
constexpr const char* kVersion = LAB_LAUNCHER_VERSION;
constexpr const char* kInstalledLabs = LAB_LAUNCHER_LAB_DIR;     // "../libexec/opencl-labs"
constexpr const char* kInstalledDocs = LAB_LAUNCHER_DOC_DIR;     // "../share/doc/opencl-labs"
constexpr const char* kInstalledShare = LAB_LAUNCHER_SHARE_DIR;  // "../share/opencl-labs"

// Exit codes, as every lab documents them.
constexpr int kUsage = 2;
constexpr int kRuntime = 3;

fs::path own_folder() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  return error ? fs::path(".") : self.parent_path();
}

// The places the labs may be, in the order they are tried: beside this program (a build tree),
// then the installed folder.
std::vector<fs::path> lab_places() {
  const fs::path here = own_folder();
  return {here, (here / kInstalledLabs).lexically_normal()};
}

// The first of lab_places() that holds the labs, or an empty path.
fs::path lab_folder() {
  std::error_code error;
  for (const fs::path& place : lab_places()) {
    if (fs::is_regular_file(place / kLabs.front(), error)) return place;
  }
  return {};
}

// "A or B": the places tried, for an error that says where it looked.
std::string places_text(const std::vector<fs::path>& places) {
  std::string text;
  for (std::size_t i = 0; i < places.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == places.size() ? " or " : ", ") + places[i].string();
  }
  return text;
}

bool is_lab(const std::string& name) {
  for (const auto& lab : kLabs) {
    if (lab == name) return true;
  }
  return false;
}

std::string lab_list() {
  std::string text;
  for (const auto& lab : kLabs) text += (text.empty() ? "" : " ") + lab;
  return text;
}

void usage(const std::string& me, const fs::path& labs, std::ostream& out) {
  const fs::path here = own_folder();
  const bool installed = labs != here;
  out << "Usage: " << me << " [--quick] [DEVICE]\n"
      << "                    the tour: every lab once, a table of its results sized to the\n"
      << "                    terminal; --quick at tiny sizes: does every lab work here?\n"
      << "       " << me << " --list       list the OpenCL platforms and devices\n"
      << "       " << me << " LAB [ARGS]   run one lab; " << me << " LAB --help for its options\n"
      << "       " << me << " --self-test  run the unit tests of the labs' shared library\n"
      << "       " << me << " grade SUBMISSIONS [OUT] [OPTIONS]\n"
      << "                    grade a class's kernels into a gradebook (" << me
      << " grade --help)\n"
      << "       " << me << " --version\n"
      << "       " << me << " -h, --help   this text\n\n"
      << "DEVICE, for the tour and --list, in any order with --quick, as every lab takes it:\n"
      << "  -p, --platform P  platform: index or name substring (or LAB_PLATFORM)\n"
      << "  -d, --device D    device: index, counted as --list shows, or name substring (or\n"
      << "                    LAB_DEVICE)\n"
      << "  --type T          cpu, gpu or all (or LAB_DEVICE_TYPE)\n"
      << "A device that is not there stops the tour with one line and exit 2.\n\n"
      << "Labs, in course order: " << lab_list() << "\n"
      << "Handouts: "
      << (installed ? (here / kInstalledDocs).lexically_normal().string() + "/labs"
                    : std::string("labs/NN_NAME/README.md in the source tree"))
      << "\nExercise skeletons: "
      << (installed ? here / kInstalledShare / "exercises" : here / "exercises")
             .lexically_normal()
             .string()
      << "\n";
}

// Runs `program` with `args`, stderr into `errors` (a file), stdout shared; returns the exit
// code, or 128 + the signal.
int run_lab(const fs::path& program, const std::vector<std::string>& args,
            const std::string& errors) {
  std::cout.flush();
  const pid_t child = ::fork();
  if (child < 0) return kRuntime;
  if (child == 0) {
    if (std::freopen(errors.c_str(), "w", stderr) == nullptr) std::_Exit(kRuntime);
    std::vector<char*> argv;
    std::string path = program.string();
    argv.push_back(path.data());
    std::vector<std::string> copy = args;
    for (auto& arg : copy) argv.push_back(arg.data());
    argv.push_back(nullptr);
    ::execv(path.c_str(), argv.data());
    std::fprintf(stderr, "cannot run %s: %s\n", path.c_str(), std::strerror(errno));
    std::_Exit(kRuntime);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : kRuntime;
}

// The arguments of `lab`'s short run, split at spaces (none for a lab without one).
std::vector<std::string> quick_args(const std::string& lab) {
  std::vector<std::string> args;
  for (const auto& [name, text] : kQuick) {
    if (name != lab) continue;
    std::istringstream words(text);
    for (std::string word; words >> word;) args.push_back(word);
  }
  return args;
}

// The tour's command line: --quick and the device options every lab takes, in any order.
struct TourOptions {
  bool quick = false;
  bool list = false;
  std::vector<std::string> device;  // "-p", "0", "--type", "gpu": passed on to every lab
};

// Reads the tour's options from argv[1...]; false, with `error` saying why, when one is not one.
bool parse_tour(int argc, char** argv, TourOptions& options, std::string& error) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      options.quick = true;
      continue;
    }
    if (arg == "--list") {
      options.list = true;
      continue;
    }
    // -p X, --platform X, --platform=X, -pX (and the same for -d/--device, --type)
    std::string name = arg, value;
    bool has_value = false;
    if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq), value = arg.substr(eq + 1), has_value = true;
    } else if (arg.size() > 2 && (arg.rfind("-p", 0) == 0 || arg.rfind("-d", 0) == 0)) {
      name = arg.substr(0, 2), value = arg.substr(2), has_value = true;
    }
    if (name == "--platform") name = "-p";
    if (name == "--device") name = "-d";
    if (name != "-p" && name != "-d" && name != "--type") {
      error = arg.rfind("-", 0) == 0 ? "unknown option '" + arg + "'"
                                     : "no lab named '" + arg + "': the labs are " + lab_list();
      return false;
    }
    if (!has_value) {
      if (i + 1 >= argc) {
        error = arg + " needs a value";
        return false;
      }
      value = argv[++i];
    }
    options.device.insert(options.device.end(), {name, value});
  }
  return true;
}

// The tour: every lab with --summary, its rows under one header, in columns sized to the terminal
// (COLUMNS, passed on to the labs, whose output this program shares). The first lab prints the
// device and the column titles; the others are told not to (LAB_SUMMARY_HEADER=0). The first lab
// is also the check of the device options: a device that is not there, or a bad option, stops the
// tour there with the lab's one line and its exit code (2), not a failure from every lab. A lab
// that fails says why in its rows; one that ends with an error adds its last error line. With
// `quick`, each lab's short run instead of its defaults: seconds in all, a check that every lab
// and its kernels work on this machine. Exit 0 when every lab passed, else 1.
int tour(const std::string& me, const fs::path& labs, const TourOptions& options) {
  const std::size_t width = std::max(lab::terminal_width(), lab::kMinSummaryWidth);
  ::setenv("COLUMNS", std::to_string(width).c_str(), 1);
  ::unsetenv("LAB_SUMMARY_HEADER");
  char name[] = "/tmp/opencl-labs-XXXXXX";
  const int fd = ::mkstemp(name);
  if (fd < 0) {
    std::cerr << me << ": error: cannot make a temporary file in /tmp\n";
    return kRuntime;
  }
  ::close(fd);
  const std::string errors = name;
  int passed = 0, failed = 0;
  for (const auto& lab : kLabs) {
    std::vector<std::string> args = options.quick ? quick_args(lab) : std::vector<std::string>{};
    args.insert(args.end(), options.device.begin(), options.device.end());
    args.push_back("--summary");
    const int code = run_lab(labs / lab, args, errors);
    ::setenv("LAB_SUMMARY_HEADER", "0", 1);
    std::ifstream in(errors);
    // Its error: the last line that says "error: ", else its last line (not a mismatch line)
    std::string last, error;
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line.rfind("  ", 0) == 0) continue;
      last = line;
      if (const auto at = line.find("error: "); at != std::string::npos)
        error = line.substr(at + 7);
    }
    if (error.empty()) error = last;
    if (code == 0) {
      ++passed;
      continue;
    }
    if (lab == kLabs.front() && (code == kUsage || code == kRuntime)) {
      // "device_info: error: no device name contains 'nvidia': ..." as the tour's own error
      std::cerr << me << ": error: " << error << "\n";
      std::remove(errors.c_str());
      return code;
    }
    ++failed;
    // A wrong result (exit 1) is said in the lab's FAILED rows; anything else ended it early.
    if (code == 1 && error == last && last.find("error") == std::string::npos) continue;
    const std::string why =
        lab + " ended with exit code " + std::to_string(code) + (error.empty() ? "" : ": " + error);
    for (const auto& line : lab::wrap_words(why, width - 4)) std::printf("    %s\n", line.c_str());
  }
  std::remove(errors.c_str());
  std::printf("labs: %d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

// `grade ARGS...`: the grader (grade.py) with the labs, the exercise list and the suite's kernels
// of this installation or build tree. Only the full edition installs it: the student edition's
// kernels are skeletons, which no grading can use as its reference.
int grade(const std::string& me, const fs::path& labs, int argc, char** argv) {
  std::error_code error;
  const fs::path share = (own_folder() / kInstalledShare).lexically_normal();
  const bool installed = labs != own_folder();
  // A build tree keeps the grader's copy and the exercise list beside bin/.
  const fs::path grader = installed ? share / "grade.py" : labs / ".." / "grade.py";
  const fs::path exercises = installed ? share / "exercises.tsv" : labs / ".." / "exercises.tsv";
  const fs::path kernels = installed ? share / "kernels" : labs / "kernels";
  if (!fs::is_regular_file(grader, error) || !fs::is_regular_file(exercises, error)) {
    std::cerr << me << ": error: the grader is not here (no " << grader.lexically_normal().string()
              << " or " << exercises.lexically_normal().string()
              << "): it comes with the instructor edition (package opencl-labs), not the "
                 "student edition\n";
    return kRuntime;
  }
  const std::string command = me + " grade";
  ::setenv("LAB_GRADE_COMMAND", command.c_str(), 1);
  std::vector<std::string> words = {"python3",     grader.lexically_normal().string(),
                                    "--bin",       labs.string(),
                                    "--exercises", exercises.lexically_normal().string(),
                                    "--kernels",   kernels.lexically_normal().string()};
  // `merge` comes first, as the grader reads it.
  int first = 2;
  if (argc > 2 && std::string(argv[2]) == "merge") {
    words = {"python3", grader.lexically_normal().string(), "merge"};
    first = 3;
  }
  for (int i = first; i < argc; ++i) words.emplace_back(argv[i]);
  std::vector<char*> args;
  for (auto& word : words) args.push_back(word.data());
  args.push_back(nullptr);
  ::execvp("python3", args.data());
  std::cerr << me << ": error: cannot run python3: " << std::strerror(errno)
            << ": install it (apt-get install python3)\n";
  return kRuntime;
}

}  // namespace

int main(int argc, char** argv) {
  // As the user typed it: a wrapper (scripts/labs.sh) may say so in OPENCL_LABS_COMMAND.
  const char* wrapper = std::getenv("OPENCL_LABS_COMMAND");
  const std::string me = wrapper != nullptr && *wrapper != '\0'
                             ? std::string(wrapper)
                             : fs::path(argv[0]).filename().string();
  const fs::path labs = lab_folder();
  std::error_code error;
  if (labs.empty()) {
    std::cerr << me << ": error: the labs are not in " << places_text(lab_places())
              << ": reinstall the package, or run the labs from the build tree (build/bin)\n";
    return kRuntime;
  }
  const std::string first = argc < 2 ? "" : argv[1];
  if (first == "-h" || first == "--help" || first == "help") {
    usage(me, labs, std::cout);
    return 0;
  }
  if (first == "--version") {
    std::cout << me << " " << kVersion << "\n";
    return 0;
  }
  if (first == "--self-test") {
    // Installed beside the labs; in a build tree, build/tests/unit_tests.
    const std::vector<fs::path> places = {
        labs / "tests" / "unit_tests",
        (own_folder() / ".." / "tests" / "unit_tests").lexically_normal()};
    std::string tests;
    for (const fs::path& place : places) {
      if (tests.empty() && fs::is_regular_file(place, error)) tests = place.string();
    }
    if (tests.empty()) {
      std::cerr << me << ": error: the unit tests are not installed (not in " << places_text(places)
                << "): install the opencl-labs-tests package, or cmake --install with "
                   "--component tests\n";
      return kRuntime;
    }
    std::vector<char*> args(argv + 1, argv + argc);
    args[0] = const_cast<char*>(tests.c_str());
    args.push_back(nullptr);
    ::execv(tests.c_str(), args.data());
    std::cerr << me << ": error: cannot run " << tests << ": " << std::strerror(errno) << "\n";
    return kRuntime;
  }
  if (first == "grade") return grade(me, labs, argc, argv);
  if (!is_lab(first)) {
    // The tour, or --list, with the device options
    TourOptions options;
    std::string problem;
    if (!parse_tour(argc, argv, options, problem)) {
      std::cerr << me << ": error: " << problem << " (" << me << " --help)\n";
      return kUsage;
    }
    if (!options.list) return tour(me, labs, options);
    const std::string program = (labs / kLabs.front()).string();
    std::vector<std::string> words = {program, "--list"};
    words.insert(words.end(), options.device.begin(), options.device.end());
    std::vector<char*> args;
    for (auto& word : words) args.push_back(word.data());
    args.push_back(nullptr);
    ::setenv("OPENCL_LABS_COMMAND", me.c_str(), 1);
    ::execv(program.c_str(), args.data());
    std::cerr << me << ": error: cannot run " << program << ": " << std::strerror(errno)
              << ": reinstall the package\n";
    return kRuntime;
  }
  // The lab says "opencl-labs LAB" in its usage and its errors, as the user typed it.
  ::setenv("OPENCL_LABS_COMMAND", me.c_str(), 1);
  const std::string program = (labs / first).string();
  std::vector<char*> args(argv + 1, argv + argc);
  args[0] = const_cast<char*>(program.c_str());
  args.push_back(nullptr);
  ::execv(program.c_str(), args.data());
  std::cerr << me << ": error: cannot run " << program << ": " << std::strerror(errno)
            << ": reinstall the package\n";
  return kRuntime;
}
