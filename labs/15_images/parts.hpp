// parts.hpp: what the images lab's main.cpp shares with its two parts, one file each:
// samplers.cpp (images, samplers and formats) and convolution.cpp (the 2-D convolution ladder).
#pragma once

#include "lab/lab.hpp"

#include <CL/opencl.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace images {

// The lab's own options (main.cpp's step 1).
struct Settings {
  std::string part = "all";
  std::string variant = "all";
  std::string filter = "gauss";
  int radius = 2;
  std::string input, output;
};

// Steps 4-7: image support, the device's image formats, horizontal_reflect on a W x H image (at
// most 1024 x 1024), and an 8 x 4 image read through every sampler setting, each checked against
// the specification's rules; one row each.
std::vector<lab::Result> samplers(lab::Cli& cli, lab::Env& env, const Settings& s,
                                  const lab::Shape2D& shape);

// Steps 8-13: the test image (or --input), the filter and its reference in double, then each
// chosen variant of the ladder built, launched, timed in turns with the copy kernel (measured
// here, returned in `copy`) and checked; --output written from the last passing row. Adds the
// run's facts to `details`.
std::vector<lab::Result> convolution(lab::Cli& cli, lab::Env& env, const Settings& s,
                                     const lab::Shape2D& shape,
                                     const lab::TuningOptions& tuning_options,
                                     lab::CopyBaseline& copy, nlohmann::json& details);

}  // namespace images
