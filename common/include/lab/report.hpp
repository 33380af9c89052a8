// report.hpp: one result row per measurement, printed as a table, JSON or CSV.
#pragma once

#include "lab/options.hpp"
#include "lab/timing.hpp"
#include "lab/verify.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lab {

// Where a setting's value came from, in order of precedence: the default for the device, the
// tuning cache, or the command line.
enum class Origin { default_value, tuned, command_line };

// "default", "tuned" or "command line", as the reports label a value.
const char* origin_name(Origin origin);

// One tunable of a result row: its kernel macro name, its value and where the value came from.
struct TunableValue {
  std::string name;
  std::int64_t value = 0;
  Origin origin = Origin::default_value;
};

// What a row's rate is measured against: the copy kernel's bandwidth, the device's FP32 peak, the
// best vector width. --json gives it as {name, value, unit, share}, share = rate / value; the
// table and --csv show `text` ("copy kernel 2930 GB/s") and the percentage.
struct Reference {
  std::string name;  // "copy kernel", "FP32 peak (estimated)", "best width float4"
  double value = 0;
  std::string unit;  // the rate's unit
  std::string text;
};

struct Result {
  std::string variant;        // e.g. "copy" or "naive"
  std::string size;           // e.g. "n=1048576" or "16x16"
  std::optional<Stats> time;  // kernel time in seconds; absent when nothing was timed
  std::string clock;          // "event" or "host": how `time` was measured
  int warmup = 0;             // untimed runs before the timed ones (time->count)
  double rate = 0;            // GB/s or GFLOP/s from the median time
  // G elements/s from the median time, where it means something (JSON and CSV: elements/s).
  std::optional<double> elements_per_s;
  // Host-clock time from the first command to the result on the host (read-back included), where
  // it differs from `time`.
  std::optional<Stats> end_to_end;
  std::string unit;                     // "GB/s", "GFLOP/s" or "" when there is no rate
  std::optional<Reference> reference;   // what the rate is measured against (set_reference)
  std::optional<double> speedup;        // rate over a baseline row (e.g. the naive variant)
  std::optional<double> max_abs_error;  // largest |device - reference| the check saw (JSON)
  bool passed = false;
  // What the grading section of --json counts: elements compared and wrong, elements written
  // outside the data (the guard zones), and the first wrong ones.
  std::size_t checked = 0;
  std::size_t wrong = 0;
  std::size_t out_of_bounds = 0;
  std::vector<Mismatch> mismatches;
  std::string note;  // printed with the table in every format, e.g. a cap on repetitions
  // The tunables the row ran with, by the kernel's macro names, in the family's order, each
  // labelled with where its value came from.
  std::vector<TunableValue> tunables;
  // Where they came from: "tuned" (the tuning cache) or "default"; "" for a row with none.
  std::string tuning;

  // The rate as a percentage of `reference`, when there is one.
  std::optional<double> percent() const;
};

// Copies a measurement into `result`: its times, clock, runs made and any note on them.
void set_timing(Result& result, const Timing& timing);

// Copies a check's counts, first mismatches and largest error into `result` (passed included).
void set_check(Result& result, const CheckResult& check);

// Puts `result`'s rate against `reference`.
void set_reference(Result& result, Reference reference);

class Report {
 public:
  // `device` is describe_device(env) (its "name" heads the table), or a bare name.
  Report(std::string lab, nlohmann::json device)
      : lab_(std::move(lab)),
        device_(device.is_object() ? std::move(device) : nlohmann::json{{"name", device}}) {}

  void add(Result result) { results_.push_back(std::move(result)); }
  const std::vector<Result>& results() const { return results_; }
  bool all_passed() const;

  // Lab-specific facts for --json (sizes, local size, event breakdown, ...).
  nlohmann::json& details() { return details_; }

  nlohmann::json json() const;
  void print(OutputFormat format, std::ostream& out) const;

  // The grading section of --json: passed, counts of wrong elements and out-of-bounds writes,
  // the first mismatches, and every kernel file built with its SHA-256.
  nlohmann::json grading() const;

  // The exit code the results imply: 0 when every row passed, else 1.
  int exit_code() const;

 private:
  std::string device_name() const { return device_.value("name", ""); }

  std::string lab_;
  nlohmann::json device_;  // describe_device's object
  std::vector<Result> results_;
  nlohmann::json details_ = nlohmann::json::object();
};

// One CSV field: `text` as it is, or in double quotes (inner quotes doubled) when it holds a comma,
// a quote or a newline.
std::string csv_field(const std::string& text);

// "12.3 us", "4.56 ms", "1.23 s".
std::string format_seconds(double seconds);

// Bytes moved / seconds as GB/s (10^9 bytes per second), and flops as GFLOP/s.
double gigabytes_per_second(double bytes, double seconds);
double gigaflops(double flops, double seconds);

}  // namespace lab
