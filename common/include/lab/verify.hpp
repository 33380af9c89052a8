// verify.hpp: compare a device result with a host reference, every element, with a stated
// tolerance.
#pragma once

#include <cmath>
#include <cstddef>
#include <iosfwd>
#include <string>
#include <type_traits>

namespace lab {

// An element passes when |got - want| <= abs + rel * |want|. Integers use exact().
struct Tolerance {
  double abs = 0;
  double rel = 0;
  static Tolerance exact() { return {0, 0}; }
  std::string describe() const;  // "exact" or "abs 1e-06 + rel 1e-06"
};

struct CheckResult {
  std::size_t checked = 0;
  std::size_t mismatches = 0;
  double max_abs_error = 0;
  double max_rel_error = 0;
  bool passed() const { return checked > 0 && mismatches == 0; }
};

// Prints "  mismatch name[i]: got X, expected Y", or name[row][col] when columns > 0.
void print_mismatch(std::ostream& err, const std::string& name, std::size_t index, double got,
                    double want, std::size_t columns = 0);
// Prints "  ... and N more mismatches" when there were more than the limit.
void print_mismatch_summary(std::ostream& err, const std::string& name, const CheckResult& result,
                            std::size_t limit);

constexpr std::size_t kMaxMismatchLines = 10;

// Compares n elements of got against want, element i passing when |got - want| <= allowed(i)
// (integers: when they are equal). NaN never matches. Prints at most kMaxMismatchLines
// mismatches to `err`, as name[i], or name[row][col] for a matrix with `columns` columns.
template <typename T, typename W, typename Allowed>
CheckResult compare_each(const T* got, const W* want, std::size_t n, Allowed allowed,
                         std::ostream& err, const std::string& name, std::size_t columns = 0) {
  CheckResult result;
  result.checked = n;
  for (std::size_t i = 0; i < n; ++i) {
    const double g = static_cast<double>(got[i]);
    const double w = static_cast<double>(want[i]);
    const double abs_error = std::fabs(g - w);
    const double rel_error = w != 0 ? abs_error / std::fabs(w) : abs_error;
    bool ok;
    if constexpr (std::is_integral_v<T> && std::is_integral_v<W>) {
      ok = static_cast<long long>(got[i]) == static_cast<long long>(want[i]);
    } else {
      ok = abs_error <= allowed(i);  // false for NaN
    }
    if (!std::isnan(abs_error)) {
      result.max_abs_error = std::fmax(result.max_abs_error, abs_error);
      result.max_rel_error = std::fmax(result.max_rel_error, rel_error);
    }
    if (!ok) {
      if (result.mismatches < kMaxMismatchLines) print_mismatch(err, name, i, g, w, columns);
      ++result.mismatches;
    }
  }
  print_mismatch_summary(err, name, result, kMaxMismatchLines);
  return result;
}

// The same with one tolerance for every element.
template <typename T, typename W>
CheckResult compare(const T* got, const W* want, std::size_t n, Tolerance tolerance,
                    std::ostream& err, const std::string& name, std::size_t columns = 0) {
  return compare_each(
      got, want, n,
      [&](std::size_t i) {
        return tolerance.abs + tolerance.rel * std::fabs(static_cast<double>(want[i]));
      },
      err, name, columns);
}

}  // namespace lab
