// peers.hpp: libraries a lab compares itself with in the same run (OpenBLAS on the host, CLBlast
// on the OpenCL device), loaded with dlopen when installed, so a lab needs only libOpenCL.
#pragma once

#include <iosfwd>
#include <string>
#include <type_traits>

namespace lab {

// `symbol` from `library` (e.g. "libopenblas.so.0", "cblas_sdot"), or nullptr with a note to
// `out` saying the library is missing or lacks the symbol.
void* load_symbol(const char* library, const char* symbol, std::ostream& out);

struct Result;

// Marks `row` as a peer library's row: its check stays in the report, but a wrong result is the
// library's, not the lab's, so it does not decide the exit code; a failed row says so in a note.
void mark_peer(Result& row);

// BLAS's letter for an element type: "s" for float, "d" for double (cblas_sdot, cblas_ddot).
template <typename T>
std::string blas_letter() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "BLAS has s and d");
  return std::is_same_v<T, double> ? "d" : "s";
}

// CBLAS and CLBlast share these enumerator values.
constexpr int kRowMajor = 101;
constexpr int kNoTrans = 111;

}  // namespace lab
