// device.cpp: platform and device choice, context and profiling queue.
#include "lab/device.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "lab/error.hpp"
#include "lab/trace.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <initializer_list>
#include <ostream>

namespace lab {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return lower(haystack).find(lower(needle)) != std::string::npos;
}

bool is_index(const std::string& text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

// The value of an index (is_index), or -1 past a million: no machine has that many devices.
long index_value(const std::string& text) { return text.size() > 6 ? -1 : std::stol(text); }

// A platform matches -p by index, or by a substring of its name, vendor or version
// ("pocl" matches "Portable Computing Language" through its version string).
bool platform_matches(const DeviceEntry& entry, const std::string& want) {
  if (is_index(want)) return entry.platform_index == index_value(want);
  return contains(entry.platform.getInfo<CL_PLATFORM_NAME>(), want) ||
         contains(entry.platform.getInfo<CL_PLATFORM_VENDOR>(), want) ||
         contains(entry.platform.getInfo<CL_PLATFORM_VERSION>(), want);
}

bool type_matches(const DeviceEntry& entry, const std::string& type) {
  const cl_device_type bits = entry.device.getInfo<CL_DEVICE_TYPE>();
  if (lower(type) == "gpu") return (bits & CL_DEVICE_TYPE_GPU) != 0;
  if (lower(type) == "cpu") return (bits & CL_DEVICE_TYPE_CPU) != 0;
  return true;
}

// "; the one device here is pthread-skylake-avx512-AMD EPYC (CPU)" or "; the 3 devices here are 2 x
// NVIDIA H100 80GB HBM3 (GPU), pthread-... (CPU)": the devices a choice could have named, for the
// sentence saying it named none. Neighbours of one name and type share an entry.
std::string devices_here(const std::vector<DeviceEntry>& devices) {
  std::string text;
  for (std::size_t i = 0; i < devices.size();) {
    const std::string name = trim_info(devices[i].device.getInfo<CL_DEVICE_NAME>());
    const cl_device_type type = devices[i].device.getInfo<CL_DEVICE_TYPE>();
    std::size_t same = 1;
    while (i + same < devices.size() &&
           trim_info(devices[i + same].device.getInfo<CL_DEVICE_NAME>()) == name &&
           devices[i + same].device.getInfo<CL_DEVICE_TYPE>() == type) {
      ++same;
    }
    text += (text.empty() ? "" : ", ") + (same > 1 ? std::to_string(same) + " x " : "") + name +
            " (" + device_type_name(type) + ")";
    i += same;
  }
  return devices.size() == 1
             ? "; the one device here is " + text
             : "; the " + std::to_string(devices.size()) + " devices here are " + text;
}

}  // namespace

std::vector<cl::Platform> all_platforms() {
  std::vector<cl::Platform> platforms;
  try {
    cl::Platform::get(&platforms);
  } catch (const cl::Error& error) {
    if (error.err() != CL_PLATFORM_NOT_FOUND_KHR) throw;
  }
  if (platforms.empty()) {
    throw RuntimeError(
        "no OpenCL platform found: install one (scripts/setup.sh installs PoCL, the CPU "
        "platform) or check /etc/OpenCL/vendors and OCL_ICD_VENDORS");
  }
  return platforms;
}

std::vector<DeviceEntry> all_devices() {
  const std::vector<cl::Platform> platforms = all_platforms();
  std::vector<DeviceEntry> devices;
  for (std::size_t p = 0; p < platforms.size(); ++p) {
    std::vector<cl::Device> platform_devices;
    try {
      platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &platform_devices);
    } catch (const cl::Error& error) {
      if (error.err() != CL_DEVICE_NOT_FOUND) throw;
    }
    for (std::size_t d = 0; d < platform_devices.size(); ++d) {
      devices.push_back(DeviceEntry{static_cast<int>(devices.size()), static_cast<int>(p),
                                    static_cast<int>(d), platforms[p], platform_devices[d]});
    }
  }
  if (devices.empty()) {
    throw RuntimeError(
        "the OpenCL platforms show no device: check the driver installation (PoCL shows none "
        "when its kernel cache, POCL_CACHE_DIR or ~/.cache/pocl, is not writable)");
  }
  return devices;
}

std::vector<DeviceEntry> platform_devices(const std::vector<DeviceEntry>& devices,
                                          const Options& options) {
  std::vector<DeviceEntry> kept;
  for (const auto& entry : devices) {
    if (options.platform.empty() || platform_matches(entry, options.platform))
      kept.push_back(entry);
  }
  return kept;
}

DeviceEntry choose_device(const std::vector<DeviceEntry>& devices, const Options& options) {
  std::vector<DeviceEntry> candidates;
  bool platform_seen = options.platform.empty();
  for (const auto& entry : devices) {
    if (!options.platform.empty() && !platform_matches(entry, options.platform)) continue;
    platform_seen = true;
    if (type_matches(entry, options.type)) candidates.push_back(entry);
  }
  if (!platform_seen) {
    const std::size_t platforms = all_platforms().size();  // -p counts those without a device
    throw UsageError(
        "no platform matches -p '" + options.platform + "' (there " +
        (platforms == 1 ? "is 1 platform" : "are " + std::to_string(platforms) + " platforms") +
        "): run with --list to see them" + devices_here(devices));
  }
  if (candidates.empty()) {
    throw UsageError("no " + lower(options.type) + " device" +
                     (options.platform.empty() ? "" : " on platform '" + options.platform + "'") +
                     ": run with --list to see the devices, or use --type all" +
                     devices_here(devices));
  }

  const std::string& want = options.device;
  if (want.empty()) {
    for (const auto& entry : candidates) {
      if (entry.device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) return entry;
    }
    return candidates.front();
  }
  if (is_index(want)) {
    // With -p the index counts inside that platform, otherwise over every device in --list.
    const long index = index_value(want);
    if (index >= 0 && static_cast<std::size_t>(index) < candidates.size()) return candidates[index];
    throw UsageError("no device " + want + ": only " + std::to_string(candidates.size()) +
                     " device" + (candidates.size() == 1 ? "" : "s") +
                     " match (indices start at 0): run with --list to see them");
  }
  for (const auto& entry : candidates) {
    if (contains(entry.device.getInfo<CL_DEVICE_NAME>(), want)) return entry;
  }
  throw UsageError("no device name contains '" + want + "': run with --list to see the devices" +
                   devices_here(candidates));
}

void print_device_list(std::ostream& out) {
  const auto devices = all_devices();
  const auto platforms = all_platforms();
  for (std::size_t p = 0; p < platforms.size(); ++p) {
    out << "Platform " << p << ": " << trim_info(platforms[p].getInfo<CL_PLATFORM_NAME>()) << " ("
        << trim_info(platforms[p].getInfo<CL_PLATFORM_VERSION>()) << ")\n";
    bool any = false;
    for (const auto& entry : devices) {
      if (entry.platform_index != static_cast<int>(p)) continue;
      any = true;
      out << "  -d " << entry.index << "  (-p " << entry.platform_index << " -d "
          << entry.device_index << ")  " << trim_info(entry.device.getInfo<CL_DEVICE_NAME>())
          << " [" << device_type_name(entry.device.getInfo<CL_DEVICE_TYPE>()) << ", "
          << trim_info(entry.device.getInfo<CL_DEVICE_OPENCL_C_VERSION>()) << "]\n";
    }
    if (!any) out << "  no device\n";
  }
}

std::string Env::device_name() const { return trim_info(device.getInfo<CL_DEVICE_NAME>()); }

std::string Env::platform_name() const { return trim_info(platform.getInfo<CL_PLATFORM_NAME>()); }

std::string Env::opencl_c_version() const {
  return trim_info(device.getInfo<CL_DEVICE_OPENCL_C_VERSION>());
}

namespace {

std::string& oclgrind_log() {
  static std::string path;
  return path;
}

// Oclgrind prints every problem it finds, each launch again: thousands of lines for one missing
// barrier. Its messages go to a log file instead (OCLGRIND_LOG, read when a context is made), and
// the lab summarises it at the end (summarize_oclgrind_log). A log the user chose is left alone.
void capture_oclgrind_log(const Env& env) {
  if (!is_oclgrind(env.platform)) return;
  if (std::getenv("OCLGRIND_LOG") != nullptr) return;
  char path[] = "/tmp/oclgrind-report-XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) return;
  ::close(fd);
  ::setenv("OCLGRIND_LOG", path, 1);
  oclgrind_log() = path;
}

}  // namespace

bool is_oclgrind(const cl::Platform& platform) {
  return platform.getInfo<CL_PLATFORM_NAME>().find("Oclgrind") != std::string::npos;
}

bool has_fp64(const cl::Device& device) {
  return device.getInfo<CL_DEVICE_DOUBLE_FP_CONFIG>() != 0;
}

void require_fp64(const Env& env, const std::string& lab) {
  if (has_fp64(env.device)) return;
  throw SkipError(lab + " --dtype double needs double precision, and " + env.device_name() +
                  " has none (no cl_khr_fp64, CL_DEVICE_DOUBLE_FP_CONFIG is 0): use --dtype "
                  "float, or a device that has it (--list)");
}

std::size_t summarize_oclgrind_log(std::ostream& out) {
  if (oclgrind_log().empty()) return 0;
  std::ifstream in(oclgrind_log());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (lines.empty()) {
    std::remove(oclgrind_log().c_str());
    return 0;
  }
  // A report starts with an unindented line ("Invalid read of size 4 at global memory address
  // 0x..."); its kind is that line up to the address.
  std::vector<std::pair<std::string, std::size_t>> kinds;
  std::size_t reports = 0, first_begin = 0, first_end = lines.size();
  std::vector<std::string> notes;  // Oclgrind's own remarks ("suppressing further errors")
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.empty() || line[0] == '\t' || line[0] == ' ') continue;
    if (line.rfind("Oclgrind:", 0) == 0) {
      notes.push_back(line);
      continue;
    }
    if (++reports == 1) first_begin = i;
    if (reports == 2) first_end = i;
    const std::string kind = line.substr(0, line.find(" address"));
    auto known = std::find_if(kinds.begin(), kinds.end(),
                              [&](const auto& entry) { return entry.first == kind; });
    if (known == kinds.end()) {
      kinds.emplace_back(kind, 1);
    } else {
      ++known->second;
    }
  }
  out << "Oclgrind found " << reports << " problem" << (reports == 1 ? "" : "s")
      << ". The first:\n";
  while (first_end > first_begin &&
         lines[first_end - 1].find_first_not_of(" \t") == std::string::npos) {
    --first_end;
  }
  for (std::size_t i = first_begin; i < first_end; ++i) out << "  " << lines[i] << "\n";
  out << "All of them, by kind:\n";
  for (const auto& [kind, count] : kinds) out << "  " << count << " x " << kind << "\n";
  for (const auto& note : notes) out << "  (" << note << ")\n";
  out << "Oclgrind's full report (" << lines.size() << " lines): " << oclgrind_log() << "\n";
  return reports;
}

Env pick_device(const Options& options, std::ostream& out) {
  const DeviceEntry entry = choose_device(all_devices(), options);
  Env env;
  env.platform = entry.platform;
  env.device = entry.device;
  capture_oclgrind_log(env);
  set_trace_device(short_device_name(env.device_name()));
  out << "Device: " << env.device_name() << " ["
      << device_type_name(env.device.getInfo<CL_DEVICE_TYPE>()) << "] on " << env.platform_name()
      << ", " << env.opencl_c_version() << "\n";
  return env;
}

void trace_queue(const cl::CommandQueue& queue) {
  if (Trace* trace = active_trace()) trace->name_queue(queue, "queue (in-order)");
}

Env open_device(const Options& options, std::ostream& out) {
  Env env = pick_device(options, out);
  env.context = cl::Context(env.device);
  env.queue = cl::CommandQueue(env.context, env.device, CL_QUEUE_PROFILING_ENABLE);
  trace_queue(env.queue);
  return env;
}

std::string short_device_name(const std::string& name) {
  // PoCL appends the CPU's marketing name after the last '-'; keep the part before it.
  const auto pos = name.find("-Intel");
  const auto amd = name.find("-AMD");
  const auto cut = std::min(pos, amd);
  return trim_info(cut == std::string::npos ? name : name.substr(0, cut));
}

SimdUnit cpu_simd_unit(const std::string& device_name, int preferred_float_width) {
  std::string name = device_name;
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const auto names_any = [&name](std::initializer_list<const char*> cpus) {
    return std::any_of(cpus.begin(), cpus.end(),
                       [&name](const char* cpu) { return name.find(cpu) != std::string::npos; });
  };
  // LLVM's x86 CPU names by the widest vector ISA they have; the AVX-512 list comes first
  // because "skylake" is also a prefix of "skylake-avx512".
  if (names_any({"avx512", "x86-64-v4", "knl", "knm", "cannonlake", "icelake", "tigerlake",
                 "cascadelake", "cooperlake", "sapphirerapids", "emeraldrapids", "graniterapids",
                 "diamondrapids", "rocketlake", "znver4", "znver5"})) {
    return {16, 32, "AVX-512"};
  }
  if (names_any({"haswell", "broadwell", "skylake", "alderlake", "raptorlake", "meteorlake",
                 "arrowlake", "lunarlake", "pantherlake", "gracemont", "sierraforest", "grandridge",
                 "clearwaterforest", "znver1", "znver2", "znver3", "x86-64-v3", "bdver4"})) {
    return {8, 16, "AVX2"};
  }
  if (names_any({"sandybridge", "ivybridge", "bdver1", "bdver2", "bdver3", "btver2"})) {
    return {8, 16, "AVX"};
  }
  if (names_any({"nehalem", "westmere", "silvermont", "goldmont", "tremont", "core2", "penryn",
                 "btver1", "x86-64"})) {
    return {4, 16, "SSE"};
  }
  const int width = std::clamp(preferred_float_width, 1, 16);
  return {width >= 16 ? 16 : (width >= 8 ? 8 : 4), width >= 16 ? 32 : 16,
          "preferred float width " + std::to_string(preferred_float_width)};
}

SimdUnit cpu_simd_unit(const cl::Device& device) {
  return cpu_simd_unit(device.getInfo<CL_DEVICE_NAME>(),
                       static_cast<int>(device.getInfo<CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT>()));
}

std::string trim_info(std::string text) {
  while (!text.empty() && text.back() == '\0') text.pop_back();
  const auto first = text.find_first_not_of(" \t\n");
  if (first == std::string::npos) return "";
  text.erase(0, first);
  text.erase(text.find_last_not_of(" \t\n") + 1);
  return text;
}

nlohmann::json describe_device(const cl::Device& d) {
  const cl::Platform platform(d.getInfo<CL_DEVICE_PLATFORM>(), true);
  return {{"name", trim_info(d.getInfo<CL_DEVICE_NAME>())},
          {"vendor", trim_info(d.getInfo<CL_DEVICE_VENDOR>())},
          {"type", device_type_name(d.getInfo<CL_DEVICE_TYPE>())},
          {"compute_units", d.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>()},
          {"driver_version", trim_info(d.getInfo<CL_DRIVER_VERSION>())},
          {"opencl_version", trim_info(d.getInfo<CL_DEVICE_VERSION>())},
          {"opencl_c_version", trim_info(d.getInfo<CL_DEVICE_OPENCL_C_VERSION>())},
          {"platform",
           {{"name", trim_info(platform.getInfo<CL_PLATFORM_NAME>())},
            {"vendor", trim_info(platform.getInfo<CL_PLATFORM_VENDOR>())},
            {"version", trim_info(platform.getInfo<CL_PLATFORM_VERSION>())}}}};
}

nlohmann::json describe_device(const Env& env) { return describe_device(env.device); }

std::string device_type_name(cl_device_type type) {
  std::string names;
  const auto add = [&names](const char* name) {
    names += names.empty() ? name : std::string("|") + name;
  };
  if (type & CL_DEVICE_TYPE_CPU) add("CPU");
  if (type & CL_DEVICE_TYPE_GPU) add("GPU");
  if (type & CL_DEVICE_TYPE_ACCELERATOR) add("ACCELERATOR");
  if (type & CL_DEVICE_TYPE_CUSTOM) add("CUSTOM");
  if (type & CL_DEVICE_TYPE_DEFAULT) add("DEFAULT");
  return names.empty() ? "UNKNOWN" : names;
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 4) {
    bytes /= 1024.0;
    ++unit;
  }
  char text[32];
  const bool whole = bytes == static_cast<double>(static_cast<long long>(bytes));
  std::snprintf(text, sizeof text, whole ? "%.0f %s" : "%.2f %s", bytes, units[unit]);
  return text;
}

}  // namespace lab

namespace lab {

void check_memory(const Env& env, std::uint64_t bytes, int count, int host_copies,
                  const std::string& shrink) {
  const std::uint64_t max_alloc = env.device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
  const std::uint64_t global = env.device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
  const auto b = static_cast<double>(bytes);
  if (bytes > max_alloc) {
    throw RuntimeError("a buffer of " + format_bytes(b) +
                       " is larger than this device allocates (" +
                       format_bytes(static_cast<double>(max_alloc)) +
                       ", CL_DEVICE_MAX_MEM_ALLOC_SIZE): use a smaller " + shrink);
  }
  if (bytes * static_cast<std::uint64_t>(count) > global) {
    throw RuntimeError(std::to_string(count) + " buffers of " + format_bytes(b) +
                       " exceed the device's global memory (" +
                       format_bytes(static_cast<double>(global)) + "): use a smaller " + shrink);
  }
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_size > 0) {
    const double host = static_cast<double>(pages) * static_cast<double>(page_size);
    if (b * host_copies > host) {
      throw RuntimeError(std::to_string(host_copies) + " host arrays of " + format_bytes(b) +
                         " exceed this machine's memory (" + format_bytes(host) +
                         "): use a smaller " + shrink);
    }
  }
}

}  // namespace lab
