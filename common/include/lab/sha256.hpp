// sha256.hpp: SHA-256 of a byte string, so a report can name the exact kernel file it graded
// (the same digest `sha256sum FILE` prints).
#pragma once

#include <string>

namespace lab {

// The digest as 64 lowercase hex digits.
std::string sha256_hex(const std::string& bytes);

}  // namespace lab
