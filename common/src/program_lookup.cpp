// program_lookup.cpp: kernel lookup. Where a lab finds a .cl file (--kernel-file, --kernel-dir,
// kernels/ beside the executable, the installed share folder), the checks on those paths made
// before any work, and reading a file and telling whether it is one of the suite's own.
#include "program_internal.hpp"

#include <unistd.h>

#include <sys/stat.h>
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace lab {
namespace {

bool is_file(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

bool is_dir(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

std::string real_path(const std::string& path) {
  char resolved[PATH_MAX];
  return ::realpath(path.c_str(), resolved) != nullptr ? std::string(resolved) : path;
}

std::string executable_dir() {
  char buffer[4096];
  const ssize_t length = ::readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  if (length <= 0) return "";
  const std::string path(buffer, static_cast<std::size_t>(length));
  return path.substr(0, path.find_last_of('/'));
}

std::string join(const std::string& dir, const std::string& file) {
  if (dir.empty()) return file;
  return dir.back() == '/' ? dir + file : dir + "/" + file;
}

std::string not_in_kernel_dir(const std::string& file, const std::string& dir) {
  return "kernel file " + file + " is not in --kernel-dir " + dir +
         ": save your kernel there under that name, or pass it with --kernel-file";
}

}  // namespace

namespace detail {

std::string read_kernel_source(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw RuntimeError("cannot read kernel file " + path + ": check its permissions");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Whether `path`, holding `source`, is the suite's own `file`: one of its copies (beside the
// executable or installed), or a file with the same contents.
bool is_suite_file(const std::string& path, const std::string& source, const std::string& file,
                   const KernelLookup& lookup) {
  const std::string real = real_path(path);
  for (const auto* dir : {&lookup.beside, &lookup.installed}) {
    const std::string suite = join(*dir, file);
    if (dir->empty() || !is_file(suite)) continue;
    if (real_path(suite) == real || read_kernel_source(suite) == source) return true;
  }
  return false;
}

}  // namespace detail

KernelLookup kernel_lookup(const Options& options) {
  const std::string exe_dir = executable_dir();
  if (exe_dir.empty()) return KernelLookup{options.kernel_file, options.kernel_dir, "", ""};
  // A build tree has kernels/ beside the binary; only an installed lab looks in the share folder.
  const std::string beside = exe_dir + "/kernels";
  const std::string installed =
      is_dir(beside)
          ? ""
          : (std::filesystem::path(exe_dir) / LAB_INSTALLED_KERNEL_DIR).lexically_normal().string();
  return KernelLookup{options.kernel_file, options.kernel_dir, beside, installed};
}

std::vector<std::string> kernel_candidates(const std::string& file, const KernelLookup& lookup,
                                           bool main_file) {
  if (main_file && !lookup.kernel_file.empty()) return {lookup.kernel_file};
  if (main_file && !lookup.kernel_dir.empty()) return {join(lookup.kernel_dir, file)};
  std::vector<std::string> paths;
  for (const auto* dir : {&lookup.kernel_dir, &lookup.beside, &lookup.installed}) {
    if (!dir->empty()) paths.push_back(join(*dir, file));
  }
  return paths;
}

std::string find_kernel_file(const std::string& file, const KernelLookup& lookup, bool main_file) {
  const auto paths = kernel_candidates(file, lookup, main_file);
  if (main_file && lookup.kernel_file.empty() && !lookup.kernel_dir.empty() &&
      !is_file(paths.front())) {
    throw RuntimeError(not_in_kernel_dir(file, lookup.kernel_dir));
  }
  if (main_file && !lookup.kernel_file.empty()) check_kernel_file(lookup.kernel_file);
  std::string tried;
  for (const auto& path : paths) {
    if (is_file(path)) return path;
    tried += (tried.empty() ? "" : ", ") + path;
  }
  throw RuntimeError("kernel file " + file + " not found (tried " + tried +
                     "): pass --kernel-dir DIR or --kernel-file FILE");
}

void check_kernel_file(const std::string& path) {
  if (!is_file(path)) {
    throw UsageError("--kernel-file " + path +
                     " is not a file: check the path (relative paths start from the current "
                     "directory)");
  }
}

void check_kernel_paths(const Options& options) {
  if (!options.kernel_dir.empty() && !is_dir(options.kernel_dir)) {
    throw UsageError("--kernel-dir (or LAB_KERNEL_DIR) " + options.kernel_dir +
                     " is not a directory: check the path, or leave it out to use the suite's "
                     "kernels");
  }
  if (!options.kernel_file.empty()) check_kernel_file(options.kernel_file);
}

void require_kernel_files(const Options& options, const std::vector<std::string>& files,
                          const std::string& option) {
  if (options.kernel_dir.empty() || !options.kernel_file.empty()) return;
  std::vector<std::string> wanted;
  for (const auto& file : files) {
    if (!file.empty() && std::find(wanted.begin(), wanted.end(), file) == wanted.end()) {
      wanted.push_back(file);
    }
  }
  std::string missing;
  std::size_t count = 0;
  for (const auto& file : wanted) {
    if (is_file(join(options.kernel_dir, file))) continue;
    missing += (missing.empty() ? "" : ", ") + file;
    ++count;
  }
  if (count == 0) return;
  if (wanted.size() == 1) throw RuntimeError(not_in_kernel_dir(missing, options.kernel_dir));
  const KernelLookup lookup = kernel_lookup(options);
  const std::string suite = is_dir(lookup.beside) ? lookup.beside : lookup.installed;
  throw RuntimeError("--kernel-dir " + options.kernel_dir + " lacks " + std::to_string(count) +
                     " of the " + std::to_string(wanted.size()) + " kernel files " + option +
                     " all uses (" + missing + "): copy them there from " +
                     (suite.empty() ? "the suite's kernels/" : suite) +
                     " next to yours, or run yours alone with " + option + " NAME");
}

}  // namespace lab
