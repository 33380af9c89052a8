// convolution.cpp: the images lab's second part, steps 8-13: a 2-D convolution (a Gaussian blur
// of radius r, or the Sobel derivative) up the ladder of images_family.hpp, each chosen variant
// built, launched in turns with a copy kernel over as many floats, and checked pixel by pixel
// against a reference in double.
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
#include "picture.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace images {

std::vector<lab::Result> convolution(lab::Cli& cli, lab::Env& env, const Settings& s,
                                     const lab::Shape2D& shape,
                                     const lab::TuningOptions& tuning_options,
                                     lab::CopyBaseline& copy, nlohmann::json& details) {
  // 8. The image (the student's picture as grayscale, or the generated test image), the filter,
  //    and the reference in double with each pixel's bound
  const auto& opt = cli.options();
  const Filter filter = make_filter(s.filter, s.radius);
  const Problem problem{shape.height, shape.width, filter.radius};
  const std::uint64_t pixels = problem.pixels();
  const std::vector<float> input =
      s.input.empty() ? test_image(shape.height, shape.width, lab::derive_seed(opt.seed, 0))
                      : load_picture(s.input).pixels;
  const Reference ref = reference(filter, input, shape.height, shape.width);
  const int side = 2 * filter.radius + 1;
  cli.out() << "out = " << s.filter << " " << side << " x " << side << " * in, " << shape.text()
            << " float pixels, borders clamped to the edge; " << side * side << " taps a pixel, "
            << 2 * side << " in two separable passes\n";
  lab::VariantDriver driver(cli, env, family(), s.variant, tuning_options, default_tuning(),
                            "float", double(pixels));
  lab::GuardedArray<float> in_host(env.device, pixels, 0, input.data());
  lab::GuardedArray<float> out_host(env.device, pixels, 0);  // NaN: a pixel never written
  const std::vector<float> full = filter.full();
  const cl::Context& context = env.context;
  const cl::CommandQueue& queue = env.queue;
  std::vector<float> written;  // the last passing row's output, for --output

  // 9. What the device cannot take, per row: the filter beyond its constant memory, the local
  //    tile beyond its local memory, the image beyond its image sizes or formats
  const auto refusal = [&](const Variant& v, const lab::Tuning& t) -> std::string {
    if (v.name == "local") {
      const std::uint64_t tile = t.whole("TILE");
      const int limit = local_radius_limit(tile, env.device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>());
      if (filter.radius > limit) {
        return "local stages a (TILE + 2r)^2 tile in local memory, and with TILE " +
               std::to_string(tile) + " the device's " +
               lab::format_bytes(env.device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>()) +
               " holds r up to " + std::to_string(limit) + ": choose --radius " +
               std::to_string(std::max(limit, 0)) +
               " or less, a smaller --tile, or another variant";
      }
    }
    if (v.name == "fused") {
      const std::uint64_t tile = t.whole("TILE");
      const int limit = fused_radius_limit(tile, env.device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>());
      if (filter.radius > limit) {
        return "fused keeps TILE + 2r filtered rows of TILE x 64 pixels in local memory, and with "
               "TILE " +
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
  const auto run_variant = [&](const Variant& v, const lab::Tuning& t, const lab::Stage& stage) {
    // 10. Read the kernel file and build it, RADIUS and TILE as -D defines; the log when it fails
    const lab::KernelPlan plan =
        lab::plan_kernel(family(), v, problem, t, {}, signature(v.name), sizeof(float));
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
    //     row and column weights, one buffer each; fused: the row's then the column's in one);
    //     the output set to NaN with its guard zones
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
    std::vector<float> weights = separable ? filter.row : full;
    if (v.name == "fused" || v.name == "strips") {  // the row's weights, then the column's
      weights = filter.row;
      weights.insert(weights.end(), filter.column.begin(), filter.column.end());
    }
    cl::Buffer weights_buffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                              weights.size() * sizeof(float), weights.data());
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
          diagnose(v.name, out_host.data(), ref, shape.height, shape.width, filter.radius);
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
                           timing, family().work(problem).bytes, check, guard.total());
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
    const Variant& v = *driver.rows()[i];
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
    save_picture(s.output, shape.height, shape.width, written);
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

}  // namespace images
