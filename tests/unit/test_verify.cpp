// test_verify.cpp: tolerance checks and mismatch printing.
#include "lab/buffers.hpp"
#include "lab/verify.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

TEST(Compare, ExactIntegersPass) {
  const std::vector<int> want = {1, 2, 3};
  std::ostringstream err;
  const auto r =
      lab::compare(want.data(), want.data(), want.size(), lab::Tolerance::exact(), err, "c");
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(r.checked, 3u);
  EXPECT_EQ(err.str(), "");
}

TEST(Compare, OneWrongElementFailsAndIsNamed) {
  const std::vector<int> want = {1, 2, 3, 4};
  const std::vector<int> got = {1, 2, 5, 4};
  std::ostringstream err;
  const auto r =
      lab::compare(got.data(), want.data(), got.size(), lab::Tolerance::exact(), err, "c");
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(r.mismatches, 1u);
  EXPECT_NE(err.str().find("c[2]: got 5, expected 3"), std::string::npos) << err.str();
}

TEST(Compare, FloatToleranceIsAbsPlusRelative) {
  const std::vector<float> want = {100.0f, 1.0f};
  const std::vector<float> close = {100.05f, 1.0000001f};
  const std::vector<float> far = {100.2f, 1.0f};
  std::ostringstream err;
  const lab::Tolerance tol{1e-6, 1e-3};
  EXPECT_TRUE(lab::compare(close.data(), want.data(), 2, tol, err, "c").passed());
  EXPECT_FALSE(lab::compare(far.data(), want.data(), 2, tol, err, "c").passed());
  EXPECT_EQ(tol.describe(), "abs 1.0e-06 + rel 1.0e-03");
  EXPECT_EQ(lab::Tolerance::exact().describe(), "exact");
}

TEST(Compare, NanNeverMatches) {
  const std::vector<float> want = {1.0f, 2.0f};
  const std::vector<float> got = {1.0f, std::numeric_limits<float>::quiet_NaN()};
  std::ostringstream err;
  const auto r = lab::compare(got.data(), want.data(), 2, lab::Tolerance{1.0, 1.0}, err, "c");
  EXPECT_EQ(r.mismatches, 1u);
}

TEST(Compare, PrintsAtMostTenMismatchesThenASummary) {
  std::vector<int> want(100, 0), got(100, 1);
  std::ostringstream err;
  const auto r = lab::compare(got.data(), want.data(), 100, lab::Tolerance::exact(), err, "c");
  EXPECT_EQ(r.mismatches, 100u);
  std::size_t lines = 0;
  for (char ch : err.str()) lines += ch == '\n';
  EXPECT_EQ(lines, 11u) << err.str();
  EXPECT_NE(err.str().find("and 90 more"), std::string::npos);
}

TEST(Compare, EmptyInputDoesNotPass) {
  std::ostringstream err;
  const int* none = nullptr;
  EXPECT_FALSE(lab::compare(none, none, 0, lab::Tolerance::exact(), err, "c").passed());
}

TEST(Compare, TracksMaximumErrors) {
  const std::vector<double> want = {1.0, 10.0};
  const std::vector<double> got = {1.5, 10.5};
  std::ostringstream err;
  const auto r = lab::compare(got.data(), want.data(), 2, lab::Tolerance{1.0, 0.0}, err, "c");
  EXPECT_TRUE(r.passed());
  EXPECT_DOUBLE_EQ(r.max_abs_error, 0.5);
  EXPECT_DOUBLE_EQ(r.max_rel_error, 0.5);
}

TEST(Guards, CountsChangedElementsOnEitherSide) {
  std::vector<unsigned char> front(8 * 4, lab::kGuardByte), back(16 * 4, lab::kGuardByte);
  EXPECT_EQ(lab::check_guard_bytes(front.data(), 8, back.data(), 16, 100, 4).total(), 0u);
  EXPECT_EQ(lab::describe_guard_writes({}, "c", "hint"), "");
  back[0] = 0;          // element 100, the first past the end
  back[3 * 4 + 2] = 0;  // element 103
  const lab::GuardCheck after = lab::check_guard_bytes(front.data(), 8, back.data(), 16, 100, 4);
  EXPECT_EQ(after.after, 2u);
  EXPECT_EQ(after.first, 100);
  EXPECT_EQ(after.last, 103);
  EXPECT_EQ(lab::describe_guard_writes(after, "c", "add `if (i < n)`")
                .rfind("the kernel wrote 2 elements past the end of c (indices 100..103): add "
                       "`if (i < n)`",
                       0),
            0u);
  front[7 * 4] = 1;  // element -1
  const lab::GuardCheck both = lab::check_guard_bytes(front.data(), 8, back.data(), 16, 100, 4);
  EXPECT_EQ(both.before, 1u);
  EXPECT_EQ(both.first, -1);
  EXPECT_NE(
      lab::describe_guard_writes(both, "c", "h")
          .find("1 element before the start and 2 elements past the end of c (indices -1..103)"),
      std::string::npos);
}

TEST(Verify, MismatchLinesShowTheAllowedError) {
  const float got[] = {1.0f, 2.5f, std::nanf("")};
  const double want[] = {1.0, 2.0, 3.0};
  std::ostringstream err;
  const lab::CheckResult r = lab::compare(got, want, 3, lab::Tolerance{0.1, 0}, err, "x");
  EXPECT_EQ(r.mismatches, 2u);
  ASSERT_EQ(r.first.size(), 2u);
  EXPECT_EQ(r.first[0].index, 1u);
  EXPECT_NE(err.str().find("mismatch x[1]: got 2.5, expected 2 (difference 0.5, allowed 0.1)"),
            std::string::npos)
      << err.str();
  EXPECT_NE(err.str().find("mismatch x[2]: got nan, expected 3 (the sentinel"), std::string::npos)
      << err.str();
}
