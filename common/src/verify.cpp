// verify.cpp: printing of mismatches and tolerances.
#include "lab/verify.hpp"

#include <cmath>
#include <cstdio>
#include <ostream>

namespace lab {

std::string Tolerance::describe() const {
  if (abs == 0 && rel == 0) return "exact";
  char text[64];
  std::snprintf(text, sizeof text, "abs %.1e + rel %.1e", abs, rel);
  return text;
}

void print_mismatch(std::ostream& err, const std::string& name, const Mismatch& mismatch,
                    std::size_t columns) {
  const std::size_t index = mismatch.index;
  char where[64];
  if (columns > 0) {
    std::snprintf(where, sizeof where, "[%zu][%zu]", index / columns, index % columns);
  } else {
    std::snprintf(where, sizeof where, "[%zu]", index);
  }
  // Whole numbers (int results) in full, others to the digits their type needs (9 for float,
  // 17 for double), so two different values never print the same.
  const auto number = [&mismatch](double value) {
    char digits[40];
    const bool whole = std::fabs(value) < 1e15 && value == std::floor(value);
    if (whole) {
      std::snprintf(digits, sizeof digits, "%.0f", value);
    } else {
      std::snprintf(digits, sizeof digits, "%.*g", mismatch.digits, value);
    }
    return std::string(digits);
  };
  char text[256];
  std::snprintf(text, sizeof text, "  mismatch %s%s: got %s, expected %s", name.c_str(), where,
                number(mismatch.got).c_str(), number(mismatch.want).c_str());
  err << text;
  // The sentinels every guarded result starts from (buffers.hpp).
  if (std::isnan(mismatch.got) || mismatch.got == double(0x5A5A5A5A)) {
    err << " (the sentinel every result starts from: most likely nothing wrote this element)";
  } else if (mismatch.allowed >= 0) {
    std::snprintf(text, sizeof text, " (difference %.3g, allowed %.3g)",
                  std::fabs(mismatch.got - mismatch.want), mismatch.allowed);
    err << text;
  }
  err << "\n";
}

void print_rounded_to_float(std::ostream& err, const std::string& name) {
  err << "  every wrong element of " << name
      << " is exactly a float's value, where the right ones need a double's: something in the "
         "kernel rounds to float (a float variable or argument, a float literal such as 0.1f, a "
         "float vector)\n";
}

void print_mismatch_summary(std::ostream& err, const std::string& name, const CheckResult& result,
                            std::size_t limit) {
  if (result.mismatches > limit) {
    err << "  ... and " << result.mismatches - limit << " more mismatches in " << name << " ("
        << result.mismatches << " of " << result.checked << " elements wrong)\n";
  }
}

}  // namespace lab
