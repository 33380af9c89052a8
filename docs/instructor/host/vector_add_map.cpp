// vector_add_map.cpp: vector_add's host program with buffers the runtime allocates in memory the
// host can reach (CL_MEM_ALLOC_HOST_PTR), filled and read through maps instead of copies: the
// second host exercise of lab 2 (vector_add_host.cpp is the first; the steps they share are alike).
//   vector_add_map N KERNEL_FILE
// prints every element of c on stdout and checks c against a + b on stderr, as the first does.
// The CL_HPP_* lines are the suite's settings of the bindings: with them this file builds alone.
#define CL_HPP_ENABLE_EXCEPTIONS  // OpenCL errors as cl::Error exceptions
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_TARGET_OPENCL_VERSION 120
#define CL_HPP_CL_1_2_DEFAULT_BUILD
#include <CL/opencl.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  // 1. Options: N and the kernel file
  char* end = nullptr;
  const unsigned long long n = argc == 3 ? std::strtoull(argv[1], &end, 10) : 0;
  if (argc != 3 || n == 0 || *end != '\0') {
    std::fprintf(stderr, "usage: %s N KERNEL_FILE (N >= 1 floats)\n", argv[0]);
    return 2;
  }
  const std::string kernel_file = argv[2];

  // 2. Host data: a and b, and c for the result (before the queue, so they outlive it)
  std::vector<float> a(n), b(n), c(n, 0.0f);
  for (unsigned long long i = 0; i < n; ++i) {
    a[i] = float((i * 37 + 11) % 4096) * 0.25f;  // exact in float: the sums are exact too
    b[i] = float((i * 101 + 5) % 2048) * 0.5f;
  }
  const std::size_t bytes = n * sizeof(float);
  std::fprintf(stderr, "n = %llu floats, %zu bytes a vector\n", n, bytes);

  try {
    // 3. The device: the first device of the first platform
    std::vector<cl::Platform> platforms;
    cl::Platform::get(&platforms);
    if (platforms.empty()) {
      std::fprintf(stderr, "no OpenCL platform: install one (PoCL: scripts/setup.sh)\n");
      return 3;
    }
    std::vector<cl::Device> devices;
    platforms[0].getDevices(CL_DEVICE_TYPE_ALL, &devices);
    const cl::Device device = devices.at(0);
    std::fprintf(stderr, "device: %s\n", device.getInfo<CL_DEVICE_NAME>().c_str());

    // 4. A context on the device, and an in-order queue that records profiling information
    // EXERCISE(context): a cl::Context on device, a cl::CommandQueue queue with profiling on
    cl::Context context(device);
    cl::CommandQueue queue(context, device, CL_QUEUE_PROFILING_ENABLE);
    // END EXERCISE

    // 5. Read the kernel file and build it for the device; when the build fails (a cl::Error),
    //    print the build log (getBuildInfo<CL_PROGRAM_BUILD_LOG>) on stderr and return 3
    // EXERCISE(program): read kernel_file, build a cl::Program; print the log if it fails
    std::ifstream file(kernel_file);
    if (!file) {
      std::fprintf(stderr, "cannot read %s: check the path\n", kernel_file.c_str());
      return 2;
    }
    std::stringstream source;
    source << file.rdbuf();
    cl::Program program(context, source.str());
    try {
      program.build({device}, "");
    } catch (const cl::Error&) {
      std::fprintf(stderr, "%s failed to build:\n%s\n", kernel_file.c_str(),
                   program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device).c_str());
      return 3;
    }
    // END EXERCISE

    // 6. The kernel: __kernel void vector_add(ulong n, global const float* a, b, global float* c)
    // EXERCISE(kernel): a cl::Kernel for the kernel named vector_add in the program
    cl::Kernel kernel(program, "vector_add");
    // END EXERCISE

    // 7. Buffers the runtime allocates where the host can reach them (ALLOC_HOST_PTR): a and b only
    //    read by the kernel, c only written by it. Nothing is copied from the host yet
    // EXERCISE(buffers): a_buffer, b_buffer READ_ONLY, c_buffer WRITE_ONLY, all ALLOC_HOST_PTR
    cl::Buffer a_buffer(context, CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, bytes);
    cl::Buffer b_buffer(context, CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, bytes);
    cl::Buffer c_buffer(context, CL_MEM_WRITE_ONLY | CL_MEM_ALLOC_HOST_PTR, bytes);
    // END EXERCISE

    //    Fill a and b through maps: the map gives the host a pointer into the buffer, the unmap
    //    hands the buffer back to the device
    // EXERCISE(fill): map a_buffer, b_buffer (CL_MAP_WRITE_INVALIDATE_REGION), copy a, b in, unmap
    void* a_mapped =
        queue.enqueueMapBuffer(a_buffer, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, bytes);
    std::memcpy(a_mapped, a.data(), bytes);
    queue.enqueueUnmapMemObject(a_buffer, a_mapped);
    void* b_mapped =
        queue.enqueueMapBuffer(b_buffer, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, bytes);
    std::memcpy(b_mapped, b.data(), bytes);
    queue.enqueueUnmapMemObject(b_buffer, b_mapped);
    // END EXERCISE

    // 8. The arguments, in the order of the kernel's signature
    // EXERCISE(arguments): kernel.setArg for n (as a cl_ulong), a, b and c
    kernel.setArg(0, cl_ulong{n});
    kernel.setArg(1, a_buffer);
    kernel.setArg(2, b_buffer);
    kernel.setArg(3, c_buffer);
    // END EXERCISE

    // 9. Launch n work-items (the runtime chooses the work-group size) with an event, and
    // 10. wait for the event, then print the kernel's time from it (CL_PROFILING_COMMAND_START to
    //     _END, in nanoseconds) on stderr
    // EXERCISE(launch): enqueueNDRangeKernel, cl::NDRange(n), an event; wait, print its time
    cl::Event event;
    queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(n), cl::NullRange, nullptr,
                               &event);
    event.wait();
    const cl_ulong start = event.getProfilingInfo<CL_PROFILING_COMMAND_START>();
    const cl_ulong stop = event.getProfilingInfo<CL_PROFILING_COMMAND_END>();
    std::fprintf(stderr, "vector_add ran %.1f us\n", double(stop - start) * 1e-3);
    // END EXERCISE

    // 11. Read c through a map (no copy into a buffer of the host's own), and unmap it
    // EXERCISE(read): map c_buffer (CL_MAP_READ), copy it into c, unmap it, queue.finish()
    const void* c_mapped = queue.enqueueMapBuffer(c_buffer, CL_TRUE, CL_MAP_READ, 0, bytes);
    std::memcpy(c.data(), c_mapped, bytes);
    queue.enqueueUnmapMemObject(c_buffer, const_cast<void*>(c_mapped));
    queue.finish();
    // END EXERCISE
  } catch (const cl::Error& error) {
    std::fprintf(stderr, "OpenCL error: %s returned %d\n", error.what(), error.err());
    return 3;
  }

  // 12. Every element of c on stdout, and a check of every element against a + b on stderr
  unsigned long long wrong = 0;
  for (unsigned long long i = 0; i < n; ++i) {
    std::printf("%.9g\n", double(c[i]));
    if (c[i] != a[i] + b[i] && ++wrong <= 10) {
      std::fprintf(stderr, "mismatch c[%llu]: got %.9g, expected %.9g\n", i, double(c[i]),
                   double(a[i] + b[i]));
    }
  }
  if (wrong > 0) {
    std::fprintf(stderr, "%llu of %llu elements wrong\n", wrong, n);
    return 1;
  }
  std::fprintf(stderr, "PASSED: c = a + b at all %llu elements\n", n);
  return 0;
}
