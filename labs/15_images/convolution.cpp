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

namespace {

// 9. What the device cannot take, per row: the filter beyond its constant memory, the local tile
//    or fused's rows beyond its local memory, the image beyond its image sizes or formats. The
//    sentence says what to choose instead; "" when the row can run.
std::string cannot_take(const Variant& v, const lab::Tuning& t, const Filter& filter,
                        const lab::Env& env, const lab::Shape2D& shape) {
  const int side = 2 * filter.radius + 1;
  const std::uint64_t local_bytes = env.device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  if (v.name == "local" || v.name == "fused") {
    const auto limit_at = [&](std::uint64_t tile) {
      return v.name == "local" ? local_radius_limit(tile, local_bytes)
                               : fused_radius_limit(tile, local_bytes);
    };
    const std::uint64_t tile = t.whole("TILE");
    const int limit = limit_at(tile);
    if (filter.radius > limit) {
      std::uint64_t fits = tile;  // the largest smaller TILE that holds this radius, if any
      while (fits > 1 && limit_at(fits) < filter.radius) --fits;
      const std::string what =
          v.name == "local" ? "local stages a (TILE + 2r)^2 tile in local memory"
                            : "fused keeps TILE + 2r filtered rows of TILE x 64 pixels in local "
                              "memory";
      const std::string room = what + ", and with TILE " + std::to_string(tile) + " the device's " +
                               lab::format_bytes(local_bytes);
      const std::string instead =
          limit_at(fits) >= filter.radius
              ? "--tile " + std::to_string(fits) + " or smaller, or another variant"
              : "another variant";
      if (limit < 0) return room + " holds no radius: choose " + instead;
      return room + " holds r up to " + std::to_string(limit) + ": choose --radius " +
             std::to_string(limit) + " or less, " + instead;
    }
  }
  // The weights each row keeps in __constant memory: the (2r+1)^2 filter, or the passes' 2r+1
  // (separable: one buffer a pass) or 2(2r+1) (fused, strips: both in one)
  const std::uint64_t weights = v.name == "separable" ? std::uint64_t(side)
                                : v.name == "fused" || v.name == "strips"
                                    ? 2 * std::uint64_t(side)
                                    : std::uint64_t(side) * side;
  if (v.name != "naive" &&
      weights * sizeof(float) > env.device.getInfo<CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE>()) {
    return v.name + " keeps " + std::to_string(weights) +
           " filter weights in __constant memory, more than the device's " +
           lab::format_bytes(env.device.getInfo<CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE>()) +
           ": choose a smaller --radius or --variant naive";
  }
  if (v.name == "image") {
    if (!env.device.getInfo<CL_DEVICE_IMAGE_SUPPORT>()) {
      return "image needs image support, and the device has none (CL_DEVICE_IMAGE_SUPPORT)";
    }
    std::vector<cl::ImageFormat> formats;
    env.context.getSupportedImageFormats(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, &formats);
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
}

// A row's kernels, built: `kernel`, and for separable its second pass `columns` from the same
// program; `plan` holds the launch.
struct Built {
  lab::KernelPlan plan;
  cl::Program program;
  cl::Kernel kernel, columns;
};

// 10. Read the kernel file and build it, RADIUS and the tunables as -D defines, with the log when
//     it fails; then the kernel's name, its arguments and the launch checked against the lab's
Built build(lab::Env& env, const Settings& s, const Variant& v, const Problem& problem,
            const lab::Tuning& t, const lab::Stage& stage) {
  Built b;
  b.plan = lab::plan_kernel(family(), v, problem, t, {}, signature(v.name), sizeof(float));
  lab::check_before_build(env, b.plan);
  const lab::KernelText file = lab::load_kernel(env, stage.options, b.plan.kernel_file,
                                                b.plan.defines, stage.out, s.part != "all");
  b.program = cl::Program(env.context, file.source);
  try {
    b.program.build({env.device}, file.flags.c_str());
  } catch (const cl::Error& error) {
    lab::build_failed(file, error, b.program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(env.device));
  }
  lab::check_kernel_name(b.program, file, b.plan.signature);
  b.kernel = cl::Kernel(b.program, v.kernel_name.c_str());
  lab::check_kernel_args(b.kernel, file, b.plan.signature);
  lab::check_ndrange(b.kernel, env.device, b.plan.range.global, b.plan.range.local, b.plan.limits);
  if (v.name == "separable") {
    lab::KernelSignature second = b.plan.signature;
    second.name = "convolve_columns";
    lab::check_kernel_name(b.program, file, second);
    b.columns = cl::Kernel(b.program, "convolve_columns");
    lab::check_kernel_args(b.columns, file, second);
    lab::check_ndrange(b.columns, env.device, b.plan.range.global, b.plan.range.local,
                       b.plan.limits);
  }
  return b;
}

// A row's memory objects. The kernel reads `in` and writes `out`, sub-buffers over the pixels of
// `in_all` and `out_all`, which hold guard zones around them.
struct Memory {
  cl::Buffer in_all, in, out_all, out;
  cl::Image2D in_image;        // image: the input as an image instead
  cl::Buffer weights;          // the filter: (2r+1)^2 weights, or the passes' row weights
  cl::Buffer column, between;  // separable: the column's weights, and the image between passes
};

// 11. The input: a buffer over the host array, guard zones included (a sub-buffer over the pixels
//     for the kernel), or for image a CL_R/CL_FLOAT image; the filter (separable: its row and
//     column weights, one buffer each; fused and strips: the row's then the column's in one);
//     the output set to NaN with its guard zones
Memory make_memory(const lab::Env& env, const Variant& v, const lab::Shape2D& shape,
                   const Filter& filter, const std::vector<float>& input,
                   lab::GuardedArray<float>& in_host, lab::GuardedArray<float>& out_host) {
  const cl::Context& context = env.context;
  const std::uint64_t pixels = std::uint64_t(shape.height) * std::uint64_t(shape.width);
  Memory m;
  m.in_all =
      cl::Buffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in_host.bytes(), in_host.all());
  const cl_buffer_region in_data = in_host.region(), out_data = out_host.region();
  m.in = m.in_all.createSubBuffer(0, CL_BUFFER_CREATE_TYPE_REGION, &in_data);
  if (v.name == "image") {
    m.in_image = cl::Image2D(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             cl::ImageFormat(CL_R, CL_FLOAT), shape.width, shape.height, 0,
                             const_cast<float*>(input.data()));
  }
  const bool separable = v.name == "separable";
  std::vector<float> weights = separable ? filter.row : filter.full();
  if (v.name == "fused" || v.name == "strips") {  // the row's weights, then the column's
    weights = filter.row;
    weights.insert(weights.end(), filter.column.begin(), filter.column.end());
  }
  m.weights = cl::Buffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                         weights.size() * sizeof(float), weights.data());
  if (separable) {
    m.column =
        cl::Buffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                   filter.column.size() * sizeof(float), const_cast<float*>(filter.column.data()));
    m.between = cl::Buffer(context, CL_MEM_READ_WRITE, pixels * sizeof(float));
  }
  m.out_all = cl::Buffer(context, CL_MEM_WRITE_ONLY, out_host.bytes());
  out_host.reset(env.queue, m.out_all);
  m.out = m.out_all.createSubBuffer(0, CL_BUFFER_CREATE_TYPE_REGION, &out_data);
  return m;
}

// 12. The arguments (int height, int width, in, filter, out), launch, wait, and time from the
//     events: separable's two passes from the first's start to the second's end
lab::Timing launch(const lab::Env& env, const Variant& v, const lab::Shape2D& shape, Built& b,
                   const Memory& m, const lab::Stage& stage) {
  const bool separable = v.name == "separable";
  b.kernel.setArg(0, cl_int{shape.height});
  b.kernel.setArg(1, cl_int{shape.width});
  if (v.name == "image") {
    b.kernel.setArg(2, m.in_image);
  } else {
    b.kernel.setArg(2, m.in);
  }
  b.kernel.setArg(3, m.weights);
  b.kernel.setArg(4, separable ? m.between : m.out);
  if (separable) {
    b.columns.setArg(0, cl_int{shape.height});
    b.columns.setArg(1, cl_int{shape.width});
    b.columns.setArg(2, m.between);
    b.columns.setArg(3, m.column);
    b.columns.setArg(4, m.out);
  }
  const cl::NDRange global(b.plan.range.global[0], b.plan.range.global[1]);
  const cl::NDRange local(b.plan.range.local[0], b.plan.range.local[1]);
  const cl::CommandQueue& queue = env.queue;
  return lab::time_launch_span(
      stage.options,
      [&] {
        std::vector<cl::Event> events(separable ? 2 : 1);
        queue.enqueueNDRangeKernel(b.kernel, cl::NullRange, global, local, nullptr, &events[0]);
        if (separable) {
          queue.enqueueNDRangeKernel(b.columns, cl::NullRange, global, local, nullptr, &events[1]);
        }
        events.back().wait();
        return events;
      },
      stage.out);
}

// 13. Read the output back and check every pixel against the reference, and that nothing was
//     written around it; a wrong output's pattern named in a sentence. The row, with MPixel/s.
lab::Result check_output(const lab::Env& env, const Variant& v, const lab::Shape2D& shape,
                         const Filter& filter, const Reference& ref, const lab::Timing& timing,
                         const Memory& m, lab::GuardedArray<float>& out_host,
                         const lab::Stage& stage) {
  const std::uint64_t pixels = std::uint64_t(shape.height) * std::uint64_t(shape.width);
  env.queue.enqueueReadBuffer(m.out, CL_TRUE, 0, pixels * sizeof(float), out_host.data());
  const lab::CheckResult check = lab::compare_each(
      out_host.data(), ref.want.data(), pixels, [&](std::size_t i) { return ref.allowed[i]; },
      stage.err, "out (" + v.name + ")", std::size_t(shape.width));
  if (!check.passed()) {
    const std::string why =
        diagnose(v.name, out_host.data(), ref, shape.height, shape.width, filter.radius);
    if (!why.empty()) stage.err << "images: " << v.name << ": " << why << "\n";
  }
  const lab::GuardCheck guard = out_host.check(env.queue, m.out_all);
  const std::string outside = lab::describe_guard_writes(
      guard, "out (" + v.name + ")",
      "work-items of the padded launch outside the image need the bounds check, and the write's "
      "index must be y * width + x");
  if (!outside.empty()) stage.err << "images: " << outside << "\n";
  const Problem problem{shape.height, shape.width, filter.radius};
  lab::Result row =
      lab::bandwidth_row(v.name,
                         lab::Size("height", shape.height)
                             .add("width", shape.width)
                             .label(shape.text() + " r=" + std::to_string(filter.radius)),
                         timing, family().work(problem).bytes, check, guard.total());
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
  return row;
}

}  // namespace

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
            << " float pixels, borders clamped to the edge; " << side * side
            << (side == 1 ? " tap" : " taps") << " a pixel, " << 2 * side
            << " in two separable passes\n";
  // A setting tuned at one radius is no guide at another (strips unrolls its loops by r), so the
  // radius keys the tuning cache beside the element type, as histogram's bins do there.
  lab::VariantDriver driver(cli, env, family(), s.variant, tuning_options, default_tuning(),
                            "float r=" + std::to_string(filter.radius), double(pixels));
  lab::GuardedArray<float> in_host(env.device, pixels, 0, input.data());
  lab::GuardedArray<float> out_host(env.device, pixels, 0);  // NaN: a pixel never written
  std::vector<float> written;  // the last passing row's output, for --output

  // The yardstick every run below takes turns with: a copy kernel over as many floats
  copy = lab::measure_copy(env, opt, pixels, 0, cli.out());
  const lab::InTurnsWith turns(copy.launch, copy.settle);

  // Steps 9-13 for each chosen variant, with its tuning (with --tune, first for each candidate)
  const auto run_variant = [&](const Variant& v, const lab::Tuning& t, const lab::Stage& stage) {
    Built built = build(env, s, v, problem, t, stage);                                   // 10.
    const Memory memory = make_memory(env, v, shape, filter, input, in_host, out_host);  // 11.
    const lab::Timing timing = launch(env, v, shape, built, memory, stage);              // 12.
    lab::Result row =
        check_output(env, v, shape, filter, ref, timing, memory, out_host, stage);  // 13.
    row.tunables = t.row(v.tunables);
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
    const std::string why = cannot_take(v, chosen->tuning, filter, env, shape);  // 9.
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
