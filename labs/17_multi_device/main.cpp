// multi_device: one job split across devices. C = A·B (floats) is split by rows of C across the
// sub-devices of one device (clCreateSubDevices), across a CPU and a GPU, and across every GPU;
// each device's share runs alone first, then the job is split evenly and by the rates measured
// alone, and each split is timed in turns with the fastest device alone. The OpenCL host program,
// steps 1-12: here the options and the lab's device (1-2), the call of each part's team (3-5, in
// teams.cpp: which devices, which contexts), the host data, each part's job (6-11, in split.cpp:
// staging, kernels, runs, checks) and the report (12), in the order they run. lab:: helpers parse
// options, check and report.
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

#include <algorithm>
#include <iostream>

int main(int argc, char** argv) {
  return lab::run_main(
      argc, argv, "multi_device",
      "one matrix product split across sub-devices, a CPU and a GPU, and several GPUs",
      [](lab::Cli& cli) {
        // 1. Options: the part and the sizes
        multi_device::Settings s;
        const std::vector<std::string> kernel = {"matmul_regtile_simple.cl"};
        lab::Parts parts(
            cli, {{"sub-devices", "", kernel}, {"cpu-gpu", "", kernel}, {"gpus", "", kernel}},
            "Which devices split the job");
        cli.add_size("-n,--size", s.n,
                     "Square size: M = N = K (default 4096 on a GPU, 512 on a CPU)");
        cli.add_size("-M,--rows", s.m, "M: rows of A and C (overrides -n)");
        cli.add_size("-N,--cols", s.cols, "N: columns of B and C (overrides -n)");
        cli.add_size("-K,--inner", s.k, "K: columns of A, rows of B (overrides -n)");
        cli.parse();
        parts.check(cli);
        const lab::Options& opt = cli.options();

        // 2. The lab's device (-p, -d, --type: the one the sub-devices part splits) and the sizes:
        //    by default 4096 on a GPU, 512 on a CPU (where this kernel is slow: a run then takes
        //    a fraction of a second)
        lab::Env env = lab::pick_device(opt, cli.out());
        if (s.n == 0) {
          s.n = (env.device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) != 0 ? 4096 : 512;
        }
        const auto side = [](std::uint64_t v) { return int(std::min<std::uint64_t>(v, 1u << 30)); };
        const lab::MatmulDims dims{side(s.m ? s.m : s.n), side(s.cols ? s.cols : s.n),
                                   side(s.k ? s.k : s.n)};
        const std::uint64_t largest =
            std::max({std::uint64_t(dims.M) * dims.K, std::uint64_t(dims.K) * dims.N,
                      std::uint64_t(dims.M) * dims.N});
        if (std::max({s.m, s.cols, s.k, s.n}) > (std::uint64_t{1} << 30) ||
            largest >= (std::uint64_t{1} << 31)) {
          throw lab::UsageError(
              "matrices of more than 2^31 elements are not supported (the kernel indexes with "
              "int): choose sizes whose M*K, K*N and M*N are each below 2^31 (-n 46340 at most)");
        }
        // A size whose host reference alone would take hours is refused before any work.
        lab::check_matmul_reference_time(dims, "float");
        lab::check_memory(env, largest * sizeof(float), 3, 8, "-n (or -M, -N, -K)");

        // Steps 3-5 (teams.cpp): the devices of each part that runs, before any work, so that a
        // part chosen alone that cannot run here ends at once (exit 77) with the reason
        std::vector<multi_device::Team> teams;
        if (parts.runs("sub-devices")) teams.push_back(multi_device::sub_devices_team(env));
        if (parts.runs("cpu-gpu")) teams.push_back(multi_device::cpu_gpu_team(opt));
        if (parts.runs("gpus")) teams.push_back(multi_device::gpus_team(opt));
        for (const multi_device::Team& team : teams) {
          if (!team.skipped.empty() && parts.chosen() != "all") {
            throw lab::SkipError(team.part + " cannot run here: " + team.skipped);
          }
          for (const multi_device::Member& m : team.members) {
            lab::check_memory(lab::Env{m.platform, m.device, {}, {}}, largest * sizeof(float), 3, 0,
                              "-n (or -M, -N, -K)");
          }
        }

        //    The inputs and their reference, computed once for every part
        const lab::MatmulProblem<float> problem = lab::make_matmul_problem<float>(
            dims, opt.seed, "multi_device: host data and reference");
        lab::Report report("multi_device", lab::describe_device(env));
        report.set_row_name("part");
        for (multi_device::Team& team : teams) {
          if (!team.skipped.empty()) {
            cli.out() << "\n" << team.part << ": skipped: " << team.skipped << "\n";
            lab::Result row;
            row.variant = team.part;
            row.size = dims.size();
            row.skip_reason = team.skipped;
            row.add_note(team.skipped);  // the table shows it under the row
            report.add(std::move(row));
            continue;
          }
          for (auto& row : multi_device::split(cli, team, problem, report.details())) {
            report.add(std::move(row));
          }
        }

        // 12. The report: each device alone and each split, with its speed-up over the fastest
        //     device alone and each device's share
        multi_device::release(teams, env);
        report.print(cli.format(), std::cout);
        return report.exit_code();
      });
}
