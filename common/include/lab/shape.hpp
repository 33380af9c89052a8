// shape.hpp: the height x width of the matrix labs (transpose, coalescing), and their size options.
#pragma once

#include "lab/cli.hpp"
#include "lab/report.hpp"

#include <cstdint>
#include <string>

namespace lab {

// A height x width row-major matrix.
struct Shape2D {
  int height = 0;
  int width = 0;
  std::uint64_t elements() const { return std::uint64_t(height) * std::uint64_t(width); }
  std::string text() const;  // "4096x4096"
  Size size() const;         // {height, width} with text() for words
};

// -n (square), -H and -W, added to a Cli before parse(); shape() after it, refusing matrices the
// kernels' int indices cannot address (2^31 elements or more) with one sentence.
class MatrixSizeOptions {
 public:
  MatrixSizeOptions(Cli& cli, const std::string& rows_meaning, const std::string& columns_meaning);
  Shape2D shape() const;

 private:
  std::uint64_t n_ = 2048, height_ = 0, width_ = 0;
};

}  // namespace lab
