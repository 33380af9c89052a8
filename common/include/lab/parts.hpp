// parts.hpp: a part lab's --part. The lab lists its demonstrations once, each with its kernel
// files, and says which of its options each one reads; --help, --kernel-file, --kernel-dir and
// the notes about ignored options all follow from that table.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace lab {

class Cli;

// One demonstration of a part lab.
struct Part {
  std::string name;
  // The file --kernel-file replaces when this part runs ("" when it builds none of the lab's own
  // kernels, so --kernel-file has nothing to replace there).
  std::string kernel_file;
  // Other suite files it builds, looked up in --kernel-dir like every file but never replaced by
  // --kernel-file.
  std::vector<std::string> helper_files = {};
};

class Parts {
 public:
  // Adds --part NAME|all (default all) to `cli`, with `help` followed by the names.
  Parts(Cli& cli, std::vector<Part> parts, const std::string& help = "Which demonstration");

  // Records that `option` (a long name the lab added to the Cli) is read by `parts` only.
  Parts& read_by(const std::string& option, std::vector<std::string> parts);

  // After Cli::parse(), before any work. A note (lab::notes()) for each option given that the
  // chosen part does not read. A UsageError when --kernel-file cannot be placed: --part all
  // runs parts with different files, or the chosen part has none to replace. With --kernel-dir,
  // a RuntimeError when the folder lacks a file the chosen parts build.
  void check(const Cli& cli) const;

  // Whether part `name` runs: it was chosen, or all was.
  bool runs(const std::string& name) const;
  const std::string& chosen() const { return chosen_; }
  const std::vector<Part>& table() const { return parts_; }

 private:
  std::vector<const Part*> running() const;

  std::vector<Part> parts_;
  std::vector<std::pair<std::string, std::vector<std::string>>> read_by_;
  std::string chosen_ = "all";
};

}  // namespace lab
