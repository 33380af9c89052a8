// verify.cpp: printing of mismatches and tolerances.
#include "lab/verify.hpp"

#include <cstdio>
#include <ostream>

namespace lab {

std::string Tolerance::describe() const {
  if (abs == 0 && rel == 0) return "exact";
  char text[64];
  std::snprintf(text, sizeof text, "abs %.1e + rel %.1e", abs, rel);
  return text;
}

void print_mismatch(std::ostream& err, const std::string& name, std::size_t index, double got,
                    double want, std::size_t columns) {
  char where[64];
  if (columns > 0) {
    std::snprintf(where, sizeof where, "[%zu][%zu]", index / columns, index % columns);
  } else {
    std::snprintf(where, sizeof where, "[%zu]", index);
  }
  char text[200];
  std::snprintf(text, sizeof text, "  mismatch %s%s: got %.9g, expected %.9g", name.c_str(), where,
                got, want);
  err << text << "\n";
}

void print_mismatch_summary(std::ostream& err, const std::string& name, const CheckResult& result,
                            std::size_t limit) {
  if (result.mismatches > limit) {
    err << "  ... and " << result.mismatches - limit << " more mismatches in " << name << " ("
        << result.mismatches << " of " << result.checked << " elements wrong)\n";
  }
}

}  // namespace lab
