// vector_add_pinned.cpp: vector_add's host program with a and b brought to the device through
// pinned memory: one CL_MEM_ALLOC_HOST_PTR buffer, mapped once, is the host's staging area; the
// host fills the inputs there and enqueueWriteBuffer copies them from it into ordinary device
// buffers, and c comes back with enqueueReadBuffer into the same staging area. The first host
// exercise of lab 16 (transfers); the steps it shares with lab 2's vector_add_map.cpp are alike.
//   vector_add_pinned N KERNEL_FILE
// prints every element of c on stdout and checks c against a + b on stderr, as lab 2's do.
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

    // 7. Ordinary device buffers: a and b only read by the kernel, c only written by it. No
    //    host flag: the kernel's memory is the device's own
    // EXERCISE(buffers): a_buffer, b_buffer READ_ONLY, c_buffer WRITE_ONLY, no host-pointer flag
    cl::Buffer a_buffer(context, CL_MEM_READ_ONLY, bytes);
    cl::Buffer b_buffer(context, CL_MEM_READ_ONLY, bytes);
    cl::Buffer c_buffer(context, CL_MEM_WRITE_ONLY, bytes);
    // END EXERCISE

    // 8. The pinned staging area: one buffer of 3 * bytes the runtime allocates where the host
    //    and the device's copy engine both reach it (CL_MEM_ALLOC_HOST_PTR), mapped once for
    //    reading and writing. The map's pointer is ordinary host memory the driver need not
    //    copy again before a transfer: a_staged, b_staged and c_staged are its three thirds.
    //    The host makes the inputs there (here it copies them from a and b, which the check in
    //    step 13 reads; a program of its own would compute them in place)
    // EXERCISE(staging): pinned (READ_WRITE | ALLOC_HOST_PTR), mapped once; fill a_staged, b_staged
    cl::Buffer pinned(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, 3 * bytes);
    float* const a_staged = static_cast<float*>(
        queue.enqueueMapBuffer(pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 3 * bytes));
    float* const b_staged = a_staged + n;
    float* const c_staged = b_staged + n;
    std::memcpy(a_staged, a.data(), bytes);
    std::memcpy(b_staged, b.data(), bytes);
    // END EXERCISE

    // 9. Upload a and b from the staging area. From pinned memory the device copies directly
    //    (DMA), so the writes need not block: the queue is in order, and the kernel after them
    //    starts only when both have arrived
    // EXERCISE(upload): enqueueWriteBuffer (CL_FALSE) of a_buffer from a_staged, b's from b_staged
    queue.enqueueWriteBuffer(a_buffer, CL_FALSE, 0, bytes, a_staged);
    queue.enqueueWriteBuffer(b_buffer, CL_FALSE, 0, bytes, b_staged);
    // END EXERCISE

    // 10. The arguments, in the order of the kernel's signature
    // EXERCISE(arguments): kernel.setArg for n (as a cl_ulong), a, b and c
    kernel.setArg(0, cl_ulong{n});
    kernel.setArg(1, a_buffer);
    kernel.setArg(2, b_buffer);
    kernel.setArg(3, c_buffer);
    // END EXERCISE

    // 11. Launch n work-items (the runtime chooses the work-group size) with an event, wait for
    //     it, then print the kernel's time from it (CL_PROFILING_COMMAND_START to _END, in
    //     nanoseconds) on stderr
    // EXERCISE(launch): enqueueNDRangeKernel, cl::NDRange(n), an event; wait, print its time
    cl::Event event;
    queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(n), cl::NullRange, nullptr,
                               &event);
    event.wait();
    const cl_ulong start = event.getProfilingInfo<CL_PROFILING_COMMAND_START>();
    const cl_ulong stop = event.getProfilingInfo<CL_PROFILING_COMMAND_END>();
    std::fprintf(stderr, "vector_add ran %.1f us\n", double(stop - start) * 1e-3);
    // END EXERCISE

    // 12. Download c into the staging area with a blocking read, copy it into c, and unmap the
    //     staging buffer (the host is done with it), then finish the queue
    // EXERCISE(download): blocking read of c_buffer into c_staged, copy it to c, unmap, finish
    queue.enqueueReadBuffer(c_buffer, CL_TRUE, 0, bytes, c_staged);
    std::memcpy(c.data(), c_staged, bytes);
    queue.enqueueUnmapMemObject(pinned, a_staged);
    queue.finish();
    // END EXERCISE
  } catch (const cl::Error& error) {
    std::fprintf(stderr, "OpenCL error: %s returned %d\n", error.what(), error.err());
    return 3;
  }

  // 13. Every element of c on stdout, and a check of every element against a + b on stderr
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
