// flags.cpp: buffer_flags' demonstrations and timed matmul.
#include "flags.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <sstream>

namespace flags {
namespace {

// The demonstrations' kernels, checked against the kernel file (a student's copy too).
cl::Kernel demo_kernel(Demos& d, const std::string& name) {
  std::vector<lab::KernelArg> args{{"", "ulong", "n"}};
  if (name == "scale") {
    args.push_back({"global", "int*", "src"});
    args.push_back({"global", "int*", "dst"});
  } else if (name == "fill") {
    args.push_back({"global", "int*", "dst"});
  } else {
    args.push_back({"global", "int*", "a"});
    args.push_back({"global", "int*", "b"});
    args.push_back({"global", "int*", "c"});
  }
  return lab::make_kernel(d.program, {name, args});
}

cl::EnqueueArgs launch_args(Demos& d, const cl::Kernel& kernel) {
  return lab::plan_1d(kernel, d.env.device, d.n, 64).args(d.env.queue);
}

// Waits for a demonstration's kernel and records it in --trace.
void wait_and_trace(const cl::Event& event, const std::string& name) {
  event.wait();
  lab::trace_command(event, name);
}

// An output with guard zones as long as the padded launch overshoots n: a kernel without its
// bounds check writes there, not into other memory, and the row says so.
using Output = lab::GuardedBuffer<cl_int>;
Output output(Demos& d, lab::BufferMode mode, const cl_int* initial = nullptr) {
  return Output(d.env, mode, CL_MEM_WRITE_ONLY, d.n, lab::round_up(d.n, 64) - d.n, initial);
}

lab::Result demo_row(Demos& d, const std::string& part, const lab::CheckResult& check,
                     const Output& out, const std::string& name) {
  lab::Result row;
  row.variant = part;
  row.size = lab::Size("n", std::int64_t(d.n));
  lab::set_check(row, check);
  const lab::GuardCheck guard = out.check_guards(d.env.queue);
  row.out_of_bounds = guard.total();
  if (guard.total() > 0) {
    d.err << "buffer_flags: " << part << ": "
          << lab::describe_guard_writes(guard, name,
                                        "padding work-items need the bounds check `if (i < n)`")
          << "\n";
    row.passed = false;
  }
  return row;
}

std::size_t count_equal(const cl_int* got, const std::vector<cl_int>& want) {
  std::size_t same = 0;
  for (std::size_t i = 0; i < want.size(); ++i) same += got[i] == want[i] ? 1 : 0;
  return same;
}

// What the host array shows without a map or read: the device's choice, not a promise.
void say_device_not_rule(std::ostream& out, std::size_t visible, std::uint64_t n) {
  if (visible == n) {
    out << "  This device computed in the host array itself (zero-copy, as a CPU device or an "
           "integrated GPU does). That is the device, not the rule: OpenCL promises the results "
           "only after a map or a read, and a discrete GPU may keep them in its own memory until "
           "then.\n";
  } else {
    out << "  The host array was not up to date until the map: this device keeps its own copy, "
           "which is why OpenCL promises the results only after a map or a read.\n";
  }
}

}  // namespace

const std::vector<std::string>& mode_names() {
  static const std::vector<std::string> names{"copy", "use", "alloc", "write", "map"};
  return names;
}

Mode parse_mode(const std::string& name) {
  const auto& names = mode_names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) {
    throw lab::UsageError("--modes: '" + name +
                          "' is not a buffer mode: choose from copy, use, alloc, write, map");
  }
  return static_cast<Mode>(it - names.begin());
}

std::pair<Mode, Mode> parse_pair(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) return {parse_mode(text), parse_mode(text)};
  return {parse_mode(text.substr(0, slash)), parse_mode(text.substr(slash + 1))};
}

std::string flag_name(Mode mode) {
  switch (mode) {
    case Mode::copy:
      return "CL_MEM_COPY_HOST_PTR";
    case Mode::use:
      return "CL_MEM_USE_HOST_PTR";
    case Mode::alloc:
      return "CL_MEM_ALLOC_HOST_PTR";
    case Mode::write:
      return "no host flag, write/read";
    case Mode::map:
      return "no host flag, map/unmap";
  }
  return "";
}

std::vector<lab::Part> parts() {
  return {{"copy_snapshot", "buffer_flags.cl"},
          {"use_visibility", "buffer_flags.cl"},
          {"alloc_map", "buffer_flags.cl"},
          {"nofetch_finish", "buffer_flags.cl"},
          {"timing", "", {"matmul_naive.cl"}}};
}

lab::Result copy_snapshot(Demos& d) {
  const std::size_t bytes = d.n * sizeof(cl_int);
  auto host = lab::random_vector<cl_int>(d.n, lab::derive_seed(d.options.seed, 10), -1000, 1000);
  std::vector<cl_int> want(d.n), changed(d.n);
  cl::Buffer src(d.env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, host.data());
  // The host array changes after the buffer was made: the device must not see the change.
  for (std::size_t i = 0; i < d.n; ++i) {
    want[i] = 2 * host[i] + 1;
    host[i] = -host[i] - 7;
    changed[i] = 2 * host[i] + 1;
  }
  Output dst = output(d, lab::BufferMode::write);
  cl::KernelFunctor<cl_ulong, cl::Buffer, cl::Buffer> scale(demo_kernel(d, "scale"));
  wait_and_trace(scale(launch_args(d, scale.getKernel()), d.n, src, dst.buffer()), "scale");
  std::vector<cl_int> got(d.n);
  d.env.queue.enqueueReadBuffer(dst.buffer(), CL_TRUE, 0, bytes, got.data());

  const std::size_t saw_change = count_equal(got.data(), changed);
  d.out << "copy_snapshot: made src with " << flag_name(Mode::copy)
        << ", then changed every element of the host array; the kernel computed 2*src+1 from the "
           "values of creation time in "
        << count_equal(got.data(), want) << " of " << d.n << " elements, from the changed ones in "
        << saw_change << ".\n";
  const lab::CheckResult check =
      lab::compare(got.data(), want.data(), d.n, lab::Tolerance::exact(), d.err, "dst");
  // Most elements, as a runtime that does not copy would give; a wrong index in the student's
  // kernel matches a changed value in a few elements by chance, and is the mismatches' to explain.
  if (saw_change > d.n / 2) {
    d.err << "buffer_flags: copy_snapshot: the kernel saw the host array's later values in "
          << saw_change << " elements: COPY_HOST_PTR must copy the array when the buffer is made\n";
  }
  return demo_row(d, "copy_snapshot", check, dst, "dst");
}

lab::Result use_visibility(Demos& d) {
  const std::vector<cl_int> unset(d.n, -1);  // fill writes 7i+3, never -1
  std::vector<cl_int> want(d.n);
  for (std::size_t i = 0; i < d.n; ++i) want[i] = static_cast<cl_int>(7 * i + 3);
  Output buf = output(d, lab::BufferMode::use, unset.data());  // the host array is buf.host()
  const cl_int* host = buf.host();
  cl::KernelFunctor<cl_ulong, cl::Buffer> fill(demo_kernel(d, "fill"));
  wait_and_trace(fill(launch_args(d, fill.getKernel()), d.n, buf.buffer()), "fill");
  d.env.queue.finish();

  const std::size_t before = count_equal(host, want);
  lab::CheckResult check;
  bool same_memory = false;
  {
    const lab::Mapping<cl_int> view(d.env.queue, buf.buffer(), CL_MAP_READ, d.n);
    same_memory = view.data() == host;
    check = lab::compare(view.data(), want.data(), d.n, lab::Tolerance::exact(), d.err, "buf");
  }
  d.out << "use_visibility: the kernel wrote a " << flag_name(Mode::use)
        << " buffer; after clFinish and before any map, " << before << " of " << d.n
        << " elements were visible in the host array; after the map, " << (d.n - check.mismatches)
        << " (the map returned " << (same_memory ? "the host array itself" : "another pointer")
        << ").\n";
  say_device_not_rule(d.out, before, d.n);
  return demo_row(d, "use_visibility", check, buf, "buf");
}

lab::Result alloc_map(Demos& d) {
  const std::size_t bytes = d.n * sizeof(cl_int);
  const auto values =
      lab::random_vector<cl_int>(d.n, lab::derive_seed(d.options.seed, 11), -1000, 1000);
  cl::Buffer buf(d.env.context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes);
  const void* written_at = nullptr;
  {
    // The runtime's memory, handed to the host by a map: no host array of our own.
    const lab::Mapping<cl_int> view(d.env.queue, buf, CL_MAP_WRITE_INVALIDATE_REGION, d.n);
    written_at = view.data();
    std::copy(values.begin(), values.end(), view.data());
  }
  Output dst = output(d, lab::BufferMode::write);
  cl::KernelFunctor<cl_ulong, cl::Buffer, cl::Buffer> scale(demo_kernel(d, "scale"));
  wait_and_trace(scale(launch_args(d, scale.getKernel()), d.n, buf, dst.buffer()), "scale");
  std::vector<cl_int> got(d.n), want(d.n);
  for (std::size_t i = 0; i < d.n; ++i) want[i] = 2 * values[i] + 1;
  d.env.queue.enqueueReadBuffer(dst.buffer(), CL_TRUE, 0, bytes, got.data());
  lab::CheckResult check =
      lab::compare(got.data(), want.data(), d.n, lab::Tolerance::exact(), d.err, "dst");
  bool same_pointer = false;
  {
    const lab::Mapping<cl_int> view(d.env.queue, buf, CL_MAP_READ, d.n);
    same_pointer = view.data() == written_at;
    const lab::CheckResult kept =
        lab::compare(view.data(), values.data(), d.n, lab::Tolerance::exact(), d.err, "buf");
    if (!kept.passed()) {
      d.err << "buffer_flags: alloc_map: the buffer no longer holds what the host wrote through "
               "the map\n";
      check.mismatches += kept.mismatches;
    }
  }
  d.out << "alloc_map: " << flag_name(Mode::alloc)
        << " memory filled through a map, read by the kernel: " << (d.n - check.mismatches)
        << " of " << d.n << " elements right; the map for reading returned "
        << (same_pointer ? "the same pointer as the map for writing (the buffer lives there)"
                         : "a different pointer from the map for writing (a staging copy)")
        << ".\n";
  return demo_row(d, "alloc_map", check, dst, "dst");
}

lab::Result nofetch_finish(Demos& d) {
  const std::size_t bytes = d.n * sizeof(cl_int);
  auto a = lab::random_vector<cl_int>(d.n, lab::derive_seed(d.options.seed, 12), -1000, 1000);
  auto b = lab::random_vector<cl_int>(d.n, lab::derive_seed(d.options.seed, 13), -1000, 1000);
  std::vector<cl_int> want(d.n);
  for (std::size_t i = 0; i < d.n; ++i) want[i] = a[i] + b[i];
  cl::Buffer a_buf(d.env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, a.data());
  cl::Buffer b_buf(d.env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, b.data());
  // C starts as 0x5A5A5A5A, no sum of two values in [-1000, 1000]; the host array is c.host().
  Output c = output(d, lab::BufferMode::use);
  cl::KernelFunctor<cl_ulong, cl::Buffer, cl::Buffer, cl::Buffer> add(demo_kernel(d, "add"));
  wait_and_trace(add(launch_args(d, add.getKernel()), d.n, a_buf, b_buf, c.buffer()), "add");
  d.env.queue.finish();  // vectorAdd-nofetchC-finish of Liu's Intermediate OpenCL Programming:
                         // wait, then look at C

  const std::size_t right = count_equal(c.host(), want);
  lab::CheckResult check;
  {
    const lab::Mapping<cl_int> view(d.env.queue, c.buffer(), CL_MAP_READ, d.n);
    check = lab::compare(view.data(), want.data(), d.n, lab::Tolerance::exact(), d.err, "c");
  }
  d.out << "nofetch_finish: A and B " << flag_name(Mode::copy) << ", C " << flag_name(Mode::use)
        << "; after clFinish, without a map or a read, " << right << " of " << d.n
        << " elements of the host array C held A+B (the lab's check maps C first).\n";
  say_device_not_rule(d.out, right, d.n);
  return demo_row(d, "nofetch_finish", check, c, "c");
}

}  // namespace flags
