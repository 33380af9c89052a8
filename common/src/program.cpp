// program.cpp: kernel lookup and program build.
#include "lab/program.hpp"

#include "lab/error.hpp"

#include <unistd.h>

#include <sys/stat.h>
#include <fstream>
#include <iostream>
#include <sstream>

namespace lab {
namespace {

bool is_file(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

std::string executable_dir() {
  char buffer[4096];
  const ssize_t length = ::readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  if (length <= 0) return "";
  const std::string path(buffer, static_cast<std::size_t>(length));
  return path.substr(0, path.find_last_of('/'));
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw RuntimeError("cannot read kernel file " + path + ": check its permissions");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string join(const std::string& dir, const std::string& file) {
  if (dir.empty()) return file;
  return dir.back() == '/' ? dir + file : dir + "/" + file;
}

}  // namespace

KernelLookup kernel_lookup(const Options& options) {
  const std::string exe_dir = executable_dir();
  return KernelLookup{options.kernel_file, options.kernel_dir,
                      exe_dir.empty() ? "" : exe_dir + "/kernels", LAB_SOURCE_KERNEL_DIR};
}

std::vector<std::string> kernel_candidates(const std::string& file, const KernelLookup& lookup,
                                           bool main_file) {
  if (main_file && !lookup.kernel_file.empty()) return {lookup.kernel_file};
  std::vector<std::string> paths;
  for (const auto* dir : {&lookup.kernel_dir, &lookup.exe_dir, &lookup.source_dir}) {
    if (!dir->empty()) paths.push_back(join(*dir, file));
  }
  return paths;
}

std::string find_kernel_file(const std::string& file, const KernelLookup& lookup, bool main_file) {
  const auto paths = kernel_candidates(file, lookup, main_file);
  std::string tried;
  for (const auto& path : paths) {
    if (is_file(path)) return path;
    tried += (tried.empty() ? "" : ", ") + path;
  }
  throw RuntimeError("kernel file " + file + " not found (tried " + tried +
                     "): pass --kernel-dir DIR or --kernel-file FILE");
}

std::string defines(const std::vector<std::pair<std::string, std::string>>& values) {
  std::string flags;
  for (const auto& [name, value] : values) {
    flags += (flags.empty() ? "-D" : " -D") + name + "=" + value;
  }
  return flags;
}

cl::Program build_program(const Env& env, const Options& options, const std::string& file,
                          const std::string& build_options, std::ostream& out, bool main_file) {
  const auto lookup = kernel_lookup(options);
  if (options.verbose) {
    out << "Kernel lookup for " << file << ":";
    for (const auto& path : kernel_candidates(file, lookup, main_file)) out << " " << path;
    out << "\n";
  }
  const std::string path = find_kernel_file(file, lookup, main_file);
  std::string flags = build_options;
  if (!options.build_options.empty()) flags += (flags.empty() ? "" : " ") + options.build_options;
  if (options.verbose) out << "Building " << path << " with options \"" << flags << "\"\n";

  cl::Program program(env.context, read_file(path));
  try {
    program.build(std::vector<cl::Device>{env.device}, flags.c_str());
  } catch (const cl::Error& error) {
    if (error.err() != CL_BUILD_PROGRAM_FAILURE && error.err() != CL_INVALID_BUILD_OPTIONS) throw;
    std::cerr << "Build log for " << path << " (options \"" << flags << "\"):\n"
              << program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(env.device) << "\n";
    if (error.err() == CL_INVALID_BUILD_OPTIONS) {
      throw RuntimeError("the OpenCL compiler rejected the build options \"" + flags +
                         "\": check --build-options");
    }
    // Some compilers (Oclgrind's) report an option they do not know as a build failure.
    const std::string added = options.build_options.empty()
                                  ? ""
                                  : ", or the --build-options \"" + options.build_options + "\"";
    throw RuntimeError("kernel " + path +
                       " failed to build (CL_BUILD_PROGRAM_FAILURE): fix the error in the build "
                       "log above" +
                       added);
  }
  return program;
}

}  // namespace lab
