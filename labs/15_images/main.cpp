// images: OpenCL's images and samplers, then a 2-D convolution (a Gaussian blur of radius r, or
// the Sobel derivative) from a naive kernel up a ladder: the filter in __constant memory, a tile
// and its halo in local memory, two separable passes, both passes in one kernel (for a CPU and for
// a GPU), and the input as an image read through a sampler; each variant checked pixel by pixel
// against a reference in double and timed against a copy kernel over the same pixels. The OpenCL
// host program, steps 1-14: here the options, the device, the context and queue (1-3) and the
// report (14); samplers.cpp holds steps 4-7, convolution.cpp steps 8-13, each step a function that
// the file's last function, samplers() or convolution(), calls in order. lab:: helpers parse
// options, choose the device, check and report.
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

#include <fstream>
#include <iostream>

int main(int argc, char** argv) {
  return lab::run_main(
      argc, argv, "images", "images and samplers, then a 2-D convolution ladder",
      [](lab::Cli& cli) {
        // 1. Options: the part, the image (its size, or a file), the filter, the variants and
        //    their tunable (--tile)
        const images::Family& family = images::family();
        images::Settings s;
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
        cli.add_text("--output", s.output,
                     "Write the filtered image to this file (a grayscale PNG)");
        lab::add_variant_option(cli, family, s.variant);
        lab::TuningOptions tuning_options(cli, family.tunables);
        const auto& opt = cli.options();
        // How the options combine, checked before anything runs (a student's kernel under
        // Oclgrind included)
        cli.parse([&] {
          tuning_options.check();
          if (!opt.kernel_file.empty() && s.part == "all") {
            throw lab::UsageError(
                "--kernel-file replaces one kernel file: choose --part samplers, or --part "
                "convolution with one --variant");
          }
          if (s.part == "samplers" && !s.output.empty()) {
            throw lab::UsageError(
                "--output writes the filtered image: choose --part convolution or all");
          }
          if (s.part != "samplers") {
            lab::check_kernel_options(opt, family, s.variant);
            lab::check_tunables_used(tuning_options, family, s.variant, lab::notes());
          } else {
            for (const char* name : {"--filter", "--radius", "--variant", "--tile", "--strip",
                                     "--tunable", "--tune", "--tune-budget", "--no-tuned"}) {
              if (cli.given(name)) {
                lab::notes() << "images: note: " << name
                             << " is the convolution's: --part samplers ignores it\n";
              }
            }
          }
          if (s.filter == "sobel" && s.radius != 2) {
            lab::notes() << "images: note: --filter sobel is 3 x 3 (radius 1): --radius is "
                            "ignored\n";
          }
        });
        lab::Shape2D shape = size.shape();
        if (!s.input.empty()) {
          const images::Picture picture = images::load_picture(s.input);
          shape = {picture.height, picture.width};
        }
        if (!s.output.empty() && !images::have_pictures()) images::save_picture(s.output, 0, 0, {});
        if (!s.output.empty() && !std::ofstream(s.output, std::ios::app)) {  // now, not after
          throw lab::UsageError(
              "--output: cannot write " + s.output +
              ": choose a file in a folder that exists and that you can write to");
        }

        // 2. Choose the device (-p, -d, --type)
        lab::Env env = lab::pick_device(opt, cli.out());
        if (s.part != "samplers") lab::check_memory(env, shape.elements() * 4, 3, 5, "size");

        // 3. A context on the device, and an in-order queue that records profiling information
        env.context = cl::Context(env.device);
        env.queue = cl::CommandQueue(env.context, env.device, CL_QUEUE_PROFILING_ENABLE);
        lab::trace_queue(env.queue);

        lab::Report report("images", lab::describe_device(env));
        if (s.part != "convolution") {
          for (auto& row : images::samplers(cli, env, s, shape)) report.add(row);
        }
        if (s.part != "samplers") {
          lab::CopyBaseline copy;
          std::vector<lab::Result> rows =
              images::convolution(cli, env, s, shape, tuning_options, copy, report.details());
          // 14. The report: MPixel/s and GB/s (8 bytes a pixel: read once, written once) against
          //     the copy kernel over as many floats
          lab::add_against_copy(report, rows, copy, "naive");
          report.details()["copy"] = copy.details;
        }
        report.print(cli.format(), std::cout);
        return report.exit_code();
      });
}
