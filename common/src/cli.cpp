// cli.cpp: the shared flags, size parsing, and --list.
#include "lab/cli.hpp"

#include "lab/device.hpp"
#include "lab/error.hpp"

#include <cctype>
#include <iostream>

namespace lab {
namespace {

constexpr std::uint64_t kMaxSize = std::uint64_t{1} << 63;

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

// Digits only, no sign; returns false on overflow past kMaxSize.
bool parse_digits(const std::string& digits, std::uint64_t& value) {
  if (digits.empty()) return false;
  value = 0;
  for (const char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
    if (value > (kMaxSize - digit) / 10) return false;
    value = value * 10 + digit;
  }
  return true;
}

std::ostream& null_stream() {
  static std::ostream sink(nullptr);
  return sink;
}

}  // namespace

std::uint64_t parse_size(const std::string& what, const std::string& raw, std::uint64_t min) {
  const std::string text = trim(raw);
  const std::string example = "write a whole number such as 1000 or 2^20";
  if (text.empty()) throw UsageError(what + ": a size is missing: " + example);
  if (text[0] == '-') {
    throw UsageError(what + ": " + text + " is negative: " + example);
  }
  std::uint64_t value = 0;
  const auto caret = text.find('^');
  if (caret == std::string::npos) {
    if (!parse_digits(text, value)) {
      const bool numeric = text.find_first_not_of("0123456789") == std::string::npos;
      throw UsageError(what + ": '" + text + "' " +
                       (numeric ? "is too large (at most 2^63)" : "is not a number") + ": " +
                       example);
    }
  } else {
    std::uint64_t base = 0;
    std::uint64_t exponent = 0;
    if (!parse_digits(text.substr(0, caret), base) ||
        !parse_digits(text.substr(caret + 1), exponent)) {
      throw UsageError(what + ": '" + text + "' is not a number: " + example);
    }
    value = 1;
    for (std::uint64_t i = 0; i < exponent; ++i) {
      if (base != 0 && value > kMaxSize / base) {
        throw UsageError(what + ": '" + text + "' is too large (at most 2^63): " + example);
      }
      value *= base;
    }
  }
  if (value < min) {
    throw UsageError(what + ": " + text + " is too small: it must be at least " +
                     std::to_string(min));
  }
  return value;
}

std::vector<std::uint64_t> parse_size_list(const std::string& what, const std::string& text,
                                           std::uint64_t min) {
  std::vector<std::uint64_t> values;
  std::string::size_type begin = 0;
  while (true) {
    const auto end = text.find_first_of(",x", begin);
    values.push_back(parse_size(what, text.substr(begin, end - begin), min));
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return values;
}

Cli::Cli(std::string name, const std::string& description, int argc, char** argv)
    : name_(std::move(name)), argc_(argc), argv_(argv), app_(description, name_) {
  app_.option_defaults()->always_capture_default();
  app_.set_help_flag("-h,--help", "Print this help and exit");

  app_.add_flag("--list", options_.list, "List OpenCL platforms and devices, then exit");
  app_.add_option("-p,--platform", options_.platform, "Platform: index or name substring")
      ->envname("LAB_PLATFORM");
  app_.add_option("-d,--device", options_.device,
                  "Device: index (counted as --list shows) or name substring")
      ->envname("LAB_DEVICE");
  app_.add_option("--type", options_.type, "Device type to choose from")
      ->envname("LAB_DEVICE_TYPE")
      ->transform(CLI::IsMember({"cpu", "gpu", "all"}, CLI::ignore_case));
  app_.add_option("--reps", options_.reps, "Timed repetitions (median and min are reported)")
      ->check(CLI::Range(1, 100000));
  app_.add_option("--warmup", options_.warmup, "Untimed launches before timing")
      ->check(CLI::Range(0, 1000));
  app_.add_option("--seed", options_.seed, "Seed of the random inputs");
  auto* json = app_.add_flag("--json", options_.json, "Print the report as JSON");
  auto* csv = app_.add_flag("--csv", options_.csv, "Print the report as CSV");
  auto* summary =
      app_.add_flag("--summary", options_.summary,
                    "Print one line per result: lab, device, variant, size, time, rate, "
                    "status");
  json->excludes(csv, summary);
  csv->excludes(summary);
  app_.add_option("--kernel-dir", options_.kernel_dir, "Directory to load kernels from")
      ->envname("LAB_KERNEL_DIR");
  app_.add_option("--kernel-file", options_.kernel_file,
                  "Load the lab's main kernel from this file instead");
  app_.add_option("--build-options", options_.build_options,
                  "Extra OpenCL compiler options, e.g. \"-cl-fast-relaxed-math\"");
  app_.add_flag("-v,--verbose", options_.verbose,
                "Show build options, kernel lookup and event breakdowns");
}

CLI::Option* Cli::add_size(const std::string& flags, std::uint64_t& value, const std::string& help,
                           std::uint64_t min) {
  // The transform turns "2^20" into digits, or fails with parse_size's sentence.
  auto* option = app_.add_option(flags, value, help);
  const std::string what = option->get_name();
  option->transform(CLI::Validator(
      [what, min](std::string& text) {
        try {
          text = std::to_string(parse_size(what, text, min));
          return std::string();
        } catch (const UsageError& error) {
          const std::string message = error.what();
          return message.substr(what.size() + 2);  // CLI11 prefixes the option name
        }
      },
      "SIZE"));
  return option;
}

void Cli::parse() {
  app_.parse(argc_, argv_);
  if (options_.list) {
    print_device_list(std::cout);
    throw Error(kExitPassed, "");
  }
}

OutputFormat Cli::format() const {
  if (options_.json) return OutputFormat::json;
  if (options_.csv) return OutputFormat::csv;
  if (options_.summary) return OutputFormat::summary;
  return OutputFormat::human;
}

std::ostream& Cli::out() const {
  return format() == OutputFormat::human ? std::cout : null_stream();
}

}  // namespace lab
