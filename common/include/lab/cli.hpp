// cli.hpp: the shared command line. Every lab gets these flags; it adds its own to app().
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace lab {

// The flags every lab shares (design.md, "Shared command line").
struct Options {
  bool list = false;          // --list: print platforms and devices, then exit
  std::string platform;       // -p: index or name substring (LAB_PLATFORM)
  std::string device;         // -d: index or name substring (LAB_DEVICE)
  std::string type = "all";   // --type cpu|gpu|all (LAB_DEVICE_TYPE)
  int reps = 10;              // --reps: timed repetitions
  int warmup = 2;             // --warmup: untimed launches first (PoCL compiles on the first)
  std::uint64_t seed = 42;    // --seed: random inputs are reproducible
  bool json = false;          // --json: machine-readable report on stdout
  bool csv = false;           // --csv: the same as CSV
  bool summary = false;       // --summary: one line per result (scripts/labs.sh's tour)
  bool verbose = false;       // -v: build options, event breakdowns, lookup paths
  std::string kernel_dir;     // --kernel-dir (LAB_KERNEL_DIR)
  std::string kernel_file;    // --kernel-file: replaces the lab's main kernel file
  std::string build_options;  // --build-options: appended to the program's build options
};

enum class OutputFormat { human, json, csv, summary };

// "2^20" -> 1048576, "1000" -> 1000. Throws UsageError naming `what` for anything else:
// empty, negative, zero (when min is 1), non-numeric, or beyond 2^63.
std::uint64_t parse_size(const std::string& what, const std::string& text, std::uint64_t min = 1);

// "16,16" or "16x16" -> {16, 16}, each element parsed by parse_size.
std::vector<std::uint64_t> parse_size_list(const std::string& what, const std::string& text,
                                           std::uint64_t min = 1);

class Cli {
 public:
  Cli(std::string name, const std::string& description, int argc, char** argv);

  CLI::App& app() { return app_; }
  const Options& options() const { return options_; }
  const std::string& name() const { return name_; }

  // A size option ("-n,--size") that accepts 1000 or 2^20 and rejects 0, negatives and text.
  CLI::Option* add_size(const std::string& flags, std::uint64_t& value, const std::string& help,
                        std::uint64_t min = 1);

  // Parses the command line. Handles --help and --list itself (ending the lab with exit 0).
  void parse();

  OutputFormat format() const;
  // Narrative output for people: std::cout in the human format, a sink under --json/--csv.
  std::ostream& out() const;

 private:
  std::string name_;
  int argc_;
  char** argv_;
  CLI::App app_;
  Options options_;
};

}  // namespace lab
