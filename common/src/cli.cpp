// cli.cpp: the shared flags, size parsing, and --list.
#include "lab/cli.hpp"

#include "lab/kernel_check.hpp"

#include "lab/device.hpp"
#include "lab/error.hpp"
#include "lab/program.hpp"
#include "lab/report.hpp"
#include "lab/trace.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>

namespace lab {
namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

// Digits only, no sign; returns false on overflow past kMaxWholeNumber.
bool parse_digits(const std::string& digits, std::uint64_t& value) {
  if (digits.empty()) return false;
  value = 0;
  for (const char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
    if (value > (kMaxWholeNumber - digit) / 10) return false;
    value = value * 10 + digit;
  }
  return true;
}

std::ostream& null_stream() {
  static std::ostream sink(nullptr);
  return sink;
}

// Passes text on to std::cout a line at a time, wrapping a line wider than kMaxLineWidth at
// spaces; its continuation lines are indented two more than the line itself.
class WrappingBuffer : public std::streambuf {
 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    if (traits_type::to_char_type(c) == '\n') {
      emit_line();
    } else {
      line_ += traits_type::to_char_type(c);
    }
    return c;
  }
  int sync() override {  // a partial line goes out as it is, so nothing waits behind it
    std::cout << line_;
    line_.clear();
    std::cout.flush();
    return 0;
  }

 private:
  void emit_line() {
    const std::size_t indent = std::min<std::size_t>(line_.find_first_not_of(' '), 40);
    if (line_.size() <= kMaxLineWidth || indent >= line_.size()) {
      std::cout << line_ << '\n';
    } else {
      print_wrapped(std::cout, std::string(indent, ' '), line_.substr(indent), indent + 2);
    }
    line_.clear();
  }

  std::string line_;
};

std::ostream& wrapping_stream() {
  static WrappingBuffer buffer;
  static std::ostream stream(&buffer);
  return stream;
}

// "1048576" as "2^20": bounds that are large powers of two read better as powers.
std::string power_text(std::uint64_t value) {
  if (value >= (1u << 20) && (value & (value - 1)) == 0) {
    int exponent = 0;
    while ((std::uint64_t{1} << exponent) != value) ++exponent;
    return "2^" + std::to_string(exponent);
  }
  return std::to_string(value);
}

// A CLI11 validator that rewrites the option's text through `parse`, or fails with the sentence
// the UsageError carries (without the option's name: CLI11 puts it in front).
CLI::Validator sentence_validator(const std::string& what,
                                  std::function<std::string(const std::string&)> parse) {
  return CLI::Validator(
      [what, parse](std::string& text) {
        try {
          text = parse(text);
          return std::string();
        } catch (const UsageError& error) {
          const std::string message = error.what();
          return message.substr(what.size() + 2);
        }
      },
      "");
}

// The name CLI11 puts in front of an option's error: the long name of "-n,--size".
std::string long_name(const std::string& flags) {
  const auto comma = flags.rfind(',');
  return comma == std::string::npos ? flags : flags.substr(comma + 1);
}

// Turns "2^20" into digits, or fails with parse_size's sentence.
CLI::Validator whole_number(const std::string& flags, std::uint64_t min, std::uint64_t max) {
  const std::string what = long_name(flags);
  return sentence_validator(what, [what, min, max](const std::string& text) {
    return std::to_string(parse_size(what, text, min, max));
  });
}

UsageError empty_value(const std::string& name) {
  const bool path = name == "--kernel-dir" || name == "--kernel-file" || name == "--trace";
  return UsageError(name + " was given an empty " + (path ? "path" : "value") +
                    " (is the shell variable behind it set?): give " +
                    (path ? "the path" : "a value") + ", or leave the option out");
}

}  // namespace

std::uint64_t parse_size(const std::string& what, const std::string& raw, std::uint64_t min,
                         std::uint64_t max) {
  const std::string text = trim(raw);
  // An example within the bounds: a size's "1000 or 2^20", or a small option's range
  const std::string example =
      max >= (std::uint64_t{1} << 20)
          ? "write a whole number such as 1000 or 2^20"
          : "write a whole number from " + std::to_string(min) + " to " + std::to_string(max);
  if (text.empty()) throw UsageError(what + ": a number is missing: " + example);
  if (text[0] == '-') {
    throw UsageError(what + ": " + text + " is negative: " + example);
  }
  std::uint64_t value = 0;
  const auto caret = text.find('^');
  if (caret == std::string::npos) {
    if (!parse_digits(text, value)) {
      const bool numeric = text.find_first_not_of("0123456789") == std::string::npos;
      throw UsageError(what + ": '" + text + "' " +
                       (numeric ? "is too large (at most 2^63)" : "is not a whole number") + ": " +
                       example);
    }
  } else {
    std::uint64_t base = 0;
    std::uint64_t exponent = 0;
    if (!parse_digits(text.substr(0, caret), base) ||
        !parse_digits(text.substr(caret + 1), exponent)) {
      throw UsageError(what + ": '" + text + "' is not a whole number: " + example);
    }
    value = 1;
    for (std::uint64_t i = 0; i < exponent; ++i) {
      if (base != 0 && value > kMaxWholeNumber / base) {
        throw UsageError(what + ": '" + text + "' is too large (at most 2^63): " + example);
      }
      value *= base;
    }
  }
  if (value < min) {
    throw UsageError(what + ": " + text + " is too small: it must be at least " +
                     std::to_string(min));
  }
  if (value > max) {
    throw UsageError(what + ": " + text + " is too large: it must be at most " + power_text(max));
  }
  return value;
}

double parse_positive(const std::string& what, const std::string& raw, double min, double max) {
  const std::string text = trim(raw);
  const std::string example = "write a positive number such as 60000 or 6e4";
  if (text.empty()) throw UsageError(what + ": a number is missing: " + example);
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || std::isnan(value)) {
    throw UsageError(what + ": '" + text + "' is not a number: " + example);
  }
  if (value < 0) throw UsageError(what + ": " + text + " is negative: " + example);
  if (value == 0) throw UsageError(what + ": 0 is not positive: " + example);
  if (std::isinf(value)) throw UsageError(what + ": " + text + " is not finite: " + example);
  char bound[32];
  if (value < min) {
    std::snprintf(bound, sizeof bound, "%g", min);
    throw UsageError(what + ": " + text + " is too small: it must be at least " + bound);
  }
  if (value > max) {
    std::snprintf(bound, sizeof bound, "%g", max);
    throw UsageError(what + ": " + text + " is too large: it must be at most " + bound);
  }
  return value;
}

std::vector<std::uint64_t> parse_size_list(const std::string& what, const std::string& text,
                                           std::uint64_t min, std::uint64_t max) {
  std::vector<std::uint64_t> values;
  std::string::size_type begin = 0;
  while (true) {
    const auto end = text.find_first_of(",x", begin);
    if (end == begin || (end == std::string::npos && begin == text.size() && begin > 0)) {
      throw UsageError(what + ": '" + text +
                       "' has an empty entry: write whole numbers separated by ',' (or 'x'), "
                       "such as 16,16");
    }
    values.push_back(parse_size(what, text.substr(begin, end - begin), min, max));
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return values;
}

struct Cli::Parser {
  explicit Parser(const std::string& description, const std::string& name)
      : app(description, name) {}
  CLI::App app;
};

Cli::Cli(std::string name, const std::string& description, int argc, char** argv, LabKind kind)
    : name_(std::move(name)),
      argc_(argc),
      argv_(argv),
      kind_(kind),
      parser_(std::make_unique<Parser>(description, name_)) {
  CLI::App& app = parser_->app;
  app.option_defaults()->always_capture_default();
  app.set_help_flag("-h,--help", "Print this help and exit");

  add_flag("--list", options_.list, "List OpenCL platforms and devices, then exit");
  app.add_option("-p,--platform", options_.platform, "Platform: index or name substring")
      ->envname("LAB_PLATFORM");
  app.add_option("-d,--device", options_.device,
                 "Device: index (counted as --list shows) or name substring")
      ->envname("LAB_DEVICE");
  app.add_option("--type", options_.type, "Device type to choose from")
      ->envname("LAB_DEVICE_TYPE")
      ->transform(CLI::IsMember({"cpu", "gpu", "all"}, CLI::ignore_case));
  auto* json = app.add_flag("--json", options_.json, "Print the report as JSON");
  auto* csv = app.add_flag("--csv", options_.csv, "Print the report as CSV");
  auto* summary =
      app.add_flag("--summary", options_.summary,
                   "Print the tour's table: the device, then a row per result (variant, size, "
                   "median, rate, status), sized to COLUMNS or the terminal");
  json->excludes(csv, summary);
  csv->excludes(summary);
  if (kind == LabKind::runs_kernels) {
    add_count("--reps", options_.reps, "Timed repetitions (median and min are reported)", 1,
              100000);
    add_count("--warmup", options_.warmup, "Untimed launches before timing", 0, 1000);
    add_count("--seed", options_.seed, "Seed of the random inputs", 0, kMaxWholeNumber);
    app.add_option("--kernel-dir", options_.kernel_dir,
                   "Directory holding your versions of the lab's kernel files (same names)")
        ->envname("LAB_KERNEL_DIR");
    add_text("--kernel-file", options_.kernel_file,
             "Load the lab's main kernel from this file instead");
    add_text("--build-options", options_.build_options,
             "Extra OpenCL compiler options, e.g. \"-cl-fast-relaxed-math\"");
    add_text("--trace", options_.trace,
             "Write a timeline of the commands run (Chrome trace JSON) to this file: open it in "
             "https://ui.perfetto.dev");
    add_flag("-v,--verbose", options_.verbose,
             "Show build options, kernel lookup and each launch's event stages");
  }
}

Cli::~Cli() = default;

void Cli::add_flag(const std::string& flags, bool& value, const std::string& help) {
  parser_->app.add_flag(flags, value, help);
}

void Cli::add_text(const std::string& flags, std::string& value, const std::string& help) {
  parser_->app.add_option(flags, value, help);
}

void Cli::add_choice(const std::string& flags, std::string& value, const std::string& help,
                     const std::vector<std::string>& choices) {
  parser_->app.add_option(flags, value, help)->check(CLI::IsMember(choices));
}

void Cli::add_size(const std::string& flags, std::uint64_t& value, const std::string& help,
                   std::uint64_t min) {
  parser_->app.add_option(flags, value, help)
      ->type_name("SIZE")
      ->transform(whole_number(flags, min, kMaxSize));
}

void Cli::add_count(const std::string& flags, std::uint64_t& value, const std::string& help,
                    std::uint64_t min, std::uint64_t max) {
  parser_->app.add_option(flags, value, help)
      ->type_name("UINT")
      ->transform(whole_number(flags, min, max));
}

void Cli::add_count(const std::string& flags, int& value, const std::string& help, int min,
                    int max) {
  parser_->app.add_option(flags, value, help)
      ->type_name("INT")
      ->transform(whole_number(flags, static_cast<std::uint64_t>(std::max(min, 0)),
                               static_cast<std::uint64_t>(max)));
}

void Cli::add_positive(const std::string& flags, double& value, const std::string& help, double min,
                       double max) {
  const std::string what = long_name(flags);
  parser_->app.add_option(flags, value, help)
      ->type_name("NUMBER")
      ->transform(sentence_validator(what, [what, min, max](const std::string& text) {
        char exact[40];
        std::snprintf(exact, sizeof exact, "%.17g", parse_positive(what, text, min, max));
        return std::string(exact);
      }));
}

void Cli::parse(const std::function<void()>& checks) {
  CLI::App& app = parser_->app;
  // CLI11 reads "--trace=" as "--trace" and takes the next word as its value ("--trace= --json"
  // would write a file named --json): an empty value after '=' is refused before it parses.
  for (int i = 1; i < argc_; ++i) {
    const std::string word = argv_[i];
    if (word == "--") break;
    if (word.size() > 3 && word.compare(0, 2, "--") == 0 && word.back() == '=' &&
        word.find('=') + 1 == word.size()) {
      const std::string name = word.substr(0, word.size() - 1);
      if (app.get_option_no_throw(name) != nullptr) throw empty_value(name);
    }
  }
  try {
    app.parse(argc_, argv_);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) {  // --help
      app.exit(error);
      throw Error(kExitPassed, "");
    }
    std::string what = error.what();
    // CLI11 says "--size: 1 required SIZE missing" for an option given without its value.
    const auto colon = what.find(": ");
    if (colon != std::string::npos && what.find(" required ", colon) != std::string::npos &&
        what.size() > 8 && what.compare(what.size() - 8, 8, " missing") == 0) {
      const auto type_begin = what.find(" required ", colon) + 10;
      what = what.substr(0, colon) + " needs a value (" +
             what.substr(type_begin, what.size() - 8 - type_begin) + ") after it";
    }
    throw UsageError(what + " (run '" + name_ + " --help' for the options)");
  }
  if (options_.list) {
    print_device_list(std::cout);
    throw Error(kExitPassed, "");
  }
  // An option given an empty word (often a shell variable that is not set) would silently mean
  // "not given": the suite's own kernel graded in place of the student's, a default tunable
  // reported as the one asked for.
  for (const CLI::Option* option : app.get_options()) {
    if (option->count() == 0 || option->get_expected_min() == 0) continue;  // not given, a flag
    const auto& long_names = option->get_lnames();
    const std::string name =
        long_names.empty() ? option->get_name(false, true) : "--" + long_names.front();
    bool empty = false;
    for (const auto& word : option->results()) empty = empty || trim(word).empty();
    if (!empty) continue;
    throw empty_value(name);
  }
  check_kernel_paths(options_);
  check_build_options(options_.build_options, {});
  if (checks) checks();
  // A student's kernel is also run under Oclgrind before the lab's own run, so that its PASSED
  // means the simulator found no race or stray access either.
  if (kind_ == LabKind::runs_kernels &&
      (!options_.kernel_file.empty() || !options_.kernel_dir.empty())) {
    check_kernel_under_oclgrind(name_, argc_, argv_, options_);
  }
  if (!options_.trace.empty()) start_trace(options_.trace);
}

bool Cli::given(const std::string& name) const {
  const CLI::Option* option = parser_->app.get_option_no_throw(name);
  return option != nullptr && option->count() > 0;
}

OutputFormat Cli::format() const { return output_format(options_); }

std::ostream& Cli::out() const {
  return format() == OutputFormat::human ? wrapping_stream() : null_stream();
}

}  // namespace lab
