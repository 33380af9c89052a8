// program.cpp: kernel lookup, program build, and the kernel the host launches.
#include "lab/program.hpp"

#include "lab/error.hpp"
#include "lab/sha256.hpp"
#include "lab/trace.hpp"

#include <unistd.h>

#include <sys/stat.h>
#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
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

// Whether `path`, holding `source`, is the suite's own `file`: one of its copies (beside the
// executable or installed), or a file with the same contents.
bool is_suite_file(const std::string& path, const std::string& source, const std::string& file,
                   const KernelLookup& lookup) {
  const std::string real = real_path(path);
  for (const auto* dir : {&lookup.beside, &lookup.installed}) {
    const std::string suite = join(*dir, file);
    if (dir->empty() || !is_file(suite)) continue;
    if (real_path(suite) == real || read_file(suite) == source) return true;
  }
  return false;
}

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

// The error a kernel problem becomes: the student's kernel is wrong (exit 1), or the suite's
// kernel does not work on this device (exit 3).
Error kernel_error(const Program& program, const std::string& message) {
  if (program.student) return Error(kExitFailed, message);
  return RuntimeError(message);
}

std::string address_name(cl_kernel_arg_address_qualifier address) {
  switch (address) {
    case CL_KERNEL_ARG_ADDRESS_GLOBAL:
      return "global";
    case CL_KERNEL_ARG_ADDRESS_CONSTANT:
      return "constant";
    case CL_KERNEL_ARG_ADDRESS_LOCAL:
      return "local";
    default:
      return "";
  }
}

std::string arg_text(const KernelArg& arg) {
  std::string text = arg.address.empty() ? "" : "__" + arg.address + " ";
  // __constant data is read-only without saying so; drivers report it const too.
  const bool pointer = !arg.type.empty() && arg.type.back() == '*';
  if (arg.constant && pointer && arg.address != "constant") text += "const ";
  text += arg.type;
  if (!arg.name.empty()) text += " " + arg.name;
  return text;
}

std::string signature_text(const std::string& name, const std::vector<KernelArg>& args) {
  std::string text = "__kernel void " + name + "(";
  for (std::size_t i = 0; i < args.size(); ++i) text += (i ? ", " : "") + arg_text(args[i]);
  return text + ")";
}

// The kernel's arguments as the driver reports them; empty names and types when it does not
// (a suite file built without -cl-kernel-arg-info on a driver that needs it).
std::vector<KernelArg> actual_args(const cl::Kernel& kernel, bool& known) {
  const cl_uint count = kernel.getInfo<CL_KERNEL_NUM_ARGS>();
  std::vector<KernelArg> args(count);
  known = true;
  try {
    for (cl_uint i = 0; i < count; ++i) {
      args[i].address = address_name(kernel.getArgInfo<CL_KERNEL_ARG_ADDRESS_QUALIFIER>(i));
      args[i].type = kernel.getArgInfo<CL_KERNEL_ARG_TYPE_NAME>(i);
      args[i].name = kernel.getArgInfo<CL_KERNEL_ARG_NAME>(i);
      args[i].constant =
          (kernel.getArgInfo<CL_KERNEL_ARG_TYPE_QUALIFIER>(i) & CL_KERNEL_ARG_TYPE_CONST) != 0;
      for (auto* text : {&args[i].type, &args[i].name}) {
        while (!text->empty() && text->back() == '\0') text->pop_back();
      }
    }
  } catch (const cl::Error&) {
    known = false;
  }
  return args;
}

// `source` without comments, string literals and preprocessor lines, newlines kept.
std::string code_only(const std::string& source) {
  std::string code;
  bool directive = false, line_start = true;
  for (std::size_t i = 0; i < source.size();) {
    const char c = source[i];
    if (c == '\n') {
      // A directive ends at a newline that is not escaped.
      if (!(directive && i > 0 && source[i - 1] == '\\')) directive = false;
      code += '\n';
      line_start = true;
      ++i;
      continue;
    }
    if (line_start && c == '#') directive = true;
    if (c != ' ' && c != '\t') line_start = false;
    if (source.compare(i, 2, "//") == 0) {
      while (i < source.size() && source[i] != '\n') ++i;
    } else if (source.compare(i, 2, "/*") == 0) {
      for (i += 2; i < source.size() && source.compare(i, 2, "*/") != 0; ++i) {
        if (source[i] == '\n') code += '\n';
      }
      i += 2;
    } else if (c == '"' || c == '\'') {
      for (++i; i < source.size() && source[i] != c && source[i] != '\n'; ++i) {
        if (source[i] == '\\') ++i;
      }
      ++i;
      code += ' ';
    } else {
      code += directive ? ' ' : c;
      ++i;
    }
  }
  return code;
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

std::string not_in_kernel_dir(const std::string& file, const std::string& dir) {
  return "kernel file " + file + " is not in --kernel-dir " + dir +
         ": save your kernel there under that name, or pass it with --kernel-file";
}

}  // namespace

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

std::string KernelSignature::text() const { return signature_text(name, args); }

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
  std::string source = read_file(built.path);
  // An editor's UTF-8 byte-order mark is not OpenCL C: the compiler would stop at line 1.
  if (source.compare(0, 3, "\xEF\xBB\xBF") == 0) source.erase(0, 3);
  built.student = !is_suite_file(built.path, source, file, lookup);
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
    throw kernel_error(built, "kernel " + built.path +
                                  " failed to build (CL_BUILD_PROGRAM_FAILURE): fix the error in "
                                  "the build log above (lines as numbered in the file)" +
                                  added);
  }
  // A barrier some work-items skip is undefined behaviour that PoCL may even get right: a
  // student's kernel is refused before it runs.
  if (built.student) {
    const std::string divergent = divergent_barrier(source);
    if (!divergent.empty()) throw kernel_error(built, built.path + " " + divergent);
  }
  return built;
}

cl::Kernel make_kernel(const Program& program, const KernelSignature& signature) {
  if (Trace* trace = active_trace()) trace->set_label(signature.name);
  cl::Kernel kernel;
  try {
    kernel = cl::Kernel(program.program, signature.name.c_str());
  } catch (const cl::Error& error) {
    if (error.err() != CL_INVALID_KERNEL_NAME) throw;
    std::string names = program.program.getInfo<CL_PROGRAM_KERNEL_NAMES>();
    while (!names.empty() && names.back() == '\0') names.pop_back();
    std::string::size_type at = 0;
    while ((at = names.find(';', at)) != std::string::npos) names.replace(at, 1, ", ");
    throw kernel_error(program, program.path + " defines no kernel named " + signature.name +
                                    " (it defines: " + (names.empty() ? "none" : names) +
                                    "): the lab launches " + signature.text());
  }
  bool known = false;
  const std::vector<KernelArg> args = actual_args(kernel, known);
  const std::string expected = ": the lab launches " + signature.text();
  if (args.size() != signature.args.size()) {
    throw kernel_error(
        program, "kernel " + signature.name + " in " + program.path + " takes " +
                     std::to_string(args.size()) + " arguments" +
                     (known ? " (" + signature_text(signature.name, args) + ")" : "") +
                     ", but the lab passes " + std::to_string(signature.args.size()) + expected);
  }
  if (!known) return kernel;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const KernelArg& want = signature.args[i];
    if (args[i].address == want.address && args[i].type == want.type) continue;
    throw kernel_error(program, "argument " + std::to_string(i) + " of kernel " + signature.name +
                                    " in " + program.path + " is \"" + arg_text(args[i]) +
                                    "\", but the lab passes \"" + arg_text(want) + "\"" + expected);
  }
  return kernel;
}

std::string divergent_barrier(const std::string& source) {
  // Tokens (identifiers, or single punctuation characters) with their line numbers.
  const std::string code = code_only(source);
  std::vector<std::pair<std::string, int>> tokens;
  int line = 1;
  for (std::size_t i = 0; i < code.size();) {
    const unsigned char c = static_cast<unsigned char>(code[i]);
    if (c == '\n') ++line;
    if (std::isalnum(c) || c == '_') {
      std::size_t end = i;
      while (end < code.size() &&
             (std::isalnum(static_cast<unsigned char>(code[end])) || code[end] == '_')) {
        ++end;
      }
      tokens.emplace_back(code.substr(i, end - i), line);
      i = end;
    } else {
      if (!std::isspace(c)) tokens.emplace_back(std::string(1, code[i]), line);
      ++i;
    }
  }
  enum Pending { none, branch, loop };
  Pending pending = none;
  std::vector<bool> blocks;    // for each open brace: is it a branch's body?
  int statement_branches = 0;  // braceless branch bodies open until the next ';'
  int returned = 0;            // line of a return inside a branch, in this function
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    const std::string& word = tokens[k].first;
    if (word == "if" || word == "switch" || word == "for" || word == "while") {
      int depth = 0;  // skip the parenthesised condition
      for (++k; k < tokens.size(); ++k) {
        if (tokens[k].first == "(") ++depth;
        if (tokens[k].first == ")" && --depth == 0) break;
      }
      pending = (word == "if" || word == "switch") ? branch : loop;
      continue;
    }
    if (word == "else" || word == "do") {
      pending = word == "else" ? branch : loop;
      continue;
    }
    if (word == "{") {
      blocks.push_back(pending == branch);
      pending = none;
      continue;
    }
    if (pending == branch) ++statement_branches;  // a branch body without braces
    pending = none;
    const bool in_branch =
        statement_branches > 0 || std::find(blocks.begin(), blocks.end(), true) != blocks.end();
    if (word == "}") {
      if (!blocks.empty()) blocks.pop_back();
      if (blocks.empty()) returned = 0;  // the end of a function
    } else if (word == ";") {
      statement_branches = 0;
    } else if (word == "return" && in_branch) {
      returned = tokens[k].second;
    } else if ((word == "barrier" || word == "work_group_barrier") && k + 1 < tokens.size() &&
               tokens[k + 1].first == "(") {
      const std::string where = "line " + std::to_string(tokens[k].second) + ": ";
      if (in_branch) {
        return where +
               "barrier() inside an if, else or switch: every work-item of a group must "
               "reach the same barriers, so move it out of the branch";
      }
      if (returned > 0) {
        return where + "barrier() after a return inside a branch (line " +
               std::to_string(returned) +
               "): work-items that returned never reach it; let them skip the work instead";
      }
    }
  }
  return "";
}

const std::vector<KernelSource>& built_kernel_files() { return kernel_files(); }

}  // namespace lab
