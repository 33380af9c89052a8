// parts.cpp: --part, and what follows from a part lab's table.
#include "lab/parts.hpp"

#include "lab/cli.hpp"
#include "lab/error.hpp"
#include "lab/program.hpp"

#include <algorithm>
#include <ostream>

namespace lab {
namespace {

// "a, b or c".
std::string either(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  return text;
}

}  // namespace

Parts::Parts(Cli& cli, std::vector<Part> parts, const std::string& help)
    : parts_(std::move(parts)) {
  std::vector<std::string> names;
  for (const Part& part : parts_) names.push_back(part.name);
  names.push_back("all");
  std::string list;
  for (const auto& name : names) list += (list.empty() ? "" : "|") + name;
  cli.add_choice("--part", chosen_, help + ": " + list + " (default all)", names);
}

Parts& Parts::read_by(const std::string& option, std::vector<std::string> parts) {
  read_by_.emplace_back(option, std::move(parts));
  return *this;
}

bool Parts::runs(const std::string& name) const { return chosen_ == "all" || chosen_ == name; }

std::vector<const Part*> Parts::running() const {
  std::vector<const Part*> out;
  for (const Part& part : parts_) {
    if (runs(part.name)) out.push_back(&part);
  }
  return out;
}

void Parts::check(const Cli& cli) const {
  if (chosen_ != "all") {
    for (const auto& [option, parts] : read_by_) {
      if (!cli.given(option) || std::find(parts.begin(), parts.end(), chosen_) != parts.end()) {
        continue;
      }
      notes() << cli.name() << ": note: " << option << " is read by --part " << either(parts)
              << ", not by " << chosen_ << ": ignored (choose --part " << either(parts)
              << " or all to use it)\n";
    }
  }

  const Options& options = cli.options();
  std::vector<std::string> files;  // the files the chosen parts let a student replace
  for (const Part* part : running()) {
    if (!part->kernel_file.empty() &&
        std::find(files.begin(), files.end(), part->kernel_file) == files.end()) {
      files.push_back(part->kernel_file);
    }
  }
  if (!options.kernel_file.empty()) {
    if (files.size() > 1) {
      std::vector<std::string> choices;
      for (const Part& part : parts_) {
        if (!part.kernel_file.empty()) choices.push_back(part.name + " (" + part.kernel_file + ")");
      }
      throw UsageError("--kernel-file replaces one demonstration's kernels: add --part NAME, " +
                       either(choices));
    }
    if (files.empty()) {
      const Part& part = *running().front();
      std::vector<std::string> others;
      std::string replaced;
      for (const Part& other : parts_) {
        if (other.kernel_file.empty()) continue;
        others.push_back(other.name);
        replaced = other.kernel_file;
      }
      others.push_back("all");
      std::string theirs;
      for (const auto& file : part.helper_files) theirs += (theirs.empty() ? "" : ", ") + file;
      if (replaced.empty()) {  // no part has a kernel of its own to replace
        throw UsageError("--kernel-file has nothing to replace here: every part runs the suite's " +
                         (theirs.empty() ? std::string("kernels") : theirs) +
                         "; put your copy in a folder under the same name and pass --kernel-dir");
      }
      throw UsageError("--kernel-file replaces " + replaced + ", which --part " + part.name +
                       " does not build: choose --part " + either(others) +
                       (theirs.empty() ? std::string()
                                       : ", or put your copy of " + theirs +
                                             " in a folder and pass --kernel-dir"));
    }
  }
  // Helper files may come from the suite when --kernel-dir lacks them; the replaceable ones not.
  require_kernel_files(options, files, "--part");
}

}  // namespace lab
