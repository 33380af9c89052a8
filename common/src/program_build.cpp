// program_build.cpp: the build and its messages. The -D flags and the --build-options they may
// not redefine, the kernel text loaded for the compile (as if from the file's own path), the
// build log and the one-line errors made of it (a kernel's #error guard on a tunable), and the
// record of every kernel file built, for the reports. load_kernel and build_failed are the steps
// a lab takes around its own cl::Program and program.build; build_program takes them all.
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

namespace detail {

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

std::string release_compiler_output(const KernelText& text) {
  return text.compiler_output ? text.compiler_output->release() : "";
}

}  // namespace detail

Defines real_defines(const std::string& real) {
  Defines defines = {{"REAL", real, "--dtype"}};
  if (real == "double") defines.push_back({"FP64", "1", "--dtype"});
  return defines;
}

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

KernelText load_kernel(const Env& env, const Options& options, const std::string& file,
                       const Defines& defines, std::ostream& out, bool main_file) {
  check_build_options(options.build_options, defines);
  const auto lookup = kernel_lookup(options);
  if (options.verbose) {
    out << "Kernel lookup for " << file << ":";
    for (const auto& path : kernel_candidates(file, lookup, main_file)) out << " " << path;
    out << "\n";
  }
  KernelText text;
  text.path = find_kernel_file(file, lookup, main_file);
  text.file_text = detail::read_kernel_source(text.path);
  // An editor's UTF-8 byte-order mark is not OpenCL C: the compiler would stop at line 1.
  if (text.file_text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.file_text.erase(0, 3);
  text.student = !detail::is_suite_file(text.path, text.file_text, file, lookup);
  text.flags = define_flags(defines);
  if (text.student) {
    text.flags += (text.flags.empty() ? "" : " ") + std::string("-cl-kernel-arg-info");
  }
  if (!options.build_options.empty()) {
    text.flags += (text.flags.empty() ? "" : " ") + options.build_options;
  }
  if (options.verbose) {
    out << "Building " << text.path << " with options \"" << text.flags << "\"\n";
  }
  text.defines = defines;
  text.build_options = options.build_options;
  record_kernel_file(text.path, text.file_text, text.student);
  // PoCL's compiler takes the file's name from a #line directive. Others either ignore it and
  // count it as a line (NVIDIA, whose log says "<kernel>:LINE:COL") or quote the given text by
  // line number (Oclgrind): there the source goes in as it is, and the log's name is replaced.
  const bool pocl = env.platform_name().find("Portable Computing Language") != std::string::npos;
  text.source = (pocl ? line_directive(text.path) : "") + text.file_text;
  text.compiler_output = std::make_shared<detail::CapturedStderr>();
  return text;
}

namespace {

// The build log with NVIDIA's "<kernel>:LINE:COL" named after the file.
std::string named_log(const KernelText& text, std::string log) {
  for (std::size_t at = log.find("<kernel>:"); at != std::string::npos;
       at = log.find("<kernel>:", at + text.path.size())) {
    log.replace(at, 8, text.path);
  }
  return log;
}

}  // namespace

void build_failed(const KernelText& text, const cl::Error& error, std::string log) {
  const std::string printed = detail::release_compiler_output(text);
  if (error.err() != CL_BUILD_PROGRAM_FAILURE && error.err() != CL_INVALID_BUILD_OPTIONS) {
    std::cerr << printed;
    throw error;
  }
  log = named_log(text, log);
  // A kernel that checks the lab's tunables with #if ... #error "sentence": the sentence, with
  // the values and the options that set them, is a usage error, and that one line says all the
  // log would. An #error that names none of them is the kernel's own failure.
  const std::string guard = failed_guard(text.file_text, log);
  std::string given, options_named;
  for (const auto& define : text.defines) {
    if (guard.empty() || !mentions(guard, define.name)) continue;
    given += (given.empty() ? "" : " ") + define.name + "=" + define.value;
    if (!define.option.empty() && options_named.find(define.option) == std::string::npos) {
      options_named += (options_named.empty() ? "" : " or ") + define.option;
    }
  }
  // Every lab option that sets a tunable has --tunable NAME=VALUE beside it.
  if (!options_named.empty()) options_named += " or --tunable";
  if (!given.empty()) {
    throw UsageError(text.path + " refuses " + given + ": " + guard +
                     (options_named.empty() ? "" : " (set with " + options_named + ")"));
  }
  // What the compiler printed itself (PoCL's "2 errors generated.") goes under the log it
  // sums up, so the header comes first.
  std::cerr << "Build log for " << text.path << " (options \"" << text.flags << "\"):\n"
            << log << "\n"
            << printed;
  if (error.err() == CL_INVALID_BUILD_OPTIONS) {
    throw RuntimeError("the OpenCL compiler rejected the build options \"" + text.flags +
                       "\": check --build-options");
  }
  // Some compilers (Oclgrind's) report an option they do not know as a build failure.
  const std::string added =
      text.build_options.empty() ? "" : ", or the --build-options \"" + text.build_options + "\"";
  throw detail::kernel_error(text.student,
                             "kernel " + text.path +
                                 " failed to build (CL_BUILD_PROGRAM_FAILURE): fix the error in "
                                 "the build log above (lines as numbered in the file)" +
                                 added);
}

Program build_program(const Env& env, const Options& options, const std::string& file,
                      const Defines& defines, std::ostream& out, bool main_file) {
  KernelText text = load_kernel(env, options, file, defines, out, main_file);
  Program built;
  built.path = text.path;
  built.student = text.student;
  built.program = cl::Program(env.context, text.source);
  try {
    built.program.build(std::vector<cl::Device>{env.device}, text.flags.c_str());
  } catch (const cl::Error& error) {
    build_failed(text, error, built.program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(env.device));
  }
  // Standard error back now, not at make_kernel: a lab may print before that, or never call it.
  // A student's kernel that built with warnings gets them shown (a compiler that only counts
  // them, as PoCL's "3 warnings generated.", keeps them in the log): a warning is often the
  // mistake itself (a float* handed a double array).
  const std::string printed = detail::release_compiler_output(text);
  if (text.student) {
    const std::string log = built.program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(env.device);
    if (log.find("warning") != std::string::npos) {
      std::cerr << "Build warnings for " << text.path << ":\n" << named_log(text, log) << "\n";
    }
  }
  std::cerr << printed;
  built.text = std::move(text);
  return built;
}

const std::vector<KernelSource>& built_kernel_files() { return kernel_files(); }

}  // namespace lab
