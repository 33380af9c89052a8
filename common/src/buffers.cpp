// buffers.cpp: buffer mode names and guard zones.
#include "lab/buffers.hpp"

#include "lab/error.hpp"
#include "lab/ndrange.hpp"

#include <algorithm>

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

namespace lab {
namespace {

// Guard space beyond what the launch can reach: catches a neighbouring index (i - 1, i + 1) too.
constexpr std::size_t kGuardSlackBytes = 4096;

}  // namespace

GuardLayout guard_layout(const cl::Device& device, std::size_t element, std::size_t count,
                         std::size_t reach) {
  GuardLayout layout;
  layout.count = count;
  // Oclgrind checks every access against the buffer it belongs to: guard zones would hide the
  // out-of-bounds reads and writes it exists to report.
  if (is_oclgrind(cl::Platform(device.getInfo<CL_DEVICE_PLATFORM>()))) return layout;
  // Sub-buffer origins must be multiples of the base address alignment (given in bits).
  const std::size_t align =
      std::max<std::size_t>(device.getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>() / 8, element);
  layout.front = round_up(kGuardSlackBytes, align * element) / element;
  layout.back = round_up(reach * element + kGuardSlackBytes, align * element) / element;
  return layout;
}

GuardCheck check_guard_bytes(const unsigned char* front, std::size_t front_count,
                             const unsigned char* back, std::size_t back_count, std::size_t count,
                             std::size_t element) {
  const auto changed = [element](const unsigned char* bytes) {
    for (std::size_t b = 0; b < element; ++b) {
      if (bytes[b] != kGuardByte) return true;
    }
    return false;
  };
  GuardCheck check;
  bool any = false;
  const auto note = [&](long long index) {
    if (!any) check.first = index;
    check.last = index;
    any = true;
  };
  for (std::size_t i = 0; i < front_count; ++i) {
    if (!changed(front + i * element)) continue;
    ++check.before;
    note(static_cast<long long>(i) - static_cast<long long>(front_count));
  }
  for (std::size_t i = 0; i < back_count; ++i) {
    if (!changed(back + i * element)) continue;
    ++check.after;
    note(static_cast<long long>(count + i));
  }
  return check;
}

std::string describe_guard_writes(const GuardCheck& check, const std::string& name,
                                  const std::string& hint) {
  if (check.total() == 0) return "";
  std::string where;
  if (check.before > 0) {
    where += std::to_string(check.before) + " element" + (check.before == 1 ? "" : "s") +
             " before the start";
  }
  if (check.after > 0) {
    where += std::string(where.empty() ? "" : " and ") + std::to_string(check.after) + " element" +
             (check.after == 1 ? "" : "s") + " past the end";
  }
  const std::string range = check.first == check.last ? "index " + std::to_string(check.first)
                                                      : "indices " + std::to_string(check.first) +
                                                            ".." + std::to_string(check.last);
  return "the kernel wrote " + where + " of " + name + " (" + range + "): " + hint +
         " (reads outside the buffers are not checked here: run the lab under oclgrind to find "
         "them)";
}

}  // namespace lab
