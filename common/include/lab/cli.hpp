// cli.hpp: the shared command line. Every lab gets these flags and adds its own through Cli.
#pragma once

#include "lab/options.hpp"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace lab {

// The largest whole number the command line accepts: 2^63.
constexpr std::uint64_t kMaxWholeNumber = std::uint64_t{1} << 63;
// The largest size (-n, --per-item, ...): 2^48 elements is past any device's memory, and byte
// counts of that many elements of any type still fit in 64 bits.
constexpr std::uint64_t kMaxSize = std::uint64_t{1} << 48;

// "2^20" -> 1048576, "1000" -> 1000. Throws UsageError naming `what` for anything else:
// empty, negative, below `min` (zero when min is 1), above `max`, non-numeric, or beyond 2^63.
std::uint64_t parse_size(const std::string& what, const std::string& text, std::uint64_t min = 1,
                         std::uint64_t max = kMaxWholeNumber);

// "60000", "6e4", "0.5" -> that number. Throws UsageError naming `what` for text, negative
// numbers, zero, infinities, NaN, and numbers outside [min, max].
double parse_positive(const std::string& what, const std::string& text, double min = 1e-300,
                      double max = 1e300);

// "16,16" or "16x16" -> {16, 16}, each element parsed by parse_size.
std::vector<std::uint64_t> parse_size_list(const std::string& what, const std::string& text,
                                           std::uint64_t min = 1,
                                           std::uint64_t max = kMaxWholeNumber);

// Whether a lab builds and times kernels (and so takes --reps, --warmup, --seed, --kernel-dir,
// --kernel-file, --build-options and -v) or only reports on devices (device_info).
enum class LabKind { runs_kernels, reports_devices };

// The command line of one lab: the shared flags, plus the options the lab adds before parse().
// `flags` names an option as "-n,--size" or "--mode". CLI11 does the parsing; it stays inside
// cli.cpp, so a lab's translation unit does not compile it.
class Cli {
 public:
  Cli(std::string name, const std::string& description, int argc, char** argv,
      LabKind kind = LabKind::runs_kernels);
  ~Cli();
  Cli(const Cli&) = delete;
  Cli& operator=(const Cli&) = delete;

  const Options& options() const { return options_; }
  const std::string& name() const { return name_; }

  void add_flag(const std::string& flags, bool& value, const std::string& help);
  // Free text ("--regtile 128,128,8,8,8,4"): the lab checks it after parse(). An empty word
  // ("--modes ''", often a shell variable that is not set) is refused, never read as "not given".
  void add_text(const std::string& flags, std::string& value, const std::string& help);
  // One of `choices`; anything else is refused with the list.
  void add_choice(const std::string& flags, std::string& value, const std::string& help,
                  const std::vector<std::string>& choices);

  // A size ("-n,--size") that accepts 1000 or 2^20 and rejects 0 (below min), negatives, text
  // and more than kMaxSize.
  void add_size(const std::string& flags, std::uint64_t& value, const std::string& help,
                std::uint64_t min = 1);
  // A whole-number option ("--reps 5") in [min, max] (min >= 0), with parse_size's sentences.
  void add_count(const std::string& flags, int& value, const std::string& help, int min, int max);
  void add_count(const std::string& flags, std::uint64_t& value, const std::string& help,
                 std::uint64_t min, std::uint64_t max);
  // A positive real number in [min, max] ("--peak 60000"), with parse_positive's sentences.
  void add_positive(const std::string& flags, double& value, const std::string& help, double min,
                    double max);

  // Parses the command line. --help and --list print and end the lab with exit 0 (an Error with
  // kExitPassed); anything it cannot take is a UsageError naming the option. `checks`, when
  // given, is the lab's own check of how its options combine: it runs once the line is parsed and
  // before a student's kernel is checked under Oclgrind, so a usage error comes first and alone.
  void parse(const std::function<void()>& checks = {});

  // Whether `name` ("--local", the long name) was on the command line (after parse()).
  bool given(const std::string& name) const;

  OutputFormat format() const;
  // Narrative output for people: std::cout in the human format, a sink under --json/--csv.
  std::ostream& out() const;

 private:
  struct Parser;  // the CLI11 application
  std::string name_;
  int argc_;
  char** argv_;
  LabKind kind_;
  Options options_;
  std::unique_ptr<Parser> parser_;
};

}  // namespace lab
