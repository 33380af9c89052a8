// test_program.cpp: kernel lookup order and the paths it reports.
#include "lab/error.hpp"
#include "lab/program.hpp"
#include "lab/sha256.hpp"

#include "support.hpp"

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

TEST(KernelLookup, OrderIsFileThenDirThenBesideThenInstalled) {
  const lab::KernelLookup lookup{"/x/override.cl", "/d", "/exe/kernels",
                                 "/usr/share/opencl-labs/kernels"};
  EXPECT_EQ(lab::kernel_candidates("k.cl", lookup, true),
            (std::vector<std::string>{"/x/override.cl"}));
  EXPECT_EQ(lab::kernel_candidates("k.cl", lookup, false),
            (std::vector<std::string>{"/d/k.cl", "/exe/kernels/k.cl",
                                      "/usr/share/opencl-labs/kernels/k.cl"}));
  // A --kernel-dir is the only place the lab's own kernel may come from.
  const lab::KernelLookup dir_only{"", "/d", "/exe/kernels", "/usr/share/opencl-labs/kernels"};
  EXPECT_EQ(lab::kernel_candidates("k.cl", dir_only, true), (std::vector<std::string>{"/d/k.cl"}));
  const lab::KernelLookup no_dir{"", "", "/exe/kernels/", "/usr/share/opencl-labs/kernels"};
  EXPECT_EQ(lab::kernel_candidates("k.cl", no_dir, true),
            (std::vector<std::string>{"/exe/kernels/k.cl", "/usr/share/opencl-labs/kernels/k.cl"}));
}

TEST(KernelLookup, FindsTheFirstExistingFile) {
  const std::string exe = make_dir_with("lookup_exe", "k.cl");
  const std::string src = make_dir_with("lookup_src", "k.cl");
  const std::string empty = make_dir_with("lookup_empty", "");
  EXPECT_EQ(lab::find_kernel_file("k.cl", {"", "", exe, src}, true), exe + "/k.cl");
  EXPECT_EQ(lab::find_kernel_file("k.cl", {"", src, exe, ""}, true), src + "/k.cl");
  // A helper kernel falls back past a directory without it; the lab's own kernel does not.
  EXPECT_EQ(lab::find_kernel_file("k.cl", {"", empty, exe, src}, false), exe + "/k.cl");
  try {
    lab::find_kernel_file("k.cl", {"", empty, exe, src}, true);
    FAIL() << "expected an error";
  } catch (const lab::RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel file k.cl is not in --kernel-dir " + empty),
              std::string::npos)
        << e.what();
  }
}

TEST(KernelLookup, MissingFileListsEveryPathTried) {
  const lab::KernelLookup lookup{"", "/nope/a", "/nope/b", "/nope/c"};
  try {
    lab::find_kernel_file("k.cl", lookup, false);
    FAIL() << "expected an error";
  } catch (const lab::RuntimeError& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("/nope/a/k.cl, /nope/b/k.cl, /nope/c/k.cl"), std::string::npos) << text;
    EXPECT_NE(text.find("--kernel-dir"), std::string::npos);
    EXPECT_EQ(e.exit_code(), 3);
  }
}

TEST(Defines, BuildsDashDFlags) {
  EXPECT_EQ(lab::define_flags({{"TS", "16", "--ts"}, {"WPT", "4", ""}}), "-DTS=16 -DWPT=4");
  EXPECT_EQ(lab::define_flags({}), "");
}

TEST(Defines, BuildOptionsMayNotRedefineAHostTunable) {
  const lab::Defines defines = {{"TS", "16", "--ts"}, {"EXACT", "1", ""}};
  EXPECT_NO_THROW(lab::check_build_options("-cl-fast-relaxed-math -DOTHER=3", defines));
  EXPECT_NO_THROW(lab::check_build_options("-DTSX=8", defines));
  for (const char* options : {"-DTS=8", "-DTS", "-D TS=8", "-cl-mad-enable -DTS=8"}) {
    try {
      lab::check_build_options(options, defines);
      FAIL() << options;
    } catch (const lab::UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("redefines TS, which the host also uses"),
                std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("set it with --ts instead"), std::string::npos);
    }
  }
  try {
    lab::check_build_options("-DEXACT=0", defines);
    FAIL();
  } catch (const lab::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("derives it from the sizes"), std::string::npos);
  }
}

TEST(Defines, BuildOptionsMayNotEndWithAFlagThatTakesAValue) {
  const lab::Defines defines = {{"TS", "16", "--ts"}};
  EXPECT_NO_THROW(lab::check_build_options("-D OTHER -I /tmp -w", defines));
  for (const char* options : {"-D", "-I", "-w -D", "-DX=1 -I", "-I dir -D"}) {
    try {
      lab::check_build_options(options, defines);
      FAIL() << options;
    } catch (const lab::UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("which needs a value after it"), std::string::npos)
          << e.what();
    }
  }
}

TEST(KernelSignature, ReadsAsOpenClC) {
  const lab::KernelSignature signature{"add", {{"", "ulong", "n"}, {"global", "float*", "c"}}};
  EXPECT_EQ(signature.text(), "__kernel void add(ulong n, __global float* c)");
}

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(lab::sha256_hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(lab::sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 56 bytes: the padding needs a second block.
  EXPECT_EQ(lab::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(lab::sha256_hex(std::string(1000, 'a')),
            "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

// Barriers some work-items may skip are found in the code as written; the suite's own kernels,
// whose barriers all sit outside branches, pass.
TEST(DivergentBarrier, FindsBarriersInBranchesAndAfterEarlyReturns) {
  EXPECT_EQ(lab::divergent_barrier("__kernel void k(__local float* s) {\n"
                                   "  for (int i = 0; i < 4; ++i) {\n"
                                   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                                   "    if (get_local_id(0) < i) s[0] = 1;\n"
                                   "  }\n"
                                   "  // if (x) barrier(CLK_LOCAL_MEM_FENCE);\n"
                                   "}\n"),
            "");
  const std::string in_if = lab::divergent_barrier(
      "__kernel void k() {\n  if (get_local_id(0) < 4) {\n    barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  }\n}\n");
  EXPECT_EQ(in_if.rfind("line 3: barrier() inside an if", 0), 0u) << in_if;
  EXPECT_NE(lab::divergent_barrier("__kernel void k() {\n  if (a) x = 1;\n  else\n"
                                   "    barrier(CLK_LOCAL_MEM_FENCE);\n}\n")
                .find("line 4"),
            std::string::npos);
  EXPECT_EQ(lab::divergent_barrier("__kernel void k() {\n  if (a) x = 1;\n"
                                   "  barrier(CLK_LOCAL_MEM_FENCE);\n}\n"),
            "");
  const std::string early = lab::divergent_barrier(
      "__kernel void k() {\n  if (get_global_id(0) >= n) return;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n}\n__kernel void j() { barrier(CLK_LOCAL_MEM_FENCE); }\n");
  EXPECT_NE(early.find("line 3: barrier() after a return inside a branch (line 2)"),
            std::string::npos)
      << early;
  EXPECT_EQ(lab::divergent_barrier("#define SYNC \\\n  if (x) barrier(CLK_LOCAL_MEM_FENCE)\n"
                                   "__kernel void k() { barrier(CLK_LOCAL_MEM_FENCE); }\n"),
            "");

  for (const char* file : {"vector_add.cl",
                           "vector_copy.cl",
                           "work_items_record.cl",
                           "matmul_naive_global.cl",
                           "matmul_naive.cl",
                           "matmul_row.cl",
                           "matmul_row_private.cl",
                           "matmul_row_local.cl",
                           "matmul_tiled.cl",
                           "matmul_regtile_simple.cl",
                           "matmul_regtiled.cl",
                           "reduction_single.cl",
                           "reduction_local_single.cl",
                           "reduction_interleaved.cl",
                           "reduction_interleaved_strided.cl",
                           "reduction_sequential.cl",
                           "reduction_first_add.cl",
                           "reduction_multi.cl",
                           "reduction_atomic.cl",
                           "reduction_finish.cl"}) {
    std::ifstream in(test::kernel_dir() + "/" + file);
    const std::string source((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
    ASSERT_FALSE(source.empty()) << file;
    EXPECT_EQ(lab::divergent_barrier(source), "") << file;
  }
}
