// report.cpp: the result model. A row's size, status, timing, check and reference, the report
// that collects the rows and its exit code, the choice of output format, and the words every
// format uses (seconds, rates, wrapped lines). The formats themselves: report_table.cpp (for
// people), report_summary.cpp (--summary), report_json.cpp (--json) and report_csv.cpp (--csv).
#include "report_internal.hpp"

#include "lab/kernel_check.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <stdexcept>

namespace lab {

const std::vector<std::string> kSizeNames = {
    "n", "m", "k", "height", "width", "work", "items", "global", "local", "platforms", "devices"};

std::vector<std::string> wrap(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(at, end - at);
    at = end + 1;
    while (word.size() > width) {
      if (!line.empty()) lines.push_back(line), line.clear();
      lines.push_back(word.substr(0, width));
      word = word.substr(width);
    }
    if (!line.empty() && line.size() + 1 + word.size() > width) lines.push_back(line), line.clear();
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

void print_wrapped(std::ostream& out, const std::string& lead, const std::string& text,
                   std::size_t indent) {
  const std::size_t next = indent == std::string::npos ? lead.size() : indent;
  const auto lines = wrap(text, kMaxLineWidth - std::max(lead.size(), next));
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out << (i == 0 ? lead : std::string(next, ' ')) << lines[i] << "\n";
  }
}

Size& Size::add(const std::string& name, std::int64_t value) {
  add(name, std::vector<std::int64_t>{value});
  fields_.back().list = false;
  return *this;
}

Size& Size::add(const std::string& name, std::vector<std::int64_t> values) {
  if (std::find(kSizeNames.begin(), kSizeNames.end(), name) == kSizeNames.end()) {
    throw std::logic_error("size field '" + name + "' is not in the result schema");
  }
  fields_.push_back({name, std::move(values), true});
  return *this;
}

Size& Size::label(std::string text) {
  label_ = std::move(text);
  return *this;
}

std::string Size::text() const {
  if (!label_.empty()) return label_;
  std::vector<std::string> parts;
  for (const auto& field : fields_) {
    std::vector<std::string> values;
    for (const auto v : field.values) values.push_back(std::to_string(v));
    parts.push_back(field.name + "=" + detail::join(values, "x"));
  }
  return detail::join(parts, " ");
}

nlohmann::json Size::json() const {
  nlohmann::json object = nlohmann::json::object();
  for (const auto& field : fields_) {
    object[field.name] =
        field.list ? nlohmann::json(field.values) : nlohmann::json(field.values.front());
  }
  return object;
}

const char* origin_name(Origin origin) {
  switch (origin) {
    case Origin::recorded:
      return "recorded";
    case Origin::tuned:
      return "tuned";
    case Origin::command_line:
      return "command line";
    default:
      return "default";
  }
}

const char* Result::status() const {
  if (!skip_reason.empty()) return "SKIPPED";
  return passed ? "PASSED" : "FAILED";
}

void Result::add_note(const std::string& text) {
  if (!text.empty()) notes.push_back(text);
}

std::optional<double> Result::percent() const {
  if (!reference) return std::nullopt;
  return reference->value > 0 ? 100.0 * rate / reference->value : 0.0;
}

void Report::add(Result result) {
  const KernelCheck& check = kernel_check();
  // Wrong results under Oclgrind, with no report of a race, and a row that is wrong on the device
  // too: the simulator saw that row's own mistake, not a race, so the rows it failed before (and
  // will fail after) are the check's doing only, and pass as they ran.
  const bool own_failure = !result.passed && check.wrong_results;
  if (own_failure && !own_failure_seen_) {
    own_failure_seen_ = true;
    for (Result& earlier : results_) {
      if (!earlier.failed_by_check) continue;
      earlier.passed = true;
      earlier.failed_by_check = false;
      if (!earlier.notes.empty()) earlier.notes.pop_back();
    }
  }
  const bool explained = check.wrong_results && own_failure_seen_;
  if (check.state == KernelCheck::State::failed && !result.peer && result.skip_reason.empty() &&
      !explained && result.passed) {
    result.passed = false;
    result.failed_by_check = true;
    result.add_note(check.sentence);
  } else if (check.state == KernelCheck::State::failed && !result.peer &&
             result.skip_reason.empty() && !explained) {
    result.add_note(check.sentence);
  }
  results_.push_back(std::move(result));
}

bool Report::all_passed() const {
  // The lab's own rows: skipped rows and peers' rows (a library's result) are not counted.
  const auto counted = [](const Result& r) { return r.skip_reason.empty() && !r.peer; };
  const auto failed = [&](const Result& r) { return counted(r) && !r.passed; };
  const auto passed = [&](const Result& r) { return counted(r) && r.passed; };
  return std::none_of(results_.begin(), results_.end(), failed) &&
         std::any_of(results_.begin(), results_.end(), passed);
}

int Report::exit_code() const { return all_passed() ? 0 : 1; }

void set_timing(Result& result, const Timing& timing) {
  result.time = timing.time;
  result.clock = timing.clock;
  result.warmup = timing.warmup;
  result.first_warmup = timing.first_warmup;
  result.run_seconds = timing.seconds;
  result.yardstick_seconds = timing.yardstick;
  result.add_note(timing.note);
}

std::vector<double> speed_over_yardstick(const Result& result) {
  std::vector<double> ratios;
  if (result.yardstick_seconds.size() != result.run_seconds.size()) return ratios;
  for (std::size_t i = 0; i < result.run_seconds.size(); ++i) {
    if (result.run_seconds[i] > 0 && result.yardstick_seconds[i] > 0) {
      ratios.push_back(result.yardstick_seconds[i] / result.run_seconds[i]);
    }
  }
  return ratios;
}

void set_reference(Result& result, Reference reference) { result.reference = std::move(reference); }

void set_check(Result& result, const CheckResult& check) {
  result.checked = check.checked;
  result.wrong = check.mismatches;
  result.mismatches = check.first;
  result.max_abs_error = check.max_abs_error;
  result.passed = check.passed() && result.out_of_bounds == 0;
}

void Report::print(OutputFormat format, std::ostream& out) const {
  // A grader's own copy of the JSON report, apart from the output a kernel's printf may mix into.
  if (const char* file = std::getenv("LAB_REPORT_FILE"); file != nullptr && *file != '\0') {
    std::ofstream copy(file);
    copy << json().dump(2) << "\n";
  }
  switch (format) {
    case OutputFormat::json:
      out << json().dump(2) << "\n";
      return;
    case OutputFormat::csv:
      print_csv(out);
      return;
    case OutputFormat::summary:
      print_summary(out);
      return;
    default:
      print_table(out);
  }
}

std::string format_seconds(double seconds) {
  if (seconds < 1e-3) return detail::fixed(seconds * 1e6, 1) + " us";
  if (seconds < 1.0) return detail::fixed(seconds * 1e3, 3) + " ms";
  return detail::fixed(seconds, 3) + " s";
}

double gigabytes_per_second(double bytes, double seconds) {
  return seconds > 0 ? bytes / seconds / 1e9 : 0.0;
}

double gigaflops(double flops, double seconds) { return seconds > 0 ? flops / seconds / 1e9 : 0.0; }

}  // namespace lab
