// images: OpenCL's images and samplers, then a 2-D convolution (a Gaussian blur of radius r, or
// the Sobel derivative) from a naive kernel up a ladder: the filter in __constant memory, a tile
// and its halo in local memory, two separable passes, and the input as an image read through a
// sampler; each variant checked pixel by pixel against a reference in double and timed against a
// copy kernel over the same pixels. The OpenCL host program, steps 1-14 from top to bottom;
// lab:: helpers parse options, choose the device, check and report.
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
#include "picture.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace {

struct Settings {
  std::string part = "all";
  std::string variant = "all";
  std::string filter = "gauss";
  int radius = 2;
  std::string input, output;
};

std::vector<lab::Result> samplers(lab::Cli& cli, lab::Env& env, const Settings& s,
                                  const lab::Shape2D& shape);
std::vector<lab::Result> convolution(lab::Cli& cli, lab::Env& env, const Settings& s,
                                     const lab::Shape2D& shape,
                                     const lab::TuningOptions& tuning_options,
                                     lab::CopyBaseline& copy, nlohmann::json& details);

// "CL_RGBA/CL_FLOAT" for a format's channel order and type.
std::string format_name(const cl::ImageFormat& f);

}  // namespace

int main(int argc, char** argv) {
  return lab::run_main(
      argc, argv, "images", "images and samplers, then a 2-D convolution ladder",
      [](lab::Cli& cli) {
        // 1. Options: the part, the image (its size, or a file), the filter, the variants and
        //    their tunable (--tile)
        const images::Family& family = images::family();
        Settings s;
        cli.add_choice("--part", s.part,
                       "samplers (images, samplers, formats), convolution (the ladder) or all",
                       {"samplers", "convolution", "all"});
        lab::MatrixSizeOptions size(cli, "Image height in pixels", "Image width in pixels");
        cli.add_choice("--filter", s.filter,
                       "gauss (a Gaussian blur of --radius) or sobel (the 3 x 3 x derivative)",
                       {"gauss", "sobel"});
        cli.add_count("--radius", s.radius, "Filter radius r: (2r+1) x (2r+1) taps (default 2)", 0,
                      100);
        cli.add_text("--input", s.input,
                     "Filter this picture (PNG, JPEG, BMP) as grayscale instead of the test image");
        cli.add_text("--output", s.output, "Write the filtered image as a grayscale PNG");
        lab::add_variant_option(cli, family, s.variant);
        lab::TuningOptions tuning_options(cli, family.tunables);
        cli.parse();
        tuning_options.check();
        const auto& opt = cli.options();
        if (!opt.kernel_file.empty() && s.part == "all") {
          throw lab::UsageError(
              "--kernel-file replaces one kernel file: choose --part samplers, or --part "
              "convolution with one --variant");
        }
        if (s.part != "samplers") {
          lab::check_kernel_options(opt, family, s.variant);
          lab::check_tunables_used(tuning_options, family, s.variant, lab::notes());
        }
        if (s.filter == "sobel" && s.radius != 2) {
          lab::notes() << "images: note: --filter sobel is 3 x 3 (radius 1): --radius is ignored\n";
        }
        if (s.part == "samplers" && !s.output.empty()) {
          throw lab::UsageError(
              "--output writes the filtered image: choose --part convolution or all");
        }
        lab::Shape2D shape = size.shape();
        if (!s.input.empty()) {
          const images::Picture picture = images::load_picture(s.input);
          shape = {picture.height, picture.width};
        }
        if (!s.output.empty() && !images::have_pictures()) images::save_picture(s.output, 0, 0, {});

        // 2. Choose the device (-p, -d, --type)
        lab::Env env = lab::pick_device(opt, cli.out());
        if (s.part != "samplers") lab::check_memory(env, shape.elements() * 4, 3, 5, "size");

        // 3. A context on the device, and an in-order queue that records profiling information
        env.context = cl::Context(env.device);
        env.queue = cl::CommandQueue(env.context, env.device, CL_QUEUE_PROFILING_ENABLE);
        lab::trace_queue(env.queue);

        lab::Report report("images", lab::describe_device(env));
        if (s.part != "convolution") {
          for (auto& row : samplers(cli, env, s, shape)) report.add(row);
        }
        if (s.part != "samplers") {
          lab::CopyBaseline copy;
          std::vector<lab::Result> rows =
              convolution(cli, env, s, shape, tuning_options, copy, report.details());
          // 14. The report: MPixel/s and GB/s (8 bytes a pixel: read once, written once) against
          //     the copy kernel over as many floats
          lab::add_against_copy(report, rows, copy, "naive");
          report.details()["copy"] = copy.details;
        }
        report.print(cli.format(), std::cout);
        return report.exit_code();
      });
}

namespace {

// An image's pixels on the host, one float4 each, for the samplers part: red the pixel's value.
std::vector<cl_float4> rgba(const std::vector<float>& red) {
  std::vector<cl_float4> pixels(red.size());
  for (std::size_t i = 0; i < red.size(); ++i) pixels[i] = {{red[i], -red[i], 0.5f * red[i], 1}};
  return pixels;
}

std::vector<lab::Result> samplers(lab::Cli& cli, lab::Env& env, const Settings& s,
                                  const lab::Shape2D& shape) {
  const auto& opt = cli.options();
  std::ostream& out = cli.out();
  const cl::Context& context = env.context;
  const cl::CommandQueue& queue = env.queue;
  std::vector<lab::Result> rows;

  // 4. Does the device read images at all? (CL_DEVICE_IMAGE_SUPPORT)
  if (!env.device.getInfo<CL_DEVICE_IMAGE_SUPPORT>()) {
    const std::string why = "the device has no image support (CL_DEVICE_IMAGE_SUPPORT is false)";
    if (s.part == "samplers") throw lab::SkipError(why + ": the samplers part cannot run here");
    lab::Result row;
    row.variant = "samplers";
    row.skip_reason = why;
    return {row};
  }

  // 5. The image formats it supports for 2-D images read by kernels, and one it does not
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

  // 6. horizontal_reflect: a W x H image (at most 1024 x 1024) mirrored left to right, one
  // work-item a pixel, each
  //    reading (width-1-x, y) through a sampler and writing (x, y) with write_imagef
  const lab::KernelText file =
      lab::load_kernel(env, opt, "images_sampler.cl", {}, out, s.part == "samplers");
  cl::Program program(context, file.source);
  try {
    program.build({env.device}, file.flags.c_str());
  } catch (const cl::Error& error) {
    lab::build_failed(file, error, program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(env.device));
  }
  const lab::KernelSignature reflect_signature = {
      "horizontal_reflect", {{"global", "image2d_t", "src"}, {"global", "image2d_t", "dst"}}};
  lab::check_kernel_name(program, file, reflect_signature);
  cl::Kernel reflect(program, "horizontal_reflect");
  lab::check_kernel_args(reflect, file, reflect_signature);
  {
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
    queue.enqueueReadImage(dst, CL_TRUE, {0, 0, 0},
                           {cl::size_type(width), cl::size_type(height), 1}, 0, 0, dst_host.data());
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
    lab::Result row;
    row.variant = "reflect";
    row.size = lab::Size("height", height).add("width", width);
    lab::set_timing(row, timing);
    lab::set_check(row, check);
    row.checks = "dst(x, y) = src(width-1-x, y), every channel";
    rows.push_back(row);
  }

  // 7. sample: an 8 x 4 image (red = 10 y + x + 1) read at a grid of coordinates from one image
  //    width and height before it to two after, through each sampler: integer or normalized
  //    coordinates, nearest or linear, each address mode (REPEAT and MIRRORED_REPEAT take
  //    normalized coordinates only)
  const int width = 8, height = 4;
  std::vector<float> red(width * height);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) red[y * width + x] = float(10 * y + x + 1);
  }
  const std::vector<cl_float4> small = rgba(red);
  cl::Image2D image(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                    cl::ImageFormat(CL_RGBA, CL_FLOAT), width, height, 0,
                    const_cast<cl_float4*>(small.data()));
  std::vector<std::pair<double, double>> grid;  // (u, v) in pixels, 1/8 off every texel edge
  for (int j = 0; j < 6 * height; ++j) {
    for (int i = 0; i < 6 * width; ++i)
      grid.emplace_back(-width + 0.125 + 0.5 * i, -height + 0.125 + 0.5 * j);
  }
  const int shown = 16;  // and row 0 at x = -4.25 to 10.75, a quarter past its texels' centres
  for (int i = 0; i < shown; ++i) grid.emplace_back(-4.25 + i, 0.5);
  const int count = int(grid.size());
  const lab::KernelSignature sample_signature = {"sample",
                                                 {{"global", "image2d_t", "src"},
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
      for (const images::Address address :
           {images::Address::none, images::Address::clamp_to_edge, images::Address::clamp,
            images::Address::repeat, images::Address::mirrored_repeat}) {
        const bool wraps =
            address == images::Address::repeat || address == images::Address::mirrored_repeat;
        if (wraps && !normalized) continue;  // undefined with integer coordinates
        const images::SamplerModel model{normalized, linear, address};
        const std::string name = std::string(images::address_name(address)) + "/" +
                                 (linear ? "linear" : "near") + "/" + (normalized ? "norm" : "int");
        if (oclgrind && linear && address == images::Address::none) {
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

        // Each defined coordinate against the spec's rules: exact for nearest; for linear, within
        // 2^-7 of the four texels' spread (each weight may carry 8 fraction bits, off by 2^-8,
        // on each axis) plus 2^-20 of the value (float rounding of the blend)
        std::vector<float> values;
        std::vector<double> want, allowed;
        for (int i = 0; i < count; ++i) {
          if (!model.defined(height, width, at[i].s[0], at[i].s[1])) continue;
          double spread = 0;
          want.push_back(model.read(red, height, width, at[i].s[0], at[i].s[1], &spread));
          allowed.push_back(
              linear ? std::ldexp(spread, -7) + std::ldexp(std::fabs(want.back()), -20) : 0.0);
          values.push_back(got[i].s[0]);
        }
        const lab::CheckResult check = lab::compare_each(
            values.data(), want.data(), values.size(), [&](std::size_t i) { return allowed[i]; },
            std::cerr, "red (" + name + ")");
        lab::Result row;
        row.variant = name;
        row.size = lab::Size("height", height)
                       .add("width", width)
                       .add("items", std::int64_t(values.size()));
        lab::set_check(row, check);
        row.checks = linear ? "spec's rules, 2^-7 of spread" : "spec's rules, exact";
        rows.push_back(row);
        if (normalized && address != images::Address::none) {
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

std::vector<lab::Result> convolution(lab::Cli& cli, lab::Env& env, const Settings& s,
                                     const lab::Shape2D& shape,
                                     const lab::TuningOptions& tuning_options,
                                     lab::CopyBaseline& copy, nlohmann::json& details) {
  // 8. The image (the student's picture as grayscale, or the generated test image), the filter,
  //    and the reference in double with each pixel's bound
  const auto& opt = cli.options();
  const images::Filter filter = images::make_filter(s.filter, s.radius);
  const images::Problem problem{shape.height, shape.width, filter.radius};
  const std::uint64_t pixels = problem.pixels();
  const std::vector<float> input =
      s.input.empty() ? images::test_image(shape.height, shape.width, lab::derive_seed(opt.seed, 0))
                      : images::load_picture(s.input).pixels;
  const images::Reference ref = images::reference(filter, input, shape.height, shape.width);
  const int side = 2 * filter.radius + 1;
  cli.out() << "out = " << s.filter << " " << side << " x " << side << " * in, " << shape.text()
            << " float pixels, borders clamped to the edge; " << side * side << " taps a pixel, "
            << 2 * side << " in two separable passes\n";
  lab::VariantDriver driver(cli, env, images::family(), s.variant, tuning_options,
                            images::default_tuning(), "float", double(pixels));
  lab::GuardedArray<float> in_host(env.device, pixels, 0, input.data());
  lab::GuardedArray<float> out_host(env.device, pixels, 0);  // NaN: a pixel never written
  const std::vector<float> full = filter.full();
  const cl::Context& context = env.context;
  const cl::CommandQueue& queue = env.queue;
  std::vector<float> written;  // the last passing row's output, for --output

  // 9. What the device cannot take, per row: the filter beyond its constant memory, the local
  //    tile beyond its local memory, the image beyond its image sizes or formats
  const auto refusal = [&](const images::Variant& v, const lab::Tuning& t) -> std::string {
    if (v.name == "local") {
      const std::uint64_t tile = t.whole("TILE");
      const int limit =
          images::local_radius_limit(tile, env.device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>());
      if (filter.radius > limit) {
        return "local stages a (TILE + 2r)^2 tile in local memory, and with TILE " +
               std::to_string(tile) + " the device's " +
               lab::format_bytes(env.device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>()) +
               " holds r up to " + std::to_string(limit) + ": choose --radius " +
               std::to_string(std::max(limit, 0)) +
               " or less, a smaller --tile, or another variant";
      }
    }
    const std::uint64_t filter_bytes = full.size() * sizeof(float);
    if (v.name != "naive" &&
        filter_bytes > env.device.getInfo<CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE>()) {
      return v.name + " keeps the " + std::to_string(side) + " x " + std::to_string(side) +
             " filter in __constant memory, more than the device's " +
             lab::format_bytes(env.device.getInfo<CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE>()) +
             ": choose a smaller --radius or --variant naive";
    }
    if (v.name == "image") {
      if (!env.device.getInfo<CL_DEVICE_IMAGE_SUPPORT>()) {
        return "image needs image support, and the device has none (CL_DEVICE_IMAGE_SUPPORT)";
      }
      std::vector<cl::ImageFormat> formats;
      context.getSupportedImageFormats(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, &formats);
      if (std::none_of(formats.begin(), formats.end(), [](const cl::ImageFormat& f) {
            return f.image_channel_order == CL_R && f.image_channel_data_type == CL_FLOAT;
          })) {
        return "image reads a CL_R/CL_FLOAT image, a format the device does not list";
      }
      if (std::size_t(shape.width) > env.device.getInfo<CL_DEVICE_IMAGE2D_MAX_WIDTH>() ||
          std::size_t(shape.height) > env.device.getInfo<CL_DEVICE_IMAGE2D_MAX_HEIGHT>()) {
        return "image: the device's 2-D images are at most " +
               std::to_string(env.device.getInfo<CL_DEVICE_IMAGE2D_MAX_WIDTH>()) + " x " +
               std::to_string(env.device.getInfo<CL_DEVICE_IMAGE2D_MAX_HEIGHT>()) +
               " pixels: choose a smaller -W/-H or another variant";
      }
    }
    return "";
  };

  // The yardstick every run below takes turns with: a copy kernel over as many floats
  copy = lab::measure_copy(env, opt, pixels, 0, cli.out());
  const lab::InTurnsWith turns(copy.launch, copy.settle);

  // Steps 10-13 for each chosen variant, with its tuning (with --tune, first for each candidate)
  const auto run_variant = [&](const images::Variant& v, const lab::Tuning& t,
                               const lab::Stage& stage) {
    // 10. Read the kernel file and build it, RADIUS and TILE as -D defines; the log when it fails
    const lab::KernelPlan plan = lab::plan_kernel(images::family(), v, problem, t, {},
                                                  images::signature(v.name), sizeof(float));
    lab::check_before_build(env, plan);
    const lab::KernelText file = lab::load_kernel(env, stage.options, plan.kernel_file,
                                                  plan.defines, stage.out, s.part != "all");
    cl::Program program(context, file.source);
    try {
      program.build({env.device}, file.flags.c_str());
    } catch (const cl::Error& error) {
      lab::build_failed(file, error, program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(env.device));
    }
    lab::check_kernel_name(program, file, plan.signature);
    cl::Kernel kernel(program, v.kernel_name.c_str());
    lab::check_kernel_args(kernel, file, plan.signature);
    const cl::NDRange global(plan.range.global[0], plan.range.global[1]);
    const cl::NDRange local(plan.range.local[0], plan.range.local[1]);
    lab::check_ndrange(kernel, env.device, plan.range.global, plan.range.local, plan.limits);
    const bool separable = v.name == "separable";
    cl::Kernel columns;  // separable's second pass, from the same program
    if (separable) {
      lab::KernelSignature second = plan.signature;
      second.name = "convolve_columns";
      lab::check_kernel_name(program, file, second);
      columns = cl::Kernel(program, "convolve_columns");
      lab::check_kernel_args(columns, file, second);
      lab::check_ndrange(columns, env.device, plan.range.global, plan.range.local, plan.limits);
    }

    // 11. The input: a buffer over the host array, guard zones included (a sub-buffer over the
    //     pixels for the kernel), or for image a CL_R/CL_FLOAT image; the filter (separable: its
    //     row and column weights); the output set to NaN with its guard zones
    cl::Buffer in_all(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in_host.bytes(),
                      in_host.all());
    const cl_buffer_region in_data = in_host.region(), out_data = out_host.region();
    const cl::Buffer in = in_all.createSubBuffer(0, CL_BUFFER_CREATE_TYPE_REGION, &in_data);
    cl::Image2D in_image;
    if (v.name == "image") {
      in_image = cl::Image2D(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             cl::ImageFormat(CL_R, CL_FLOAT), shape.width, shape.height, 0,
                             const_cast<float*>(input.data()));
    }
    const std::vector<float>& weights = separable ? filter.row : full;
    cl::Buffer weights_buffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                              weights.size() * sizeof(float), const_cast<float*>(weights.data()));
    cl::Buffer column_buffer, between;
    if (separable) {
      column_buffer = cl::Buffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                 filter.column.size() * sizeof(float),
                                 const_cast<float*>(filter.column.data()));
      between = cl::Buffer(context, CL_MEM_READ_WRITE, pixels * sizeof(float));
    }
    cl::Buffer out_all(context, CL_MEM_WRITE_ONLY, out_host.bytes());
    out_host.reset(queue, out_all);
    const cl::Buffer out = out_all.createSubBuffer(0, CL_BUFFER_CREATE_TYPE_REGION, &out_data);

    // 12. The arguments (int height, int width, in, filter, out), launch, wait, and time from
    //     the events: separable's two passes from the first's start to the second's end
    kernel.setArg(0, cl_int{shape.height});
    kernel.setArg(1, cl_int{shape.width});
    if (v.name == "image") {
      kernel.setArg(2, in_image);
    } else {
      kernel.setArg(2, in);
    }
    kernel.setArg(3, weights_buffer);
    kernel.setArg(4, separable ? between : out);
    if (separable) {
      columns.setArg(0, cl_int{shape.height});
      columns.setArg(1, cl_int{shape.width});
      columns.setArg(2, between);
      columns.setArg(3, column_buffer);
      columns.setArg(4, out);
    }
    const lab::Timing timing = lab::time_launch_span(
        stage.options,
        [&] {
          std::vector<cl::Event> events(separable ? 2 : 1);
          queue.enqueueNDRangeKernel(kernel, cl::NullRange, global, local, nullptr, &events[0]);
          if (separable) {
            queue.enqueueNDRangeKernel(columns, cl::NullRange, global, local, nullptr, &events[1]);
          }
          events.back().wait();
          return events;
        },
        stage.out);

    // 13. Read the output back and check every pixel against the reference, and that nothing was
    //     written around it; a wrong output's pattern named in a sentence
    queue.enqueueReadBuffer(out, CL_TRUE, 0, pixels * sizeof(float), out_host.data());
    const lab::CheckResult check = lab::compare_each(
        out_host.data(), ref.want.data(), pixels, [&](std::size_t i) { return ref.allowed[i]; },
        stage.err, "out (" + v.name + ")", std::size_t(shape.width));
    if (!check.passed()) {
      const std::string why =
          images::diagnose(v.name, out_host.data(), ref, shape.height, shape.width, filter.radius);
      if (!why.empty()) stage.err << "images: " << v.name << ": " << why << "\n";
    }
    const lab::GuardCheck guard = out_host.check(queue, out_all);
    const std::string outside = lab::describe_guard_writes(
        guard, "out (" + v.name + ")",
        "work-items of the padded launch outside the image need the bounds check, and the write's "
        "index must be y * width + x");
    if (!outside.empty()) stage.err << "images: " << outside << "\n";
    lab::Result row =
        lab::bandwidth_row(v.name,
                           lab::Size("height", shape.height)
                               .add("width", shape.width)
                               .label(shape.text() + " r=" + std::to_string(filter.radius)),
                           timing, images::family().work(problem).bytes, check, guard.total());
    row.tunables = t.row(v.tunables);
    if (row.time && row.time->median > 0) {
      row.elements_per_s = double(pixels) / row.time->median / 1e9;
      const double mpixels = double(pixels) / row.time->median / 1e6;
      std::ostringstream mpix;  // three significant figures, up to a whole number
      mpix << std::fixed
           << std::setprecision(mpixels < 10    ? 2
                                : mpixels < 100 ? 1
                                                : 0)
           << mpixels << " MPixel/s";
      row.add_note(mpix.str());
    }
    if (row.passed && !stage.trial) written.assign(out_host.data(), out_host.data() + pixels);
    return row;
  };
  std::vector<lab::Result> rows;
  for (std::size_t i = 0; i < driver.rows().size(); ++i) {
    const images::Variant& v = *driver.rows()[i];
    const auto progress = driver.progress(i);  // on stderr, while a long run lasts
    const auto chosen = driver.choose(i, "GB/s", problem, [&](auto t, auto trial) {
      return run_variant(v, t, trial);  // --tune tries each candidate this way, quietly
    });
    if (!chosen) continue;
    const std::string why = refusal(v, chosen->tuning);
    if (!why.empty() && driver.rows().size() == 1) throw lab::UsageError(why);
    if (!why.empty()) {
      cli.out() << "  (skipped " << why << ")\n";
      continue;
    }
    rows.push_back(run_variant(v, chosen->tuning, driver.stage()));
    rows.back().tuning = chosen->source;
  }
  driver.check_any_ran(rows);

  if (!s.output.empty() && !written.empty()) {
    // Sobel's derivative runs from -4 to 4 on pixels in [0, 1]: written as 0.5 + value / 8
    if (s.filter == "sobel") {
      for (float& p : written) p = 0.5f + p / 8.0f;
    }
    images::save_picture(s.output, shape.height, shape.width, written);
    cli.out() << "Wrote " << s.output << "\n";
  }
  details["height"] = shape.height;
  details["width"] = shape.width;
  details["radius"] = filter.radius;
  details["filter"] = s.filter;
  details["taps"] = {{"2d", side * side}, {"separable", 2 * side}};
  details["input"] = s.input.empty() ? "test image" : s.input;
  details["tolerance"] = "(m^2 + 2m + 4) * 2^-24 * sum |weight * pixel|, m = 2r + 1";
  return rows;
}

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

}  // namespace
