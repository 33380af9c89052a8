// buffers.cpp: buffer mode names.
#include "lab/buffers.hpp"

#include "lab/error.hpp"

namespace lab {

const std::vector<std::string>& buffer_mode_names() {
  static const std::vector<std::string> names = {"copy", "use", "alloc", "write"};
  return names;
}

BufferMode parse_buffer_mode(const std::string& name) {
  if (name == "copy") return BufferMode::copy;
  if (name == "use") return BufferMode::use;
  if (name == "alloc") return BufferMode::alloc;
  if (name == "write") return BufferMode::write;
  throw UsageError("unknown buffer mode '" + name + "': choose copy, use, alloc or write");
}

std::string to_string(BufferMode mode) {
  return buffer_mode_names().at(static_cast<std::size_t>(mode));
}

}  // namespace lab
