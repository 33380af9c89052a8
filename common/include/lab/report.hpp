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
enum class Origin { default_value, recorded, tuned, command_line };

// "default", "recorded", "tuned" or "command line", as the reports label a value.
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
  std::string name;  // "copy kernel", "FP32 peak (measured)", "best width float4"
  double value = 0;
  std::string unit;  // the rate's unit
  std::string text;
  // Measured in turns with the row (InTurnsWith): how many rounds, and the lowest and highest
  // share of one round (its rate over the yardstick's in the same round). 0 rounds: measured
  // apart, once.
  int rounds = 0;
  double share_min = 0;
  double share_max = 0;
  // What --summary calls it after the percentage, in a word or two ("78% of copy kernel", "0.4% of
  // FP32 peak", "91% of best width"); `name` when empty.
  std::string short_name{};
};

// The size a row ran at, as numbers for scripts ({"n": 65536}, {"m", "n", "k"}, {"height",
// "width"}, {"global": [16, 16], "local": [4, 4]}) and as the words the table shows. The names are
// the result schema's (kSizeNames): add() refuses any other, so every lab speaks the same fields.
class Size {
 public:
  struct Field {
    std::string name;
    std::vector<std::int64_t> values;  // one number, or one per dimension
    bool list = false;                 // a list in --json even when it holds one number
  };

  Size() = default;
  Size(const std::string& name, std::int64_t value) { add(name, value); }

  // One number ({"n": 65536}), or one per dimension, always a list ({"global": [16]}).
  Size& add(const std::string& name, std::int64_t value);
  Size& add(const std::string& name, std::vector<std::int64_t> values);
  // The words the table shows in place of the default "n=65536 work=200".
  Size& label(std::string text);

  std::string text() const;
  nlohmann::json json() const;  // the numbers only: {"n": 65536}
  const std::vector<Field>& fields() const { return fields_; }
  bool empty() const { return fields_.empty(); }

 private:
  std::vector<Field> fields_;
  std::string label_;
};

// Every size field a row may have, in the CSV's column order (docs/result.schema.json lists the
// same names).
extern const std::vector<std::string> kSizeNames;

struct Result {
  std::string variant;        // the variant or part, e.g. "copy" or "naive"
  Size size;                  // e.g. Size("n", 1048576)
  std::optional<Stats> time;  // kernel time in seconds; absent when nothing was timed
  std::string clock;          // "event" or "host": how `time` was measured
  int warmup = 0;             // untimed runs before the timed ones (time->count)
  double first_warmup = 0;    // seconds of the first of them, setup included (Timing)
  // The timed runs in order, and the yardstick's runs in the same rounds (Timing), for a
  // reference measured in turns; not reported.
  std::vector<double> run_seconds;
  std::vector<double> yardstick_seconds;
  double rate = 0;  // GB/s or GFLOP/s from the median time
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
  // A library the lab compares itself with (--peers; lab::mark_peer): checked and shown like any
  // row, but a wrong result there is the library's, so it does not decide the exit code.
  bool peer = false;
  // Failed only by the Oclgrind check of --kernel-file (its sentence is the row's last note).
  bool failed_by_check = false;
  // Why a row could not run on this device; a row with a reason is SKIPPED, neither passed nor
  // failed.
  std::string skip_reason;
  // For rows that check an ordering rather than numbers (events): what was checked and what was
  // measured, in a few words each, and one sentence per broken check.
  std::string checks;
  std::string measured;
  std::vector<std::string> failures;
  // What the grading section of --json counts: elements compared and wrong, elements written
  // outside the data (the guard zones), and the first wrong ones.
  std::size_t checked = 0;
  std::size_t wrong = 0;
  std::size_t out_of_bounds = 0;
  std::vector<Mismatch> mismatches;
  // Printed under the row in the table and kept in every format, e.g. a cap on repetitions.
  std::vector<std::string> notes;
  // The tunables the row ran with, by the kernel's macro names, in the family's order, each
  // labelled with where its value came from.
  std::vector<TunableValue> tunables;
  // Where they came from: "tuned" (the tuning cache), "recorded" (the suite's tuned.json) or
  // "default"; "" for a row with none.
  std::string tuning;

  // The rate as a percentage of `reference`, when there is one.
  std::optional<double> percent() const;
  // "PASSED", "FAILED" or "SKIPPED".
  const char* status() const;
  // Adds `text` to the notes, unless it is empty.
  void add_note(const std::string& text);
};

// Copies a measurement into `result`: its times, clock, runs made and any note on them.
void set_timing(Result& result, const Timing& timing);

// For a row timed in turns with a yardstick (InTurnsWith): each round's yardstick seconds over
// the row's, which is the row's speed over the yardstick's for the same work. Empty when the row
// did not take turns.
std::vector<double> speed_over_yardstick(const Result& result);

// Copies a check's counts, first mismatches and largest error into `result` (passed included).
void set_check(Result& result, const CheckResult& check);

// Puts `result`'s rate against `reference`.
void set_reference(Result& result, Reference reference);

// The version of the result schema (docs/result.schema.json) that --json and --csv follow.
constexpr int kResultSchemaVersion = 1;

class Report {
 public:
  // `device` is describe_device(env) (its "name" heads the table), or a bare name.
  Report(std::string lab, nlohmann::json device)
      : lab_(std::move(lab)),
        device_(device.is_object() ? std::move(device) : nlohmann::json{{"name", device}}) {}

  // What the table calls a row: "variant" (the default) or "part".
  void set_row_name(std::string name) { row_name_ = std::move(name); }
  // Words for the line under the table's title ("20 rounds per part").
  void set_context(std::string text) { context_ = std::move(text); }
  // The device --summary names above its table, where it is not the report's own (device_info's
  // report of several devices names the one the other labs run on); describe_device's object.
  void set_summary_device(nlohmann::json device) { summary_device_ = std::move(device); }

  // Adds a row. A row of the lab's own that passed fails when Oclgrind found a problem in the
  // student's kernel (kernel_check.hpp), with what it found as the row's note.
  void add(Result result);
  const std::vector<Result>& results() const { return results_; }
  bool all_passed() const;

  // Lab-specific facts for --json (sizes, local size, event breakdown, ...).
  nlohmann::json& details() { return details_; }

  nlohmann::json json() const;
  void print(OutputFormat format, std::ostream& out) const;

  // The grading section of --json: passed, counts of wrong elements and out-of-bounds writes,
  // the first mismatches, and every kernel file built with its SHA-256.
  nlohmann::json grading() const;

  // The exit code the results imply: 0 when no row failed and one passed, else 1.
  int exit_code() const;

  // The CSV's columns, each a path into --json ("time_s.median" is results[i].time_s.median;
  // "lab" and "device.name" are the report's own).
  static const std::vector<std::string>& csv_columns();

 private:
  std::string device_name() const { return device_.value("name", ""); }
  void print_table(std::ostream& out) const;
  void print_summary(std::ostream& out) const;
  void print_csv(std::ostream& out) const;

  std::string lab_;
  std::string row_name_ = "variant";
  std::string context_;
  nlohmann::json device_;  // describe_device's object
  nlohmann::json summary_device_;
  std::vector<Result> results_;
  bool own_failure_seen_ = false;  // a row wrong on the device itself, under an Oclgrind check
  nlohmann::json details_ = nlohmann::json::object();
};

// No line of a lab's output for people is wider than this, so it fits a projector's terminal.
constexpr std::size_t kMaxLineWidth = 120;

// `text` cut into lines of at most `width` characters at spaces (a longer word is split).
std::vector<std::string> wrap(const std::string& text, std::size_t width);

// `text` wrapped to kMaxLineWidth: the first line after `lead`, the others after `indent` spaces
// (by default as many as `lead` has).
void print_wrapped(std::ostream& out, const std::string& lead, const std::string& text,
                   std::size_t indent = std::string::npos);

// One CSV field: `text` as it is, or in double quotes (inner quotes doubled) when it holds a comma,
// a quote or a newline.
std::string csv_field(const std::string& text);

// "12.3 us", "4.56 ms", "1.23 s".
std::string format_seconds(double seconds);

// Bytes moved / seconds as GB/s (10^9 bytes per second), and flops as GFLOP/s.
double gigabytes_per_second(double bytes, double seconds);
double gigaflops(double flops, double seconds);

}  // namespace lab
