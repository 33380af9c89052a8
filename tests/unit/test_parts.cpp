// test_parts.cpp: --part from a part lab's table: which parts run, the notes on options a part
// does not read, and where --kernel-file can go.
#include "lab/cli.hpp"
#include "lab/error.hpp"
#include "lab/parts.hpp"

#include "support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using test::Args;

// A lab like buffer_flags: two demonstrations of one kernel file and a timing part that builds
// only a helper file.
std::vector<lab::Part> table() {
  return {{"first", "demo.cl"}, {"second", "demo.cl"}, {"timing", "", {"helper.cl"}}};
}

// What check() throws for these arguments (a usage error), or "" when it accepts them; `notes`
// gets the notes it held.
std::string check(std::vector<std::string> words, std::string* notes = nullptr,
                  std::vector<lab::Part> parts = table()) {
  lab::take_notes();
  words.insert(words.begin(), "lab");
  Args args(words);
  lab::Cli cli("lab", "test", args.argc(), args.argv());
  std::string modes;
  lab::Parts chosen(cli, std::move(parts));
  cli.add_text("--modes", modes, "timing: the modes");
  cli.parse();
  std::string error;
  try {
    chosen.read_by("--modes", {"timing"}).check(cli);
  } catch (const lab::UsageError& e) {
    error = e.what();
  }
  if (notes != nullptr) *notes = lab::take_notes();
  return error;
}

}  // namespace

TEST(Parts, AllRunsEveryPartAndOneRunsItself) {
  Args args({"lab", "--part", "second"});
  lab::Cli cli("lab", "test", args.argc(), args.argv());
  lab::Parts parts(cli, table());
  cli.parse();
  EXPECT_EQ(parts.chosen(), "second");
  EXPECT_TRUE(parts.runs("second"));
  EXPECT_FALSE(parts.runs("first"));

  Args none({"lab"});
  lab::Cli all_cli("lab", "test", none.argc(), none.argv());
  lab::Parts all(all_cli, table());
  all_cli.parse();
  for (const char* name : {"first", "second", "timing"}) EXPECT_TRUE(all.runs(name)) << name;
}

TEST(Parts, AnOptionThePartDoesNotReadIsANote) {
  std::string notes;
  EXPECT_EQ(check({"--part", "first", "--modes", "copy"}, &notes), "");
  EXPECT_EQ(notes,
            "lab: note: --modes is read by --part timing, not by first: ignored (choose --part "
            "timing or all to use it)\n");
  EXPECT_EQ(check({"--part", "timing", "--modes", "copy"}, &notes), "");
  EXPECT_EQ(notes, "");
  EXPECT_EQ(check({"--modes", "copy"}, &notes), "");  // all reads every option
  EXPECT_EQ(notes, "");
}

TEST(Parts, KernelFileGoesWhereOneFileIsReplaced) {
  const std::string file = test::kernel_dir() + "/vector_add.cl";
  // One replaceable file among the chosen parts: accepted, with all too.
  EXPECT_EQ(check({"--part", "first", "--kernel-file", file}), "");
  EXPECT_EQ(check({"--kernel-file", file}), "");
  // The timing part replaces nothing: the way out is named.
  EXPECT_EQ(check({"--part", "timing", "--kernel-file", file}),
            "--kernel-file replaces demo.cl, which --part timing does not build: choose --part "
            "first, second or all, or put your copy of helper.cl in a folder and pass "
            "--kernel-dir");
  // Parts with different files under all: one must be chosen.
  EXPECT_EQ(check({"--kernel-file", file}, nullptr, {{"bandwidth", "copy.cl"}, {"ops", "ops.cl"}}),
            "--kernel-file replaces one demonstration's kernels: add --part NAME, bandwidth "
            "(copy.cl) or ops (ops.cl)");
}
