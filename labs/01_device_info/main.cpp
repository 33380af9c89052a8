// device_info: every OpenCL platform and device, with the limits that shape a kernel launch.
#include "lab/lab.hpp"

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

namespace {

using nlohmann::json;

// The values a student needs, read from one device. Sizes in bytes, clock in MHz.
json device_facts(const cl::Device& d) {
  const cl_device_type type = d.getInfo<CL_DEVICE_TYPE>();
  const auto item_sizes = d.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>();
  const std::string extensions = d.getInfo<CL_DEVICE_EXTENSIONS>();
  return {
      {"name", lab::trim_info(d.getInfo<CL_DEVICE_NAME>())},
      {"vendor", lab::trim_info(d.getInfo<CL_DEVICE_VENDOR>())},
      {"type", lab::device_type_name(type)},
      {"version", lab::trim_info(d.getInfo<CL_DEVICE_VERSION>())},
      {"driver_version", lab::trim_info(d.getInfo<CL_DRIVER_VERSION>())},
      {"opencl_c_version", lab::trim_info(d.getInfo<CL_DEVICE_OPENCL_C_VERSION>())},
      {"compute_units", d.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>()},
      {"max_clock_mhz", d.getInfo<CL_DEVICE_MAX_CLOCK_FREQUENCY>()},
      {"global_mem_bytes", d.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>()},
      {"global_mem_cache_bytes", d.getInfo<CL_DEVICE_GLOBAL_MEM_CACHE_SIZE>()},
      {"max_mem_alloc_bytes", d.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>()},
      {"local_mem_bytes", d.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>()},
      {"local_mem_type", d.getInfo<CL_DEVICE_LOCAL_MEM_TYPE>() == CL_LOCAL ? "local" : "global"},
      {"constant_mem_bytes", d.getInfo<CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE>()},
      {"max_work_group_size", d.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>()},
      {"max_work_item_dimensions", d.getInfo<CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS>()},
      {"max_work_item_sizes", item_sizes},
      {"preferred_vector_width",
       {{"char", d.getInfo<CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR>()},
        {"short", d.getInfo<CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT>()},
        {"int", d.getInfo<CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT>()},
        {"long", d.getInfo<CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG>()},
        {"float", d.getInfo<CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT>()},
        {"double", d.getInfo<CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE>()},
        {"half", d.getInfo<CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF>()}}},
      {"fp64", lab::has_fp64(d)},
      {"profiling_timer_resolution_ns", d.getInfo<CL_DEVICE_PROFILING_TIMER_RESOLUTION>()},
      {"image_support", d.getInfo<CL_DEVICE_IMAGE_SUPPORT>() == CL_TRUE},
      {"extensions", extensions},
  };
}

// Relations every conforming device satisfies; a broken driver or a wrong query shows here.
std::vector<std::string> inconsistencies(const json& d) {
  std::vector<std::string> problems;
  const auto expect = [&problems](bool ok, const std::string& what) {
    if (!ok) problems.push_back(what);
  };
  expect(d["compute_units"].get<unsigned>() >= 1, "compute units < 1");
  expect(
      d["max_mem_alloc_bytes"].get<std::uint64_t>() <= d["global_mem_bytes"].get<std::uint64_t>(),
      "max allocation larger than global memory");
  expect(d["local_mem_bytes"].get<std::uint64_t>() > 0, "no local memory");
  expect(d["max_work_group_size"].get<std::size_t>() >= 1, "max work-group size < 1");
  expect(d["max_work_item_dimensions"].get<unsigned>() >= 3, "fewer than 3 work-item dimensions");
  expect(d["max_work_item_sizes"].size() == d["max_work_item_dimensions"].get<std::size_t>(),
         "work-item sizes do not match the dimension count");
  for (const auto& size : d["max_work_item_sizes"]) {
    expect(size.get<std::size_t>() >= 1, "a work-item size < 1");
  }
  expect(d["profiling_timer_resolution_ns"].get<std::size_t>() > 0, "timer resolution 0");
  return problems;
}

// A measured peak's line: its GFLOP/s, and where it came from; which lab (or --measure-peaks)
// measures it when no run has yet.
std::string peak_text(const json& d, const char* key, const char* lab) {
  if (!d[key].is_number()) {
    return std::string("not measured yet: ") + lab +
           " (or device_info --measure-peaks) measures it";
  }
  return std::to_string(std::lround(d[key].get<double>())) + " GFLOP/s" +
         (d["peaks_measured_now"].get<bool>() ? " (measured now)" : " (cached)");
}

// ", 1/2 of FP32": the FP64 peak as a share of the FP32 one (1/2 on a data-centre GPU or a CPU,
// 1/32 or 1/64 on a consumer GPU), when both are known.
std::string fp64_ratio(const json& d) {
  if (!d["fp32_peak_gflops"].is_number() || !d["fp64_peak_gflops"].is_number()) return "";
  const double ratio = d["fp32_peak_gflops"].get<double>() / d["fp64_peak_gflops"].get<double>();
  if (!(ratio > 0) || !std::isfinite(ratio)) return "";
  char text[48];
  std::snprintf(text, sizeof text, ", 1/%.2g of FP32", ratio);
  return text;
}

void print_device(const json& d, std::ostream& out) {
  const auto bytes = [&d](const char* key) {
    return lab::format_bytes(static_cast<double>(d[key].get<std::uint64_t>()));
  };
  std::string items;
  for (const auto& size : d["max_work_item_sizes"]) {
    items += (items.empty() ? "" : " x ") + std::to_string(size.get<std::size_t>());
  }
  std::string widths;
  for (const auto& [type, width] : d["preferred_vector_width"].items()) {
    widths += (widths.empty() ? "" : " ") + type + "=" + std::to_string(width.get<unsigned>());
  }
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"Type", d["type"]},
      {"Version",
       d["version"].get<std::string>() + ", driver " + d["driver_version"].get<std::string>()},
      {"OpenCL C", d["opencl_c_version"]},
      {"Compute units", std::to_string(d["compute_units"].get<unsigned>())},
      {"Max clock", std::to_string(d["max_clock_mhz"].get<unsigned>()) + " MHz"},
      {"Global memory",
       bytes("global_mem_bytes") + " (cache " + bytes("global_mem_cache_bytes") + ")"},
      {"Max allocation", bytes("max_mem_alloc_bytes")},
      {"Local memory",
       bytes("local_mem_bytes") + " (" + d["local_mem_type"].get<std::string>() + ")"},
      {"Constant memory", bytes("constant_mem_bytes")},
      {"Max work-group size", std::to_string(d["max_work_group_size"].get<std::size_t>())},
      {"Max work-item sizes", items},
      {"Preferred vector widths", widths},
      {"Double precision (fp64)", d["fp64"].get<bool>() ? "yes" : "no"},
      {"FP32 peak (measured)", peak_text(d, "fp32_peak_gflops", "matmul")},
      {"FP64 peak (measured)",
       !d["fp64"].get<bool>()
           ? "none: no double precision"
           : peak_text(d, "fp64_peak_gflops", "matmul --dtype double") + fp64_ratio(d)},
      {"Timer resolution",
       std::to_string(d["profiling_timer_resolution_ns"].get<std::size_t>()) + " ns"},
      {"Image support", d["image_support"].get<bool>() ? "yes" : "no"},
  };
  for (const auto& [key, value] : rows) {
    out << "    " << std::left << std::setw(25) << key << value << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  return lab::run_main(
      argc, argv, "device_info", "OpenCL platforms, devices and their limits",
      [](lab::Cli& cli) {
        // 1. Options: the shared ones (-p/-d/--type narrow the listing), and --measure-peaks
        bool measure_peaks = false;
        cli.add_flag(
            "--measure-peaks", measure_peaks,
            "Measure each device's FP32 and FP64 peaks now with kernels/peak_fma.cl (a "
            "fraction of a second each; the cache keeps them), instead of showing the cached ones");
        cli.parse();
        const auto& opt = cli.options();
        const bool narrowed = !opt.platform.empty() || !opt.device.empty() || opt.type != "all";

        // 2. Every device, or the one -p/-d/--type choose
        std::vector<lab::DeviceEntry> devices = lab::all_devices();
        if (narrowed) devices = {lab::choose_device(devices, opt)};

        // 3. Query, check and print, platform by platform (one may show no device at all)
        const std::vector<cl::Platform> platform_list = lab::all_platforms();
        json platforms = json::array();
        std::size_t problems = 0;
        for (std::size_t p = 0; p < platform_list.size(); ++p) {
          const int index = static_cast<int>(p);
          if (narrowed && index != devices.front().platform_index) continue;
          platforms.push_back(
              {{"index", index},
               {"name", lab::trim_info(platform_list[p].getInfo<CL_PLATFORM_NAME>())},
               {"vendor", lab::trim_info(platform_list[p].getInfo<CL_PLATFORM_VENDOR>())},
               {"version", lab::trim_info(platform_list[p].getInfo<CL_PLATFORM_VERSION>())},
               {"devices", json::array()}});
          cli.out() << "Platform " << index << ": " << platforms.back()["name"].get<std::string>()
                    << " (" << platforms.back()["version"].get<std::string>() << ")\n";
          for (const auto& entry : devices) {
            if (entry.platform_index != index) continue;
            json device = device_facts(entry.device);
            device["index"] = entry.index;
            // The FP32 and FP64 peaks a lab measured on this device (lab/peak.hpp), if one has:
            // device_info itself runs no kernel, unless --measure-peaks asks it to.
            std::optional<lab::FmaPeak> fp32, fp64;
            if (measure_peaks) {
              lab::Env env{entry.platform, entry.device, cl::Context(entry.device), {}};
              env.queue = cl::CommandQueue(env.context, env.device, CL_QUEUE_PROFILING_ENABLE);
              std::ostringstream quiet;  // the build's lines
              // Measured now, not read from the cache (the new values are cached)
              fp32 = lab::fma_peak(env, opt, quiet, lab::Precision::fp32, 0, true);
              if (lab::has_fp64(entry.device)) {
                fp64 = lab::fma_peak(env, opt, quiet, lab::Precision::fp64, 0, true);
              }
            } else {
              fp32 = lab::cached_fma_peak(entry.device, opt, lab::Precision::fp32);
              fp64 = lab::cached_fma_peak(entry.device, opt, lab::Precision::fp64);
            }
            const auto gflops = [](const std::optional<lab::FmaPeak>& peak) {
              return peak && peak->gflops > 0 ? json(peak->gflops) : json(nullptr);
            };
            device["fp32_peak_gflops"] = gflops(fp32);
            device["fp64_peak_gflops"] = gflops(fp64);
            device["peaks_measured_now"] = measure_peaks;
            cli.out() << "  Device " << entry.index << " (-p " << entry.platform_index << " -d "
                      << entry.device_index << "): " << device["name"].get<std::string>() << "\n";
            print_device(device, cli.out());
            for (const auto& problem : inconsistencies(device)) {
              std::cerr << "  inconsistent: " << device["name"].get<std::string>() << ": "
                        << problem << "\n";
              ++problems;
            }
            platforms.back()["devices"].push_back(device);
          }
          if (platforms.back()["devices"].empty()) {
            cli.out() << "  no device: this platform's driver finds no hardware it can use\n";
          }
        }

        // 4. Report: one row; it passes when every device answered every query consistently
        // (the report's device: the one device, or each of several under a name that counts them)
        json described = json::array();
        for (const auto& entry : devices) described.push_back(lab::describe_device(entry.device));
        lab::Report report("device_info",
                           devices.size() == 1
                               ? described.front()
                               : json{{"name", std::to_string(devices.size()) + " devices"},
                                      {"devices", described}});
        // --summary heads its table with the device the other labs run on by default
        if (devices.size() > 1) {
          report.set_summary_device(lab::describe_device(lab::choose_device(devices, opt).device));
        }
        lab::Result row;
        row.variant = narrowed ? "chosen" : "all";
        row.size = lab::Size("platforms", std::int64_t(platforms.size()))
                       .add("devices", std::int64_t(devices.size()))
                       .label(std::to_string(platforms.size()) +
                              (platforms.size() == 1 ? " platform, " : " platforms, ") +
                              std::to_string(devices.size()) +
                              (devices.size() == 1 ? " device" : " devices"));
        row.passed = problems == 0;
        report.add(row);
        report.details()["platforms"] = platforms;
        report.print(cli.format(), std::cout);
        return report.exit_code();
      },
      lab::LabKind::reports_devices);
}
