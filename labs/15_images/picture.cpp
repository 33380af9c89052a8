// picture.cpp: load_picture and save_picture through stb, when the build found it.
#include "picture.hpp"

#include "lab/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#ifdef LAB_HAVE_STB
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_FAILURE_USERMSG
#include <stb_image.h>
#include <stb_image_write.h>
#endif

namespace images {
namespace {
[[maybe_unused]] const char* const kNoStb =
    "this build has no stb_image.h, which --input and --output use: install it (Debian: "
    "apt-get install libstb-dev, or scripts/setup.sh) and build again";
}

bool have_pictures() {
#ifdef LAB_HAVE_STB
  return true;
#else
  return false;
#endif
}

Picture load_picture(const std::string& path) {
#ifdef LAB_HAVE_STB
  int width = 0, height = 0, channels = 0;
  unsigned char* data = stbi_load(path.c_str(), &width, &height, &channels, 1);
  if (data == nullptr) {
    throw lab::UsageError("--input " + path + ": cannot read it as an image (" +
                          stbi_failure_reason() + "): give a PNG, JPEG or BMP file");
  }
  Picture picture{height, width, std::vector<float>(std::size_t(width) * std::size_t(height))};
  for (std::size_t i = 0; i < picture.pixels.size(); ++i) picture.pixels[i] = data[i] / 255.0f;
  stbi_image_free(data);
  return picture;
#else
  (void)path;
  throw lab::UsageError(kNoStb);
#endif
}

void save_picture(const std::string& path, int height, int width,
                  const std::vector<float>& pixels) {
#ifdef LAB_HAVE_STB
  std::vector<std::uint8_t> bytes(pixels.size());
  for (std::size_t i = 0; i < pixels.size(); ++i) {
    const float v = std::isnan(pixels[i]) ? 0.0f : std::clamp(pixels[i], 0.0f, 1.0f);
    bytes[i] = std::uint8_t(std::lround(255.0f * v));
  }
  if (stbi_write_png(path.c_str(), width, height, 1, bytes.data(), width) == 0) {
    throw lab::RuntimeError("--output " + path +
                            ": could not write the file: check the folder exists and is writable");
  }
#else
  (void)path, (void)height, (void)width, (void)pixels;
  throw lab::UsageError(kNoStb);
#endif
}

}  // namespace images
