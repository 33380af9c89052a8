// error.cpp: OpenCL error codes as names, with a hint for the ones students meet most; the
// notes a run holds until its result.
#include "lab/error.hpp"

#include <sstream>

namespace lab {

namespace {

std::ostringstream& held_notes() {
  static std::ostringstream held;
  return held;
}

}  // namespace

std::ostream& notes() { return held_notes(); }

std::string take_notes() {
  std::string text = held_notes().str();
  held_notes().str("");
  return text;
}

const char* cl_error_name(cl_int code) {
  switch (code) {
    case 0:
      return "CL_SUCCESS";
    case -1:
      return "CL_DEVICE_NOT_FOUND";
    case -2:
      return "CL_DEVICE_NOT_AVAILABLE";
    case -3:
      return "CL_COMPILER_NOT_AVAILABLE";
    case -4:
      return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case -5:
      return "CL_OUT_OF_RESOURCES";
    case -6:
      return "CL_OUT_OF_HOST_MEMORY";
    case -7:
      return "CL_PROFILING_INFO_NOT_AVAILABLE";
    case -8:
      return "CL_MEM_COPY_OVERLAP";
    case -9:
      return "CL_IMAGE_FORMAT_MISMATCH";
    case -10:
      return "CL_IMAGE_FORMAT_NOT_SUPPORTED";
    case -11:
      return "CL_BUILD_PROGRAM_FAILURE";
    case -12:
      return "CL_MAP_FAILURE";
    case -13:
      return "CL_MISALIGNED_SUB_BUFFER_OFFSET";
    case -14:
      return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
    case -15:
      return "CL_COMPILE_PROGRAM_FAILURE";
    case -16:
      return "CL_LINKER_NOT_AVAILABLE";
    case -17:
      return "CL_LINK_PROGRAM_FAILURE";
    case -18:
      return "CL_DEVICE_PARTITION_FAILED";
    case -19:
      return "CL_KERNEL_ARG_INFO_NOT_AVAILABLE";
    case -30:
      return "CL_INVALID_VALUE";
    case -31:
      return "CL_INVALID_DEVICE_TYPE";
    case -32:
      return "CL_INVALID_PLATFORM";
    case -33:
      return "CL_INVALID_DEVICE";
    case -34:
      return "CL_INVALID_CONTEXT";
    case -35:
      return "CL_INVALID_QUEUE_PROPERTIES";
    case -36:
      return "CL_INVALID_COMMAND_QUEUE";
    case -37:
      return "CL_INVALID_HOST_PTR";
    case -38:
      return "CL_INVALID_MEM_OBJECT";
    case -39:
      return "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR";
    case -40:
      return "CL_INVALID_IMAGE_SIZE";
    case -41:
      return "CL_INVALID_SAMPLER";
    case -42:
      return "CL_INVALID_BINARY";
    case -43:
      return "CL_INVALID_BUILD_OPTIONS";
    case -44:
      return "CL_INVALID_PROGRAM";
    case -45:
      return "CL_INVALID_PROGRAM_EXECUTABLE";
    case -46:
      return "CL_INVALID_KERNEL_NAME";
    case -47:
      return "CL_INVALID_KERNEL_DEFINITION";
    case -48:
      return "CL_INVALID_KERNEL";
    case -49:
      return "CL_INVALID_ARG_INDEX";
    case -50:
      return "CL_INVALID_ARG_VALUE";
    case -51:
      return "CL_INVALID_ARG_SIZE";
    case -52:
      return "CL_INVALID_KERNEL_ARGS";
    case -53:
      return "CL_INVALID_WORK_DIMENSION";
    case -54:
      return "CL_INVALID_WORK_GROUP_SIZE";
    case -55:
      return "CL_INVALID_WORK_ITEM_SIZE";
    case -56:
      return "CL_INVALID_GLOBAL_OFFSET";
    case -57:
      return "CL_INVALID_EVENT_WAIT_LIST";
    case -58:
      return "CL_INVALID_EVENT";
    case -59:
      return "CL_INVALID_OPERATION";
    case -60:
      return "CL_INVALID_GL_OBJECT";
    case -61:
      return "CL_INVALID_BUFFER_SIZE";
    case -62:
      return "CL_INVALID_MIP_LEVEL";
    case -63:
      return "CL_INVALID_GLOBAL_WORK_SIZE";
    case -64:
      return "CL_INVALID_PROPERTY";
    case -65:
      return "CL_INVALID_IMAGE_DESCRIPTOR";
    case -66:
      return "CL_INVALID_COMPILER_OPTIONS";
    case -67:
      return "CL_INVALID_LINKER_OPTIONS";
    case -68:
      return "CL_INVALID_DEVICE_PARTITION_COUNT";
    case -69:
      return "CL_INVALID_PIPE_SIZE";
    case -70:
      return "CL_INVALID_DEVICE_QUEUE";
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return "unknown OpenCL error";
  }
}

std::string cl_error_hint(cl_int code) {
  switch (code) {
    case -1:
      return "no device of the requested type: run with --list to see what is available";
    case -4:
    case -61:
      return "a buffer is larger than the device can allocate: use a smaller size "
             "(device_info shows the max allocation)";
    case -5:
      return "the kernel asked for more than the device has (registers, local memory, or it "
             "crashed): try a smaller --local or size";
    case -6:
      return "the host ran out of memory: use a smaller size";
    case -7:
      return "the queue was created without profiling; lab::open_device enables it";
    case -11:
      return "the kernel did not compile: read the build log printed above";
    case -30:
      return "an argument to an OpenCL call was invalid, often a size of 0";
    case -43:
      return "the compiler rejected --build-options: check the spelling of each option";
    case -46:
      return "the kernel file has no __kernel of the expected name: check --kernel-file";
    case -52:
      return "a kernel argument was never set";
    case -53:
      return "OpenCL NDRanges have 1, 2 or 3 dimensions";
    case -54:
      return "the local size must divide the global size in every dimension, and its product "
             "must not exceed the kernel's and the device's maximum work-group size";
    case -55:
      return "a local size exceeds the device's maximum work-item size in that dimension "
             "(device_info lists CL_DEVICE_MAX_WORK_ITEM_SIZES)";
    case -63:
      return "the global size is 0 or too large for the device";
    case -1001:
      return "no OpenCL platform is installed: run scripts/setup.sh (installs PoCL) or check "
             "/etc/OpenCL/vendors and OCL_ICD_VENDORS";
    default:
      return "";
  }
}

std::string describe(const cl::Error& error) {
  std::string text = std::string(error.what()) + " failed: " + cl_error_name(error.err()) + " (" +
                     std::to_string(error.err()) + ")";
  const std::string hint = cl_error_hint(error.err());
  if (!hint.empty()) text += ": " + hint;
  return text;
}

}  // namespace lab
