// report.cpp: the table for people and the JSON / CSV for scripts.
#include "lab/report.hpp"

#include "lab/device.hpp"
#include "lab/program.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace lab {
namespace {

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string status(const Result& result) { return result.passed ? "PASSED" : "FAILED"; }

// Fixed columns shared by every lab, so the tour's lines align without a table pass.
std::string summary_line(const std::string& lab, const std::string& device,
                         const std::string& variant, const std::string& size,
                         const std::string& time, const std::string& rate,
                         const std::string& status) {
  char text[512];
  std::snprintf(text, sizeof text, "%-12s %-24s %-20s %-26s %11s %-30s %s", lab.c_str(),
                device.substr(0, 24).c_str(), variant.c_str(), size.c_str(), time.c_str(),
                rate.c_str(), status.c_str());
  return text;
}

// "your kernel /home/me/k.cl" for each kernel file that is not one of the suite's, or "".
std::string student_files() {
  std::string text;
  for (const auto& file : built_kernel_files()) {
    if (file.student) text += (text.empty() ? "" : ", ") + file.path;
  }
  return text;
}

std::string rate_text(const Result& result) {
  if (result.unit.empty()) return "-";
  return fixed(result.rate, result.rate < 10 ? 3 : 1) + " " + result.unit;
}

// "TS=16 (tuned), KMAX=1024 (default)" from a row's tunables.
std::string tunables_text(const Result& result) {
  std::string text;
  for (const auto& t : result.tunables) {
    text += (text.empty() ? "" : ", ") + t.name + "=" + std::to_string(t.value) + " (" +
            origin_name(t.origin) + ")";
  }
  return text;
}

}  // namespace

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

const char* origin_name(Origin origin) {
  switch (origin) {
    case Origin::tuned:
      return "tuned";
    case Origin::command_line:
      return "command line";
    default:
      return "default";
  }
}

bool Report::all_passed() const {
  return !results_.empty() &&
         std::all_of(results_.begin(), results_.end(), [](const Result& r) { return r.passed; });
}

int Report::exit_code() const { return all_passed() ? 0 : 1; }

void set_timing(Result& result, const Timing& timing) {
  result.time = timing.time;
  result.clock = timing.clock;
  result.warmup = timing.warmup;
  if (!timing.note.empty()) {
    result.note += (result.note.empty() ? "" : "; ") + timing.note;
  }
}

void set_reference(Result& result, Reference reference) { result.reference = std::move(reference); }

std::optional<double> Result::percent() const {
  if (!reference) return std::nullopt;
  return reference->value > 0 ? 100.0 * rate / reference->value : 0.0;
}

void set_check(Result& result, const CheckResult& check) {
  result.checked = check.checked;
  result.wrong = check.mismatches;
  result.mismatches = check.first;
  result.max_abs_error = check.max_abs_error;
  result.passed = check.passed() && result.out_of_bounds == 0;
}

nlohmann::json Report::grading() const {
  std::size_t checked = 0, wrong = 0, out_of_bounds = 0;
  nlohmann::json first = nlohmann::json::array();
  for (const auto& r : results_) {
    checked += r.checked;
    wrong += r.wrong;
    out_of_bounds += r.out_of_bounds;
    for (const auto& m : r.mismatches) {
      nlohmann::json entry = {
          {"variant", r.variant}, {"index", m.index}, {"got", m.got}, {"expected", m.want}};
      if (m.allowed >= 0) entry["allowed"] = m.allowed;
      if (first.size() < kMaxMismatchLines) first.push_back(entry);
    }
  }
  nlohmann::json files = nlohmann::json::array();
  for (const auto& file : built_kernel_files()) {
    files.push_back({{"path", file.path}, {"sha256", file.sha256}, {"suite", !file.student}});
  }
  return {{"passed", all_passed()},    {"checked_elements", checked},
          {"wrong_elements", wrong},   {"out_of_bounds_writes", out_of_bounds},
          {"first_mismatches", first}, {"kernel_files", files}};
}

nlohmann::json Report::json() const {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : results_) {
    nlohmann::json row = {{"variant", r.variant}, {"size", r.size}, {"status", status(r)}};
    if (r.time) {
      row["time_s"] = {{"min", r.time->min},
                       {"median", r.time->median},
                       {"max", r.time->max},
                       {"mean", r.time->mean},
                       {"count", r.time->count},
                       {"warmup", r.warmup},
                       {"clock", r.clock.empty() ? "event" : r.clock}};
    }
    if (!r.tunables.empty()) {
      row["tunables"] = nlohmann::json::object();
      row["tunable_origins"] = nlohmann::json::object();
      for (const auto& t : r.tunables) {
        row["tunables"][t.name] = t.value;
        row["tunable_origins"][t.name] = origin_name(t.origin);
      }
      if (!r.tuning.empty()) row["tuning"] = r.tuning;
    }
    if (!r.unit.empty()) {
      row["rate"] = r.rate;
      row["unit"] = r.unit;
    }
    if (r.elements_per_s) row["elements_per_s"] = *r.elements_per_s * 1e9;
    if (r.end_to_end) {
      row["end_to_end_s"] = {{"min", r.end_to_end->min},
                             {"median", r.end_to_end->median},
                             {"count", r.end_to_end->count}};
    }
    if (r.reference) {
      row["percent"] = *r.percent();
      row["reference"] = {{"name", r.reference->name},
                          {"value", r.reference->value},
                          {"unit", r.reference->unit},
                          {"share", r.reference->value > 0 ? r.rate / r.reference->value : 0.0}};
    }
    if (r.speedup) row["speedup"] = *r.speedup;
    if (r.max_abs_error) row["max_abs_error"] = *r.max_abs_error;
    if (!r.note.empty()) row["note"] = r.note;
    rows.push_back(row);
  }
  return {{"lab", lab_},         {"device", device_},    {"results", rows},
          {"details", details_}, {"grading", grading()}, {"passed", all_passed()}};
}

void Report::print(OutputFormat format, std::ostream& out) const {
  if (format == OutputFormat::json) {
    out << json().dump(2) << "\n";
    return;
  }
  if (format == OutputFormat::csv) {
    out << "lab,device,variant,size,median_s,min_s,reps,rate,unit,percent,reference,speedup,"
           "status,note,tunables,student_kernels,elements_per_s,end_to_end_median_s,tuning\n";
    for (const auto& r : results_) {
      out << csv_field(lab_) << ',' << csv_field(device_name()) << ',' << csv_field(r.variant)
          << ',' << csv_field(r.size) << ',' << (r.time ? fixed(r.time->median, 9) : "") << ','
          << (r.time ? fixed(r.time->min, 9) : "") << ','
          << (r.time ? std::to_string(r.time->count) : "") << ','
          << (r.unit.empty() ? "" : fixed(r.rate, 3)) << ',' << r.unit << ','
          << (r.reference ? fixed(*r.percent(), 1) : "") << ','
          << csv_field(r.reference ? r.reference->text : "") << ','
          << (r.speedup ? fixed(*r.speedup, 3) : "") << ',' << status(r) << ',' << csv_field(r.note)
          << ',' << csv_field(tunables_text(r)) << ',' << csv_field(student_files()) << ','
          << (r.elements_per_s ? fixed(*r.elements_per_s * 1e9, 0) : "") << ','
          << (r.end_to_end ? fixed(r.end_to_end->median, 9) : "") << ',' << r.tuning << "\n";
    }
    return;
  }
  if (format == OutputFormat::summary) {
    for (const auto& r : results_) {
      std::string rate = rate_text(r);
      if (r.reference) rate += " (" + fixed(*r.percent(), 0) + "% of " + r.reference->text + ")";
      out << summary_line(lab_, short_device_name(device_name()), r.variant, r.size,
                          r.time ? format_seconds(r.time->median) : "-", rate, status(r));
      if (!r.note.empty()) out << " (" << r.note << ")";
      if (!student_files().empty()) out << " [your kernel: " << student_files() << "]";
      out << "\n";
    }
    return;
  }
  // The human table: one aligned row per result; optional columns appear when a row has them.
  const auto any = [this](auto has) { return std::any_of(results_.begin(), results_.end(), has); };
  const bool speedups = any([](const Result& r) { return r.speedup.has_value(); });
  const bool elements = any([](const Result& r) { return r.elements_per_s.has_value(); });
  const bool end_to_end = any([](const Result& r) { return r.end_to_end.has_value(); });
  std::vector<std::vector<std::string>> rows = {{"variant", "size", "median", "min", "runs"}};
  if (end_to_end) rows.front().push_back("end-to-end");
  rows.front().push_back("rate");
  if (elements) rows.front().push_back("elements");
  if (speedups) rows.front().push_back("speed-up");
  for (const auto& text : {"of reference", "status"}) rows.front().push_back(text);
  for (const auto& r : results_) {
    rows.push_back({r.variant, r.size, r.time ? format_seconds(r.time->median) : "-",
                    r.time ? format_seconds(r.time->min) : "-",
                    r.time ? std::to_string(r.time->count) : "-"});
    auto& row = rows.back();
    if (end_to_end) row.push_back(r.end_to_end ? format_seconds(r.end_to_end->median) : "-");
    row.push_back(rate_text(r));
    if (elements) {
      row.push_back(r.elements_per_s ? fixed(*r.elements_per_s, 2) + " G/s" : "-");
    }
    if (speedups) {
      row.push_back(r.speedup ? fixed(*r.speedup, *r.speedup < 10 ? 2 : 1) + "x" : "-");
    }
    row.push_back(r.reference ? fixed(*r.percent(), 1) + "% of " + r.reference->text : "-");
    row.push_back(status(r));
  }
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  out << "\n" << lab_ << " on " << short_device_name(device_name()) << "\n";
  for (const auto& row : rows) {
    out << " ";
    for (std::size_t c = 0; c < row.size(); ++c) {
      out << " " << row[c] << std::string(widths[c] - row[c].size(), ' ');
    }
    out << "\n";
  }
  std::string tuning;
  for (const auto& r : results_) {
    if (!r.tunables.empty())
      tuning += (tuning.empty() ? "" : "; ") + r.variant + " " + tunables_text(r);
  }
  if (!tuning.empty()) out << "  tunables: " << tuning << "\n";
  for (const auto& r : results_) {
    if (!r.note.empty()) out << "  note: " << r.variant << ": " << r.note << "\n";
  }
  for (const auto& file : built_kernel_files()) {
    if (file.student) {
      out << "  graded your kernel file " << file.path << " (sha256 " << file.sha256.substr(0, 16)
          << "...)\n";
    }
  }
}

std::string format_seconds(double seconds) {
  if (seconds < 1e-3) return fixed(seconds * 1e6, 1) + " us";
  if (seconds < 1.0) return fixed(seconds * 1e3, 3) + " ms";
  return fixed(seconds, 3) + " s";
}

double gigabytes_per_second(double bytes, double seconds) {
  return seconds > 0 ? bytes / seconds / 1e9 : 0.0;
}

double gigaflops(double flops, double seconds) { return seconds > 0 ? flops / seconds / 1e9 : 0.0; }

}  // namespace lab
