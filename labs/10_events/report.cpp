// report.cpp: the events lab's report, one row per part: what it checked, what it measured and
// PASSED, FAILED or SKIPPED, as a table for people or as JSON, CSV and --summary lines.
#include "events.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace events {
namespace {

using lab::csv_field;

std::string status_text(Status status) {
  switch (status) {
    case Status::passed:
      return "PASSED";
    case Status::failed:
      return "FAILED";
    default:
      return "SKIPPED";
  }
}

// The measured column: the skip reason for a skipped part.
std::string measured_text(const PartResult& row) {
  return row.status == Status::skipped ? row.reason : row.measured;
}

bool passed(const std::vector<PartResult>& rows) {
  return std::none_of(rows.begin(), rows.end(),
                      [](const PartResult& r) { return r.status == Status::failed; }) &&
         std::any_of(rows.begin(), rows.end(),
                     [](const PartResult& r) { return r.status == Status::passed; });
}

}  // namespace

void print_report(const std::vector<PartResult>& rows, const Setup& setup, lab::OutputFormat format,
                  std::ostream& out) {
  const std::string device = setup.env->device_name();
  const std::string size = "n=" + std::to_string(setup.n) + " work=" + std::to_string(setup.work);
  if (format == lab::OutputFormat::json) {
    nlohmann::json results = nlohmann::json::array();
    nlohmann::json parts = nlohmann::json::object();
    std::size_t checked = 0, wrong = 0;
    for (const auto& r : rows) {
      nlohmann::json row = {{"variant", r.part},
                            {"size", size},
                            {"checked", r.checked},
                            {"measured", measured_text(r)},
                            {"status", status_text(r.status)},
                            {"failures", r.failures},
                            {"notes", r.notes}};
      if (r.status == Status::skipped) row["reason"] = r.reason;
      results.push_back(row);
      parts[r.part] = r.details;
      checked += r.checked_elements;
      wrong += r.wrong_elements;
    }
    nlohmann::json files = nlohmann::json::array();
    for (const auto& file : lab::built_kernel_files()) {
      files.push_back({{"path", file.path}, {"sha256", file.sha256}, {"suite", !file.student}});
    }
    const nlohmann::json report = {
        {"lab", "events"},
        {"device", lab::describe_device(*setup.env)},
        {"results", results},
        {"details",
         {{"n", setup.n},
          {"work", setup.work},
          {"hold_ms", setup.hold_ms},
          {"hold_origin", setup.hold_given ? "command line" : "default"},
          {"busy_kernel_s", setup.busy_s},
          {"rounds", setup.options->reps},
          {"clock", "device profiling clock; timestamps in ns from the round's first QUEUED"},
          {"parts", parts}}},
        {"grading",
         {{"passed", passed(rows)},
          {"checked_elements", checked},
          {"wrong_elements", wrong},
          {"kernel_files", files}}},
        {"passed", passed(rows)}};
    out << report.dump(2) << "\n";
    return;
  }
  if (format == lab::OutputFormat::csv) {
    out << "lab,device,part,size,checked,measured,status,notes\n";
    for (const auto& r : rows) {
      std::string notes;
      for (const auto& note : r.notes) notes += (notes.empty() ? "" : "; ") + note;
      out << "events," << csv_field(device) << ',' << r.part << ',' << csv_field(size) << ','
          << csv_field(r.checked) << ',' << csv_field(measured_text(r)) << ','
          << status_text(r.status) << ',' << csv_field(notes) << "\n";
    }
    return;
  }
  if (format == lab::OutputFormat::summary) {
    // The tour's fixed columns (lab, device, variant, size, time, rate, status).
    for (const auto& r : rows) {
      char line[1024];
      std::snprintf(line, sizeof line, "%-12s %-24s %-20s %-26s %11s %-30s %s", "events",
                    lab::short_device_name(device).substr(0, 24).c_str(), r.part.c_str(),
                    size.c_str(), "-", "-", status_text(r.status).c_str());
      out << line << (r.status == Status::skipped ? " (" + r.reason + ")" : "") << "\n";
    }
    return;
  }
  std::vector<std::vector<std::string>> table = {{"part", "checked", "measured", "status"}};
  for (const auto& r : rows) {
    table.push_back({r.part, r.checked, measured_text(r), status_text(r.status)});
  }
  std::vector<std::size_t> widths(4, 0);
  for (const auto& row : table) {
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  out << "\nevents on " << lab::short_device_name(device) << " (" << size << ", "
      << setup.options->reps << " round(s) per part, user events held " << setup.hold_ms << " ms, "
      << (setup.hold_given
              ? std::string("--hold")
              : "4x the busy kernel's " + lab::format_seconds(setup.busy_s) + ", at least 30 ms")
      << ")\n";
  for (const auto& row : table) {
    out << " ";
    for (std::size_t c = 0; c < row.size(); ++c) {
      out << " " << row[c]
          << (c + 1 < row.size() ? std::string(widths[c] - row[c].size(), ' ') : "");
    }
    out << "\n";
  }
  for (const auto& r : rows) {
    for (const auto& note : r.notes) out << "  note: " << r.part << ": " << note << "\n";
  }
  for (const auto& file : lab::built_kernel_files()) {
    if (file.student) {
      out << "  graded your kernel file " << file.path << " (sha256 " << file.sha256.substr(0, 16)
          << "...)\n";
    }
  }
}

}  // namespace events
