// test_cli.cpp: size parsing and the shared command line.
#include "lab/cli.hpp"
#include "lab/error.hpp"

#include "support.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

using test::Args;

// The sentence a parse throws (and that it is a usage error, exit 2), or "accepted".
template <typename Parse>
std::string usage_message(Parse parse) {
  try {
    parse();
  } catch (const lab::UsageError& e) {
    EXPECT_EQ(e.exit_code(), lab::kExitUsage);
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST(ParseSize, AcceptsPlainAndPowerSyntax) {
  EXPECT_EQ(lab::parse_size("-n", "1"), 1u);
  EXPECT_EQ(lab::parse_size("-n", "1009"), 1009u);
  EXPECT_EQ(lab::parse_size("-n", " 42 "), 42u);
  EXPECT_EQ(lab::parse_size("-n", "2^26"), std::uint64_t{1} << 26);
  EXPECT_EQ(lab::parse_size("-n", "10^3"), 1000u);
  EXPECT_EQ(lab::parse_size("--offset", "0", 0), 0u);
}

TEST(ParseSize, RejectsWithReasons) {
  const auto message = [](const std::string& text) {
    return usage_message([&] { lab::parse_size("-n", text); });
  };
  EXPECT_NE(message("").find("missing"), std::string::npos);
  EXPECT_NE(message("abc").find("not a whole number"), std::string::npos);
  EXPECT_NE(message("12abc").find("not a whole number"), std::string::npos);
  EXPECT_NE(message("-5").find("negative"), std::string::npos);
  EXPECT_NE(message("0").find("at least 1"), std::string::npos);
  EXPECT_NE(message("99999999999999999999").find("too large"), std::string::npos);
  EXPECT_NE(message("2^64").find("too large"), std::string::npos);
  EXPECT_NE(message("2^").find("not a whole number"), std::string::npos);
  EXPECT_EQ(message("-5").rfind("-n: ", 0), 0u) << "the message names the option";
}

TEST(ParseSize, HonoursAnUpperBound) {
  EXPECT_EQ(lab::parse_size("--reps", "100000", 1, 100000), 100000u);
  EXPECT_EQ(usage_message([] { lab::parse_size("--reps", "100001", 1, 100000); }),
            "--reps: 100001 is too large: it must be at most 100000");
}

TEST(ParsePositive, AcceptsDecimalAndExponentRejectsTheRest) {
  EXPECT_DOUBLE_EQ(lab::parse_positive("--peak", "60000"), 60000.0);
  EXPECT_DOUBLE_EQ(lab::parse_positive("--peak", " 6e4 "), 60000.0);
  EXPECT_DOUBLE_EQ(lab::parse_positive("--peak", "0.5"), 0.5);
  const auto message = [](const std::string& text) {
    return usage_message([&] { lab::parse_positive("--peak", text); });
  };
  EXPECT_EQ(message("-1").rfind("--peak: -1 is negative", 0), 0u) << message("-1");
  EXPECT_EQ(message("0").rfind("--peak: 0 is not positive", 0), 0u) << message("0");
  EXPECT_EQ(message("0.0").rfind("--peak: 0 is not positive", 0), 0u) << message("0.0");
  EXPECT_NE(message("fast").find("is not a number"), std::string::npos);
  EXPECT_NE(message("12x").find("is not a number"), std::string::npos);
  EXPECT_NE(message("nan").find("is not a number"), std::string::npos);
  EXPECT_NE(message("inf").find("is not finite"), std::string::npos);
  EXPECT_NE(message("1e999").find("is not finite"), std::string::npos);
  EXPECT_NE(message("").find("missing"), std::string::npos);
}

TEST(ParseSizeList, SplitsOnCommaOrX) {
  EXPECT_EQ(lab::parse_size_list("--global", "16,16"), (std::vector<std::uint64_t>{16, 16}));
  EXPECT_EQ(lab::parse_size_list("--global", "8x4x2"), (std::vector<std::uint64_t>{8, 4, 2}));
  EXPECT_EQ(lab::parse_size_list("--global", "7"), (std::vector<std::uint64_t>{7}));
  EXPECT_THROW(lab::parse_size_list("--global", "16,,16"), lab::UsageError);
  for (const char* text : {"x,8", "8,", ",8", "8x"}) {
    try {
      lab::parse_size_list("--tile", text);
      ADD_FAILURE() << text << " was accepted";
    } catch (const lab::UsageError& e) {
      EXPECT_EQ(std::string(e.what()), std::string("--tile: '") + text +
                                           "' has an empty entry: write whole numbers separated "
                                           "by ',' (or 'x'), such as 16,16");
    }
  }
  EXPECT_THROW(lab::parse_size_list("--global", "16,0"), lab::UsageError);
}

TEST(Cli, SharedDefaultsAndFlags) {
  Args args(
      {"lab", "--reps", "5", "--warmup", "0", "--seed", "9", "--json", "-v", "--type", "GPU"});
  lab::Cli cli("lab", "test", args.argc(), args.argv());
  cli.parse();
  EXPECT_EQ(cli.options().reps, 5);
  EXPECT_EQ(cli.options().warmup, 0);
  EXPECT_EQ(cli.options().seed, 9u);
  EXPECT_TRUE(cli.options().verbose);
  EXPECT_EQ(cli.options().type, "gpu");
  EXPECT_EQ(cli.format(), lab::OutputFormat::json);
}

TEST(Cli, LabSizeOptionUsesSizeParser) {
  Args args({"lab", "-n", "2^10"});
  lab::Cli cli("lab", "test", args.argc(), args.argv());
  std::uint64_t n = 1;
  cli.add_size("-n,--size", n, "elements");
  cli.parse();
  EXPECT_EQ(n, 1024u);
}

TEST(Cli, RejectsNonsenseWithOneSentenceNamingTheOption) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"lab", "--bogus"}, "The following argument was not expected: --bogus"},
      {{"lab", "--reps", "0"}, "--reps: 0 is too small: it must be at least 1"},
      {{"lab", "--reps", "-3"}, "--reps: -3 is negative"},
      {{"lab", "--warmup", "5000"}, "--warmup: 5000 is too large: it must be at most 1000"},
      {{"lab", "--seed", "-1"}, "--seed: -1 is negative"},
      {{"lab", "--seed", "2^64"}, "--seed: '2^64' is too large"},
      {{"lab", "--peak", "-1"}, "--peak: -1 is negative"},
      {{"lab", "--peak", "0"}, "--peak: 0 is not positive"},
      {{"lab", "--json", "--csv"}, "--json excludes --csv"},
      {{"lab", "--type", "fpga"}, "--type: fpga not in"},
      {{"lab", "-n", "0"}, "--size: 0 is too small"},
      {{"lab", "-n", "x"}, "--size: 'x' is not a whole number"},
      {{"lab", "-n"}, "--size needs a value (SIZE) after it"},
      {{"lab", "--reps"}, "--reps needs a value ("},
      {{"lab", "-n", "2^62"}, "--size: 2^62 is too large: it must be at most 2^48"},
      {{"lab", "--reps", "1.5"}, "--reps: '1.5' is not a whole number"},
      {{"lab", "--peak", "1e20"}, "--peak: 1e20 is too large: it must be at most 1e+09"},
      {{"lab", "--peak", "1e-320"}, "--peak: 1e-320 is too small: it must be at least 0.001"},
  };
  for (const auto& [words, expected] : cases) {
    Args args(words);
    lab::Cli cli("lab", "test", args.argc(), args.argv());
    std::uint64_t n = 1;
    double peak = 1;
    cli.add_size("-n,--size", n, "elements");
    cli.add_positive("--peak", peak, "GFLOP/s", 1e-3, 1e9);
    const std::string message = usage_message([&] { cli.parse(); });
    EXPECT_NE(message.find(expected), std::string::npos) << words[1] << ": " << message;
    EXPECT_NE(message.find("(run 'lab --help' for the options)"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

// Kernel paths are checked when the command line is read, before any work: an empty word (an
// unset shell variable) would otherwise grade the suite's kernel as the student's.
TEST(Cli, KernelPathsCheckedBeforeAnyWork) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"lab", "--kernel-file", ""}, "--kernel-file was given an empty path"},
      {{"lab", "--kernel-dir", ""}, "--kernel-dir was given an empty path"},
      {{"lab", "--trace", ""}, "--trace was given an empty path"},
      {{"lab", "--kernel-file", "/nonexistent/k.cl"},
       "--kernel-file /nonexistent/k.cl is not a file"},
      {{"lab", "--kernel-dir", "/nonexistent"}, "/nonexistent is not a directory"},
  };
  for (const auto& [words, expected] : cases) {
    Args args(words);
    lab::Cli cli("lab", "test", args.argc(), args.argv());
    const std::string message = usage_message([&] { cli.parse(); });
    EXPECT_NE(message.find(expected), std::string::npos) << words[1] << ": " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(Cli, NumericOptionsStoreTheirValues) {
  Args args({"lab", "--seed", "2^40", "--peak", "6e4", "--reps", "100000"});
  lab::Cli cli("lab", "test", args.argc(), args.argv());
  double peak = 0;
  cli.add_positive("--peak", peak, "GFLOP/s", 1e-3, 1e9);
  cli.parse();
  EXPECT_EQ(cli.options().seed, std::uint64_t{1} << 40);
  EXPECT_EQ(cli.options().reps, 100000);
  EXPECT_DOUBLE_EQ(peak, 60000.0);
}

TEST(Cli, EnvironmentFallbacksAndCommandLinePrecedence) {
  ::setenv("LAB_DEVICE", "from-env", 1);
  {
    Args args({"lab"});
    lab::Cli cli("lab", "test", args.argc(), args.argv());
    cli.parse();
    EXPECT_EQ(cli.options().device, "from-env");
  }
  {
    Args args({"lab", "-d", "1"});
    lab::Cli cli("lab", "test", args.argc(), args.argv());
    cli.parse();
    EXPECT_EQ(cli.options().device, "1");
  }
  ::unsetenv("LAB_DEVICE");
}
