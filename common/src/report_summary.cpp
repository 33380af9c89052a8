// report_summary.cpp: --summary, and so the tour's table: one row per result in columns sized
// from the terminal's width alone, a failed row's reason and each note under the rows it is about.
#include "report_internal.hpp"

#include "lab/program.hpp"
#include "lab/terminal.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ostream>

namespace lab {
namespace {

// "your kernel /home/me/k.cl" for each kernel file that is not one of the suite's, or "".
std::string student_files() {
  std::vector<std::string> files;
  for (const auto& file : built_kernel_files()) {
    if (file.student) files.push_back(file.path);
  }
  return detail::join(files, ", ");
}

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
  constexpr std::size_t lab = 13, median = 10, status = 7;  // "memory_spaces", "358.123 ms"
  SummaryLayout layout{width, width >= kSummaryLabColumnAt, 0, {}};
  layout.indent = layout.lab_column ? 0 : 2;
  const std::size_t fixed = layout.indent + (layout.lab_column ? lab + kSummaryGap : 0) + median +
                            status + 4 * kSummaryGap;
  // The free columns start at their least widths and take the room left in turn: the variant first
  // (every name fits 22), the rate (19: "121% of copy kernel" under the rate), the size, then the
  // rate with its share on one line, then the rest.
  std::size_t variant = 16, size = 12, rate = 17;
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
  const std::string rate = detail::rate_text(r);
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
  return "failed: " + detail::join(parts, "; ");
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

}  // namespace lab
