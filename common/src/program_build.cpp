// program_build.cpp: the build and its messages. The -D flags and the --build-options they may
// not redefine, the compile (as if from the file's own path), the build log and the one-line
// errors made of it (a kernel's #error guard on a tunable), and the record of every kernel file
// built, for the reports.
#include "program_internal.hpp"

#include "lab/sha256.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace lab {
namespace {

// A #line directive naming `path`, so compiler messages cite the file, not a temporary copy.
std::string line_directive(const std::string& path) {
  std::string quoted;
  for (const char c : path) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return "#line 1 \"" + quoted + "\"\n";
}

std::vector<KernelSource>& kernel_files() {
  static std::vector<KernelSource> files;
  return files;
}

void record_kernel_file(const std::string& path, const std::string& source, bool student) {
  for (const auto& known : kernel_files()) {
    if (known.path == path) return;
  }
  kernel_files().push_back(KernelSource{path, sha256_hex(source), student});
}

// Whether `text` has `name` as a whole word ("TS" is not in "TSK").
bool mentions(const std::string& text, const std::string& name) {
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (auto at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const bool starts = at == 0 || !word(text[at - 1]);
    const bool ends = at + name.size() == text.size() || !word(text[at + name.size()]);
    if (starts && ends) return true;
  }
  return false;
}

// What the process writes to its standard error (file descriptor 2) while one of these lives:
// an OpenCL compiler may print its own summary there ("1 error generated.") besides the build
// log, which would put a second line before a one-line usage error.
class CapturedStderr {
 public:
  CapturedStderr() {
    std::fflush(stderr);
    std::cerr.flush();
    file_ = std::tmpfile();
    saved_ = file_ != nullptr ? ::dup(2) : -1;
    if (saved_ >= 0 && ::dup2(::fileno(file_), 2) < 0) {
      ::close(saved_);
      saved_ = -1;
    }
  }
  ~CapturedStderr() { release(); }
  CapturedStderr(const CapturedStderr&) = delete;
  CapturedStderr& operator=(const CapturedStderr&) = delete;

  // Restores standard error and returns what was written meanwhile.
  std::string release() {
    std::string text;
    if (saved_ >= 0) {
      std::fflush(stderr);
      ::dup2(saved_, 2);
      ::close(saved_);
      saved_ = -1;
      std::rewind(file_);
      char buffer[4096];
      for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, file_)) > 0;) {
        text.append(buffer, got);
      }
    }
    if (file_ != nullptr) std::fclose(file_);
    file_ = nullptr;
    return text;
  }

 private:
  std::FILE* file_ = nullptr;
  int saved_ = -1;
};

// The sentence of the first #error directive of `source` that the build log quotes, or "".
std::string failed_guard(const std::string& source, const std::string& log) {
  std::istringstream lines(source);
  std::string line;
  while (std::getline(lines, line)) {
    const auto hash = line.find_first_not_of(" \t");
    if (hash == std::string::npos || line[hash] != '#') continue;
    const auto word = line.find_first_not_of(" \t", hash + 1);
    if (word == std::string::npos || line.compare(word, 5, "error") != 0) continue;
    std::string sentence = line.substr(std::min(line.size(), word + 5));
    const auto begin = sentence.find_first_not_of(" \t\"");
    const auto end = sentence.find_last_not_of(" \t\"\r");
    if (begin == std::string::npos) continue;
    sentence = sentence.substr(begin, end - begin + 1);
    if (log.find(sentence) != std::string::npos) return sentence;
  }
  return "";
}

}  // namespace

std::string define_flags(const Defines& defines) {
  std::string flags;
  for (const auto& define : defines) {
    flags += (flags.empty() ? "-D" : " -D") + define.name + "=" + define.value;
  }
  return flags;
}

void check_build_options(const std::string& build_options, const Defines& defines) {
  std::istringstream words(build_options);
  std::string word;
  std::string pending;  // "-D NAME=VALUE" or "-I DIR" spelled as two words: the flag waiting
  while (words >> word) {
    std::string name;
    if (pending == "-I") {
      pending.clear();
      continue;
    } else if (pending == "-D") {
      name = word;
      pending.clear();
    } else if (word == "-D" || word == "-I") {
      pending = word;
      continue;
    } else if (word.rfind("-D", 0) == 0) {
      name = word.substr(2);
    } else {
      continue;
    }
    name = name.substr(0, name.find('='));
    for (const auto& define : defines) {
      if (define.name != name) continue;
      const std::string instead = define.option.empty()
                                      ? "the lab derives it from the sizes: leave it out"
                                      : "set it with " + define.option + " instead";
      throw UsageError("--build-options \"" + build_options + "\" redefines " + name +
                       ", which the host also uses to size the launch and the buffers: " + instead);
    }
  }
  // Some compilers (PoCL 3 among them) crash on a flag that lacks its value rather than report it.
  if (!pending.empty()) {
    throw UsageError("--build-options \"" + build_options + "\" ends with " + pending +
                     ", which needs a value after it: give " +
                     (pending == "-D" ? "-D NAME or -D NAME=VALUE" : "-I DIR") + ", or drop it");
  }
}

Program build_program(const Env& env, const Options& options, const std::string& file,
                      const Defines& defines, std::ostream& out, bool main_file) {
  check_build_options(options.build_options, defines);
  const auto lookup = kernel_lookup(options);
  if (options.verbose) {
    out << "Kernel lookup for " << file << ":";
    for (const auto& path : kernel_candidates(file, lookup, main_file)) out << " " << path;
    out << "\n";
  }
  Program built;
  built.path = find_kernel_file(file, lookup, main_file);
  std::string source = detail::read_kernel_source(built.path);
  // An editor's UTF-8 byte-order mark is not OpenCL C: the compiler would stop at line 1.
  if (source.compare(0, 3, "\xEF\xBB\xBF") == 0) source.erase(0, 3);
  built.student = !detail::is_suite_file(built.path, source, file, lookup);
  std::string flags = define_flags(defines);
  if (built.student) flags += (flags.empty() ? "" : " ") + std::string("-cl-kernel-arg-info");
  if (!options.build_options.empty()) flags += (flags.empty() ? "" : " ") + options.build_options;
  if (options.verbose) out << "Building " << built.path << " with options \"" << flags << "\"\n";

  record_kernel_file(built.path, source, built.student);
  // PoCL's compiler takes the file's name from a #line directive. Others either ignore it and
  // count it as a line (NVIDIA, whose log says "<kernel>:LINE:COL") or quote the given text by
  // line number (Oclgrind): there the source goes in as it is, and the log's name is replaced.
  const bool pocl = env.platform_name().find("Portable Computing Language") != std::string::npos;
  built.program = cl::Program(env.context, (pocl ? line_directive(built.path) : "") + source);
  CapturedStderr compiler_output;
  try {
    built.program.build(std::vector<cl::Device>{env.device}, flags.c_str());
    std::cerr << compiler_output.release();
  } catch (const cl::Error& error) {
    const std::string printed = compiler_output.release();
    if (error.err() != CL_BUILD_PROGRAM_FAILURE && error.err() != CL_INVALID_BUILD_OPTIONS) {
      std::cerr << printed;
      throw;
    }
    std::string log = built.program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(env.device);
    for (std::size_t at = log.find("<kernel>:"); at != std::string::npos;
         at = log.find("<kernel>:", at + built.path.size())) {
      log.replace(at, 8, built.path);
    }
    // A kernel that checks the lab's tunables with #if ... #error "sentence": the sentence, with
    // the values and the options that set them, is a usage error, and that one line says all the
    // log would. An #error that names none of them is the kernel's own failure.
    const std::string guard = failed_guard(source, log);
    std::string given, options_named;
    for (const auto& define : defines) {
      if (guard.empty() || !mentions(guard, define.name)) continue;
      given += (given.empty() ? "" : " ") + define.name + "=" + define.value;
      if (!define.option.empty() && options_named.find(define.option) == std::string::npos) {
        options_named += (options_named.empty() ? "" : " or ") + define.option;
      }
    }
    // Every lab option that sets a tunable has --tunable NAME=VALUE beside it.
    if (!options_named.empty()) options_named += " or --tunable";
    if (!given.empty()) {
      throw UsageError(built.path + " refuses " + given + ": " + guard +
                       (options_named.empty() ? "" : " (set with " + options_named + ")"));
    }
    // What the compiler printed itself (PoCL's "2 errors generated.") goes under the log it
    // sums up, so the header comes first.
    std::cerr << "Build log for " << built.path << " (options \"" << flags << "\"):\n"
              << log << "\n"
              << printed;
    if (error.err() == CL_INVALID_BUILD_OPTIONS) {
      throw RuntimeError("the OpenCL compiler rejected the build options \"" + flags +
                         "\": check --build-options");
    }
    // Some compilers (Oclgrind's) report an option they do not know as a build failure.
    const std::string added = options.build_options.empty()
                                  ? ""
                                  : ", or the --build-options \"" + options.build_options + "\"";
    throw detail::kernel_error(built,
                               "kernel " + built.path +
                                   " failed to build (CL_BUILD_PROGRAM_FAILURE): fix the error in "
                                   "the build log above (lines as numbered in the file)" +
                                   added);
  }
  // A barrier some work-items skip is undefined behaviour that PoCL may even get right: a
  // student's kernel is refused before it runs.
  if (built.student) {
    const std::string divergent = divergent_barrier(source);
    if (!divergent.empty()) throw detail::kernel_error(built, built.path + " " + divergent);
  }
  return built;
}

const std::vector<KernelSource>& built_kernel_files() { return kernel_files(); }

}  // namespace lab
