// timing.cpp: buffer_flags' timed matmul, one run per buffer mode of A and B with C fixed.
#include "flags.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <ostream>
#include <sstream>

namespace flags {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A buffer made the way `mode` says, from `host` (count ints) where the mode takes a host array.
cl::Buffer make_buffer(const lab::Env& env, Mode mode, cl_mem_flags access, std::size_t bytes,
                       cl_int* host) {
  switch (mode) {
    case Mode::copy:
      return cl::Buffer(env.context, access | CL_MEM_COPY_HOST_PTR, bytes, host);
    case Mode::use:
      return cl::Buffer(env.context, access | CL_MEM_USE_HOST_PTR, bytes, host);
    case Mode::alloc:
      return cl::Buffer(env.context, access | CL_MEM_ALLOC_HOST_PTR, bytes);
    case Mode::write:
    case Mode::map:
      break;
  }
  return cl::Buffer(env.context, access, bytes);
}

// The timeline's words for one run, so that the picture reads next to the table: a command on a
// buffer is "write A (write)", "map C (use)", in that buffer's mode, and the kernel is
// "kernel matmul_naive (copy/use)", in its row's modes of A and B (the table's first column). The
// args repeat the modes and number the run, warm-ups marked as lab::time_launches marks them.
struct RunTrace {
  std::string row;  // the row's modes of A and B, as --modes gave them
  Mode a, b, c;
  bool warmup;
  int run;  // from 1, among the runs of its kind (warm-up or timed)

  static const std::string& name(Mode mode) { return mode_names()[static_cast<int>(mode)]; }

  nlohmann::json args() const {
    nlohmann::json args{{"A", name(a)}, {"B", name(b)}, {"C", name(c)}, {"row", row}, {"run", run}};
    if (warmup) args["warm-up"] = true;
    return args;
  }
  // `command` ("write", "map", ...) of `event` on `buffer` ('A', 'B' or 'C').
  void record(const cl::Event& event, const std::string& command, char buffer) const {
    const Mode mode = buffer == 'A' ? a : buffer == 'B' ? b : c;
    lab::trace_command(event, command + " " + buffer + " (" + name(mode) + ")", args());
  }
  void record_kernel(const cl::Event& event) const {
    lab::trace_command(event, "kernel matmul_naive (" + row + ")", args());
  }
};

// A blocking map of `count` ints whose map and unmap are slices of the timeline (lab::Mapping
// keeps its events to itself, and the unmap is where a driver may copy the data back); unmapped
// when it goes out of scope.
class TracedMap {
 public:
  TracedMap(const cl::CommandQueue& queue, const cl::Buffer& buffer, cl_map_flags flags,
            std::size_t count, const RunTrace& trace, char name)
      : queue_(queue), buffer_(buffer), trace_(trace), name_(name) {
    cl::Event mapped;
    data_ = static_cast<cl_int*>(queue_.enqueueMapBuffer(buffer_, CL_TRUE, flags, 0,
                                                         count * sizeof(cl_int), nullptr, &mapped));
    trace_.record(mapped, "map", name_);
  }
  TracedMap(const TracedMap&) = delete;
  TracedMap& operator=(const TracedMap&) = delete;
  ~TracedMap() {
    try {
      unmap();
    } catch (const cl::Error&) {
      // Unmapping fails only when the queue is already broken, and the error that broke it is
      // the one being reported.
    }
  }

  cl_int* data() const { return data_; }

  void unmap() {
    if (data_ == nullptr) return;
    cl::Event done;
    queue_.enqueueUnmapMemObject(buffer_, data_, nullptr, &done);
    data_ = nullptr;
    done.wait();
    trace_.record(done, "unmap", name_);
  }

 private:
  cl::CommandQueue queue_;
  cl::Buffer buffer_;
  const RunTrace& trace_;
  char name_;
  cl_int* data_ = nullptr;
};

// Puts `host` into buffer `name` (A or B), made by make_buffer, where the mode needs a step for
// that.
void upload(const lab::Env& env, Mode mode, const cl::Buffer& buffer, const cl_int* host,
            std::size_t count, const RunTrace& trace, char name) {
  if (mode == Mode::write) {
    cl::Event event;
    env.queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, count * sizeof(cl_int), host, nullptr, &event);
    trace.record(event, "write", name);
  } else if (mode == Mode::alloc || mode == Mode::map) {
    const TracedMap view(env.queue, buffer, CL_MAP_WRITE_INVALIDATE_REGION, count, trace, name);
    std::copy(host, host + count, view.data());
  }  // copy: done at creation; use: the buffer is the host array
}

struct Stages {
  std::vector<double> create, upload, kernel, download, total;
};

}  // namespace

std::vector<lab::Result> time_modes(lab::Env& env, const lab::Options& options,
                                    const Settings& settings, std::ostream& out, std::ostream& err,
                                    nlohmann::json& details) {
  // 3. Host data and reference: small integers, so C is exact
  const std::uint64_t n = settings.n, count = n * n;
  const std::size_t bytes = count * sizeof(cl_int);
  auto a = lab::random_vector<cl_int>(count, lab::derive_seed(options.seed, 20), -8, 8);
  auto b = lab::random_vector<cl_int>(count, lab::derive_seed(options.seed, 21), -8, 8);
  std::vector<cl_int> reference(count, 0);
  for (std::uint64_t i = 0; i < n; ++i) {
    for (std::uint64_t k = 0; k < n; ++k) {
      const cl_int aik = a[i * n + k];
      for (std::uint64_t j = 0; j < n; ++j) reference[i * n + j] += aik * b[k * n + j];
    }
  }

  // 5. Program and kernel: matmul's naive kernel on int, in 16x16 groups
  const lab::Program program = lab::build_program(env, options, "matmul_naive.cl",
                                                  {{"REAL", "int", ""}}, out, /*main_file=*/false);
  cl::KernelFunctor<cl_int, cl_int, cl_int, cl::Buffer, cl::Buffer, cl::Buffer> matmul(
      lab::make_kernel(program, {"matmul_naive",
                                 {{"", "int", "M"},
                                  {"", "int", "N"},
                                  {"", "int", "K"},
                                  {"global", "int*", "A"},
                                  {"global", "int*", "B"},
                                  {"global", "int*", "C"}}}));
  const std::uint64_t side = lab::round_up(n, 16);
  // C has room for every element the padded launch can reach (index (side-1)*n + side-1 at most):
  // a kernel without its bounds check writes there, the check below counts it, and no other
  // memory is harmed.
  const std::uint64_t c_count = side * side;
  const std::size_t c_bytes = c_count * sizeof(cl_int);
  const cl::EnqueueArgs args(env.queue, cl::NDRange(side, side), cl::NDRange(16, 16));
  const Mode c_mode = parse_mode(settings.c_mode);

  out << "\ntiming: C = A*B (int, N = " << n << ", the naive kernel), C made with "
      << flag_name(c_mode) << "; per run, on the host clock: create the three buffers, upload A "
      << "and B, the kernel (its event), download C (a read or a map), and the total\n";
  char line[200];
  std::snprintf(line, sizeof line, "  %-34s %10s %10s %10s %10s %10s\n", "A and B", "create",
                "upload", "kernel", "download", "total");
  out << line;

  std::vector<lab::Result> rows;
  double best = 0;
  std::string fastest;
  bool reported = false;
  for (const std::string& name : settings.modes) {
    const auto [a_mode, b_mode] = parse_pair(name);
    Stages st;
    std::size_t wrong = 0, outside = 0;
    std::vector<lab::Mismatch> first;
    for (int run = 0; run < options.warmup + options.reps; ++run) {
      lab::HostVector<cl_int> c(c_count, 0x5A5A5A5A);
      lab::HostVector<cl_int> a_host(a.begin(), a.end()), b_host(b.begin(), b.end());
      std::vector<cl_int> result;
      const bool warmup = run < options.warmup;
      const int number = warmup ? run + 1 : run - options.warmup + 1;
      const RunTrace trace{name, a_mode, b_mode, c_mode, warmup, number};
      const auto start = Clock::now();
      // 4. Buffers
      cl::Buffer a_buf = make_buffer(env, a_mode, CL_MEM_READ_ONLY, bytes, a_host.data());
      cl::Buffer b_buf = make_buffer(env, b_mode, CL_MEM_READ_ONLY, bytes, b_host.data());
      cl::Buffer c_buf = make_buffer(env, c_mode, CL_MEM_WRITE_ONLY, c_bytes, c.data());
      const double create = since(start);
      if (c_mode != Mode::copy && c_mode != Mode::use && c_count > count) {
        // The padding past C starts as the sentinel too (copy and use took it from c).
        cl::Event fill;
        env.queue.enqueueFillBuffer(c_buf, cl_int{0x5A5A5A5A}, bytes, c_bytes - bytes, nullptr,
                                    &fill);
        env.queue.finish();
        trace.record(fill, "fill", 'C');
      }
      auto step = Clock::now();
      upload(env, a_mode, a_buf, a_host.data(), count, trace, 'A');
      upload(env, b_mode, b_buf, b_host.data(), count, trace, 'B');
      const double uploaded = since(step);
      // 6. Run
      cl::Event event = matmul(args, cl_int(n), cl_int(n), cl_int(n), a_buf, b_buf, c_buf);
      event.wait();
      trace.record_kernel(event);
      step = Clock::now();
      // Download: a read into a host array, or a map that hands one back.
      std::optional<TracedMap> view;
      const cl_int* got = nullptr;
      if (c_mode == Mode::write || c_mode == Mode::copy) {
        result.resize(c_count);
        cl::Event read;
        env.queue.enqueueReadBuffer(c_buf, CL_TRUE, 0, c_bytes, result.data(), nullptr, &read);
        trace.record(read, "read", 'C');
        got = result.data();
      } else {
        view.emplace(env.queue, c_buf, CL_MAP_READ, c_count, trace, 'C');
        got = view->data();
      }
      const double downloaded = since(step);
      const double total = since(start);
      // 7. Verify every run
      std::ostringstream quiet;
      const lab::CheckResult check =
          lab::compare(got, reference.data(), count, lab::Tolerance::exact(),
                       reported ? quiet : err, "C (A and B " + name + ")");
      const std::size_t past = static_cast<std::size_t>(
          std::count_if(got + count, got + c_count, [](cl_int v) { return v != 0x5A5A5A5A; }));
      if (past > 0 && !reported) {
        err << "buffer_flags: timing: the kernel wrote " << past
            << " elements past the end of C: padding work-items need the bounds check `if (i < M "
               "&& j < N)`\n";
      }
      reported = reported || !check.passed() || past > 0;
      if (warmup) continue;
      wrong += check.mismatches;
      outside += past;
      if (first.empty()) first = check.first;
      const auto stages = lab::event_times(event);
      st.create.push_back(create);
      st.upload.push_back(uploaded);
      st.kernel.push_back(std::chrono::duration<double>(stages.start_to_end).count());
      st.download.push_back(downloaded);
      st.total.push_back(total);
    }
    const auto median = [](const std::vector<double>& v) { return lab::summarize(v).median; };
    const std::string label = a_mode == b_mode ? name + " (" + flag_name(a_mode) + ")" : name;
    std::snprintf(line, sizeof line, "  %-34s %10s %10s %10s %10s %10s\n", label.c_str(),
                  lab::format_seconds(median(st.create)).c_str(),
                  lab::format_seconds(median(st.upload)).c_str(),
                  lab::format_seconds(median(st.kernel)).c_str(),
                  lab::format_seconds(median(st.download)).c_str(),
                  lab::format_seconds(median(st.total)).c_str());
    out << line;
    details[name] = {
        {"create_median_s", median(st.create)}, {"upload_median_s", median(st.upload)},
        {"kernel_median_s", median(st.kernel)}, {"download_median_s", median(st.download)},
        {"total_median_s", median(st.total)},   {"c_mode", settings.c_mode}};

    lab::Result row;
    row.variant = "timing A,B=" + name + " C=" + settings.c_mode;
    row.size = lab::Size("n", std::int64_t(n)).label("N=" + std::to_string(n));
    row.time = lab::summarize(st.total);
    row.clock = "host";
    row.warmup = options.warmup;
    row.rate = lab::gigaflops(2.0 * double(n) * double(n) * double(n), row.time->median);
    row.unit = "GOP/s";
    row.checked = count * st.total.size();
    row.wrong = wrong;
    row.mismatches = first;
    row.out_of_bounds = outside;
    row.passed = wrong == 0 && outside == 0;
    if (best == 0 || row.time->median < best) {
      best = row.time->median;
      fastest = name;
    }
    rows.push_back(row);
  }
  out << "Fastest end to end on this device: A and B as " << fastest << " ("
      << lab::format_seconds(best) << " a run, creation to C on the host).\n\n";
  details["fastest"] = fastest;
  return rows;
}

}  // namespace flags
