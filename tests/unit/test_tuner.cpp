// test_tuner.cpp: the tuning cache (round trip, corrupt files, other devices, stale kernels) and
// the search over candidates (every combination, the default first, refusals skipped, wrong
// results never kept, the budget).
#include "lab/error.hpp"
#include "lab/tuner.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

lab::detail::TuningKey key() {
  lab::detail::TuningKey k;
  k.lab = "matmul";
  k.variant = "regtiled";
  k.device = "pthread-haswell";
  k.driver = "3.1";
  k.source_sha256 = "abc";
  k.dtype = "float";
  k.size_class = "2^30";
  return k;
}

std::string temp_path(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("lab_tuner_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove_all(dir);
  return (dir / "tuning.json").string();
}

}  // namespace

TEST(TuningCache, RoundTrip) {
  const std::string path = temp_path("round_trip");
  lab::detail::TuningCache cache(path);
  cache.load();
  EXPECT_EQ(cache.warning(), "");
  EXPECT_TRUE(cache.find(key()).values.empty());
  cache.store(key(), {{"TSM", 64}, {"TSN", 128}}, 123.5, "GFLOP/s");
  cache.save();  // creates the folder

  lab::detail::TuningCache again(path);
  again.load();
  EXPECT_EQ(again.warning(), "");
  const lab::detail::CachedTuning found = again.find(key());
  ASSERT_EQ(found.values.size(), 2u);
  EXPECT_EQ(found.values[0], std::make_pair(std::string("TSM"), std::int64_t{64}));
  EXPECT_EQ(found.values[1], std::make_pair(std::string("TSN"), std::int64_t{128}));
  EXPECT_DOUBLE_EQ(found.rate, 123.5);
  EXPECT_EQ(found.unit, "GFLOP/s");
  EXPECT_EQ(found.stale, "");

  // Storing the same key again replaces the entry.
  again.store(key(), {{"TSM", 32}}, 99, "GFLOP/s");
  EXPECT_EQ(again.find(key()).values.size(), 1u);
}

TEST(TuningCache, CorruptOrUnreadableFilesGiveAWarningAndNothing) {
  const std::string path = temp_path("corrupt");
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  for (const char* text : {"{not json", "[1, 2, 3]", "{\"entries\": 7}"}) {
    std::ofstream(path) << text;
    lab::detail::TuningCache cache(path);
    cache.load();
    EXPECT_NE(cache.warning().find("using the defaults"), std::string::npos) << text;
    EXPECT_TRUE(cache.find(key()).values.empty());
  }
  // A folder where the file should be cannot be read.
  std::filesystem::remove(path);
  std::filesystem::create_directories(path);
  lab::detail::TuningCache folder(path);
  folder.load();
  EXPECT_NE(folder.warning(), "");
  EXPECT_THROW(folder.save(), lab::RuntimeError);
}

TEST(TuningCache, AnotherDevicesEntryIsIgnored) {
  lab::detail::TuningCache cache(temp_path("other_device"));
  cache.store(key(), {{"TSM", 64}}, 1, "GFLOP/s");
  for (auto change : {&lab::detail::TuningKey::device, &lab::detail::TuningKey::driver,
                      &lab::detail::TuningKey::dtype, &lab::detail::TuningKey::size_class,
                      &lab::detail::TuningKey::variant}) {
    lab::detail::TuningKey other = key();
    other.*change = "something else";
    const lab::detail::CachedTuning found = cache.find(other);
    EXPECT_TRUE(found.values.empty());
    EXPECT_EQ(found.stale, "");
  }
}

TEST(TuningCache, AStaleSourceHashIsIgnoredAndSaysSo) {
  lab::detail::TuningCache cache(temp_path("stale"));
  cache.store(key(), {{"TSM", 64}}, 1, "GFLOP/s");
  lab::detail::TuningKey edited = key();
  edited.source_sha256 = "def";
  const lab::detail::CachedTuning found = cache.find(edited);
  EXPECT_TRUE(found.values.empty());
  EXPECT_NE(found.stale.find("another version of its kernel"), std::string::npos);
}

TEST(TuningCache, SizeClassesArePowersOfTwo) {
  EXPECT_EQ(lab::detail::size_class(1), "2^0");
  EXPECT_EQ(lab::detail::size_class(1000), "2^10");
  EXPECT_EQ(lab::detail::size_class(1024.0 * 1024 * 1024), "2^30");
  EXPECT_EQ(lab::detail::size_class(0), "2^0");
}

namespace {

// A recorded entry (tuned.json) for `device` and `size_class`, with GROUPS = `groups`.
std::string recorded_entry(const std::string& device, const std::string& size_class, int groups) {
  return R"({"lab": "matmul", "variant": "regtiled", "device": ")" + device +
         R"(", "dtype": "float", "size_class": ")" + size_class + R"(", "tunables": {"GROUPS": )" +
         std::to_string(groups) + "}}";
}

}  // namespace

TEST(RecordedTunings, TheNearestSizeClassOfTheSameDeviceIsUsed) {
  const lab::detail::RecordedTunings recorded(R"({"entries": [)" +
                                              recorded_entry("pthread-haswell", "2^20", 20) + "," +
                                              recorded_entry("pthread-haswell", "2^34", 34) + "," +
                                              recorded_entry("another device", "2^30", 99) + "]}");
  ASSERT_EQ(recorded.size(), 3u);
  const lab::detail::CachedTuning found = recorded.find(key());  // 2^30: 2^34 is nearer
  ASSERT_EQ(found.values.size(), 1u);
  EXPECT_EQ(found.values[0].second, 34);
  lab::detail::TuningKey small = key();
  small.size_class = "2^10";
  EXPECT_EQ(recorded.find(small).values[0].second, 20);
  lab::detail::TuningKey elsewhere = key();
  elsewhere.device = "pthread-skylake-avx512";
  EXPECT_TRUE(recorded.find(elsewhere).values.empty());
  lab::detail::TuningKey ints = key();
  ints.dtype = "int";
  EXPECT_TRUE(recorded.find(ints).values.empty());
}

TEST(RecordedTunings, NotWholeNumbersGiveNothingAndBadTextThrows) {
  const lab::detail::RecordedTunings recorded(
      R"({"entries": [{"lab": "matmul", "variant": "regtiled", "device": "pthread-haswell",
          "dtype": "float", "size_class": "2^30", "tunables": {"GROUPS": "many"}}]})");
  EXPECT_TRUE(recorded.find(key()).values.empty());
  EXPECT_THROW(lab::detail::RecordedTunings("[1, 2]"), std::runtime_error);
  EXPECT_THROW(lab::detail::RecordedTunings("{not json"), std::runtime_error);
}

TEST(RecordedTunings, TheCompiledInFileParses) {
  EXPECT_NO_THROW(lab::detail::RecordedTunings::compiled_in());
}

TEST(Tuner, CandidatesAreEveryCombinationWithTheDefaultFirst) {
  lab::Tunable a;
  a.name = "A";
  a.candidates = {1, 2, 3};
  lab::Tunable b;
  b.name = "B";
  b.candidates = {10, 20};
  lab::Tunable c;
  c.name = "C";  // no candidates: stays at the base
  const lab::Tuning base = lab::Tuning().with({{"A", 2}, {"B", 20}, {"C", 7}});
  const auto all = lab::detail::tuning_candidates({a, b, c}, {"A", "B", "C"}, base);
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(all[0]["A"], 2);
  EXPECT_EQ(all[0]["B"], 20);
  for (const auto& t : all) EXPECT_EQ(t["C"], 7);
  // Then the base's neighbours, one tunable changed: A=1, A=3, B=10 in some order.
  for (std::size_t i = 1; i <= 3; ++i) {
    EXPECT_EQ((all[i]["A"] != 2) + (all[i]["B"] != 20), 1) << i;
  }
  // A default outside the candidates is measured too.
  const auto odd = lab::detail::tuning_candidates({a, b, c}, {"A"}, base.with({{"A", 5}}));
  ASSERT_EQ(odd.size(), 4u);
  EXPECT_EQ(odd[0]["A"], 5);
}

TEST(Tuner, WrongResultsAreNeverKeptAndRefusalsAreSkipped) {
  lab::Tunable a;
  a.name = "A";
  a.candidates = {1, 2, 3, 4};
  const auto candidates =
      lab::detail::tuning_candidates({a}, {"A"}, lab::Tuning().with({{"A", 1}}));
  std::ostringstream progress;
  const auto trials = lab::detail::run_trials(
      candidates, {"A"}, 60,
      [](const lab::Tuning& t) {
        if (t["A"] == 3) throw lab::UsageError("A=3 is refused");
        // A=4 is the fastest but wrong.
        return lab::detail::TrialOutcome{t["A"] != 4, double(t["A"])};
      },
      progress);
  ASSERT_EQ(trials.size(), 4u);
  EXPECT_EQ(trials[0].tuning["A"], 2);  // the fastest right one
  EXPECT_TRUE(trials[0].outcome.passed);
  EXPECT_EQ(trials[1].tuning["A"], 1);
  EXPECT_NE(progress.str().find("A=3: skipped (A=3 is refused)"), std::string::npos);
  EXPECT_NE(progress.str().find("A=4: WRONG RESULT, not kept"), std::string::npos);
  EXPECT_NE(progress.str().find("best so far A=2"), std::string::npos);
}

TEST(Tuner, TheBudgetStopsTheSearchAfterAtLeastOneCandidate) {
  lab::Tunable a;
  a.name = "A";
  a.candidates = {1, 2, 3, 4};
  const auto candidates =
      lab::detail::tuning_candidates({a}, {"A"}, lab::Tuning().with({{"A", 1}}));
  std::ostringstream progress;
  const auto trials = lab::detail::run_trials(
      candidates, {"A"}, 0,
      [](const lab::Tuning&) {
        return lab::detail::TrialOutcome{true, 1};
      },
      progress);
  EXPECT_EQ(trials.size(), 1u);
  EXPECT_NE(progress.str().find("stopping after 1 of 4 candidates: another would run past the "
                                "budget of 0 s"),
            std::string::npos);
}
