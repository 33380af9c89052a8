// report.cpp: the table for people and the JSON / CSV for scripts, all in the shape of the result
// schema (docs/result.schema.json).
#include "lab/report.hpp"

#include "lab/device.hpp"
#include "lab/kernel_check.hpp"
#include "lab/program.hpp"
#include "lab/terminal.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <numeric>
#include <ostream>
#include <stdexcept>

namespace lab {

const std::vector<std::string> kSizeNames = {
    "n", "m", "k", "height", "width", "work", "items", "global", "local", "platforms", "devices"};

namespace {

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string text;
  for (const auto& part : parts) text += (text.empty() ? "" : separator) + part;
  return text;
}

// "your kernel /home/me/k.cl" for each kernel file that is not one of the suite's, or "".
std::string student_files() {
  std::vector<std::string> files;
  for (const auto& file : built_kernel_files()) {
    if (file.student) files.push_back(file.path);
  }
  return join(files, ", ");
}

std::string rate_text(const Result& result) {
  if (result.unit.empty()) return "-";
  return fixed(result.rate, result.rate < 10 ? 3 : 1) + " " + result.unit;
}

// "TS=16 (tuned), KMAX=1024 (default)" from a row's tunables.
std::string tunables_text(const Result& result) {
  std::vector<std::string> parts;
  for (const auto& t : result.tunables) {
    parts.push_back(t.name + "=" + std::to_string(t.value) + " (" + origin_name(t.origin) + ")");
  }
  return join(parts, ", ");
}

// The time statistics as the schema names them.
nlohmann::json stats_json(const Stats& stats) {
  return {{"min", stats.min},
          {"median", stats.median},
          {"max", stats.max},
          {"mean", stats.mean},
          {"runs", stats.count}};
}

// The value at `path` ("time_s.median") in `row`, or in `report` for its own fields, as one CSV
// field: numbers as they are, a list of numbers as "16x16", a list of words joined by "; ". The
// tunables come from `result`, in the family's order: "TS=16 (tuned), KMAX=1024 (default)".
std::string csv_value(const nlohmann::json& report, const nlohmann::json& row, const Result& result,
                      const std::string& path) {
  if (path == "tunables") return csv_field(tunables_text(result));
  const nlohmann::json* node = path == "lab" || path.rfind("device.", 0) == 0 ? &report : &row;
  std::size_t at = 0;
  while (node && at <= path.size()) {
    const std::size_t dot = std::min(path.find('.', at), path.size());
    const std::string key = path.substr(at, dot - at);
    node = node->is_object() && node->contains(key) ? &(*node)[key] : nullptr;
    at = dot + 1;
  }
  if (!node || node->is_null()) return "";
  if (node->is_string()) return csv_field(node->get<std::string>());
  if (node->is_array()) {
    std::vector<std::string> parts;
    for (const auto& item : *node) {
      parts.push_back(item.is_string() ? item.get<std::string>() : item.dump());
    }
    return csv_field(join(parts, node->size() && (*node)[0].is_number() ? "x" : "; "));
  }
  if (node->is_object()) return csv_field(node->dump());
  if (node->is_number_float()) return fixed(node->get<double>(), 9);
  return node->dump();
}

}  // namespace

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
    parts.push_back(field.name + "=" + join(values, "x"));
  }
  return join(parts, " ");
}

nlohmann::json Size::json() const {
  nlohmann::json object = nlohmann::json::object();
  for (const auto& field : fields_) {
    object[field.name] =
        field.list ? nlohmann::json(field.values) : nlohmann::json(field.values.front());
  }
  return object;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

static const char* check_state_name(KernelCheck::State state) {
  switch (state) {
    case KernelCheck::State::clean:
      return "clean";
    case KernelCheck::State::failed:
      return "failed";
    case KernelCheck::State::unchecked:
      return "unchecked";
    default:
      return "not_run";
  }
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
  const bool own_failure = !result.passed && check.wrong_results;
  if (check.state == KernelCheck::State::failed && !result.peer && result.skip_reason.empty() &&
      !own_failure) {
    result.passed = false;
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
  const KernelCheck& check = kernel_check();
  nlohmann::json oclgrind = {{"state", check_state_name(check.state)}};
  if (check.state == KernelCheck::State::failed) oclgrind["problems"] = check.problems;
  if (!check.sentence.empty()) oclgrind["sentence"] = check.sentence;
  if (!check.log.empty()) oclgrind["log"] = check.log;
  return {{"passed", all_passed()},    {"checked_elements", checked},
          {"wrong_elements", wrong},   {"out_of_bounds_writes", out_of_bounds},
          {"first_mismatches", first}, {"kernel_files", files},
          {"oclgrind", oclgrind}};
}

nlohmann::json Report::json() const {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : results_) {
    nlohmann::json row = {{"variant", r.variant},
                          {"size", r.size.json()},
                          {"size_label", r.size.text()},
                          {"status", r.status()},
                          {"notes", r.notes}};
    if (r.time) {
      row["time_s"] = stats_json(*r.time);
      row["time_s"]["warmups"] = r.warmup;
      if (r.warmup > 0) row["time_s"]["first_warmup"] = r.first_warmup;
      row["time_s"]["clock"] = r.clock.empty() ? "event" : r.clock;
    }
    if (r.end_to_end) row["end_to_end_s"] = stats_json(*r.end_to_end);
    if (!r.unit.empty()) row["rate"] = {{"value", r.rate}, {"unit", r.unit}};
    if (r.elements_per_s) row["elements_per_s"] = *r.elements_per_s * 1e9;
    if (r.reference) {
      row["reference"] = {{"name", r.reference->name},
                          {"value", r.reference->value},
                          {"unit", r.reference->unit},
                          {"share", *r.percent() / 100.0}};
      if (r.reference->rounds > 0) {
        row["reference"]["rounds"] = r.reference->rounds;
        row["reference"]["share_min"] = r.reference->share_min;
        row["reference"]["share_max"] = r.reference->share_max;
      }
    }
    if (r.speedup) row["speedup"] = *r.speedup;
    if (r.max_abs_error) row["max_abs_error"] = *r.max_abs_error;
    if (!r.tunables.empty()) {
      row["tunables"] = nlohmann::json::object();
      for (const auto& t : r.tunables) {
        row["tunables"][t.name] = {{"value", t.value}, {"origin", origin_name(t.origin)}};
      }
      if (!r.tuning.empty()) row["tuning"] = r.tuning;
    }
    if (!r.checks.empty()) row["checks"] = r.checks;
    if (!r.measured.empty()) row["measured"] = r.measured;
    if (!r.failures.empty()) row["failures"] = r.failures;
    if (!r.skip_reason.empty()) row["skip_reason"] = r.skip_reason;
    rows.push_back(row);
  }
  return {{"schema_version", kResultSchemaVersion},
          {"lab", lab_},
          {"device", device_},
          {"results", rows},
          {"details", details_},
          {"grading", grading()},
          {"passed", all_passed()}};
}

const std::vector<std::string>& Report::csv_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> list = {"lab", "device.name", "variant", "size_label"};
    for (const auto& name : kSizeNames) list.push_back("size." + name);
    for (const char* path : {"status",
                             "time_s.median",
                             "time_s.min",
                             "time_s.runs",
                             "time_s.warmups",
                             "time_s.clock",
                             "end_to_end_s.median",
                             "rate.value",
                             "rate.unit",
                             "elements_per_s",
                             "reference.name",
                             "reference.value",
                             "reference.unit",
                             "reference.share",
                             "speedup",
                             "tuning",
                             "tunables",
                             "checks",
                             "measured",
                             "skip_reason",
                             "notes"}) {
      list.push_back(path);
    }
    return list;
  }();
  return columns;
}

void Report::print_csv(std::ostream& out) const {
  out << join(csv_columns(), ",") << "\n";
  const nlohmann::json report = json();
  for (std::size_t i = 0; i < results_.size(); ++i) {
    std::vector<std::string> fields;
    for (const auto& path : csv_columns()) {
      fields.push_back(csv_value(report, report["results"][i], results_[i], path));
    }
    out << join(fields, ",") << "\n";
  }
}

namespace {

// --summary's table, and so the tour's: one layout for the column titles and the rows, so they
// cannot drift apart. Each lab prints its own rows, so the widths come from the terminal's width
// alone (never from the rows), and every lab of a tour lines up with the others.
struct SummaryColumn {
  std::string title;
  std::size_t width;
  bool right;  // right-aligned (the median, whose units then line up)
};

struct SummaryLayout {
  std::size_t width;  // the line width the table is sized to
  // Room for a lab column; on a narrower terminal each lab's name heads its rows instead.
  bool lab_column;
  std::size_t indent;                  // before the first column: 2 under a lab's name, else 0
  std::vector<SummaryColumn> columns;  // [lab,] variant, size, median, rate, status
};

constexpr std::size_t kSummaryGap = 2;            // between columns: wrapped words never touch
constexpr std::size_t kSummaryLabColumnAt = 110;  // the width from which the lab gets a column

SummaryLayout summary_layout(std::size_t width) {
  width = std::max(width, kMinSummaryWidth);
  constexpr std::size_t lab = 13, median = 9, status = 7;  // "memory_spaces", "358.123 ms"
  SummaryLayout layout{width, width >= kSummaryLabColumnAt, 0, {}};
  layout.indent = layout.lab_column ? 0 : 2;
  const std::size_t fixed = layout.indent + (layout.lab_column ? lab + kSummaryGap : 0) + median +
                            status + 4 * kSummaryGap;
  // The free columns start at their least widths and take the room left in turn: the variant first
  // (every name fits 22), the rate (19: "121% of copy kernel" under the rate), the size, then the
  // rate with its share on one line, then the rest.
  std::size_t variant = 16, size = 13, rate = 17;
  std::size_t room = width - fixed - (variant + size + rate);
  const auto grow = [&room](std::size_t& column, std::size_t most) {
    const std::size_t more = std::min(room, most > column ? most - column : 0);
    column += more;
    room -= more;
  };
  grow(variant, 22);
  grow(rate, 19);
  grow(size, 16);
  grow(rate, 36);
  grow(variant, 24);
  grow(size, 26);
  if (layout.lab_column) layout.columns.push_back({"lab", lab, false});
  layout.columns.push_back({"variant", variant, false});
  layout.columns.push_back({"size", size, false});
  layout.columns.push_back({"median", median, true});
  layout.columns.push_back({"rate", rate, false});
  layout.columns.push_back({"status", status, false});
  return layout;
}

// One row of the table: each cell wrapped within its column (a word longer than the column is
// split there, so the columns stay aligned), as many lines as its tallest cell.
void print_summary_row(std::ostream& out, const SummaryLayout& layout,
                       const std::vector<std::string>& cells) {
  std::vector<std::vector<std::string>> lines;
  std::size_t height = 1;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    lines.emplace_back();
    std::size_t from = 0;
    for (std::size_t to = 0; to != std::string::npos; from = to + 1) {  // "\n": a line break
      to = cells[c].find('\n', from);
      for (auto& line : wrap(cells[c].substr(from, to - from), layout.columns[c].width)) {
        lines.back().push_back(std::move(line));
      }
    }
    height = std::max(height, lines.back().size());
  }
  for (std::size_t line = 0; line < height; ++line) {
    std::string text(layout.indent, ' ');
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const SummaryColumn& column = layout.columns[c];
      const std::string cell = line < lines[c].size() ? lines[c][line] : "";
      const std::string pad(column.width - std::min(column.width, cell.size()), ' ');
      text +=
          (c == 0 ? "" : std::string(kSummaryGap, ' ')) + (column.right ? pad + cell : cell + pad);
    }
    out << text.substr(0, text.find_last_not_of(' ') + 1) << "\n";
  }
}

// A note under the rows: indented 4, wrapped to the table's width.
void print_summary_note(std::ostream& out, const SummaryLayout& layout, const std::string& text) {
  for (const auto& line : wrap_words(text, layout.width - 4)) out << "    " << line << "\n";
}

// "12.3 GB/s (78% of copy kernel)": the rate, and its share of the reference, named; on two
// lines, the share on the second, where the two do not fit the column's `width`.
std::string summary_rate(const Result& r, std::size_t width) {
  const std::string rate = rate_text(r);
  if (!r.reference) return rate;
  const double percent = *r.percent();
  char digits[32];
  if (percent >= 0.095) {
    std::snprintf(digits, sizeof digits, "%.*f", percent < 9.95 ? 1 : 0, percent);
  } else if (percent >= 0.01) {
    std::snprintf(digits, sizeof digits, "%.2f", percent);
  } else {
    std::snprintf(digits, sizeof digits, "<0.01");
  }
  const std::string share =
      std::string(digits) + "% of " +
      (r.reference->short_name.empty() ? r.reference->name : r.reference->short_name);
  const std::string line = rate + " (" + share + ")";
  return line.size() <= width ? line : rate + "\n" + share;
}

std::string number_text(double value) {
  char text[40];
  const bool whole = std::fabs(value) < 1e15 && value == std::floor(value);
  std::snprintf(text, sizeof text, whole ? "%.0f" : "%.9g", value);
  return text;
}

// Why a row failed, in one sentence: its broken checks, or its wrong elements with the first of
// them, or its writes outside the data.
std::string failure_text(const Result& r) {
  std::vector<std::string> parts = r.failures;
  if (r.wrong > 0) {
    std::string text =
        std::to_string(r.wrong) + " of " + std::to_string(r.checked) + " elements wrong";
    if (!r.mismatches.empty()) {
      const Mismatch& m = r.mismatches.front();
      text += ", the first at index " + std::to_string(m.index) + ": got " + number_text(m.got) +
              ", expected " + number_text(m.want);
      if (m.allowed >= 0) text += " (allowed error " + number_text(m.allowed) + ")";
    }
    parts.push_back(text);
  }
  if (r.out_of_bounds > 0) {
    parts.push_back(std::to_string(r.out_of_bounds) + " element" +
                    (r.out_of_bounds == 1 ? "" : "s") + " written outside the data");
  }
  if (parts.empty()) return "";
  return "failed: " + join(parts, "; ");
}

// "a, b and c".
std::string and_list(const std::vector<std::string>& words) {
  std::string text;
  for (std::size_t i = 0; i < words.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == words.size() ? " and " : ", ") + words[i];
  }
  return text;
}

}  // namespace

void Report::print_summary(std::ostream& out) const {
  const SummaryLayout layout = summary_layout(terminal_width());
  // Above the table, unless the tour printed it already (LAB_SUMMARY_HEADER=0): the device, once,
  // and the column titles.
  const char* header = std::getenv("LAB_SUMMARY_HEADER");
  if (header == nullptr || std::string(header) != "0") {
    const nlohmann::json& device = summary_device_.is_null() ? device_ : summary_device_;
    std::string line = "Device: " + device.value("name", std::string("?"));
    if (device.contains("type")) line += " [" + device.value("type", "") + "]";
    if (device.contains("platform")) line += " on " + device["platform"].value("name", "");
    for (const auto& text : wrap_words(line, layout.width)) out << text << "\n";
    std::vector<std::string> titles;
    for (const auto& column : layout.columns) titles.push_back(column.title);
    print_summary_row(out, layout, titles);
  }
  if (!layout.lab_column) out << lab_ << "\n";

  // A note of one row goes under it. A note on several rows (the copy kernel too short to time,
  // say) is said once, under the last of them, naming them: "all 7 reduction rows: ...".
  const auto notes_of = [](const Result& r) {
    std::vector<std::string> notes = r.notes;
    if (!r.skip_reason.empty()) notes.insert(notes.begin(), r.skip_reason);
    return notes;
  };
  const auto has_note = [&notes_of](const Result& r, const std::string& note) {
    const auto notes = notes_of(r);
    return std::find(notes.begin(), notes.end(), note) != notes.end();
  };
  const std::size_t rate_column = layout.columns.size() - 2;
  for (std::size_t i = 0; i < results_.size(); ++i) {
    const Result& r = results_[i];
    std::vector<std::string> cells;
    if (layout.lab_column) cells.push_back(lab_);
    const bool failed = r.status() == std::string("FAILED");
    cells.insert(cells.end(),
                 {r.variant, r.size.text(), r.time ? format_seconds(r.time->median) : "-",
                  failed ? "-" : summary_rate(r, layout.columns[rate_column].width), r.status()});
    print_summary_row(out, layout, cells);
    if (failed) {
      if (const std::string why = failure_text(r); !why.empty())
        print_summary_note(out, layout, why);
    }
    std::vector<std::string> shared;
    for (const auto& note : notes_of(r)) {
      const bool later = std::any_of(results_.begin() + i + 1, results_.end(),
                                     [&](const Result& other) { return has_note(other, note); });
      if (later) continue;  // said under the last row that has it
      std::vector<std::string> rows;
      for (const auto& other : results_) {
        if (has_note(other, note)) rows.push_back(other.variant);
      }
      if (rows.size() == 1) {
        print_summary_note(out, layout, note);
      } else {
        shared.push_back((rows.size() == results_.size()
                              ? "all " + std::to_string(rows.size()) + " " + lab_ + " rows"
                              : lab_ + " rows " + and_list(rows)) +
                         ": " + note);
      }
    }
    for (const auto& note : shared) print_summary_note(out, layout, note);
  }
  if (const std::string files = student_files(); !files.empty()) {
    print_summary_note(out, layout, "your kernel: " + files);
  }
}

void Report::print_table(std::ostream& out) const {
  // One aligned row per result; optional columns appear when a row has them. A size shared by
  // every row goes into the title instead of a column.
  const auto any = [this](auto has) { return std::any_of(results_.begin(), results_.end(), has); };
  const bool one_size = std::all_of(results_.begin(), results_.end(), [this](const Result& r) {
    return r.size.text() == results_.front().size.text();
  });
  const bool timed = any([](const Result& r) { return r.time.has_value(); });
  const bool end_to_end = any([](const Result& r) { return r.end_to_end.has_value(); });
  const bool rates = any([](const Result& r) { return !r.unit.empty(); });
  const bool elements = any([](const Result& r) { return r.elements_per_s.has_value(); });
  const bool speedups = any([](const Result& r) { return r.speedup.has_value(); });
  const bool references = any([](const Result& r) { return r.reference.has_value(); });
  const bool checks = any([](const Result& r) { return !r.checks.empty(); });
  const bool measured = any([](const Result& r) { return !r.measured.empty(); });

  struct Column {
    std::string title;
    bool wraps;  // free text that may wrap onto more lines when the table is too wide
    std::function<std::string(const Result&)> cell;
  };
  std::vector<Column> columns = {{row_name_, true, [](const Result& r) { return r.variant; }}};
  if (!one_size) columns.push_back({"size", false, [](const Result& r) { return r.size.text(); }});
  if (timed) {
    columns.push_back({"median", false, [](const Result& r) {
                         return r.time ? format_seconds(r.time->median) : "-";
                       }});
    columns.push_back(
        {"min", false, [](const Result& r) { return r.time ? format_seconds(r.time->min) : "-"; }});
    columns.push_back({"runs", false, [](const Result& r) {
                         return r.time ? std::to_string(r.time->count) : "-";
                       }});
  }
  if (end_to_end) {
    columns.push_back({"end-to-end", false, [](const Result& r) {
                         return r.end_to_end ? format_seconds(r.end_to_end->median) : "-";
                       }});
  }
  if (rates) columns.push_back({"rate", false, rate_text});
  if (elements) {
    columns.push_back({"elements", false, [](const Result& r) {
                         return r.elements_per_s ? fixed(*r.elements_per_s, 2) + " G/s" : "-";
                       }});
  }
  if (speedups) {
    columns.push_back({"speed-up", false, [](const Result& r) {
                         return r.speedup ? fixed(*r.speedup, *r.speedup < 10 ? 2 : 1) + "x" : "-";
                       }});
  }
  if (references) {
    columns.push_back({"of reference", true, [](const Result& r) {
                         if (!r.reference) return std::string("-");
                         std::string cell = fixed(*r.percent(), 1) + "%";
                         // (the range of a share below 1% would print as "(0-0)")
                         if (r.reference->rounds > 0 && *r.percent() >= 1) {
                           cell += " (" + fixed(100 * r.reference->share_min, 0) + "-" +
                                   fixed(100 * r.reference->share_max, 0) + ")";
                         }
                         return cell + " of " + r.reference->text;
                       }});
  }
  if (checks) columns.push_back({"checked", true, [](const Result& r) { return r.checks; }});
  if (measured) {
    columns.push_back({"measured", true, [](const Result& r) {
                         return r.skip_reason.empty() ? r.measured : r.skip_reason;
                       }});
  }
  columns.push_back({"status", false, [](const Result& r) { return r.status(); }});
  std::vector<std::vector<std::string>> rows = {{}};
  for (const auto& col : columns) rows.front().push_back(col.title);
  for (const auto& r : results_) {
    rows.emplace_back();
    for (const auto& col : columns) rows.back().push_back(col.cell(r));
  }

  // Column widths: each its widest cell; while the table is wider than a line, the widest column
  // that wraps gives up width (never below 16 characters).
  std::vector<std::size_t> widths(columns.size(), 0);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  const auto table_width = [&widths] {
    return std::accumulate(widths.begin(), widths.end(), std::size_t{0},
                           [](std::size_t sum, std::size_t w) { return sum + 2 + w; });
  };
  while (table_width() > kMaxLineWidth) {
    std::size_t widest = columns.size();
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const bool wider = widest == columns.size() || widths[c] > widths[widest];
      if (columns[c].wraps && widths[c] > 16 && wider) widest = c;
    }
    if (widest == columns.size()) break;
    widths[widest] -= std::min(widths[widest] - 16, table_width() - kMaxLineWidth);
  }

  std::string title = lab_ + " on " + short_device_name(device_name());
  if (one_size && !results_.empty() && !results_.front().size.empty())
    title += ", " + results_.front().size.text();
  out << "\n";
  print_wrapped(out, "", title);
  if (!context_.empty()) print_wrapped(out, "  ", context_);
  const auto print_row = [&](const std::vector<std::string>& row) {
    std::vector<std::vector<std::string>> lines;
    std::size_t height = 1;
    for (std::size_t c = 0; c < row.size(); ++c) {
      lines.push_back(wrap(row[c], widths[c]));
      height = std::max(height, lines.back().size());
    }
    for (std::size_t line = 0; line < height; ++line) {
      std::string text = " ";
      for (std::size_t c = 0; c < row.size(); ++c) {
        const std::string cell = line < lines[c].size() ? lines[c][line] : "";
        // one space before the first column, two between columns, so wrapped text cannot run
        // into its neighbour
        text += (c == 0 ? " " : "  ") + cell + std::string(widths[c] - cell.size(), ' ');
      }
      out << text.substr(0, text.find_last_not_of(' ') + 1) << "\n";
    }
  };
  print_row(rows.front());
  for (std::size_t i = 0; i < results_.size(); ++i) {
    print_row(rows[i + 1]);
    const Result& r = results_[i];
    if (!r.tunables.empty()) print_wrapped(out, "    tunables: ", tunables_text(r));
    for (const auto& note : r.notes) print_wrapped(out, "    note: ", note);
  }
  for (const auto& file : built_kernel_files()) {
    if (file.student) {
      out << "  graded your kernel file " << file.path << " (sha256 " << file.sha256.substr(0, 16)
          << "...)\n";
    }
  }
  const KernelCheck& check = kernel_check();
  if (check.state == KernelCheck::State::clean) {
    out << "  checked under Oclgrind: no data race or access out of bounds\n";
  } else if (check.state == KernelCheck::State::unchecked) {
    print_wrapped(out, "  note: ", check.sentence);
  } else if (!check.log.empty()) {
    out << "  Oclgrind's full report: " << check.log << "\n";
  }
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
  if (seconds < 1e-3) return fixed(seconds * 1e6, 1) + " us";
  if (seconds < 1.0) return fixed(seconds * 1e3, 3) + " ms";
  return fixed(seconds, 3) + " s";
}

double gigabytes_per_second(double bytes, double seconds) {
  return seconds > 0 ? bytes / seconds / 1e9 : 0.0;
}

double gigaflops(double flops, double seconds) { return seconds > 0 ? flops / seconds / 1e9 : 0.0; }

}  // namespace lab
