// test_timing.cpp: statistics, NDRange arithmetic, reports and seeded data.
#include "lab/data.hpp"
#include "lab/ndrange.hpp"
#include "lab/report.hpp"
#include "lab/timing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <thread>

TEST(Stats, OddAndEvenCounts) {
  const auto odd = lab::summarize({3.0, 1.0, 2.0});
  EXPECT_DOUBLE_EQ(odd.min, 1.0);
  EXPECT_DOUBLE_EQ(odd.median, 2.0);
  EXPECT_DOUBLE_EQ(odd.max, 3.0);
  EXPECT_DOUBLE_EQ(odd.mean, 2.0);
  const auto even = lab::summarize({4.0, 1.0, 3.0, 2.0});
  EXPECT_DOUBLE_EQ(even.median, 2.5);
  EXPECT_EQ(even.count, 4u);
  EXPECT_THROW(lab::summarize({}), std::invalid_argument);
}

TEST(NDRange, RoundUpAndFormat) {
  EXPECT_EQ(lab::round_up(100000, 64), 100032u);
  EXPECT_EQ(lab::round_up(64, 64), 64u);
  EXPECT_EQ(lab::round_up(1, 256), 256u);
  EXPECT_EQ(lab::format_dims({16, 16}), "16x16");
  EXPECT_EQ(lab::to_ndrange({2, 3, 4}).dimensions(), 3u);
}

TEST(Report, CsvHasHeaderAndOneRowPerResult) {
  lab::Report report("lab", "dev,ice");
  lab::Result r;
  r.variant = "naive";
  r.size = "n=8";
  r.time = lab::summarize({0.001, 0.002, 0.003});
  r.rate = 1.5;
  r.unit = "GB/s";
  r.passed = true;
  r.tunables = {{"TS", 16}, {"KMAX", 1024}};
  r.tuning = "tuned";
  report.add(r);
  std::ostringstream out;
  report.print(lab::OutputFormat::csv, out);
  EXPECT_EQ(out.str(),
            "lab,device,variant,size,median_s,min_s,reps,rate,unit,percent,reference,speedup,"
            "status,note,tunables,student_kernels,elements_per_s,end_to_end_median_s,tuning\n"
            "lab,\"dev,ice\",naive,n=8,0.002000000,0.001000000,3,1.500,GB/s,,,,PASSED,,"
            "\"TS=16 (default), KMAX=1024 (default)\",,,,tuned\n");
  EXPECT_EQ(report.json()["results"][0]["tunables"]["KMAX"], 1024);
  EXPECT_EQ(report.json()["results"][0]["tuning"], "tuned");
  EXPECT_EQ(report.json()["results"][0]["time_s"]["count"], 3);
  EXPECT_EQ(report.exit_code(), 0);
}

// The long-run rule: once a run takes longer than the limit, no more warm-ups, at most three
// timed runs, and the note says so in every format.
TEST(Timing, LongRunsCapTheRepetitionsAndSaySo) {
  int calls = 0;
  const auto slow = [&] {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  };
  const lab::Timing timing = lab::time_on_host(2, 10, slow, 0.001);
  EXPECT_EQ(timing.warmup, 1);
  EXPECT_EQ(timing.reps, lab::kLongRunReps);
  EXPECT_EQ(timing.time.count, std::size_t(lab::kLongRunReps));
  EXPECT_EQ(calls, 1 + lab::kLongRunReps);
  EXPECT_EQ(timing.clock, "host");
  EXPECT_NE(timing.note.find("3 timed runs, not 10"), std::string::npos) << timing.note;

  lab::Result row;
  lab::set_timing(row, timing);
  lab::Report report("lab", "dev");
  report.add(row);
  EXPECT_NE(report.json()["results"][0]["note"].get<std::string>().find("not 10"),
            std::string::npos);
  EXPECT_EQ(report.json()["results"][0]["time_s"]["count"], 3);
  EXPECT_EQ(report.json()["results"][0]["time_s"]["clock"], "host");

  // Quick runs keep every repetition asked for, with no note.
  const lab::Timing quick = lab::time_on_host(2, 5, [] {});
  EXPECT_EQ(quick.warmup, 2);
  EXPECT_EQ(quick.reps, 5);
  EXPECT_TRUE(quick.note.empty());
}

TEST(Report, SpeedupAppearsInCsvAndJson) {
  lab::Report report("lab", "dev");
  lab::Result r;
  r.variant = "tiled";
  r.rate = 2;
  r.unit = "GFLOP/s";
  r.speedup = 4.0;
  r.passed = true;
  report.add(r);
  std::ostringstream out;
  report.print(lab::OutputFormat::csv, out);
  EXPECT_NE(out.str().find(",4.000,PASSED"), std::string::npos) << out.str();
  EXPECT_DOUBLE_EQ(report.json()["results"][0]["speedup"].get<double>(), 4.0);
}

TEST(Report, JsonAndFailure) {
  lab::Report report("lab", "dev");
  lab::Result r;
  r.variant = "v";
  r.passed = false;
  report.add(r);
  report.details()["n"] = 3;
  const auto json = report.json();
  EXPECT_EQ(json["results"][0]["status"], "FAILED");
  EXPECT_EQ(json["details"]["n"], 3);
  EXPECT_FALSE(json["passed"].get<bool>());
  EXPECT_EQ(report.exit_code(), 1);
  EXPECT_EQ(lab::Report("lab", "dev").exit_code(), 1) << "no results is not a pass";
}

TEST(Report, FormatsSecondsAndRates) {
  EXPECT_EQ(lab::format_seconds(2.5e-6), "2.5 us");
  EXPECT_EQ(lab::format_seconds(0.0125), "12.500 ms");
  EXPECT_EQ(lab::format_seconds(1.5), "1.500 s");
  EXPECT_DOUBLE_EQ(lab::gigabytes_per_second(2e9, 1.0), 2.0);
  EXPECT_DOUBLE_EQ(lab::gigaflops(3e9, 0.5), 6.0);
}

TEST(Data, SeededAndAligned) {
  const auto a = lab::random_vector<float>(1000, 42, 0.0f, 1.0f);
  const auto b = lab::random_vector<float>(1000, 42, 0.0f, 1.0f);
  const auto c = lab::random_vector<float>(1000, 43, 0.0f, 1.0f);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % lab::kHostAlignment, 0u);
  for (const float v : a) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LT(v, 1.0f);
  }
  const auto ints = lab::random_vector<int>(1000, 1, -3, 3);
  EXPECT_NE(std::find(ints.begin(), ints.end(), -3), ints.end());
  EXPECT_NE(lab::derive_seed(42, 0), lab::derive_seed(42, 1));
}
