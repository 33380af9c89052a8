// test_error.cpp: OpenCL error names and hints.
#include "lab/error.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

TEST(ErrorNames, KnownCodes) {
  EXPECT_STREQ(lab::cl_error_name(0), "CL_SUCCESS");
  EXPECT_STREQ(lab::cl_error_name(-5), "CL_OUT_OF_RESOURCES");
  EXPECT_STREQ(lab::cl_error_name(-11), "CL_BUILD_PROGRAM_FAILURE");
  EXPECT_STREQ(lab::cl_error_name(-54), "CL_INVALID_WORK_GROUP_SIZE");
  EXPECT_STREQ(lab::cl_error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
  EXPECT_STREQ(lab::cl_error_name(-9999), "unknown OpenCL error");
}

TEST(ErrorNames, EveryCodeFromZeroToSeventyHasADistinctNameOrIsUnknown) {
  std::set<std::string> names;
  for (int code = 0; code >= -70; --code) {
    const std::string name = lab::cl_error_name(code);
    if (name != "unknown OpenCL error") {
      EXPECT_TRUE(names.insert(name).second) << name;
    }
  }
  EXPECT_GE(names.size(), 60u);
}

TEST(ErrorHints, CommonErrorsSayWhatToDo) {
  EXPECT_NE(lab::cl_error_hint(-54).find("divide"), std::string::npos);
  EXPECT_NE(lab::cl_error_hint(-11).find("build log"), std::string::npos);
  EXPECT_NE(lab::cl_error_hint(-1001).find("setup.sh"), std::string::npos);
  EXPECT_EQ(lab::cl_error_hint(-9999), "");
}

TEST(ErrorDescribe, NamesFunctionCodeAndHint) {
  const cl::Error error(-54, "clEnqueueNDRangeKernel");
  const std::string text = lab::describe(error);
  EXPECT_EQ(text.rfind("clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE (-54): ", 0), 0u)
      << text;
}

TEST(ErrorTypes, ExitCodes) {
  EXPECT_EQ(lab::UsageError("x").exit_code(), 2);
  EXPECT_EQ(lab::RuntimeError("x").exit_code(), 3);
  EXPECT_EQ(lab::SkipError("x").exit_code(), 77);
  const lab::Error copy = lab::UsageError("owned text");
  EXPECT_STREQ(copy.what(), "owned text");
}
