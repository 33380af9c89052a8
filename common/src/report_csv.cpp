// report_csv.cpp: --csv, one line per row, each column a path into --json's row
// (Report::csv_columns), quoted where it must be.
#include "report_internal.hpp"

#include <algorithm>
#include <ostream>

namespace lab {
namespace {

// The value at `path` ("time_s.median") in `row`, or in `report` for its own fields, as one CSV
// field: numbers as they are, a list of numbers as "16x16", a list of words joined by "; ". The
// tunables come from `result`, in the family's order: "TS=16 (tuned), KMAX=1024 (default)".
std::string csv_value(const nlohmann::json& report, const nlohmann::json& row, const Result& result,
                      const std::string& path) {
  if (path == "tunables") return csv_field(detail::tunables_text(result));
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
    return csv_field(detail::join(parts, node->size() && (*node)[0].is_number() ? "x" : "; "));
  }
  if (node->is_object()) return csv_field(node->dump());
  if (node->is_number_float()) return detail::fixed(node->get<double>(), 9);
  return node->dump();
}

}  // namespace

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
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
  out << detail::join(csv_columns(), ",") << "\n";
  const nlohmann::json report = json();
  for (std::size_t i = 0; i < results_.size(); ++i) {
    std::vector<std::string> fields;
    for (const auto& path : csv_columns()) {
      fields.push_back(csv_value(report, report["results"][i], results_[i], path));
    }
    out << detail::join(fields, ",") << "\n";
  }
}

}  // namespace lab
