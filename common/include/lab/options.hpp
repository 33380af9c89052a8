// options.hpp: the settings every lab shares, as the command line left them (cli.hpp parses them;
// device, program, timing and report read them without the parser).
#pragma once

#include <cstdint>
#include <string>

namespace lab {

// The flags every lab shares (docs/reference.md, "Shared options").
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
  std::string trace;          // --trace FILE: the commands' timeline for Perfetto (trace.hpp)
};

enum class OutputFormat { human, json, csv, summary };

// The report format the options ask for: --json, --csv, --summary, else the table for people.
OutputFormat output_format(const Options& options);

}  // namespace lab
