// report_table.cpp: the table for people, the default output: one aligned row per result, the
// columns its rows have, wrapped to the line width, with tunables and notes under each row and
// what the grading saw (a student's kernel file, Oclgrind) below.
#include "report_internal.hpp"

#include "lab/device.hpp"
#include "lab/kernel_check.hpp"
#include "lab/program.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <ostream>

namespace lab {

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
  if (rates) columns.push_back({"rate", false, detail::rate_text});
  if (elements) {
    columns.push_back({"elements", false, [](const Result& r) {
                         return r.elements_per_s ? detail::fixed(*r.elements_per_s, 2) + " G/s"
                                                 : "-";
                       }});
  }
  if (speedups) {
    columns.push_back({"speed-up", false, [](const Result& r) {
                         return r.speedup ? detail::fixed(*r.speedup, *r.speedup < 10 ? 2 : 1) + "x"
                                          : "-";
                       }});
  }
  if (references) {
    columns.push_back({"of reference", true, [](const Result& r) {
                         if (!r.reference) return std::string("-");
                         std::string cell = detail::fixed(*r.percent(), 1) + "%";
                         // (the range of a share below 1% would print as "(0-0)")
                         if (r.reference->rounds > 0 && *r.percent() >= 1) {
                           cell += " (" + detail::fixed(100 * r.reference->share_min, 0) + "-" +
                                   detail::fixed(100 * r.reference->share_max, 0) + ")";
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
    if (!r.tunables.empty()) print_wrapped(out, "    tunables: ", detail::tunables_text(r));
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

}  // namespace lab
