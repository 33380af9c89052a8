// shape.cpp: matrix shapes and their options.
#include "lab/shape.hpp"

#include "lab/error.hpp"

#include <algorithm>

namespace lab {

std::string Shape2D::text() const { return std::to_string(height) + "x" + std::to_string(width); }

Size Shape2D::size() const { return Size("height", height).add("width", width).label(text()); }

MatrixSizeOptions::MatrixSizeOptions(Cli& cli, const std::string& rows_meaning,
                                     const std::string& columns_meaning) {
  cli.add_size("-n,--size", n_, "Square size: height = width = N (default 2048)");
  cli.add_size("-H,--height", height_, rows_meaning + " (overrides -n)");
  cli.add_size("-W,--width", width_, columns_meaning + " (overrides -n)");
}

Shape2D MatrixSizeOptions::shape() const {
  const std::uint64_t height = height_ ? height_ : n_, width = width_ ? width_ : n_;
  if (std::max(height, width) > (1u << 30) || height * width >= (std::uint64_t{1} << 31)) {
    throw UsageError(
        "matrices of more than 2^31 elements are not supported (the kernels index with int): "
        "choose smaller sizes");
  }
  return {static_cast<int>(height), static_cast<int>(width)};
}

}  // namespace lab
