// verify.hpp: compare a device result with a host reference, every element, with a stated
// tolerance.
#pragma once

#include <cmath>
#include <cstddef>
#include <iosfwd>
#include <limits>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

namespace lab {

// An element passes when |got - want| <= abs + rel * |want|. Integers use exact().
struct Tolerance {
  double abs = 0;
  double rel = 0;
  static Tolerance exact() { return {0, 0}; }
  std::string describe() const;  // "exact" or "abs 1e-06 + rel 1e-06"
};

// One wrong element: where, what the device gave, what the reference says, and the largest
// difference allowed (negative: an exact match was required).
struct Mismatch {
  std::size_t index = 0;
  double got = 0;
  double want = 0;
  double allowed = -1;
  int digits = 9;  // significant digits that tell two values of the result's type apart
};

struct CheckResult {
  std::size_t checked = 0;
  std::size_t mismatches = 0;
  double max_abs_error = 0;
  double max_rel_error = 0;
  std::vector<Mismatch> first;  // the first kMaxMismatchLines mismatches
  bool passed() const { return checked > 0 && mismatches == 0; }
};

// Prints "  mismatch name[i]: got X, expected Y (difference D, allowed A)", or name[row][col]
// when columns > 0; the difference only when a tolerance applied.
void print_mismatch(std::ostream& err, const std::string& name, const Mismatch& mismatch,
                    std::size_t columns = 0);
// Prints "  ... and N more mismatches" when there were more than the limit.
void print_mismatch_summary(std::ostream& err, const std::string& name, const CheckResult& result,
                            std::size_t limit);
// For a double result: the sentence that every wrong element holds a float's value where the
// right one needs a double's, so something in the kernel rounds to float.
void print_rounded_to_float(std::ostream& err, const std::string& name);

constexpr std::size_t kMaxMismatchLines = 10;

// Compares n elements of got against want, element i passing when |got - want| <= allowed(i)
// (integers: when they are equal). NaN never matches. Prints at most kMaxMismatchLines
// mismatches to `err`, as name[i], or name[row][col] for a matrix with `columns` columns, each
// value with as many digits as its type needs (17 for double). A double result whose every wrong
// element is exactly a float, where none of the right ones is, gets a sentence saying so.
template <typename T, typename W, typename Allowed>
CheckResult compare_each(const T* got, const W* want, std::size_t n, Allowed allowed,
                         std::ostream& err, const std::string& name, std::size_t columns = 0) {
  CheckResult result;
  result.checked = n;
  constexpr int digits = std::is_floating_point_v<T> ? std::numeric_limits<T>::max_digits10 : 9;
  bool rounded_to_float = std::is_same_v<T, double>;  // so far, every wrong element
  for (std::size_t i = 0; i < n; ++i) {
    const double g = static_cast<double>(got[i]);
    const double w = static_cast<double>(want[i]);
    const double abs_error = std::fabs(g - w);
    const double rel_error = w != 0 ? abs_error / std::fabs(w) : abs_error;
    bool ok;
    double limit = -1;
    if constexpr (std::is_integral_v<T> && std::is_integral_v<W>) {
      ok = static_cast<long long>(got[i]) == static_cast<long long>(want[i]);
    } else {
      limit = allowed(i);
      ok = abs_error <= limit;  // false for NaN
    }
    if (!std::isnan(abs_error)) {
      result.max_abs_error = std::fmax(result.max_abs_error, abs_error);
      result.max_rel_error = std::fmax(result.max_rel_error, rel_error);
    }
    if (!ok) {
      if (result.mismatches < kMaxMismatchLines) {
        result.first.push_back(Mismatch{i, g, w, limit, digits});
        print_mismatch(err, name, result.first.back(), columns);
      }
      ++result.mismatches;
      rounded_to_float = rounded_to_float && double(float(g)) == g && double(float(w)) != w;
    }
  }
  print_mismatch_summary(err, name, result, kMaxMismatchLines);
  if (rounded_to_float && result.mismatches > 0) print_rounded_to_float(err, name);
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
