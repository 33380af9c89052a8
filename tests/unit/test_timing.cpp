// test_timing.cpp: statistics, NDRange arithmetic, reports and seeded data.
#include "lab/data.hpp"
#include "lab/ndrange.hpp"
#include "lab/peers.hpp"
#include "lab/progress.hpp"
#include "lab/report.hpp"
#include "lab/timing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
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

// The long-run rule: once a run after the first warm-up takes longer than the limit, no more
// warm-ups, at most three timed runs, and the note says so in every format.
TEST(Timing, LongRunsCapTheRepetitionsAndSaySo) {
  int calls = 0;
  const auto slow = [&] {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  };
  const lab::Timing timing = lab::time_on_host(3, 10, slow, 0.001);
  EXPECT_EQ(timing.warmup, 2);  // the first warm-up is left out of the rule, the second trips it
  EXPECT_EQ(timing.reps, lab::kLongRunReps);
  EXPECT_EQ(timing.time.count, std::size_t(lab::kLongRunReps));
  EXPECT_EQ(calls, 2 + lab::kLongRunReps);
  EXPECT_GT(timing.first_warmup, 0.002);
  EXPECT_EQ(timing.clock, "host");
  EXPECT_NE(timing.note.find("3 timed runs, not 10"), std::string::npos) << timing.note;

  lab::Result row;
  lab::set_timing(row, timing);
  lab::Report report("lab", "dev");
  report.add(row);
  EXPECT_NE(report.json()["results"][0]["notes"][0].get<std::string>().find("not 10"),
            std::string::npos);
  EXPECT_EQ(report.json()["results"][0]["time_s"]["runs"], 3);
  EXPECT_EQ(report.json()["results"][0]["time_s"]["clock"], "host");

  // A slow first call (a library compiling its kernels) does not cap quick runs.
  bool first = true;
  const lab::Timing setup = lab::time_on_host(
      2, 6,
      [&] {
        if (first) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        first = false;
      },
      0.002);
  EXPECT_EQ(setup.warmup, 2);
  EXPECT_EQ(setup.reps, 6);
  EXPECT_TRUE(setup.note.empty());
  EXPECT_GT(setup.first_warmup, 0.004);

  // Quick runs keep every repetition asked for, with no note.
  const lab::Timing quick = lab::time_on_host(2, 5, [] {});
  EXPECT_EQ(quick.warmup, 2);
  EXPECT_EQ(quick.reps, 5);
  EXPECT_TRUE(quick.note.empty());
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

// OpenBLAS's idle worker threads must sleep at once, not spin for 0.1 s holding a core the next
// turn's kernel needs; a timeout the user chose is kept. (The variable is set before the library
// is looked for, so this holds where OpenBLAS is not installed too.)
TEST(Peers, OpenBlasThreadsSleepBetweenTurns) {
  const char* before = std::getenv("OPENBLAS_THREAD_TIMEOUT");
  const std::string saved = before ? before : "";
  std::ostringstream out;
  ::unsetenv("OPENBLAS_THREAD_TIMEOUT");
  lab::load_symbol("libopenblas.so.0", "cblas_sdot", out);
  ASSERT_NE(std::getenv("OPENBLAS_THREAD_TIMEOUT"), nullptr);
  EXPECT_STREQ(std::getenv("OPENBLAS_THREAD_TIMEOUT"), "4");
  ::setenv("OPENBLAS_THREAD_TIMEOUT", "20", 1);
  lab::load_symbol("libopenblas.so.0", "cblas_sdot", out);
  EXPECT_STREQ(std::getenv("OPENBLAS_THREAD_TIMEOUT"), "20");
  if (before) {
    ::setenv("OPENBLAS_THREAD_TIMEOUT", saved.c_str(), 1);
  } else {
    ::unsetenv("OPENBLAS_THREAD_TIMEOUT");
  }
}

TEST(Progress, DurationsForPeople) {
  EXPECT_EQ(lab::format_duration(0.4), "0 s");
  EXPECT_EQ(lab::format_duration(42), "42 s");
  EXPECT_EQ(lab::format_duration(200), "3 min 20 s");
  EXPECT_EQ(lab::format_duration(7560), "2.1 hours");
  EXPECT_EQ(lab::format_duration(3.5 * 86400), "3.5 days");
}

TEST(Progress, LineSaysWhatHowFarAndWhatIsLeft) {
  EXPECT_EQ(lab::Progress::line("matmul: host data and reference", 25, 100, "", 10),
            "matmul: host data and reference 25%, 10 s, about 30 s left");
  // An unknown total: the detail and the time only.
  EXPECT_EQ(lab::Progress::line("matmul: naive (3 of 8)", 0, 0, "run 2 of 10", 14),
            "matmul: naive (3 of 8), run 2 of 10, 14 s");
  EXPECT_EQ(lab::Progress::line("x", 100, 100, "", 5), "x 100%, 5 s");
}

TEST(Progress, NoteReachesTheInnermostStepOnly) {
  // Off (LAB_PROGRESS=0): nothing is printed, but the steps still nest and take notes.
  setenv("LAB_PROGRESS", "0", 1);
  EXPECT_FALSE(lab::progress_enabled());
  lab::Progress outer("outer");
  {
    lab::Progress inner("inner");
    lab::Progress::note("run 1 of 3");
  }
  lab::Progress::note("run 2 of 3");  // back to outer: no crash on a step that has gone
  unsetenv("LAB_PROGRESS");
}
