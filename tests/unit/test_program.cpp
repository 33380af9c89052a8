// test_program.cpp: kernel lookup order and the paths it reports.
#include "lab/error.hpp"
#include "lab/program.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace {

std::string make_dir_with(const std::string& name, const std::string& file) {
  std::string dir = ::testing::TempDir() + name;
  std::string cmd = "mkdir -p '" + dir + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  if (!file.empty()) std::ofstream(dir + "/" + file) << "__kernel void k() {}\n";
  return dir;
}

}  // namespace

TEST(KernelLookup, OrderIsFileThenDirThenExeThenSource) {
  const lab::KernelLookup lookup{"/x/override.cl", "/d", "/exe/kernels", "/src/kernels"};
  EXPECT_EQ(lab::kernel_candidates("k.cl", lookup, true),
            (std::vector<std::string>{"/x/override.cl"}));
  EXPECT_EQ(lab::kernel_candidates("k.cl", lookup, false),
            (std::vector<std::string>{"/d/k.cl", "/exe/kernels/k.cl", "/src/kernels/k.cl"}));
  const lab::KernelLookup no_dir{"", "", "/exe/kernels/", "/src/kernels"};
  EXPECT_EQ(lab::kernel_candidates("k.cl", no_dir, true),
            (std::vector<std::string>{"/exe/kernels/k.cl", "/src/kernels/k.cl"}));
}

TEST(KernelLookup, FindsTheFirstExistingFile) {
  const std::string exe = make_dir_with("lookup_exe", "k.cl");
  const std::string src = make_dir_with("lookup_src", "k.cl");
  const std::string empty = make_dir_with("lookup_empty", "");
  EXPECT_EQ(lab::find_kernel_file("k.cl", {"", empty, exe, src}, true), exe + "/k.cl");
  EXPECT_EQ(lab::find_kernel_file("k.cl", {"", src, exe, ""}, true), src + "/k.cl");
}

TEST(KernelLookup, MissingFileListsEveryPathTried) {
  const lab::KernelLookup lookup{"", "/nope/a", "/nope/b", "/nope/c"};
  try {
    lab::find_kernel_file("k.cl", lookup, true);
    FAIL() << "expected an error";
  } catch (const lab::RuntimeError& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("/nope/a/k.cl, /nope/b/k.cl, /nope/c/k.cl"), std::string::npos) << text;
    EXPECT_NE(text.find("--kernel-dir"), std::string::npos);
    EXPECT_EQ(e.exit_code(), 3);
  }
}

TEST(Defines, BuildsDashDFlags) {
  EXPECT_EQ(lab::defines({{"TS", "16"}, {"WPT", "4"}}), "-DTS=16 -DWPT=4");
  EXPECT_EQ(lab::defines({}), "");
}
