// bandwidth.cpp: the transfers lab's first part, steps 4-9. Bytes moved between the host and the
// device by each path OpenCL offers, over sizes from a few KiB up: pageable memory (a new[] array
// handed to enqueueWriteBuffer and enqueueReadBuffer), pinned memory (a CL_MEM_ALLOC_HOST_PTR
// buffer mapped once, its pointer handed to the same calls), the device buffer itself mapped and
// filled or read with memcpy, and a CL_MEM_USE_HOST_PTR buffer over a host array copied to and
// from the device buffer with enqueueCopyBuffer; then device to device, and memcpy on the host as
// the yardstick. Every path's last transfer at every size is checked byte for byte, and each
// path's times are fitted as t = a + n/b: a latency a and a bandwidth b.
#ifndef CL_HPP_ENABLE_EXCEPTIONS  // the same settings as common/CMakeLists.txt gives every lab
#define CL_HPP_ENABLE_EXCEPTIONS  // OpenCL errors as cl::Error exceptions
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_TARGET_OPENCL_VERSION 120
#define CL_HPP_CL_1_2_DEFAULT_BUILD
#endif
#include <CL/opencl.hpp>

#include "lab/lab.hpp"
#include "lab/peers.hpp"
#include "parts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>

namespace transfers {
namespace {

// The sweep's sizes: min, 2 min, 4 min, ... and max itself.
std::vector<std::uint64_t> sweep_sizes(std::uint64_t min, std::uint64_t max) {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t n = min; n < max; n *= 2) sizes.push_back(n);
  sizes.push_back(max);
  return sizes;
}

// t = a + n / b fitted to (bytes, seconds), each point weighted by 1/t^2 so that a small
// transfer's relative error counts as much as a large one's (unweighted, the largest sizes alone
// would set the line and the latency would be noise).
struct Fit {
  double latency_s = 0;   // a
  double rate = 0;        // b, GB/s
  double half_bytes = 0;  // a b: the size at which half of b is reached
  double worst_miss = 0;  // the largest |fitted - measured| / measured over the points
};

Fit fit_line(const std::vector<std::uint64_t>& bytes, const std::vector<double>& seconds) {
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const double w = 1.0 / (seconds[i] * seconds[i]), x = double(bytes[i]), y = seconds[i];
    sw += w;
    sx += w * x;
    sy += w * y;
    sxx += w * x * x;
    sxy += w * x * y;
  }
  const double det = sw * sxx - sx * sx;
  double a = 0, c = 0;  // t = a + c n
  if (bytes.size() >= 2 && det > 0) {
    a = (sxx * sy - sx * sxy) / det;
    c = (sw * sxy - sx * sy) / det;
  }
  if (a < 0 || c <= 0) {  // no latency to see: the line through the origin
    a = 0;
    c = sxy / sxx;
  }
  Fit fit;
  fit.latency_s = a;
  fit.rate = c > 0 ? 1e-9 / c : 0;
  fit.half_bytes = c > 0 ? a / c : 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const double miss = std::abs(a + c * double(bytes[i]) - seconds[i]) / seconds[i];
    fit.worst_miss = std::max(fit.worst_miss, miss);
  }
  return fit;
}

// One way of moving the bytes: its name, what it does in a few words, and its clock.
struct Path {
  std::string name;
  std::string how;
  // What the host's clock includes, for a path timed on it; "" for one timed from its event.
  std::string clock_note = "";
};

// Every byte of `got` against `want`, exactly; the first wrong ones printed as name[i] on stderr.
lab::CheckResult same_bytes(const unsigned char* got, const unsigned char* want, std::uint64_t n,
                            const std::string& name) {
  return lab::compare(got, want, n, lab::Tolerance::exact(), std::cerr, name);
}

// n random bytes from `seed`, eight from each draw.
lab::HostVector<unsigned char> random_bytes(std::uint64_t n, std::uint64_t seed) {
  lab::HostVector<unsigned char> bytes(n);
  std::mt19937_64 engine(seed);
  for (std::uint64_t i = 0; i < n; i += 8) {
    const std::uint64_t draw = engine();
    std::memcpy(bytes.data() + i, &draw, std::min<std::uint64_t>(8, n - i));
  }
  return bytes;
}

}  // namespace

std::vector<lab::Result> bandwidth(lab::Cli& cli, lab::Env& env, const Settings& s,
                                   nlohmann::json& details) {
  const lab::Options& opt = cli.options();
  std::ostream& out = cli.out();
  const std::uint64_t max = s.max_bytes;
  const std::vector<std::uint64_t> sizes = sweep_sizes(s.min_bytes, max);
  cl::CommandQueue& queue = env.queue;

  // 4. Host memory: the bytes to send (random, from the seed), a pageable array (new[]) for each
  //    direction, and a page-aligned array for CL_MEM_USE_HOST_PTR
  const lab::HostVector<unsigned char> pattern = random_bytes(max, lab::derive_seed(opt.seed, 1));
  std::unique_ptr<unsigned char[]> pageable_in(new unsigned char[max]);
  std::unique_ptr<unsigned char[]> pageable_out(new unsigned char[max]);
  lab::HostVector<unsigned char> use_array(max);
  std::vector<unsigned char> seen(max);  // what a check reads back

  // 5. Device buffers: the destination (and a second one for device-to-device copies), made
  //    once at the largest size; each size moves its first n bytes
  cl::Buffer device(env.context, CL_MEM_READ_WRITE, max);
  cl::Buffer device2(env.context, CL_MEM_READ_WRITE, max);

  // 6. Pinned memory: a buffer the runtime allocates where the host can reach it
  //    (CL_MEM_ALLOC_HOST_PTR), mapped once; its pointer is then the host side of ordinary
  //    writes and reads, which the device can reach without first copying it elsewhere
  cl::Buffer pinned(env.context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, max);
  auto* staging = static_cast<unsigned char*>(
      queue.enqueueMapBuffer(pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, max));

  // 7. A buffer over the host's own array (CL_MEM_USE_HOST_PTR): the runtime may use that memory
  //    itself, or keep a copy it brings up to date on a map and unmap
  cl::Buffer use(env.context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, max, use_array.data());

  const std::string kMapped = "timed on the host's clock: the map, the memcpy and the unmap";
  const Path up_paths[] = {
      {"pageable", "enqueueWriteBuffer from a new[] array"},
      {"pinned", "enqueueWriteBuffer from a mapped ALLOC_HOST_PTR buffer"},
      {"mapped", "map the device buffer, memcpy into it, unmap", kMapped},
      {"use_host_ptr", "map a USE_HOST_PTR buffer, memcpy into it, unmap, enqueueCopyBuffer",
       "timed on the host's clock: the map, the memcpy, the unmap and the copy"},
  };
  const Path down_paths[] = {
      {"pageable", "enqueueReadBuffer into a new[] array"},
      {"pinned", "enqueueReadBuffer into a mapped ALLOC_HOST_PTR buffer"},
      {"mapped", "map the device buffer, memcpy out of it, unmap", kMapped},
      {"use_host_ptr", "enqueueCopyBuffer to a USE_HOST_PTR buffer, then map it",
       "timed on the host's clock: the copy, the map and the unmap"},
  };

  // 8. One transfer of n bytes by each path, as a function the timing calls: an event for those
  //    timed on the device's clock, nothing for those timed on the host's
  const auto upload = [&](const std::string& path, std::uint64_t n) -> cl::Event {
    cl::Event event;
    if (path == "pageable") {
      queue.enqueueWriteBuffer(device, CL_FALSE, 0, n, pageable_in.get(), nullptr, &event);
    } else if (path == "pinned") {
      queue.enqueueWriteBuffer(device, CL_FALSE, 0, n, staging, nullptr, &event);
    } else if (path == "mapped") {
      void* p = queue.enqueueMapBuffer(device, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, n);
      std::memcpy(p, pageable_in.get(), n);
      queue.enqueueUnmapMemObject(device, p, nullptr, &event);
    } else {  // use_host_ptr: the host writes its array through a map; the unmap hands it over
      void* p = queue.enqueueMapBuffer(use, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, n);
      std::memcpy(p, pageable_in.get(), n);
      queue.enqueueUnmapMemObject(use, p);
      queue.enqueueCopyBuffer(use, device, 0, 0, n, nullptr, &event);
    }
    event.wait();
    return event;
  };
  const auto download = [&](const std::string& path, std::uint64_t n) -> cl::Event {
    cl::Event event;
    if (path == "pageable") {
      queue.enqueueReadBuffer(device, CL_FALSE, 0, n, pageable_out.get(), nullptr, &event);
    } else if (path == "pinned") {
      queue.enqueueReadBuffer(device, CL_FALSE, 0, n, staging, nullptr, &event);
    } else if (path == "mapped") {
      void* p = queue.enqueueMapBuffer(device, CL_TRUE, CL_MAP_READ, 0, n);
      std::memcpy(pageable_out.get(), p, n);
      queue.enqueueUnmapMemObject(device, p, nullptr, &event);
    } else {  // use_host_ptr: the results are in use_array only after the map
      queue.enqueueCopyBuffer(device, use, 0, 0, n);
      void* p = queue.enqueueMapBuffer(use, CL_TRUE, CL_MAP_READ, 0, n);
      queue.enqueueUnmapMemObject(use, p, nullptr, &event);
    }
    event.wait();
    return event;
  };
  // Where each path's host bytes are: the source of an upload, the destination of a download.
  const auto host_side = [&](const std::string& path, bool up) -> unsigned char* {
    if (path == "pinned") return staging;
    if (path == "use_host_ptr" && !up) return use_array.data();
    return up ? pageable_in.get() : pageable_out.get();
  };
  const auto clear_device = [&](cl::Buffer& buffer, std::uint64_t n) {
    const cl_uchar zero = 0;
    queue.enqueueFillBuffer(buffer, zero, 0, n);
    queue.finish();
  };

  std::vector<lab::Result> rows;
  nlohmann::json sweep = nlohmann::json::object(), fits = nlohmann::json::object();
  // 9. Each direction and path over the sizes: timed (warm-ups, then --reps runs), cleared, moved
  //    once more and checked byte for byte; the table of GB/s, then the fit
  const auto run_direction = [&](const std::string& direction, const std::vector<Path>& paths,
                                 const std::function<lab::Timing(const Path&, std::uint64_t)>& time,
                                 const std::function<lab::CheckResult(const Path&, std::uint64_t,
                                                                      const std::string&)>& check) {
    out << "\n" << direction << ": GB/s (median of " << opt.reps << " runs) by size\n";
    out << "  " << std::setw(10) << "size";
    for (const Path& p : paths) out << std::setw(14) << p.name;
    out << "\n";
    std::vector<std::vector<double>> medians(paths.size());
    std::vector<lab::Result> direction_rows(paths.size());
    std::vector<nlohmann::json> points(paths.size(), nlohmann::json::array());
    for (std::uint64_t n : sizes) {
      out << "  " << std::setw(10) << lab::format_bytes(double(n));
      for (std::size_t i = 0; i < paths.size(); ++i) {
        const Path& p = paths[i];
        const lab::Timing timing = time(p, n);
        const std::string name = direction + " " + p.name + " of " + lab::format_bytes(double(n));
        const lab::CheckResult c = check(p, n, name);
        lab::Result& row = direction_rows[i];
        row.checked += c.checked;
        row.wrong += c.mismatches;
        if (c.mismatches > 0) {
          row.failures.push_back(name + ": " + std::to_string(c.mismatches) + " of " +
                                 std::to_string(n) + " bytes wrong");
        }
        medians[i].push_back(timing.time.median);
        const double rate = lab::gigabytes_per_second(double(n), timing.time.median);
        points[i].push_back({{"bytes", n},
                             {"median_s", timing.time.median},
                             {"min_s", timing.time.min},
                             {"gb_per_s", rate}});
        std::ostringstream cell;
        cell << std::fixed << std::setprecision(rate < 10 ? 2 : 1) << rate;
        out << std::setw(14) << cell.str();
        if (n == max) {
          row.variant = direction + " " + p.name;
          row.size = lab::Size("n", std::int64_t(n)).label(lab::format_bytes(double(n)));
          lab::set_timing(row, timing);
          row.rate = rate;
          row.unit = "GB/s";
        }
      }
      out << "\n";
    }
    nlohmann::json direction_fits = nlohmann::json::object();
    for (std::size_t i = 0; i < paths.size(); ++i) {
      const Fit fit = fit_line(sizes, medians[i]);
      lab::Result& row = direction_rows[i];
      std::ostringstream line;
      line << paths[i].how << "; t = a + n/b: a = " << lab::format_seconds(fit.latency_s)
           << ", b = " << std::setprecision(3) << fit.rate << " GB/s, half of b from "
           << lab::format_bytes(fit.half_bytes);
      row.add_note(line.str());
      row.add_note(paths[i].clock_note);
      if (fit.worst_miss > 0.25) {
        std::ostringstream miss;
        miss << "the line misses one size's time by " << std::fixed << std::setprecision(0)
             << 100 * fit.worst_miss
             << "% of that time: these times are not a latency plus a bandwidth alone (caches, "
                "or the "
                "runtime's own costs, change with the size)";
        row.add_note(miss.str());
      }
      row.passed = row.wrong == 0;
      for (const auto& failure : row.failures) std::cerr << "transfers: " << failure << "\n";
      out << "  " << std::left << std::setw(13) << paths[i].name << std::right << line.str()
          << "\n";
      direction_fits[paths[i].name] = {{"latency_s", fit.latency_s},
                                       {"gb_per_s", fit.rate},
                                       {"worst_miss", fit.worst_miss},
                                       {"half_bandwidth_bytes", fit.half_bytes}};
      sweep[direction][paths[i].name] = points[i];
      rows.push_back(std::move(row));
    }
    fits[direction] = direction_fits;
  };

  // Host to device: the source filled once with the pattern; after the timed runs the device
  // buffer is cleared, one more upload made, and the buffer read back with a plain read.
  run_direction(
      "up", std::vector<Path>(std::begin(up_paths), std::end(up_paths)),
      [&](const Path& p, std::uint64_t n) {
        std::memcpy(host_side(p.name, true), pattern.data(), n);
        const auto one = [&] { return upload(p.name, n); };
        return !p.clock_note.empty() ? lab::time_on_host(opt, [&] { one(); })
                                     : lab::time_launches(opt, one, out);
      },
      [&](const Path& p, std::uint64_t n, const std::string& name) {
        clear_device(device, n);
        upload(p.name, n);
        queue.enqueueReadBuffer(device, CL_TRUE, 0, n, seen.data());
        return same_bytes(seen.data(), pattern.data(), n, name);
      });

  // Device to host: the device buffer holds the pattern; the host side is cleared before the
  // last download and compared after it.
  run_direction(
      "down", std::vector<Path>(std::begin(down_paths), std::end(down_paths)),
      [&](const Path& p, std::uint64_t n) {
        queue.enqueueWriteBuffer(device, CL_TRUE, 0, n, pattern.data());
        const auto one = [&] { return download(p.name, n); };
        return !p.clock_note.empty() ? lab::time_on_host(opt, [&] { one(); })
                                     : lab::time_launches(opt, one, out);
      },
      [&](const Path& p, std::uint64_t n, const std::string& name) {
        unsigned char* host = host_side(p.name, false);
        if (p.name == "use_host_ptr") {
          // The host writes a USE_HOST_PTR buffer's array only while it is mapped: written
          // before the map, a runtime that keeps its own copy (a GPU's) would bring the array
          // back up to date over the write when mapping it, and never see it
          void* q = queue.enqueueMapBuffer(use, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, n);
          std::memset(q, 0, n);
          queue.enqueueUnmapMemObject(use, q);
          queue.finish();
        } else {
          std::memset(host, 0, n);
        }
        if (p.name != "use_host_ptr") {
          download(p.name, n);
          return same_bytes(host, pattern.data(), n, name);
        }
        // The array holds the buffer's bytes while it is mapped: compared then
        queue.enqueueCopyBuffer(device, use, 0, 0, n);
        void* q = queue.enqueueMapBuffer(use, CL_TRUE, CL_MAP_READ, 0, n);
        const lab::CheckResult c =
            same_bytes(static_cast<unsigned char*>(q), pattern.data(), n, name);
        queue.enqueueUnmapMemObject(use, q);
        queue.finish();
        return c;
      });

  // Device to device, and memcpy between two host arrays: the yardsticks on either side.
  run_direction(
      "device", {{"copy", "enqueueCopyBuffer between two device buffers"}},
      [&](const Path&, std::uint64_t n) {
        queue.enqueueWriteBuffer(device, CL_TRUE, 0, n, pattern.data());
        return lab::time_launches(
            opt,
            [&] {
              cl::Event event;
              queue.enqueueCopyBuffer(device, device2, 0, 0, n, nullptr, &event);
              event.wait();
              return event;
            },
            out);
      },
      [&](const Path&, std::uint64_t n, const std::string& name) {
        clear_device(device2, n);
        queue.enqueueCopyBuffer(device, device2, 0, 0, n);
        queue.enqueueReadBuffer(device2, CL_TRUE, 0, n, seen.data());
        return same_bytes(seen.data(), pattern.data(), n, name);
      });
  run_direction(
      "host", {{"memcpy", "std::memcpy between two new[] arrays", "timed on the host's clock"}},
      [&](const Path&, std::uint64_t n) {
        return lab::time_on_host(opt,
                                 [&] { std::memcpy(pageable_out.get(), pageable_in.get(), n); });
      },
      [&](const Path&, std::uint64_t n, const std::string& name) {
        std::memcpy(pageable_in.get(), pattern.data(), n);
        std::memset(pageable_out.get(), 0, n);
        std::memcpy(pageable_out.get(), pageable_in.get(), n);
        return same_bytes(pageable_out.get(), pattern.data(), n, name);
      });
  lab::mark_peer(rows.back());

  // What a map costs by itself at the largest size: on a device that shares the host's memory
  // (a CPU) the map hands back the buffer's own bytes and takes no time that grows with n.
  cl::Event map_event, unmap_event;
  void* mapped = queue.enqueueMapBuffer(device, CL_FALSE, CL_MAP_READ, 0, max, nullptr, &map_event);
  map_event.wait();
  queue.enqueueUnmapMemObject(device, mapped, nullptr, &unmap_event);
  unmap_event.wait();
  const double map_s = lab::event_times(map_event).start_to_end.count() * 1e-9;
  const double memcpy_s = rows.back().time ? rows.back().time->median : 0;
  const bool zero_copy = map_s < 0.1 * memcpy_s;
  details["map_read_s"] = map_s;
  details["map_is_zero_copy"] = zero_copy;

  queue.enqueueUnmapMemObject(pinned, staging);
  queue.finish();

  // What a transfer is on this device, from the figures: each path's rate at the largest size
  // against memcpy's on the host.
  const double host_rate = rows.back().rate;
  std::ostringstream said;
  said << "At " << lab::format_bytes(double(max)) << ", mapping the whole device buffer took "
       << lab::format_seconds(map_s)
       << " (memcpy of as many bytes: " << lab::format_seconds(memcpy_s) << ")";
  if (zero_copy) {
    said << ": the map hands back the buffer's own memory, so the device's memory is the host's "
            "and a transfer here is at most a memcpy.";
  } else {
    said << ": the map copies, so the buffer lives apart from the host's memory.";
  }
  for (const lab::Result& row : rows) {
    if (row.peer || host_rate <= 0 || row.variant == "device copy") continue;
    said << " " << row.variant << " " << std::fixed << std::setprecision(2) << row.rate / host_rate
         << "x memcpy;";
  }
  std::string text = said.str();
  if (!text.empty() && text.back() == ';') text.back() = '.';
  out << "\n";
  lab::print_wrapped(out, "", text, 0);
  details["finding"] = text;
  details["sweep"] = sweep;
  details["fits"] = fits;
  details["sizes_bytes"] = sizes;
  return rows;
}

}  // namespace transfers
