// reference.hpp: what the host knows of a reduction before the device runs: the terms, their
// exact sum, and the rounding bound any summation order must meet. A float or double sum rounds at
// every addition, so a device total is right when it lies within gamma_h * sum |terms| of the
// exact sum, h the height of the summation tree that produced it; an int sum is exact.
#pragma once

#include "lab/lab.hpp"

#include <cstdint>
#include <ostream>
#include <string>

namespace reduction {

// gamma_h = h u / (1 - h u): the worst-case relative rounding of a chain of h operations in a
// type of unit roundoff u (2^-24 for float, 2^-53 for double); infinite when h u >= 1.
double gamma(std::uint64_t h, double u);

// The terms of the sum: x and y (uniform in [0, 1) for float and double, so a long sum loses
// digits; in [-R, R] for int, with R small enough that no partial sum can overflow 32 bits), the
// sum (compensated, in long double, then rounded to double: within reference_error of the exact
// one), the sum of the terms' magnitudes (which scales every rounding bound), and the Clemson
// lecture's sequential loop in the element type with its error and bound. The double terms are
// the float terms of the same seed, widened: the two types sum the same numbers.
template <typename T>
struct Terms {
  lab::HostVector<T> x, y;
  bool dot = false;
  double reference = 0, reference_error = 0, magnitude = 0;
  T host_loop = 0;
  double host_error = 0, host_bound = 0;
  int range = 0;  // R for int
  // 1 for a float or double dot product, whose product rounds once before it is added, else 0.
  std::uint64_t product_rounding() const;
};

// n terms of `op` ("sum" or "dot") from `seed`, with the reference and the host loop printed on
// `out`. Throws UsageError when an int sum of n terms could overflow 32 bits.
template <typename T>
Terms<T> make_terms(std::uint64_t n, const std::string& op, std::uint64_t seed, std::ostream& out);

// A total's check against the reference: every total compared, with the bound of a summation
// tree of `height` (exact for int), the mismatch on `err` named `what`. `note` becomes "off the
// exact sum by E (rounding bound A: a float sum through H additions in a row)" for float and
// double.
template <typename T>
lab::CheckResult check_total(const Terms<T>& terms, T total, std::uint64_t height,
                             const std::string& what, std::ostream& err, std::string& note);

// A peer's total (a library whose order of additions is unknown) against the bound of any order.
template <typename T>
lab::CheckResult check_any_order(const Terms<T>& terms, T total, const std::string& what,
                                 std::ostream& err, std::string& note);

}  // namespace reduction
