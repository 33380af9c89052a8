// test_device.cpp: device choice and launch checks on the test platform (PoCL under CTest).
#include "lab/bandwidth.hpp"
#include "lab/device.hpp"
#include "lab/error.hpp"
#include "lab/ndrange.hpp"
#include "lab/timing.hpp"

#include "support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace {

using test::suite_options;

std::string usage_message(const lab::Options& options) {
  try {
    lab::choose_device(lab::all_devices(), options);
  } catch (const lab::UsageError& e) {
    return e.what();
  }
  return "chosen";
}

std::string launch_message(const std::vector<std::uint64_t>& global,
                           const std::vector<std::uint64_t>& local) {
  const lab::Options options = suite_options();
  std::ostringstream out;
  const lab::Env env = lab::open_device(options, out);
  cl::Program program(env.context, "__kernel void k(__global int* x) { x[get_global_id(0)] = 1; }");
  program.build(std::vector<cl::Device>{env.device}, "");
  const cl::Kernel kernel(program, "k");
  try {
    lab::check_ndrange(kernel, env.device, global, local);
  } catch (const lab::Error& e) {
    return std::to_string(e.exit_code()) + " " + e.what();
  }
  return "ok";
}

// A launch that notes `mark` in `order`, then fills `buffer`'s first 4096 bytes: a run whose turn
// in the sequence the timing functions make can be checked.
template <typename Mark>
std::function<cl::Event()> recorded_fill(lab::Env& env, const cl::Buffer& buffer,
                                         std::vector<Mark>& order, Mark mark) {
  return [&env, buffer, &order, mark] {
    order.push_back(mark);
    cl::Event event;
    env.queue.enqueueFillBuffer(buffer, cl_int(mark), 0, 4096, nullptr, &event);
    return event;
  };
}

}  // namespace

TEST(Devices, ListIsNumberedInOrder) {
  const auto devices = lab::all_devices();
  ASSERT_FALSE(devices.empty());
  for (std::size_t i = 0; i < devices.size(); ++i) EXPECT_EQ(devices[i].index, static_cast<int>(i));
  const auto platforms = lab::all_platforms();
  EXPECT_LT(static_cast<std::size_t>(devices.back().platform_index), platforms.size());
}

TEST(Devices, ChoiceByPlatformNameIndexAndType) {
  lab::Options options;
  options.platform = "pocl";
  const auto chosen = lab::choose_device(lab::all_devices(), options);
  EXPECT_NE(chosen.device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU, 0u);
  options.device = "0";
  EXPECT_EQ(lab::choose_device(lab::all_devices(), options).device_index, 0);
  options.type = "cpu";
  EXPECT_EQ(usage_message(options), "chosen");
}

TEST(Devices, BadChoicesSayWhatToDo) {
  lab::Options options;
  options.platform = "no-such-platform";
  EXPECT_NE(usage_message(options).find("no platform matches -p 'no-such-platform'"),
            std::string::npos);
  options.platform = "99";
  EXPECT_NE(usage_message(options).find("--list"), std::string::npos);
  options.platform = "pocl";
  options.device = "99";
  EXPECT_NE(usage_message(options).find("no device 99"), std::string::npos);
  options.device = "no-such-device";
  EXPECT_NE(usage_message(options).find("no device name contains 'no-such-device'"),
            std::string::npos);
  options.device.clear();
  options.type = "gpu";
  EXPECT_NE(usage_message(options).find("no gpu device"), std::string::npos);
}

TEST(Devices, OpenDevicePrintsOneLine) {
  const lab::Options options = suite_options();
  std::ostringstream out;
  const lab::Env env = lab::open_device(options, out);
  const std::string line = out.str();
  EXPECT_EQ(line.rfind("Device: ", 0), 0u);
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1);
  EXPECT_NE(line.find(env.opencl_c_version()), std::string::npos);
}

TEST(LaunchCheck, ExplainsWorkGroupProblemsWithNumbers) {
  EXPECT_EQ(launch_message({16}, {4}), "ok");
  EXPECT_EQ(launch_message({16}, {}), "ok");
  const std::string not_dividing = launch_message({16}, {5});
  EXPECT_EQ(not_dividing.rfind("3 ", 0), 0u) << not_dividing;
  EXPECT_NE(not_dividing.find("local size 5 does not divide global size 16"), std::string::npos);
  EXPECT_NE(not_dividing.find("pad the global size to 20"), std::string::npos);
  EXPECT_NE(not_dividing.find("(16, 8, 4, 2)"), std::string::npos) << not_dividing;
  const std::string too_big = launch_message({1u << 20}, {1u << 19});
  EXPECT_NE(too_big.find("exceeds"), std::string::npos) << too_big;
  EXPECT_NE(launch_message({4, 4, 4, 4}, {}).find("1, 2 or 3 dimensions"), std::string::npos);
  EXPECT_EQ(launch_message({4, 4, 4, 4}, {}).rfind("2 ", 0), 0u);
  EXPECT_NE(launch_message({8, 8}, {4}).find("one local size per global dimension"),
            std::string::npos);
}

// What compiled_launch_message returns, followed by the build log, when the kernel does not build.
constexpr char kBuildFailed[] = "build failed";

// check_ndrange on a kernel built from `source` with `flags`: "ok", the exit code and sentence, or
// kBuildFailed and the compiler's log (which every caller prints, so a failure says why).
std::string compiled_launch_message(const std::string& source, const std::string& flags,
                                    const std::vector<std::uint64_t>& local,
                                    const lab::LaunchLimits& limits) {
  std::ostringstream out;
  const lab::Env env = lab::open_device(suite_options(), out);
  cl::Program program(env.context, source);
  try {
    program.build(std::vector<cl::Device>{env.device}, flags.c_str());
  } catch (const cl::Error& e) {
    return std::string(kBuildFailed) + " (" + e.what() + ", " + std::to_string(e.err()) +
           ") with \"" + flags + "\":\n" + program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(env.device);
  }
  const cl::Kernel kernel(program, "k");
  try {
    lab::check_ndrange(kernel, env.device, local, local, limits);
  } catch (const lab::Error& e) {
    return std::to_string(e.exit_code()) + " " + e.what();
  }
  return "ok";
}

// The kernel the local-memory checks build: N floats of __local memory.
constexpr char kLocalTile[] =
    "__kernel void k(__global float* x) { __local float t[N]; t[get_local_id(0)] = 1;"
    " barrier(CLK_LOCAL_MEM_FENCE); x[get_global_id(0)] = t[0]; }";

// The device the suite pins, and the limits of a kLocalTile launch, whose advice names N.
cl::Device suite_device() {
  std::ostringstream out;
  return lab::open_device(suite_options(), out).device;
}
lab::LaunchLimits tile_limits() {
  lab::LaunchLimits limits;
  limits.local_advice = "choose a smaller N (--n)";
  return limits;
}

// Build options that give kLocalTile an array of n floats.
std::string tile_flags(std::uint64_t n) { return "-DN=" + std::to_string(n); }

// __local arrays beyond the device's local memory are refused before the launch, the sentence
// ending with the caller's advice. A GPU compiler (NVIDIA's) may refuse such a kernel at build time
// instead, which this test cannot change: only then is it skipped, and only once the same source
// and options with an array that fits have built, so the size is the one reason the build failed.
// A CPU device (PoCL, the suite's) takes __local arrays from host memory and builds any size, so
// there every build failure is a defect and fails the test with its log.
TEST(LaunchCheck, RefusesLocalArraysBeyondTheDevice) {
  const cl::Device device = suite_device();
  const std::uint64_t local_mem = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  lab::LaunchLimits limits = tile_limits();
  limits.tuning = "N=" + std::to_string(local_mem);
  const std::string too_much =
      compiled_launch_message(kLocalTile, tile_flags(local_mem), {4}, limits);
  const bool cpu = (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) != 0;
  if (!cpu && too_much.rfind(kBuildFailed, 0) == 0) {
    const std::string fits = compiled_launch_message(kLocalTile, tile_flags(16), {4}, limits);
    ASSERT_EQ(fits, "ok") << "the kernel does not build even with an array that fits, so its "
                             "size is not why the large one failed:\n"
                          << too_much;
    GTEST_SKIP() << "the device's compiler refuses " << local_mem
                 << " floats of __local memory at build time, so check_ndrange never sees the "
                    "kernel:\n"
                 << too_much;
  }
  EXPECT_EQ(too_much.rfind("3 k needs ", 0), 0u) << too_much;
  EXPECT_NE(too_much.find("(CL_KERNEL_LOCAL_MEM_SIZE), but the device has " +
                          lab::format_bytes(double(local_mem)) + ": choose a smaller N (--n)"),
            std::string::npos)
      << too_much;
}

// Limits read from the compiled kernel: its __local arrays plus __local arguments against the
// device's local memory, its reqd_work_group_size against the launch, and on a CPU the group's
// private arrays against a thread's stack, each sentence ending with the caller's advice.
TEST(LaunchCheck, UsesTheCompiledKernelsLimits) {
  const cl::Device device = suite_device();
  const std::uint64_t local_mem = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  lab::LaunchLimits limits = tile_limits();
  limits.tuning = "N=16";
  EXPECT_EQ(compiled_launch_message(kLocalTile, tile_flags(16), {4}, limits), "ok");
  limits.dynamic_local_bytes = local_mem;
  const std::string with_arguments =
      compiled_launch_message(kLocalTile, tile_flags(16), {4}, limits);
  EXPECT_NE(with_arguments.find("plus its __local arguments"), std::string::npos) << with_arguments;

  const std::string fixed =
      "__kernel __attribute__((reqd_work_group_size(8, 1, 1))) void k(__global float* x) {"
      " x[get_global_id(0)] = 1; }";
  EXPECT_EQ(compiled_launch_message(fixed, "", {8}, {}), "ok");
  const std::string other_size = compiled_launch_message(fixed, "", {4}, {});
  EXPECT_NE(other_size.find("was compiled for work-groups of 8x1x1 (reqd_work_group_size), but "
                            "the launch uses 4"),
            std::string::npos)
      << other_size;

  if (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) {
    lab::LaunchLimits stack;
    stack.private_bytes = lab::cpu_private_budget();
    stack.private_advice = "choose a smaller KMAX (--kmax)";
    const std::string deep = compiled_launch_message(fixed, "", {8}, stack);
    EXPECT_NE(deep.find("a CPU device runs the 8 work-items of a group on one thread"),
              std::string::npos)
        << deep;
    EXPECT_NE(deep.find("choose a smaller KMAX (--kmax)"), std::string::npos) << deep;
  }
}

TEST(Memory, RejectsBuffersBeyondTheDeviceLimit) {
  const lab::Options options = suite_options();
  std::ostringstream out;
  const lab::Env env = lab::open_device(options, out);
  EXPECT_NO_THROW(lab::check_memory(env, 1024, 3, 3, "-n"));
  const std::uint64_t max_alloc = env.device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
  try {
    lab::check_memory(env, max_alloc + 1, 1, 1, "-n");
    FAIL() << "expected an error";
  } catch (const lab::RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("CL_DEVICE_MAX_MEM_ALLOC_SIZE"), std::string::npos);
  }
}

// Launches timed in turns: every round runs each launch once, warm-up rounds first, and each
// launch's Timing holds only its own timed runs.
TEST(Timing, LaunchesTakeTurnsRoundByRound) {
  lab::Options options = suite_options();
  options.warmup = 2;
  options.reps = 5;
  std::ostringstream out;
  lab::Env env = lab::open_device(options, out);
  cl::Buffer buffer(env.context, CL_MEM_READ_WRITE, 4096);
  std::vector<int> order;
  std::vector<std::function<cl::Event()>> launches;
  for (int k = 0; k < 3; ++k) launches.push_back(recorded_fill(env, buffer, order, k));
  const std::vector<lab::Timing> timings =
      lab::time_launches_in_turns(options, launches, {"a", "b", "c"}, out);
  std::vector<int> expected;
  for (int round = 0; round < 2 + 5; ++round) expected.insert(expected.end(), {0, 1, 2});
  EXPECT_EQ(order, expected);
  ASSERT_EQ(timings.size(), 3u);
  for (const lab::Timing& timing : timings) {
    EXPECT_EQ(timing.warmup, 2);
    EXPECT_EQ(timing.reps, 5);
    EXPECT_EQ(timing.time.count, 5u);
    EXPECT_EQ(timing.clock, "event");
    EXPECT_TRUE(timing.note.empty());
  }
  EXPECT_THROW(lab::time_launches_in_turns(options, launches, {"a"}, out), std::logic_error);
}

// A yardstick set with InTurnsWith runs once after every run, warm-ups included (and a settle
// step, when given, before every run of either side); each Timing keeps
// the yardstick's timed runs of its own rounds, and a copy row compared in turns takes the copy's
// rate from those runs and the spread of the per-round shares.
TEST(Timing, YardstickRunsAfterEveryRun) {
  lab::Options options = suite_options();
  options.warmup = 2;
  options.reps = 4;
  std::ostringstream out;
  lab::Env env = lab::open_device(options, out);
  cl::Buffer buffer(env.context, CL_MEM_READ_WRITE, 4096);
  std::vector<char> order;
  const auto fill = [&](char name) { return recorded_fill(env, buffer, order, name); };
  lab::Timing timing;
  {
    const lab::InTurnsWith turns(fill('y'));
    EXPECT_THROW(lab::InTurnsWith(fill('z')), std::logic_error);
    timing = lab::time_launches(options, fill('a'), out);
    order.push_back('|');
    {
      const lab::OutOfTurns apart;  // back to back, the yardstick set aside
      const lab::Timing back_to_back = lab::time_launches(options, fill('b'), out);
      EXPECT_TRUE(back_to_back.yardstick.empty());
    }
    order.push_back('|');
    EXPECT_EQ(lab::time_launches(options, fill('c'), out).yardstick.size(), 4u);
  }
  EXPECT_EQ(std::string(order.begin(), order.end()), "ayayayayayay|bbbbbb|cycycycycycy");
  EXPECT_EQ(timing.seconds.size(), 4u);
  EXPECT_EQ(timing.yardstick.size(), 4u);
  order.clear();
  const lab::Timing alone = lab::time_launches(options, fill('a'), out);
  EXPECT_EQ(std::string(order.begin(), order.end()), "aaaaaa");
  EXPECT_TRUE(alone.yardstick.empty());

  // A settle step runs before every run of either side, and not once the yardstick is set aside.
  order.clear();
  options.warmup = 1;
  options.reps = 2;
  {
    const lab::InTurnsWith turns(fill('y'), [&] { order.push_back('s'); });
    lab::time_launches(options, fill('a'), out);
    order.push_back('|');
    const lab::OutOfTurns apart;
    lab::time_launches(options, fill('b'), out);
  }
  EXPECT_EQ(std::string(order.begin(), order.end()), "sasysasysasy|bbb");

  // Round 1 half as fast as the copy, round 2 as fast: 8 bytes an element both.
  lab::Result row;
  lab::Timing rounds;
  rounds.seconds = {2.0, 1.0};
  rounds.yardstick = {1.0, 1.0};
  rounds.time = lab::summarize(rounds.seconds);
  lab::set_timing(row, rounds);
  row.rate = lab::gigabytes_per_second(8e9, rounds.time.median);
  lab::CopyBaseline copy;
  copy.rate = 100;  // measured apart, and ignored for a row timed in turns
  copy.bytes = 8e9;
  lab::relate_to_copy(row, copy);
  ASSERT_TRUE(row.reference.has_value());
  EXPECT_DOUBLE_EQ(row.reference->value, 8.0);
  EXPECT_EQ(row.reference->rounds, 2);
  EXPECT_DOUBLE_EQ(row.reference->share_min, 0.5);
  EXPECT_DOUBLE_EQ(row.reference->share_max, 1.0);
  lab::Report report("lab", "dev");
  report.add(row);
  EXPECT_EQ(report.json()["results"][0]["reference"]["rounds"], 2);
  std::ostringstream table;
  report.print(lab::OutputFormat::human, table);
  EXPECT_NE(table.str().find("66.7% (50-100) of copy kernel 8.00 GB/s"), std::string::npos)
      << table.str();
}

// The copy yardstick settles with a cache flush only when its data do not fit in the cache the
// device reports: a small copy keeps none, one over the cache keeps one that runs.
TEST(Bandwidth, CopySettlesOnlyPastTheCache) {
  lab::Options options = suite_options();
  options.warmup = 0;
  options.reps = 1;
  std::ostringstream out;
  lab::Env env = lab::open_device(options, out);
  const std::uint64_t cache = env.device.getInfo<CL_DEVICE_GLOBAL_MEM_CACHE_SIZE>();
  EXPECT_FALSE(lab::measure_copy(env, options, 1024, 0, out).settle);
  if (cache == 0) GTEST_SKIP() << "the device reports no global memory cache";
  const lab::CopyBaseline big = lab::measure_copy(env, options, cache / 8 + 1024, 0, out);
  ASSERT_TRUE(big.settle);
  big.settle();
  EXPECT_TRUE(big.passed);
}

// tests/expect.cmake formats @LOCAL_MEM@ the same way; its self-test checks this same table.
TEST(FormatBytes, WholeUnitsAndTwoDecimals) {
  EXPECT_EQ(lab::format_bytes(1023), "1023 B");
  EXPECT_EQ(lab::format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(lab::format_bytes(32768), "32 KiB");
  EXPECT_EQ(lab::format_bytes(49152), "48 KiB");
  EXPECT_EQ(lab::format_bytes(524288), "512 KiB");
  EXPECT_EQ(lab::format_bytes(2097152), "2 MiB");
  EXPECT_EQ(lab::format_bytes(4000000), "3.81 MiB");
  EXPECT_EQ(lab::format_bytes(4202496), "4.01 MiB");
  EXPECT_EQ(lab::format_bytes(1099511627776.0 * 4), "4 TiB");
}

// The SIMD unit follows the CPU PoCL generates code for (its device name) over the host's
// preferred width: an AVX2 kernel library on an AVX-512 host still has 16 ymm registers.
TEST(SimdUnit, NamedCpuWinsOverThePreferredWidth) {
  const lab::SimdUnit avx2 = lab::cpu_simd_unit("pthread-haswell-Intel(R) Xeon(R) Processor", 16);
  EXPECT_EQ(avx2.float_lanes, 8);
  EXPECT_EQ(avx2.registers, 16);
  EXPECT_EQ(avx2.isa, "AVX2");
  const lab::SimdUnit avx512 = lab::cpu_simd_unit("pthread-skylake-avx512-Intel(R) Xeon(R)", 16);
  EXPECT_EQ(avx512.float_lanes, 16);
  EXPECT_EQ(avx512.registers, 32);
  EXPECT_EQ(lab::cpu_simd_unit("pthread-znver3-AMD EPYC 7763 64-Core Processor", 8).isa, "AVX2");
  EXPECT_EQ(lab::cpu_simd_unit("pthread-znver4-AMD EPYC 9654", 16).isa, "AVX-512");
  EXPECT_EQ(lab::cpu_simd_unit("pthread-sandybridge", 8).isa, "AVX");
  EXPECT_EQ(lab::cpu_simd_unit("pthread-x86-64", 4).float_lanes, 4);
}

TEST(SimdUnit, UnknownNamesFallBackToThePreferredWidth) {
  EXPECT_EQ(lab::cpu_simd_unit("cpu-someone-new", 16).float_lanes, 16);
  EXPECT_EQ(lab::cpu_simd_unit("cpu-someone-new", 16).registers, 32);
  EXPECT_EQ(lab::cpu_simd_unit("cpu-someone-new", 8).float_lanes, 8);
  EXPECT_EQ(lab::cpu_simd_unit("cpu-someone-new", 1).float_lanes, 4);
  EXPECT_EQ(lab::cpu_simd_unit("cpu-someone-new", 1).isa, "preferred float width 1");
  // The live device agrees with its own name.
  std::ostringstream out;
  const lab::Env env = lab::open_device(suite_options(), out);
  const lab::SimdUnit unit = lab::cpu_simd_unit(env.device);
  EXPECT_TRUE(unit.float_lanes == 4 || unit.float_lanes == 8 || unit.float_lanes == 16);
}
