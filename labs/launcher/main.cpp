// opencl-labs: the one command an installed suite puts on the PATH. `opencl-labs` runs the tour
// (every lab once on the default device, one line each); `opencl-labs LAB ARGS...` runs one lab;
// `opencl-labs grade SUBMISSIONS` grades a class (scripts/grade.py, installed with the labs).
// The labs themselves live beside this program in a build tree (build/bin) and in
// PREFIX/libexec/opencl-labs once installed, so their short names (events, profiling, transpose)
// never collide with other packages' commands in /usr/bin.
#include <sys/wait.h>
#include <unistd.h>

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
  out << "Usage: " << me << "              run every lab once (the tour), one line each\n"
      << "       " << me << " --quick      the tour at tiny sizes: does every lab work here?\n"
      << "       " << me << " LAB [ARGS]   run one lab; " << me << " LAB --help for its options\n"
      << "       " << me << " --self-test  run the unit tests of the labs' shared library\n"
      << "       " << me << " grade SUBMISSIONS [OUT] [OPTIONS]\n"
      << "                    grade a class's kernels into a gradebook (" << me
      << " grade --help)\n"
      << "       " << me << " --version\n"
      << "       " << me << " -h, --help   this text\n\n"
      << "Labs, in course order: " << lab_list() << "\n"
      << "Device: -p/--platform, -d/--device or LAB_PLATFORM, LAB_DEVICE, LAB_DEVICE_TYPE (" << me
      << " device_info --list shows them).\n"
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

// The tour: every lab with --summary, a line per result; a failed lab's last error line and its
// first mismatches. With `quick`, each lab's short run instead of its defaults: seconds in all,
// a check that every lab and its kernels work on this machine. Exit 0 when every lab passed,
// else 1.
int tour(const fs::path& labs, bool quick) {
  std::printf("%-12s %-24s %-20s %-26s %11s %-30s %s\n", "lab", "device", "variant", "size",
              "median", "rate", "status");
  char name[] = "/tmp/opencl-labs-XXXXXX";
  const int fd = ::mkstemp(name);
  if (fd < 0) {
    std::cerr << "opencl-labs: error: cannot make a temporary file in /tmp\n";
    return kRuntime;
  }
  ::close(fd);
  const std::string errors = name;
  int passed = 0, failed = 0;
  for (const auto& lab : kLabs) {
    std::vector<std::string> args = quick ? quick_args(lab) : std::vector<std::string>{};
    args.push_back("--summary");
    const int code = run_lab(labs / lab, args, errors);
    std::ifstream in(errors);
    std::vector<std::string> lines, mismatches;
    for (std::string line; std::getline(in, line);) {
      (line.rfind("  mismatch", 0) == 0 ? mismatches : lines).push_back(line);
    }
    if (code == 0) {
      ++passed;
      continue;
    }
    ++failed;
    std::printf("%-12s FAILED (exit %d): %s\n", lab.c_str(), code,
                lines.empty() ? "" : lines.back().c_str());
    for (std::size_t i = 0; i < mismatches.size() && i < 3; ++i) {
      std::printf("%s\n", mismatches[i].c_str());
    }
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
  if (argc < 2) return tour(labs, false);
  const std::string first = argv[1];
  if (first == "--quick" && argc == 2) return tour(labs, true);
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
    std::cerr << me << ": error: no lab named '" << first << "': the labs are " << lab_list()
              << " (" << me << " --help)\n";
    return kUsage;
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
