// test_device.cpp: device choice and launch checks on the test platform (PoCL under CTest).
#include "lab/device.hpp"
#include "lab/error.hpp"
#include "lab/ndrange.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace {

// The options a lab run by CTest starts from: the platform the suite pins (LAB_PLATFORM), so the
// tests use PoCL even where another platform, a GPU say, comes first.
lab::Options suite_options() {
  lab::Options options;
  if (const char* platform = std::getenv("LAB_PLATFORM")) options.platform = platform;
  return options;
}

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
