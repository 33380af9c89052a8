// transfers: how bytes reach the device and come back. The bandwidth part times every path
// OpenCL offers between host and device (pageable and pinned memory, a mapped device buffer, a
// USE_HOST_PTR buffer), device to device and memcpy on the host, over sizes from a few KiB up,
// checks each byte moved and fits each path's times as a latency plus a bandwidth; the rect part
// reads and writes a sub-matrix with the rectangular copies; the overlap part runs a pipeline of
// uploads, kernels and downloads in one queue and across several, and reads from the timestamps
// how far they overlapped. The OpenCL host program, steps 1-18: here the options, the device, the
// context and queue (1-3) and the report (18); bandwidth.cpp holds steps 4-9, rect.cpp steps
// 10-12 and overlap.cpp steps 13-17, in the order they run. lab:: helpers parse options, choose
// the device, check and report.
#ifndef CL_HPP_ENABLE_EXCEPTIONS  // the same settings as common/CMakeLists.txt gives every lab
#define CL_HPP_ENABLE_EXCEPTIONS  // OpenCL errors as cl::Error exceptions
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_TARGET_OPENCL_VERSION 120
#define CL_HPP_CL_1_2_DEFAULT_BUILD
#endif
#include <CL/opencl.hpp>

#include "lab/lab.hpp"
#include "parts.hpp"

#include <iostream>

int main(int argc, char** argv) {
  return lab::run_main(
      argc, argv, "transfers",
      "host-device transfers by path and size, rectangular copies, copies beside kernels",
      [](lab::Cli& cli) {
        // 1. Options: the part, the sweep's sizes, the matrix of the rectangular copies, the
        //    pipeline's chunks and its kernel's work
        transfers::Settings s;
        lab::Parts parts(cli, {{"bandwidth", ""}, {"rect", ""}, {"overlap", ""}}, "Which part");
        cli.add_size("--min-bytes", s.min_bytes,
                     "The sweep's first size in bytes (default 4096); sizes double from it");
        cli.add_size("--max-bytes", s.max_bytes, "The sweep's last size in bytes (default 64 MiB)");
        lab::MatrixSizeOptions matrix(cli, "rect: the matrix's rows", "rect: the matrix's columns");
        cli.add_count("--chunks", s.chunks, "overlap: the pipeline's chunks (default 8)", 1, 1024);
        cli.add_size("--chunk", s.chunk, "overlap: uints in a chunk (default 2^22, 16 MiB)");
        cli.add_count("--work", s.work,
                      "overlap: steps per element of the kernel (default: as many as make it take "
                      "as long as one chunk's upload)",
                      1, 1u << 20);
        cli.parse([&] {
          if (s.min_bytes > s.max_bytes) {
            throw lab::UsageError("--min-bytes " + std::to_string(s.min_bytes) +
                                  " is above --max-bytes " + std::to_string(s.max_bytes) +
                                  ": make the first size at most the last");
          }
        });
        parts.read_by("--min-bytes", {"bandwidth"})
            .read_by("--max-bytes", {"bandwidth"})
            .read_by("--size", {"rect"})
            .read_by("--height", {"rect"})
            .read_by("--width", {"rect"})
            .read_by("--chunks", {"overlap"})
            .read_by("--chunk", {"overlap"})
            .read_by("--work", {"overlap"})
            .check(cli);
        s.matrix = matrix.shape();

        // 2. Choose the device (-p, -d, --type), and check that the buffers fit: the bandwidth
        //    part holds four buffers of the largest size (two on the device, one pinned, one over
        //    a host array) and four host arrays; rect one matrix and two host copies; overlap an
        //    input and an output per chunk, two pinned buffers and two host arrays of all chunks
        lab::Env env = lab::pick_device(cli.options(), cli.out());
        if (parts.runs("bandwidth")) lab::check_memory(env, s.max_bytes, 4, 5, "--max-bytes");
        if (parts.runs("rect")) lab::check_memory(env, s.matrix.elements() * 4, 1, 3, "-n");
        if (parts.runs("overlap")) {
          lab::check_memory(env, s.chunks * s.chunk * 4, 2, 4, "--chunk or --chunks");
          lab::check_memory(env, s.chunk * 4, 2 * int(s.chunks), 0, "--chunk or --chunks");
        }

        // 3. A context on the device, and an in-order queue that records profiling information
        env.context = cl::Context(env.device);
        env.queue = cl::CommandQueue(env.context, env.device, CL_QUEUE_PROFILING_ENABLE);
        lab::trace_queue(env.queue);

        lab::Report report("transfers", lab::describe_device(env));
        report.set_row_name("part");
        if (parts.runs("bandwidth")) {
          for (auto& row : transfers::bandwidth(cli, env, s, report.details())) {
            report.add(std::move(row));
          }
        }
        if (parts.runs("rect")) {
          for (auto& row : transfers::rect(cli, env, s, report.details())) {
            report.add(std::move(row));
          }
        }
        if (parts.runs("overlap")) {
          for (auto& row : transfers::overlap(cli, env, s, report.details())) {
            report.add(std::move(row));
          }
        }
        // 18. The report: each path's rate at the largest size, with its fit in the notes; each
        //     pipeline's span, with its speed-up over one queue and the one predicted
        report.print(cli.format(), std::cout);
        return report.exit_code();
      });
}
