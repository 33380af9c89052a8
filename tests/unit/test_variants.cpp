// test_variants.cpp: the variant tables of matmul, vector_add and reduction: kernels that exist,
// tunables that round-trip through the options and the -D list, and constraints that refuse what
// the device (PoCL under CTest) cannot run.
#include "coalescing_family.hpp"
#include "matmul.hpp"
#include "reduction_family.hpp"
#include "transpose_family.hpp"
#include "vector_add_family.hpp"

#include "lab/lab.hpp"

#include "support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace {

std::string read(const std::string& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// Each row's kernel file exists in kernels/ and, built with the row's defines at the device's
// defaults, defines the row's kernel.
template <typename Size, typename Extra>
void expect_kernels_exist(const lab::Family<Size, Extra>& family, const lab::Tuning& tuning,
                          const Size& size, const lab::Defines& fixed) {
  std::ostringstream out;
  const lab::Env env = lab::open_device(test::suite_options(), out);
  for (const auto& v : family.variants) {
    if (v.kernel_file.empty()) continue;  // a host variant
    SCOPED_TRACE(family.name + " " + v.name);
    const std::string source = read(test::kernel_dir() + "/" + v.kernel_file);
    ASSERT_FALSE(source.empty()) << v.kernel_file << " is missing or empty";
    lab::Defines defines = fixed;
    for (const auto& d : lab::tunable_defines(family.tunables, v.tunables, tuning)) {
      defines.push_back(d);
    }
    if (v.derived) {
      for (const auto& d : v.derived(size, tuning)) defines.push_back(d);
    }
    cl::Program program(env.context, source);
    program.build(std::vector<cl::Device>{env.device}, lab::define_flags(defines).c_str());
    const cl::Kernel kernel(program, v.kernel_name.c_str());
    // The __local bytes the row declares (checked before building) are the compiled kernel's,
    // give or take the few bytes a driver adds of its own (NVIDIA's 580 driver reports 1 for a
    // kernel without __local arrays and 4 more than the arrays otherwise; PoCL the arrays).
    const std::uint64_t declared = v.local_bytes ? v.local_bytes(tuning, sizeof(float)) : 0;
    const std::uint64_t compiled = kernel.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(env.device);
    EXPECT_GE(compiled, declared);
    EXPECT_LE(compiled, declared + 16);
    ASSERT_TRUE(v.plan);
    const lab::NDRangePlan range = v.plan(size, tuning);
    EXPECT_FALSE(range.global.empty());
    for (const auto& name : v.tunables) EXPECT_TRUE(tuning.has(name)) << name;
  }
}

// Every tunable a row uses, set through its own option and through --tunable NAME=VALUE, comes
// back with that value, and reaches the -D list when it is a kernel macro.
template <typename Size, typename Extra>
void expect_round_trips(const lab::Family<Size, Extra>& family, const lab::Tuning& defaults) {
  for (const auto& v : family.variants) {
    for (const auto& name : v.tunables) {
      SCOPED_TRACE(family.name + " " + v.name + " " + name);
      const auto t = std::find_if(family.tunables.begin(), family.tunables.end(),
                                  [&](const lab::Tunable& x) { return x.name == name; });
      ASSERT_NE(t, family.tunables.end());
      // A value other than the default: a candidate, or the smallest allowed.
      std::int64_t value = t->min;
      for (const auto c : t->candidates) {
        if (c != defaults[name] && c >= t->min) value = c;
      }
      std::string text = t->labels.empty() ? std::to_string(value) : t->labels[value];
      if (t->position > 0) {
        // A list option: the tunables before this one keep their defaults.
        std::string prefix;
        for (const auto& other : family.tunables) {
          if (other.option == t->option && other.position >= 0 && other.position < t->position) {
            prefix += std::to_string(defaults[other.name]) + ",";
          }
        }
        text = prefix + text;
      }
      for (const auto& args :
           {std::vector<std::string>{"lab", t->option, text},
            std::vector<std::string>{"lab", "--tunable", name + "=" + std::to_string(value)}}) {
        test::Args argv(args);
        lab::Cli cli("lab", "test", argv.argc(), argv.argv());
        lab::TuningOptions options(cli, family.tunables);
        cli.parse();
        options.check();
        const lab::Tuning tuning = options.apply(defaults);
        EXPECT_EQ(tuning[name], value);
        EXPECT_TRUE(tuning.given(name));
        const std::string flags =
            lab::define_flags(lab::tunable_defines(family.tunables, v.tunables, tuning));
        const std::string define = "-D" + name + "=" + std::to_string(value);
        EXPECT_EQ(flags.find(define) != std::string::npos, t->define) << flags;
      }
    }
  }
}

std::string prepare_message(const matmul::Variant& v, const matmul::Dims& dims,
                            const lab::Tuning& tuning) {
  std::ostringstream out;
  lab::Env env = lab::open_device(test::suite_options(), out);
  try {
    lab::prepare_kernel(env, test::suite_options(), out, matmul::family(), v, dims, tuning,
                        matmul::element_defines("float"), matmul::signature("float"),
                        sizeof(float));
  } catch (const lab::Error& e) {
    return std::to_string(e.exit_code()) + " " + e.what();
  }
  return "prepared";
}

cl::Device suite_device() {
  std::ostringstream out;
  return lab::open_device(test::suite_options(), out).device;
}

}  // namespace

TEST(Variants, MatmulKernelsExistAndDefineTheirKernels) {
  const lab::Tuning defaults = matmul::default_tuning(suite_device());
  const lab::Defines real = matmul::element_defines("float");
  expect_kernels_exist(matmul::family(), defaults, matmul::Dims{33, 17, 9}, real);
  // The other regtiled shape and other tiles, so the declared local memory is checked for both.
  const lab::Tuning other = defaults.with({{"TS", 8},
                                           {"KMAX", 300},
                                           {"BLOCK", 32},
                                           {"WPT", 2},
                                           {"TSM", 32},
                                           {"TSN", 32},
                                           {"TSK", 8},
                                           {"WPTM", 8},
                                           {"WPTN", 8},
                                           {"VWN", 4},
                                           {"STAGE", 1 - defaults["STAGE"]}});
  expect_kernels_exist(matmul::family(), other, matmul::Dims{32, 32, 32}, real);
}

TEST(Variants, VectorAddKernelsExistAndDefineTheirKernels) {
  expect_kernels_exist(vector_add::family(), vector_add::default_tuning(), vector_add::Length{1009},
                       {});
}

TEST(Variants, ReductionKernelsExistAndDefineTheirKernels) {
  // Every row in int; the rows that are not int-only (atomic_add has no float form) in float.
  reduction::Family floats = reduction::family();
  floats.variants.erase(std::remove_if(floats.variants.begin(), floats.variants.end(),
                                       [](const auto& v) { return v.extra.int_only; }),
                        floats.variants.end());
  const lab::Tuning tuning = reduction::default_tuning(suite_device());
  for (const char* dot : {"0", "1"}) {
    expect_kernels_exist(reduction::family(), tuning, reduction::Length{1037},
                         {{"REAL", "int", ""}, {"DOT", dot, ""}});
    expect_kernels_exist(floats, tuning, reduction::Length{1037},
                         {{"REAL", "float", ""}, {"DOT", dot, ""}});
  }
}

TEST(Variants, TransposeAndCoalescingKernelsExistAndDefineTheirKernels) {
  const cl::Device device = suite_device();
  for (const char* real : {"float", "int"}) {
    expect_kernels_exist(transpose::family(), transpose::default_tuning(device),
                         transpose::Dims{37, 53}, {{"REAL", real, ""}});
    expect_kernels_exist(coalescing::family(), coalescing::default_tuning(device),
                         coalescing::Dims{37, 53}, {{"REAL", real, ""}});
  }
  // Other tiles, so the declared local memory is checked for more than one shape.
  const lab::Tuning other = transpose::default_tuning(device).with(
      {{"TILE", 8}, {"MULTI_TILE", 32}, {"ROWS", 8}, {"BLOCK_ROWS", 16}, {"STRIP", 2}});
  expect_kernels_exist(transpose::family(), other, transpose::Dims{64, 64},
                       {{"REAL", "float", ""}});
  expect_kernels_exist(coalescing::family(), lab::Tuning().with({{"LOCAL", 8}, {"CHUNK", 5}}),
                       coalescing::Dims{64, 64}, {{"REAL", "float", ""}});
}

TEST(Variants, TunablesRoundTripThroughOptionsAndDefines) {
  expect_round_trips(matmul::family(), matmul::default_tuning(suite_device()));
  expect_round_trips(vector_add::family(), vector_add::default_tuning());
  expect_round_trips(reduction::family(), reduction::default_tuning(suite_device()));
  expect_round_trips(transpose::family(), transpose::default_tuning(suite_device()));
  expect_round_trips(coalescing::family(), coalescing::default_tuning(suite_device()));
}

// A row's tunables are named in the row's order, whatever order the tuning set them in (a
// default set first still comes last when the row lists it last).
TEST(Variants, TuningTextFollowsTheNamesOrder) {
  const lab::Tuning t = lab::Tuning().with({{"EDGES", 1}, {"TSM", 64}, {"TSN", 32}});
  EXPECT_EQ(t.text({"TSM", "TSN", "EDGES"}), "TSM=64 TSN=32 EDGES=1");
  EXPECT_EQ(t.text({"TSN"}), "TSN=32");
  EXPECT_EQ(t.text(), "EDGES=1 TSM=64 TSN=32");
}

TEST(Variants, UnknownNamesListTheTable) {
  try {
    matmul::family().variant("fastest");
    FAIL() << "no error";
  } catch (const lab::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "choose sequential, naive_global, naive, row, "
                  "row_private, row_local, tiled, regtile_simple, regtiled or all"),
              std::string::npos)
        << e.what();
  }
  test::Args argv({"lab", "--tunable", "TX=4"});
  lab::Cli cli("lab", "test", argv.argc(), argv.argv());
  lab::TuningOptions options(cli, matmul::family().tunables);
  cli.parse();
  EXPECT_THROW(options.check(), lab::UsageError);
}

TEST(Variants, ConstraintsRefuseWhatTheDeviceCannotRun) {
  const cl::Device device = suite_device();
  const lab::Tuning defaults = matmul::default_tuning(device);
  const matmul::Dims dims{64, 64, 64};

  // A tile whose work-group is above the device's limit, refused before building, naming TS.
  const std::uint64_t max_group = device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  std::int64_t ts = 1;
  while (std::uint64_t(ts * ts) <= max_group) ts *= 2;
  lab::Tuning big_tile = defaults;
  big_tile.set("TS", ts);
  EXPECT_NE(prepare_message(matmul::family().variant("tiled"), dims, big_tile)
                .find("3 matmul_tiled would use work-groups of " + std::to_string(ts) + "x" +
                      std::to_string(ts)),
            std::string::npos);
  EXPECT_NE(prepare_message(matmul::family().variant("tiled"), dims, big_tile)
                .find("choose a smaller TS (--ts)"),
            std::string::npos);

  // Staged slices above the device's local memory, from the compiled kernel, naming --regtile.
  const lab::Tuning staged = defaults.with({{"TSM", 4096},
                                            {"TSN", 64},
                                            {"TSK", 256},
                                            {"WPTM", 64},
                                            {"WPTN", 4},
                                            {"VWN", 4},
                                            {"STAGE", 1}});
  ASSERT_GT(2ull * 256 * (4096 + 4 + 64) * 4, device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>());
  const std::string local = prepare_message(matmul::family().variant("regtiled"), dims, staged);
  EXPECT_NE(local.find("of local memory with TSM=4096"), std::string::npos) << local;
  EXPECT_NE(local.find("choose a smaller TSM, TSN or TSK (--regtile)"), std::string::npos) << local;

  // A kernel's own #error guard: a usage error with its sentence and the option to change.
  lab::Tuning odd = defaults;
  odd.set("WPTM", 7);
  const std::string guard = prepare_message(matmul::family().variant("regtiled"), dims, odd);
  EXPECT_EQ(guard.rfind("2 ", 0), 0u) << guard;
  EXPECT_NE(guard.find("WPTM and TSK must be multiples of 4"), std::string::npos) << guard;

  // A problem the table itself rules out: K above row_private's capacity.
  lab::Tuning small = defaults;
  small.set("KMAX", 32);
  EXPECT_NE(matmul::family().variant("row_private").fits({8, 8, 40}, small).find("pass --kmax 40"),
            std::string::npos);
  EXPECT_EQ(matmul::family().variant("row_private").fits({8, 8, 32}, small), "");
}

// The kernel files a run needs from --kernel-dir: one per device row, none for the host row,
// and none for rows the lab skips (reduction's int-only atomic under float).
TEST(Variants, KernelFilesOfAChoice) {
  const auto matmul_all = matmul::family().kernel_files("all");
  EXPECT_EQ(matmul_all.size(), matmul::family().variants.size() - 1);  // sequential: the host
  EXPECT_EQ(matmul::family().kernel_files("tiled"), std::vector<std::string>{"matmul_tiled.cl"});
  EXPECT_TRUE(matmul::family().kernel_files("sequential").empty());
  const reduction::Family& reduction = reduction::family();
  const auto float_runs = [](const reduction::Variant& v) { return !v.extra.int_only; };
  const auto all = reduction.kernel_files("all");
  const auto for_float = reduction.kernel_files("all", float_runs);
  EXPECT_EQ(for_float.size() + 1, all.size());
  EXPECT_EQ(std::count(all.begin(), all.end(), "reduction_atomic.cl"), 1);
  EXPECT_EQ(std::count(for_float.begin(), for_float.end(), "reduction_atomic.cl"), 0);
}
