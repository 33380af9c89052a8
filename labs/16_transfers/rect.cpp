// rect.cpp: the transfers lab's second part, steps 10-12. A sub-matrix (the middle half of a
// height x width float matrix on the device) read into a packed host array with one
// enqueueReadBufferRect, then row by row with one enqueueReadBuffer per row, then as the same
// number of bytes in one contiguous piece; and a new block written back with
// enqueueWriteBufferRect. Every element is checked, and after the write the whole matrix: the
// block holds the new values and nothing outside it changed.
#ifndef CL_HPP_ENABLE_EXCEPTIONS  // the same settings as common/CMakeLists.txt gives every lab
#define CL_HPP_ENABLE_EXCEPTIONS  // OpenCL errors as cl::Error exceptions
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_TARGET_OPENCL_VERSION 120
#define CL_HPP_CL_1_2_DEFAULT_BUILD
#endif
#include <CL/opencl.hpp>

#include "lab/lab.hpp"
#include "parts.hpp"

#include <algorithm>
#include <iostream>
#include <sstream>

namespace transfers {
namespace {

// The rows and columns of the sub-matrix: half of each side (at least 1), from a quarter in.
struct Block {
  std::uint64_t row0, col0, rows, cols;
};

Block middle_block(const lab::Shape2D& m) {
  const std::uint64_t rows = std::max<std::uint64_t>(1, std::uint64_t(m.height) / 2);
  const std::uint64_t cols = std::max<std::uint64_t>(1, std::uint64_t(m.width) / 2);
  return {std::uint64_t(m.height) / 4, std::uint64_t(m.width) / 4, rows, cols};
}

lab::Result rect_row(const std::string& variant, const lab::Shape2D& m, const Block& b,
                     const lab::Timing& timing, const lab::CheckResult& check) {
  lab::Result row;
  row.variant = variant;
  row.size = lab::Size("height", std::int64_t(b.rows))
                 .add("width", std::int64_t(b.cols))
                 .label(std::to_string(b.rows) + "x" + std::to_string(b.cols) + " of " + m.text());
  lab::set_timing(row, timing);
  row.rate = lab::gigabytes_per_second(double(b.rows * b.cols * sizeof(float)), timing.time.median);
  row.unit = "GB/s";
  lab::set_check(row, check);
  return row;
}

}  // namespace

std::vector<lab::Result> rect(lab::Cli& cli, lab::Env& env, const Settings& s,
                              nlohmann::json& details) {
  const lab::Options& opt = cli.options();
  std::ostream& out = cli.out();
  cl::CommandQueue& queue = env.queue;
  const lab::Shape2D m = s.matrix;
  const Block b = middle_block(m);
  const std::uint64_t width = std::uint64_t(m.width);
  const std::size_t f = sizeof(float);

  // 10. The matrix (random floats) on the device, and a packed host array for the block
  const lab::HostVector<float> matrix =
      lab::random_vector<float>(m.elements(), lab::derive_seed(opt.seed, 2), -1.0f, 1.0f);
  cl::Buffer device(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, m.elements() * f,
                    const_cast<float*>(matrix.data()));
  std::vector<float> block(b.rows * b.cols);
  std::vector<float> want(block.size());  // the block as the matrix holds it
  for (std::uint64_t r = 0; r < b.rows; ++r) {
    for (std::uint64_t c = 0; c < b.cols; ++c)
      want[r * b.cols + c] = matrix[(b.row0 + r) * width + b.col0 + c];
  }
  const auto same = [&](const float* got, const float* expected, std::size_t n,
                        const std::string& name, std::size_t columns) {
    return lab::compare(got, expected, n, lab::Tolerance::exact(), std::cerr, name, columns);
  };
  out << "\nrect: the " << b.rows << " x " << b.cols << " block at row " << b.row0 << ", column "
      << b.col0 << " of the " << m.text() << " float matrix ("
      << lab::format_bytes(double(b.rows * b.cols * f)) << ")\n";

  // 11. Reading the block. One rectangular read: the buffer's origin (in bytes, rows, slices),
  //     the host's origin, the region (bytes of a row, rows, 1), then each side's row pitch: the
  //     device's rows are `width` floats apart, the host's `cols` (packed)
  const cl::array<cl::size_type, 3> buffer_origin = {b.col0 * f, b.row0, 0};
  const cl::array<cl::size_type, 3> host_origin = {0, 0, 0};
  const cl::array<cl::size_type, 3> region = {b.cols * f, b.rows, 1};
  const auto read_rect = [&] {
    cl::Event event;
    queue.enqueueReadBufferRect(device, CL_FALSE, buffer_origin, host_origin, region, width * f, 0,
                                b.cols * f, 0, block.data(), nullptr, &event);
    event.wait();
    return event;
  };
  std::vector<lab::Result> rows;
  lab::Timing timing = lab::time_launches(opt, read_rect, out);
  std::fill(block.begin(), block.end(), 0.0f);
  read_rect();
  rows.push_back(rect_row("read rect", m, b, timing,
                          same(block.data(), want.data(), block.size(), "rect read", b.cols)));
  rows.back().add_note("one enqueueReadBufferRect");

  //     The same block as one enqueueReadBuffer per row, timed from the first row's start to the
  //     last row's end
  timing = lab::time_launch_span(
      opt,
      [&] {
        std::vector<cl::Event> events(b.rows);
        for (std::uint64_t r = 0; r < b.rows; ++r) {
          queue.enqueueReadBuffer(device, CL_FALSE, ((b.row0 + r) * width + b.col0) * f, b.cols * f,
                                  block.data() + r * b.cols, nullptr, &events[r]);
        }
        queue.finish();
        return events;
      },
      out);
  std::fill(block.begin(), block.end(), 0.0f);
  for (std::uint64_t r = 0; r < b.rows; ++r) {
    queue.enqueueReadBuffer(device, CL_FALSE, ((b.row0 + r) * width + b.col0) * f, b.cols * f,
                            block.data() + r * b.cols);
  }
  queue.finish();
  rows.push_back(
      rect_row("read row by row", m, b, timing,
               same(block.data(), want.data(), block.size(), "row-by-row read", b.cols)));
  rows.back().add_note(std::to_string(b.rows) + " enqueueReadBuffer calls, one per row");

  //     As many bytes in one piece (the first rows of the matrix): what the rectangle costs over a
  //     contiguous read
  const auto read_flat = [&] {
    cl::Event event;
    queue.enqueueReadBuffer(device, CL_FALSE, 0, block.size() * f, block.data(), nullptr, &event);
    event.wait();
    return event;
  };
  timing = lab::time_launches(opt, read_flat, out);
  std::fill(block.begin(), block.end(), 0.0f);
  read_flat();
  rows.push_back(rect_row("read contiguous", m, b, timing,
                          same(block.data(), matrix.data(), block.size(), "contiguous read", 0)));
  rows.back().add_note("the same bytes from the matrix's start, one enqueueReadBuffer");

  // 12. Writing a new block back with enqueueWriteBufferRect (the same origins, region and
  //     pitches), then the whole matrix read and checked: the block new, the rest as it was
  const lab::HostVector<float> fresh =
      lab::random_vector<float>(block.size(), lab::derive_seed(opt.seed, 3), 2.0f, 3.0f);
  const auto write_rect = [&] {
    cl::Event event;
    queue.enqueueWriteBufferRect(device, CL_FALSE, buffer_origin, host_origin, region, width * f, 0,
                                 b.cols * f, 0, fresh.data(), nullptr, &event);
    event.wait();
    return event;
  };
  timing = lab::time_launches(opt, write_rect, out);
  std::vector<float> whole(m.elements());
  queue.enqueueReadBuffer(device, CL_TRUE, 0, whole.size() * f, whole.data());
  std::vector<float> expected(matrix.begin(), matrix.end());  // the matrix with the new block
  for (std::uint64_t r = 0; r < b.rows; ++r) {
    std::copy_n(fresh.data() + r * b.cols, b.cols, expected.data() + (b.row0 + r) * width + b.col0);
  }
  std::uint64_t outside = 0;  // elements outside the block that the write changed
  for (std::uint64_t r = 0; r < std::uint64_t(m.height); ++r) {
    for (std::uint64_t c = 0; c < width; ++c) {
      const bool inside = r >= b.row0 && r < b.row0 + b.rows && c >= b.col0 && c < b.col0 + b.cols;
      if (!inside && whole[r * width + c] != expected[r * width + c]) ++outside;
    }
  }
  rows.push_back(rect_row("write rect", m, b, timing,
                          same(whole.data(), expected.data(), whole.size(), "rect write", width)));
  rows.back().add_note("one enqueueWriteBufferRect; the whole matrix checked after it");
  if (outside > 0) {
    rows.back().add_note(std::to_string(outside) + " elements outside the block changed");
  }
  details["rect"] = {
      {"matrix", {m.height, m.width}}, {"block", {b.rows, b.cols}}, {"origin", {b.row0, b.col0}}};
  return rows;
}

}  // namespace transfers
