// test_report.cpp: the result rows in the result schema's shape: JSON fields, the CSV's columns,
// the human table's width and wrapping, and SKIPPED rows.
#include "lab/report.hpp"

#include "lab/peers.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>

namespace {

lab::Result timed_row(const std::string& variant) {
  lab::Result r;
  r.variant = variant;
  r.size = lab::Size("n", 8);
  r.time = lab::summarize({0.001, 0.002, 0.003});
  r.warmup = 2;
  r.rate = 1.5;
  r.unit = "GB/s";
  r.passed = true;
  return r;
}

std::string printed(const lab::Report& report, lab::OutputFormat format) {
  std::ostringstream out;
  report.print(format, out);
  return out.str();
}

}  // namespace

TEST(Report, JsonRowHasTheSchemaFields) {
  lab::Report report("lab", "dev");
  lab::Result r = timed_row("naive");
  r.tunables = {{"TS", 16, lab::Origin::tuned}, {"KMAX", 1024}};
  r.tuning = "tuned";
  lab::set_reference(r, {"copy kernel", 3.0, "GB/s", "copy kernel 3.0 GB/s"});
  r.speedup = 4.0;
  r.add_note("first");
  r.add_note("");
  r.add_note("second");
  report.add(r);
  const auto json = report.json();
  EXPECT_EQ(json["schema_version"], lab::kResultSchemaVersion);
  EXPECT_EQ(json["device"]["name"], "dev");
  const auto& row = json["results"][0];
  EXPECT_EQ(row["size"], nlohmann::json({{"n", 8}}));
  EXPECT_EQ(row["size_label"], "n=8");
  EXPECT_EQ(row["time_s"]["runs"], 3);
  EXPECT_EQ(row["time_s"]["warmups"], 2);
  EXPECT_EQ(row["time_s"]["clock"], "event");
  EXPECT_EQ(row["rate"], nlohmann::json({{"value", 1.5}, {"unit", "GB/s"}}));
  EXPECT_DOUBLE_EQ(row["reference"]["share"].get<double>(), 0.5);
  EXPECT_EQ(row["reference"]["name"], "copy kernel");
  EXPECT_DOUBLE_EQ(row["speedup"].get<double>(), 4.0);
  EXPECT_EQ(row["tunables"]["TS"], nlohmann::json({{"value", 16}, {"origin", "tuned"}}));
  EXPECT_EQ(row["tunables"]["KMAX"]["origin"], "default");
  EXPECT_EQ(row["notes"], nlohmann::json({"first", "second"}));
  EXPECT_EQ(report.exit_code(), 0);
}

TEST(Report, CsvColumnsArePathsIntoTheJson) {
  lab::Report report("lab", "dev,ice");
  lab::Result r = timed_row("naive");
  r.tunables = {{"TS", 16}, {"KMAX", 1024}};
  r.add_note("a, b");
  report.add(r);
  const std::string csv = printed(report, lab::OutputFormat::csv);
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_EQ(header.rfind("lab,device.name,variant,size_label,size.n,size.m,", 0), 0u) << header;
  EXPECT_NE(header.find(",time_s.median,time_s.min,time_s.runs,time_s.warmups,"),
            std::string::npos);
  EXPECT_NE(csv.find("\nlab,\"dev,ice\",naive,n=8,8,,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",PASSED,0.002000000,0.001000000,3,2,event,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\"TS=16 (default), KMAX=1024 (default)\""), std::string::npos) << csv;
  EXPECT_NE(csv.find(",\"a, b\"\n"), std::string::npos) << csv;
}

TEST(Report, SizesHaveSchemaNamesOnly) {
  lab::Size size("height", 3);
  size.add("width", 5);
  EXPECT_EQ(size.text(), "height=3 width=5");
  EXPECT_EQ(size.json(), nlohmann::json({{"height", 3}, {"width", 5}}));
  EXPECT_EQ(lab::Size().add("global", {16, 4}).json()["global"], nlohmann::json({16, 4}));
  EXPECT_TRUE(lab::Size().add("global", std::vector<std::int64_t>{16}).json()["global"].is_array())
      << "a one-dimensional global size is still a list";
  EXPECT_EQ(lab::Size("n", 9).label("N=9").text(), "N=9");
  EXPECT_THROW(lab::Size("rows", 3), std::logic_error);
}

TEST(Report, TableFitsALineAndWrapsNotesUnderTheirRow) {
  lab::Report report("lab", "dev");
  report.set_row_name("part");
  lab::Result r;
  r.variant = "wait_list";
  r.checks = "k3 START >= k1 END and k3 START >= k2 END, and every element of the result";
  r.measured = std::string(150, 'x');
  r.passed = true;
  r.add_note(std::string(60, 'a') + " " + std::string(80, 'b'));
  report.add(r);
  const std::string table = printed(report, lab::OutputFormat::human);
  std::istringstream lines(table);
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    EXPECT_LE(line.size(), 120u) << line;
    ++count;
  }
  EXPECT_NE(table.find("  part "), std::string::npos) << table;
  EXPECT_NE(table.find("    note: aaaa"), std::string::npos) << table;
  EXPECT_GT(count, 6) << "the long cells wrap onto more lines\n" << table;
}

TEST(Report, SkippedRowsNeitherPassNorFail) {
  lab::Report report("lab", "dev");
  lab::Result skipped;
  skipped.variant = "sub_devices";
  skipped.skip_reason = "the device cannot be partitioned";
  report.add(skipped);
  EXPECT_EQ(report.exit_code(), 1) << "a report of skipped rows only has passed nothing";
  report.add(timed_row("copy"));
  EXPECT_EQ(report.exit_code(), 0);
  EXPECT_EQ(report.json()["results"][0]["status"], "SKIPPED");
  EXPECT_EQ(report.json()["results"][0]["skip_reason"], "the device cannot be partitioned");
}

TEST(Report, APeerLibrarysWrongResultIsShownButNotTheLabsFailure) {
  lab::Report report("lab", "dev");
  lab::Result library = timed_row("OpenBLAS ssum (host CPU)");
  library.passed = false;
  lab::mark_peer(library);
  report.add(library);
  EXPECT_EQ(report.exit_code(), 1) << "a peer's row alone is not the lab passing";
  report.add(timed_row("multi"));
  EXPECT_EQ(report.exit_code(), 0) << "the lab's own row passed; the library's failure is its own";
  const auto json = report.json();
  EXPECT_EQ(json["results"][0]["status"], "FAILED");
  EXPECT_NE(json["results"][0]["notes"][0].get<std::string>().find("does not change"),
            std::string::npos);
  lab::Result own = timed_row("sequential");
  own.passed = false;
  report.add(own);
  EXPECT_EQ(report.exit_code(), 1) << "a wrong row of the lab's own still fails it";
  lab::Result right = timed_row("CLBlast ssum");
  lab::mark_peer(right);
  EXPECT_TRUE(right.notes.empty()) << "a peer that passed gets no note";
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

TEST(Report, SummaryLinesFitALine) {
  lab::Report report("a_long_lab_name", "A device with a very long marketing name indeed");
  lab::Result r = timed_row("copy mode=use result=use with a long tail");
  r.size = lab::Size("m", 4095).add("n", 4097).add("k", 4093);
  lab::set_reference(r, {"copy kernel", 3.0, "GB/s", "copy kernel 3.0 GB/s"});
  report.add(r);
  const std::string summary = printed(report, lab::OutputFormat::summary);
  EXPECT_LE(summary.find('\n'), 120u) << summary;
  EXPECT_NE(summary.find("PASSED"), std::string::npos) << summary;
}
