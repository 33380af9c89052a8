// picture.hpp: PNG (and JPEG, BMP, ...) files in and out of the images lab through Debian's
// header-only stb (libstb-dev: stb_image.h, stb_image_write.h), as grayscale floats in [0, 1].
// Built without stb, both say how to install it.
#pragma once

#include <string>
#include <vector>

namespace images {

struct Picture {
  int height = 0;
  int width = 0;
  std::vector<float> pixels;  // row-major, 0 black to 1 white
};

// The file as grayscale (stb's luminance of its colours); UsageError with stb's reason when it
// cannot be read.
Picture load_picture(const std::string& path);

// Writes `pixels` as an 8-bit grayscale PNG, each value v as round(255 * clamp(v, 0, 1));
// RuntimeError when the file cannot be written.
void save_picture(const std::string& path, int height, int width, const std::vector<float>& pixels);

// Whether this build has stb (the two above work).
bool have_pictures();

}  // namespace images
