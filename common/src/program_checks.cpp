// program_checks.cpp: the checks on a kernel before it runs. check_kernel_name and
// check_kernel_args hold the program and the kernel the host takes against the signature it
// launches (name, argument count, each argument's address space and type), make_kernel takes
// both steps, and divergent_barrier reads a student's source for a barrier that some
// work-items of a group may not reach.
#include "program_internal.hpp"

#include "lab/trace.hpp"

#include <algorithm>
#include <cctype>
#include <iostream>

namespace lab {
namespace {

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
  std::string text = !arg.access.empty()   ? "__" + arg.access + " "
                     : arg.address.empty() ? ""
                                           : "__" + arg.address + " ";
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
      if (args[i].type.rfind("image", 0) == 0) {
        const cl_kernel_arg_access_qualifier access =
            kernel.getArgInfo<CL_KERNEL_ARG_ACCESS_QUALIFIER>(i);
        if (access == CL_KERNEL_ARG_ACCESS_READ_ONLY) args[i].access = "read_only";
        if (access == CL_KERNEL_ARG_ACCESS_WRITE_ONLY) args[i].access = "write_only";
        if (access == CL_KERNEL_ARG_ACCESS_READ_WRITE) args[i].access = "read_write";
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

}  // namespace

std::string KernelSignature::text() const { return signature_text(name, args); }

void check_kernel_name(const cl::Program& program, const KernelText& text,
                       const KernelSignature& signature) {
  std::cerr << detail::release_compiler_output(text);
  // A barrier some work-items skip is undefined behaviour that PoCL may even get right: a
  // student's kernel is refused before it runs.
  if (text.student) {
    const std::string divergent = divergent_barrier(text.file_text);
    if (!divergent.empty()) throw detail::kernel_error(text.student, text.path + " " + divergent);
  }
  if (Trace* trace = active_trace()) trace->set_label(signature.name);
  std::string names = program.getInfo<CL_PROGRAM_KERNEL_NAMES>();
  while (!names.empty() && names.back() == '\0') names.pop_back();
  const std::string listed = ";" + names + ";";
  if (listed.find(";" + signature.name + ";") != std::string::npos) return;
  std::string::size_type at = 0;
  while ((at = names.find(';', at)) != std::string::npos) names.replace(at, 1, ", ");
  throw detail::kernel_error(text.student, text.path + " defines no kernel named " +
                                               signature.name +
                                               " (it defines: " + (names.empty() ? "none" : names) +
                                               "): the lab launches " + signature.text());
}

void check_kernel_args(const cl::Kernel& kernel, const KernelText& text,
                       const KernelSignature& signature) {
  bool known = false;
  const std::vector<KernelArg> args = actual_args(kernel, known);
  const std::string expected = ": the lab launches " + signature.text();
  if (args.size() != signature.args.size()) {
    throw detail::kernel_error(
        text.student,
        "kernel " + signature.name + " in " + text.path + " takes " + std::to_string(args.size()) +
            " arguments" + (known ? " (" + signature_text(signature.name, args) + ")" : "") +
            ", but the lab passes " + std::to_string(signature.args.size()) + expected);
  }
  if (!known) return;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const KernelArg& want = signature.args[i];
    if (args[i].address == want.address && args[i].type == want.type) continue;
    throw detail::kernel_error(text.student, "argument " + std::to_string(i) + " of kernel " +
                                                 signature.name + " in " + text.path + " is \"" +
                                                 arg_text(args[i]) + "\", but the lab passes \"" +
                                                 arg_text(want) + "\"" + expected);
  }
}

cl::Kernel make_kernel(const Program& program, const KernelSignature& signature) {
  check_kernel_name(program.program, program.text, signature);
  cl::Kernel kernel(program.program, signature.name.c_str());
  check_kernel_args(kernel, program.text, signature);
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

}  // namespace lab
