// reference.cpp: the terms, the exact sum and the rounding bounds of the reduction lab.
#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>

namespace reduction {

double gamma(std::uint64_t h, double u) {
  const double hu = double(h) * u;
  return hu < 1 ? hu / (1 - hu) : std::numeric_limits<double>::infinity();
}

template <typename T>
std::uint64_t Terms<T>::product_rounding() const {
  return dot && std::is_floating_point_v<T> ? 1 : 0;
}

template <typename T>
Terms<T> make_terms(std::uint64_t n, const std::string& op, std::uint64_t seed, std::ostream& out) {
  const bool is_float = std::is_floating_point_v<T>;
  Terms<T> terms;
  terms.dot = op == "dot";
  const double int_limit = double(std::numeric_limits<std::int32_t>::max());
  terms.range =
      static_cast<int>(std::min(9.0, terms.dot ? std::floor(std::sqrt(int_limit / double(n)))
                                               : std::floor(int_limit / double(n))));
  if (!is_float && terms.range < 1) {
    throw lab::UsageError("an int " + op + " of " + std::to_string(n) +
                          " elements could overflow 32 bits: use --dtype float or a smaller -n");
  }
  const auto terms_of = [&](std::uint64_t stream) {
    if constexpr (std::is_same_v<T, double>) {  // the float terms, widened
      const auto f = lab::random_vector<float>(n, lab::derive_seed(seed, stream), 0.0f, 1.0f);
      lab::HostVector<double> wide(n);
      std::copy(f.begin(), f.end(), wide.begin());
      return wide;
    } else {
      const double low = is_float ? 0 : -terms.range, high = is_float ? 1 : terms.range;
      return lab::random_vector<T>(n, lab::derive_seed(seed, stream), T(low), T(high));
    }
  };
  terms.x = terms_of(0);
  terms.y = terms_of(1);
  const auto& x = terms.x;
  const auto& y = terms.y;
  // Each term is exact in double (a product of two floats has at most 48 bits), and Neumaier's
  // compensated sum in long double keeps the reference well inside any bound checked against it.
  lab::CompensatedSum sum;
  for (std::uint64_t i = 0; i < n; ++i) {
    const double term = terms.dot ? double(x[i]) * double(y[i]) : double(x[i]);
    sum.add(term);
    terms.magnitude += std::fabs(term);
    terms.host_loop += terms.dot ? T(x[i] * y[i]) : x[i];
  }
  terms.reference = double(sum.value());
  // Rounded once to double, and long double's own rounding, far smaller
  terms.reference_error =
      lab::unit_roundoff<double>() * std::fabs(terms.reference) + std::ldexp(terms.magnitude, -60);
  const std::uint64_t height = n - 1 + terms.product_rounding();
  const char* type = lab::opencl_type_name<T>();
  terms.host_error = std::fabs(double(terms.host_loop) - terms.reference);
  terms.host_bound = is_float ? gamma(height, lab::unit_roundoff<T>()) * terms.magnitude : 0;
  out << (terms.dot ? "x·y" : "sum x") << ", n = " << n << ", " << type << "; reference "
      << terms.reference << " (" << (is_float ? "compensated" : "exact") << ")\n";
  if (is_float) {
    out << "Sequential " << type << " loop on the host: error " << terms.host_error;
    if (std::isfinite(terms.host_bound)) {
      out << " (its bound " << terms.host_bound << " = gamma_" << height << " * sum |terms|)\n";
    } else {
      out << " (no bound: n u >= 1, so a " << type << " running sum can lose every digit)\n";
    }
  }
  return terms;
}

template <typename T>
lab::CheckResult check_total(const Terms<T>& terms, T total, std::uint64_t height,
                             const std::string& what, std::ostream& err, std::string& note) {
  const bool is_float = std::is_floating_point_v<T>;
  const double allowed =
      is_float ? gamma(height, lab::unit_roundoff<T>()) * terms.magnitude + terms.reference_error
               : 0;
  const lab::CheckResult check = lab::compare_each(
      &total, &terms.reference, 1, [&](std::size_t) { return allowed; }, err, what);
  if (is_float) {
    char text[200];
    std::snprintf(text, sizeof text,
                  "off the exact sum by %.3g (rounding bound %.3g: a %s sum through %llu "
                  "additions in a row)",
                  std::fabs(double(total) - terms.reference), allowed, lab::opencl_type_name<T>(),
                  static_cast<unsigned long long>(height));
    note = text;
  }
  return check;
}

template <typename T>
lab::CheckResult check_any_order(const Terms<T>& terms, T total, const std::string& what,
                                 std::ostream& err, std::string& note) {
  const std::uint64_t n = terms.x.size();
  const double allowed =
      gamma(n + terms.product_rounding(), lab::unit_roundoff<T>()) * terms.magnitude +
      terms.reference_error;
  const lab::CheckResult check = lab::compare_each(
      &total, &terms.reference, 1, [&](std::size_t) { return allowed; }, err, what);
  char text[120];
  if (std::isfinite(allowed)) {
    std::snprintf(text, sizeof text, "error %.3g (allowed %.3g, any order)",
                  std::fabs(double(total) - terms.reference), allowed);
  } else {
    std::snprintf(text, sizeof text, "error %.3g (its order is unknown: no bound at this n)",
                  std::fabs(double(total) - terms.reference));
  }
  note = text;
  return check;
}

template lab::CheckResult check_any_order<float>(const Terms<float>&, float, const std::string&,
                                                 std::ostream&, std::string&);
template lab::CheckResult check_any_order<double>(const Terms<double>&, double, const std::string&,
                                                  std::ostream&, std::string&);
template struct Terms<float>;
template struct Terms<double>;
template struct Terms<int>;
template Terms<float> make_terms<float>(std::uint64_t, const std::string&, std::uint64_t,
                                        std::ostream&);
template Terms<double> make_terms<double>(std::uint64_t, const std::string&, std::uint64_t,
                                          std::ostream&);
template Terms<int> make_terms<int>(std::uint64_t, const std::string&, std::uint64_t,
                                    std::ostream&);
template lab::CheckResult check_total<float>(const Terms<float>&, float, std::uint64_t,
                                             const std::string&, std::ostream&, std::string&);
template lab::CheckResult check_total<double>(const Terms<double>&, double, std::uint64_t,
                                              const std::string&, std::ostream&, std::string&);
template lab::CheckResult check_total<int>(const Terms<int>&, int, std::uint64_t,
                                           const std::string&, std::ostream&, std::string&);

}  // namespace reduction
