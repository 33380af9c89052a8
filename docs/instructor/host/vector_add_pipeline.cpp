// vector_add_pipeline.cpp: vector_add's host program in chunks, through three in-order queues: one
// uploads, one runs the kernel, one downloads. Each chunk's kernel waits for the events of its
// two uploads, and its download for the kernel's event, so chunk k's kernel can run while chunk
// k + 1 is uploaded and chunk k - 1 downloaded. The second host exercise of lab 16 (transfers);
// the steps it shares with lab 2's vector_add_map.cpp are alike.
//   vector_add_pipeline N KERNEL_FILE [CHUNKS]
// cuts the N floats into CHUNKS chunks (default 4; fewer when N is smaller), prints every element
// of c on stdout and checks c against a + b on stderr, as lab 2's programs do.
// The CL_HPP_* lines are the suite's settings of the bindings: with them this file builds alone.
#define CL_HPP_ENABLE_EXCEPTIONS  // OpenCL errors as cl::Error exceptions
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_TARGET_OPENCL_VERSION 120
#define CL_HPP_CL_1_2_DEFAULT_BUILD
#include <CL/opencl.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  // 1. Options: N, the kernel file and the number of chunks
  char* end = nullptr;
  const unsigned long long n = argc == 3 || argc == 4 ? std::strtoull(argv[1], &end, 10) : 0;
  if ((argc != 3 && argc != 4) || n == 0 || *end != '\0') {
    std::fprintf(stderr, "usage: %s N KERNEL_FILE [CHUNKS] (N >= 1 floats, CHUNKS >= 1)\n",
                 argv[0]);
    return 2;
  }
  const std::string kernel_file = argv[2];
  const unsigned long long asked = argc == 4 ? std::strtoull(argv[3], &end, 10) : 4;
  if (asked == 0 || *end != '\0') {
    std::fprintf(stderr, "%s: CHUNKS must be a whole number >= 1, not '%s'\n", argv[0], argv[3]);
    return 2;
  }
  // Chunks of `chunk` elements, the last one shorter where n is not a multiple of it. The
  // kernel is launched over each chunk with a global offset, so a chunk may start at any
  // element (a sub-buffer per chunk would need origins aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN)
  const unsigned long long chunk = (n + std::min(asked, n) - 1) / std::min(asked, n);
  const unsigned long long chunks = (n + chunk - 1) / chunk;

  // 2. Host data: a and b, and c for the result (before the queues, so they outlive them)
  std::vector<float> a(n), b(n), c(n, 0.0f);
  for (unsigned long long i = 0; i < n; ++i) {
    a[i] = float((i * 37 + 11) % 4096) * 0.25f;  // exact in float: the sums are exact too
    b[i] = float((i * 101 + 5) % 2048) * 0.5f;
  }
  const std::size_t bytes = n * sizeof(float);
  std::fprintf(stderr, "n = %llu floats, %zu bytes a vector, %llu chunks of up to %llu\n", n, bytes,
               chunks, chunk);

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

    // 4. A context on the device, and three in-order queues that record profiling information:
    //    one for the uploads, one for the kernels, one for the downloads
    // EXERCISE(context): a cl::Context; upload_queue, kernel_queue, download_queue, profiling on
    cl::Context context(device);
    cl::CommandQueue upload_queue(context, device, CL_QUEUE_PROFILING_ENABLE);
    cl::CommandQueue kernel_queue(context, device, CL_QUEUE_PROFILING_ENABLE);
    cl::CommandQueue download_queue(context, device, CL_QUEUE_PROFILING_ENABLE);
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

    // 7. Device buffers of n floats: a and b only read by the kernel, c only written by it.
    //    Nothing is copied yet: the uploads copy a chunk at a time
    // EXERCISE(buffers): a_buffer, b_buffer READ_ONLY, c_buffer WRITE_ONLY, no host-pointer flag
    cl::Buffer a_buffer(context, CL_MEM_READ_ONLY, bytes);
    cl::Buffer b_buffer(context, CL_MEM_READ_ONLY, bytes);
    cl::Buffer c_buffer(context, CL_MEM_WRITE_ONLY, bytes);
    // END EXERCISE

    // 8. The arguments, set once: n is the whole length, and the buffers are whole; each
    //    chunk's launch picks its elements with a global offset (get_global_id(0) counts from it)
    // EXERCISE(arguments): kernel.setArg for n (as a cl_ulong), a, b and c
    kernel.setArg(0, cl_ulong{n});
    kernel.setArg(1, a_buffer);
    kernel.setArg(2, b_buffer);
    kernel.setArg(3, c_buffer);
    // END EXERCISE

    // 9. The pipeline: for each chunk, elements [first, first + count), three stages on three
    //    queues, each command enqueued without blocking and flushed at once (so the device may
    //    start it, and so another queue may wait for its event). The queues keep each stage's
    //    chunks in order; only events order one chunk's stages across queues
    std::vector<cl::Event> a_uploaded(chunks), b_uploaded(chunks), computed(chunks),
        downloaded(chunks);
    for (unsigned long long k = 0; k < chunks; ++k) {
      const unsigned long long first = k * chunk;
      const unsigned long long count = std::min(chunk, n - first);
      std::fprintf(stderr, "chunk %llu: elements %llu to %llu\n", k, first, first + count - 1);
      // Upload: a's and b's elements of the chunk (offset and size in bytes), each with an event
      // EXERCISE(upload): on upload_queue, write the chunk of a and of b (CL_FALSE, events); flush
      const std::size_t offset = first * sizeof(float);
      const std::size_t chunk_bytes = count * sizeof(float);
      upload_queue.enqueueWriteBuffer(a_buffer, CL_FALSE, offset, chunk_bytes, &a[first], nullptr,
                                      &a_uploaded[k]);
      upload_queue.enqueueWriteBuffer(b_buffer, CL_FALSE, offset, chunk_bytes, &b[first], nullptr,
                                      &b_uploaded[k]);
      upload_queue.flush();
      // END EXERCISE
      // Compute: the kernel over the chunk, after both of its uploads (another queue's events)
      // EXERCISE(compute): on kernel_queue, launch at offset first over count after both uploads
      const std::vector<cl::Event> uploads = {a_uploaded[k], b_uploaded[k]};
      kernel_queue.enqueueNDRangeKernel(kernel, cl::NDRange(first), cl::NDRange(count),
                                        cl::NullRange, &uploads, &computed[k]);
      kernel_queue.flush();
      // END EXERCISE
      // Download: c's elements of the chunk, after the chunk's kernel
      // EXERCISE(download): on download_queue, read c's chunk (CL_FALSE) after its kernel; flush
      const std::vector<cl::Event> kernel_done = {computed[k]};
      download_queue.enqueueReadBuffer(c_buffer, CL_FALSE, offset, chunk_bytes, &c[first],
                                       &kernel_done, &downloaded[k]);
      download_queue.flush();
      // END EXERCISE
    }

    // 10. Wait for all of it: finish every queue (the downloads last wrote c), then the span from
    //     the first upload's start to the last download's end, on the device's clock
    // EXERCISE(finish): finish the three queues; the span from a_uploaded[0] to the last download
    upload_queue.finish();
    kernel_queue.finish();
    download_queue.finish();
    const cl_ulong start = a_uploaded.front().getProfilingInfo<CL_PROFILING_COMMAND_START>();
    const cl_ulong stop = downloaded.back().getProfilingInfo<CL_PROFILING_COMMAND_END>();
    std::fprintf(stderr, "the pipeline of %llu chunks ran %.1f us\n", chunks,
                 double(stop - start) * 1e-3);
    // END EXERCISE
  } catch (const cl::Error& error) {
    std::fprintf(stderr, "OpenCL error: %s returned %d\n", error.what(), error.err());
    return 3;
  }

  // 11. Every element of c on stdout, and a check of every element against a + b on stderr
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
