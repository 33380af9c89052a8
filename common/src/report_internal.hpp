// report_internal.hpp: the words the report's formats share (report.cpp, report_json.cpp,
// report_csv.cpp, report_summary.cpp, report_table.cpp), and no lab needs.
#pragma once

#include "lab/report.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace lab::detail {

// `value` with `decimals` digits after the point.
inline std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// The parts, `separator` between each two.
inline std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string text;
  for (const auto& part : parts) text += (text.empty() ? "" : separator) + part;
  return text;
}

// "12.3 GB/s", or "-" for a row with no rate.
inline std::string rate_text(const Result& result) {
  if (result.unit.empty()) return "-";
  return fixed(result.rate, result.rate < 10 ? 3 : 1) + " " + result.unit;
}

// "TS=16 (tuned), KMAX=1024 (default)" from a row's tunables.
inline std::string tunables_text(const Result& result) {
  std::vector<std::string> parts;
  for (const auto& t : result.tunables) {
    parts.push_back(t.name + "=" + std::to_string(t.value) + " (" + origin_name(t.origin) + ")");
  }
  return detail::join(parts, ", ");
}

}  // namespace lab::detail
