// samplers.cpp: the images lab's first part, steps 4-7: whether the device reads images, the
// image formats it lists (and what cl::Image2D does with one it does not), the course notes'
// horizontal_reflect, and an 8 x 4 image read through each sampler setting, every value checked
// against a host model of the specification's rules (images_family.cpp).
#ifndef CL_HPP_ENABLE_EXCEPTIONS  // the same settings as common/CMakeLists.txt gives every lab
#define CL_HPP_ENABLE_EXCEPTIONS  // OpenCL errors as cl::Error exceptions
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_TARGET_OPENCL_VERSION 120
#define CL_HPP_CL_1_2_DEFAULT_BUILD
#endif
#include <CL/opencl.hpp>

#include "images_family.hpp"
#include "lab/lab.hpp"
#include "parts.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace images {
namespace {

// "CL_RGBA/CL_FLOAT" for a format's channel order and type.
std::string format_name(const cl::ImageFormat& f) {
  static const std::pair<cl_uint, const char*> names[] = {
      {CL_R, "CL_R"},
      {CL_A, "CL_A"},
      {CL_RG, "CL_RG"},
      {CL_RA, "CL_RA"},
      {CL_RGB, "CL_RGB"},
      {CL_RGBA, "CL_RGBA"},
      {CL_BGRA, "CL_BGRA"},
      {CL_ARGB, "CL_ARGB"},
      {CL_INTENSITY, "CL_INTENSITY"},
      {CL_LUMINANCE, "CL_LUMINANCE"},
      {CL_Rx, "CL_Rx"},
      {CL_RGx, "CL_RGx"},
      {CL_RGBx, "CL_RGBx"},
      {CL_SNORM_INT8, "CL_SNORM_INT8"},
      {CL_SNORM_INT16, "CL_SNORM_INT16"},
      {CL_UNORM_INT8, "CL_UNORM_INT8"},
      {CL_UNORM_INT16, "CL_UNORM_INT16"},
      {CL_UNORM_SHORT_565, "CL_UNORM_SHORT_565"},
      {CL_UNORM_SHORT_555, "CL_UNORM_SHORT_555"},
      {CL_UNORM_INT_101010, "CL_UNORM_INT_101010"},
      {CL_SIGNED_INT8, "CL_SIGNED_INT8"},
      {CL_SIGNED_INT16, "CL_SIGNED_INT16"},
      {CL_SIGNED_INT32, "CL_SIGNED_INT32"},
      {CL_UNSIGNED_INT8, "CL_UNSIGNED_INT8"},
      {CL_UNSIGNED_INT16, "CL_UNSIGNED_INT16"},
      {CL_UNSIGNED_INT32, "CL_UNSIGNED_INT32"},
      {CL_HALF_FLOAT, "CL_HALF_FLOAT"},
      {CL_FLOAT, "CL_FLOAT"}};
  const auto name = [&](cl_uint value) -> std::string {
    for (const auto& [v, text] : names) {
      if (v == value) return text;
    }
    std::ostringstream hex;
    hex << "0x" << std::hex << value;
    return hex.str();
  };
  return name(f.image_channel_order) + "/" + name(f.image_channel_data_type);
}

// An image's pixels on the host, one float4 each, for the samplers part: red the pixel's value.
std::vector<cl_float4> rgba(const std::vector<float>& red) {
  std::vector<cl_float4> pixels(red.size());
  for (std::size_t i = 0; i < red.size(); ++i) pixels[i] = {{red[i], -red[i], 0.5f * red[i], 1}};
  return pixels;
}

// 5. The image formats the device supports for 2-D images read by kernels, by channel order, and
//    what cl::Image2D does with one it does not list
void show_formats(std::ostream& out, const cl::Context& context) {
  std::vector<cl::ImageFormat> formats;
  context.getSupportedImageFormats(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, &formats);
  out << "Image formats for read_only image2d_t (" << formats.size()
      << "), channel order: data types\n";
  std::vector<cl_channel_order> orders;
  for (const cl::ImageFormat& f : formats) {
    if (std::find(orders.begin(), orders.end(), f.image_channel_order) == orders.end()) {
      orders.push_back(f.image_channel_order);
    }
  }
  for (const cl_channel_order order : orders) {
    const std::string name = format_name({order, CL_FLOAT});
    out << "  " << name.substr(0, name.find('/')) << ":";
    for (const cl::ImageFormat& f : formats) {
      if (f.image_channel_order != order) continue;
      const std::string both = format_name(f);
      out << " " << both.substr(both.find('/') + 4);  // the type without "CL_"
    }
    out << "\n";
  }
  const auto supported = [&](cl_channel_order order, cl_channel_type type) {
    return std::any_of(formats.begin(), formats.end(), [&](const cl::ImageFormat& f) {
      return f.image_channel_order == order && f.image_channel_data_type == type;
    });
  };
  const cl::ImageFormat candidates[] = {{CL_RGB, CL_FLOAT},
                                        {CL_RGB, CL_UNSIGNED_INT8},
                                        {CL_RA, CL_HALF_FLOAT},
                                        {CL_RGB, CL_SNORM_INT16}};
  for (const cl::ImageFormat& absent : candidates) {
    if (supported(absent.image_channel_order, absent.image_channel_data_type)) continue;
    try {
      cl::Image2D image(context, CL_MEM_READ_ONLY, absent, 4, 4);
      out << "  " << format_name(absent) << " is not listed, yet the runtime made one\n";
    } catch (const cl::Error& error) {
      out << "  " << format_name(absent) << " is not listed: cl::Image2D fails with "
          << lab::cl_error_name(error.err()) << ", so ask getSupportedImageFormats first\n";
    }
    break;
  }
}

// When horizontal_reflect's output is wrong: one sentence on what its pattern points at (pixels
// never written, a copy not a mirror, a mirror one pixel off, a mirror top to bottom), or "".
// `got` and `src` hold 4 floats a pixel, width x height pixels.
std::string diagnose_reflect(const std::vector<float>& got, const std::vector<cl_float4>& src,
                             int width, int height) {
  const auto at = [&](int x, int y) { return std::size_t(y) * width + x; };
  std::size_t unwritten = 0;
  for (std::size_t i = 0; i < src.size(); ++i) unwritten += std::isnan(got[i * 4]) ? 1 : 0;
  if (unwritten > 0) {
    return std::to_string(unwritten) + " of " + std::to_string(src.size()) +
           " pixels of dst were never written: each work-item inside the image writes its own "
           "(x, y) with write_imagef";
  }
  // The share of pixels whose first channel equals src at (sx(x), sy(y))
  const auto matches = [&](auto sx, auto sy) {
    std::size_t tried = 0, same = 0;
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        const int u = sx(x), v = sy(y);
        if (u < 0 || u >= width || v < 0 || v >= height) continue;
        ++tried;
        if (got[at(x, y) * 4] == src[at(u, v)].s[0]) ++same;
      }
    }
    return tried > 0 && same * 10 >= tried * 9;
  };
  const auto keep = [](int c) { return c; };
  if (width > 1 && matches(keep, keep)) {
    return "dst is a copy of src, not its mirror: read src at (width - 1 - x, y)";
  }
  if (matches([&](int x) { return width - x; }, keep) ||
      matches([&](int x) { return width - 2 - x; }, keep)) {
    return "dst is the mirror moved by one pixel: the mirror of column x is width - 1 - x "
           "(columns run from 0 to width - 1)";
  }
  if (height > 1 && matches(keep, [&](int y) { return height - 1 - y; })) {
    return "dst is src mirrored top to bottom: mirror x (dimension 0, along a row), keep y";
  }
  return "";
}

// 6. horizontal_reflect: a W x H image (at most 1024 x 1024) mirrored left to right, one work-item
//    a pixel, each reading (width-1-x, y) through a sampler and writing (x, y) with write_imagef
lab::Result reflect_row(const lab::Options& opt, lab::Env& env, const lab::Shape2D& shape,
                        const cl::Program& program, const lab::KernelText& file,
                        std::ostream& out) {
  const cl::Context& context = env.context;
  const cl::CommandQueue& queue = env.queue;
  const lab::KernelSignature reflect_signature = {
      "horizontal_reflect",
      {{"global", "image2d_t", "src", false, "read_only"},
       {"global", "image2d_t", "dst", false, "write_only"}}};
  lab::check_kernel_name(program, file, reflect_signature);
  cl::Kernel reflect(program, "horizontal_reflect");
  lab::check_kernel_args(reflect, file, reflect_signature);
  const int width = std::min(shape.width, 1024), height = std::min(shape.height, 1024);
  const cl::ImageFormat format(CL_RGBA, CL_FLOAT);  // every device with images has it
  std::vector<float> values(std::size_t(width) * height);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = float(i % 1000) + 0.25f;
  std::vector<cl_float4> src_host = rgba(values), dst_host(values.size());
  cl::Image2D src(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, format, width, height, 0,
                  src_host.data());
  cl::Image2D dst(context, CL_MEM_WRITE_ONLY, format, width, height);
  const cl_float4 nan = {{NAN, NAN, NAN, NAN}};  // a pixel never written stays NaN
  queue.enqueueFillImage(dst, nan, {0, 0, 0}, {cl::size_type(width), cl::size_type(height), 1});
  reflect.setArg(0, src);
  reflect.setArg(1, dst);
  const cl::NDRange global(lab::round_up(width, 8), lab::round_up(height, 8)), local(8, 8);
  const lab::Timing timing = lab::time_launches(
      opt,
      [&] {
        cl::Event event;
        queue.enqueueNDRangeKernel(reflect, cl::NullRange, global, local, nullptr, &event);
        event.wait();
        return event;
      },
      out);
  queue.enqueueReadImage(dst, CL_TRUE, {0, 0, 0}, {cl::size_type(width), cl::size_type(height), 1},
                         0, 0, dst_host.data());
  std::vector<float> got(values.size() * 4), want(values.size() * 4);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < 4; ++c) {
        got[(std::size_t(y) * width + x) * 4 + c] = dst_host[std::size_t(y) * width + x].s[c];
        want[(std::size_t(y) * width + x) * 4 + c] =
            src_host[std::size_t(y) * width + (width - 1 - x)].s[c];
      }
    }
  }
  const lab::CheckResult check =
      lab::compare(got.data(), want.data(), got.size(), lab::Tolerance::exact(), std::cerr,
                   "dst (reflect, 4 channels a pixel)", width * 4);
  if (!check.passed()) {
    const std::string why = diagnose_reflect(got, src_host, width, height);
    if (!why.empty()) std::cerr << "images: reflect: " << why << "\n";
  }
  lab::Result row;
  row.variant = "reflect";
  row.size = lab::Size("height", height).add("width", width);
  lab::set_timing(row, timing);
  lab::set_check(row, check);
  row.checks = "dst(x, y) = src(width-1-x, y), every channel";
  return row;
}

// Where step 7 reads an image of height x width pixels, (u, v) in pixels: a grid from one image
// size before it to one after, every half pixel and 1/8 past each texel's edge and centre, then
// `shown` coordinates along row 0 (x = -4.25 to 10.75, a quarter past its texels' centres) to
// print.
std::vector<std::pair<double, double>> sample_grid(int height, int width, int shown) {
  std::vector<std::pair<double, double>> grid;
  for (int j = 0; j < 6 * height; ++j) {
    for (int i = 0; i < 6 * width; ++i) {
      grid.emplace_back(-width + 0.125 + 0.5 * i, -height + 0.125 + 0.5 * j);
    }
  }
  for (int i = 0; i < shown; ++i) grid.emplace_back(-4.25 + i, 0.5);
  return grid;
}

// Step 7's check of one sampler's reads (red, the first channel, in `got`) at coordinates `at`:
// each coordinate the specification defines against the host model's value, exactly for nearest;
// for linear within 2^-7 of the four texels' spread (each weight may carry 8 fraction bits, off
// by 2^-8, on each axis) plus 2^-20 of the value (float rounding of the blend).
lab::Result check_sampler(const std::string& name, const SamplerModel& model,
                          const std::vector<float>& red, int height, int width,
                          const std::vector<cl_float2>& at, const std::vector<cl_float4>& got) {
  std::vector<float> values;
  std::vector<double> want, allowed;
  for (std::size_t i = 0; i < at.size(); ++i) {
    if (!model.defined(height, width, at[i].s[0], at[i].s[1])) continue;
    double spread = 0;
    want.push_back(model.read(red, height, width, at[i].s[0], at[i].s[1], &spread));
    allowed.push_back(
        model.linear ? std::ldexp(spread, -7) + std::ldexp(std::fabs(want.back()), -20) : 0.0);
    values.push_back(got[i].s[0]);
  }
  const lab::CheckResult check = lab::compare_each(
      values.data(), want.data(), values.size(), [&](std::size_t i) { return allowed[i]; },
      std::cerr, "red (" + name + ")");
  lab::Result row;
  row.variant = name;
  row.size =
      lab::Size("height", height).add("width", width).add("items", std::int64_t(values.size()));
  lab::set_check(row, check);
  row.checks = model.linear ? "spec's rules, 2^-7 of spread" : "spec's rules, exact";
  return row;
}

// 7. sample: an 8 x 4 image (red = 10 y + x + 1) read at a grid of coordinates from one image
//    width and height before it to one after, through each sampler: integer or normalized
//    coordinates, nearest or linear, each address mode (REPEAT and MIRRORED_REPEAT take normalized
//    coordinates only); one row a sampler
std::vector<lab::Result> sampler_rows(lab::Env& env, const cl::Program& program,
                                      const lab::KernelText& file, std::ostream& out) {
  const cl::Context& context = env.context;
  const cl::CommandQueue& queue = env.queue;
  std::vector<lab::Result> rows;
  const int width = 8, height = 4;
  std::vector<float> red(width * height);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) red[y * width + x] = float(10 * y + x + 1);
  }
  const std::vector<cl_float4> small = rgba(red);
  cl::Image2D image(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                    cl::ImageFormat(CL_RGBA, CL_FLOAT), width, height, 0,
                    const_cast<cl_float4*>(small.data()));
  const int shown = 16;  // the grid's last coordinates: row 0 at x = -4.25 to 10.75
  const std::vector<std::pair<double, double>> grid = sample_grid(height, width, shown);
  const int count = int(grid.size());
  const lab::KernelSignature sample_signature = {
      "sample",
      {{"global", "image2d_t", "src", false, "read_only"},
       {"", "sampler_t", "sampler"},
       {"global", "float2*", "at", true},
       {"", "int", "count"},
       {"global", "float4*", "out"}}};
  lab::check_kernel_name(program, file, sample_signature);
  cl::Kernel sample(program, "sample");
  lab::check_kernel_args(sample, file, sample_signature);
  cl::Buffer at_buffer(context, CL_MEM_READ_ONLY, sizeof(cl_float2) * count);
  cl::Buffer out_buffer(context, CL_MEM_WRITE_ONLY, sizeof(cl_float4) * count);
  const bool oclgrind = lab::is_oclgrind(env.platform);
  out << "Row 0 (red 1 to 8) read at x = -4.25, -3.25, ... 10.75 through normalized samplers:\n";
  for (const bool normalized : {false, true}) {
    for (const bool linear : {false, true}) {
      for (const Address address : {Address::none, Address::clamp_to_edge, Address::clamp,
                                    Address::repeat, Address::mirrored_repeat}) {
        const bool wraps = address == Address::repeat || address == Address::mirrored_repeat;
        if (wraps && !normalized) continue;  // undefined with integer coordinates
        const SamplerModel model{normalized, linear, address};
        const std::string name = std::string(address_name(address)) + "/" +
                                 (linear ? "linear" : "near") + "/" + (normalized ? "norm" : "int");
        if (oclgrind && linear && address == Address::none) {
          lab::Result row;
          row.variant = name;
          row.skip_reason =
              "Oclgrind 21.10 reads 0 through every CLK_ADDRESS_NONE sampler with "
              "CLK_FILTER_LINEAR";
          rows.push_back(row);
          continue;
        }
        const cl_addressing_mode modes[] = {CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE,
                                            CL_ADDRESS_CLAMP, CL_ADDRESS_REPEAT,
                                            CL_ADDRESS_MIRRORED_REPEAT};
        const cl::Sampler sampler(context, normalized ? CL_TRUE : CL_FALSE, modes[int(address)],
                                  linear ? CL_FILTER_LINEAR : CL_FILTER_NEAREST);
        std::vector<cl_float2> at(count);
        for (int i = 0; i < count; ++i) {
          at[i] = {{float(normalized ? grid[i].first / width : grid[i].first),
                    float(normalized ? grid[i].second / height : grid[i].second)}};
        }
        queue.enqueueWriteBuffer(at_buffer, CL_TRUE, 0, sizeof(cl_float2) * count, at.data());
        sample.setArg(0, image);
        sample.setArg(1, sampler);
        sample.setArg(2, at_buffer);
        sample.setArg(3, cl_int{count});
        sample.setArg(4, out_buffer);
        queue.enqueueNDRangeKernel(sample, cl::NullRange, cl::NDRange(lab::round_up(count, 64)),
                                   cl::NDRange(64));
        std::vector<cl_float4> got(count);
        queue.enqueueReadBuffer(out_buffer, CL_TRUE, 0, sizeof(cl_float4) * count, got.data());

        rows.push_back(check_sampler(name, model, red, height, width, at, got));
        if (normalized && address != Address::none) {
          out << "  " << std::left << std::setw(20) << name << std::right;
          for (int i = count - shown; i < count; ++i) {
            out << std::setw(6) << std::setprecision(3) << got[i].s[0];
          }
          out << "\n";
        }
      }
    }
  }
  return rows;
}

}  // namespace

std::vector<lab::Result> samplers(lab::Cli& cli, lab::Env& env, const Settings& s,
                                  const lab::Shape2D& shape) {
  const auto& opt = cli.options();
  std::ostream& out = cli.out();

  // 4. Does the device read images at all? (CL_DEVICE_IMAGE_SUPPORT)
  if (!env.device.getInfo<CL_DEVICE_IMAGE_SUPPORT>()) {
    const std::string why = "the device has no image support (CL_DEVICE_IMAGE_SUPPORT is false)";
    if (s.part == "samplers") throw lab::SkipError(why + ": the samplers part cannot run here");
    lab::Result row;
    row.variant = "samplers";
    row.skip_reason = why;
    return {row};
  }
  show_formats(out, env.context);  // 5.

  // The part's kernels, horizontal_reflect and sample, from one file
  const lab::KernelText file =
      lab::load_kernel(env, opt, "images_sampler.cl", {}, out, s.part == "samplers");
  cl::Program program(env.context, file.source);
  try {
    program.build({env.device}, file.flags.c_str());
  } catch (const cl::Error& error) {
    lab::build_failed(file, error, program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(env.device));
  }
  std::vector<lab::Result> rows = {reflect_row(opt, env, shape, program, file, out)};  // 6.
  for (lab::Result& row : sampler_rows(env, program, file, out)) rows.push_back(row);  // 7.
  return rows;
}

}  // namespace images
