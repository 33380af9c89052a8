// parts.hpp: what the multi_device lab's main.cpp shares with its two files: teams.cpp (which
// devices take part in each part, and their contexts) and split.cpp (one matrix product split by
// rows of C across them, timed and checked).
#pragma once

#include "lab/lab.hpp"
#include "lab/matmul_reference.hpp"

#include <CL/opencl.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace multi_device {

// The lab's own options (main.cpp's step 1).
struct Settings {
  std::uint64_t n = 0;  // M = N = K unless -M, -N or -K say otherwise; 0: from the device
  std::uint64_t m = 0, cols = 0, k = 0;
};

// One device taking part: a whole device, or a sub-device; `context` indexes Team::contexts.
struct Member {
  std::string name;  // "sub-device 0", "GPU 1: NVIDIA H200"
  cl::Platform platform;
  cl::Device device;
  std::size_t context = 0;
  bool splits = true;  // takes a share of the split job (false: only runs the job alone)
};

// The devices of one part, with a context for each group of them that shares a platform (a
// context holds the devices of one platform only). Empty members, with `skipped` saying why,
// when the part cannot run here.
struct Team {
  std::string part;
  std::vector<cl::Context> contexts;
  std::vector<Member> members;
  std::string skipped;
};

// Steps 3-5, one per part. The sub-devices of the lab's device (-p, -d, --type), made with
// clCreateSubDevices(CL_DEVICE_PARTITION_EQUALLY) in one context, and the whole device in
// another, alone.
Team sub_devices_team(const lab::Env& env);
// The first CPU and the first GPU among every platform's devices (the platform -p names, if
// given; -d and --type are not read), each in a context of its platform.
Team cpu_gpu_team(const lab::Options& options);
// Every GPU of every platform (of the platform -p names, if given), one context per platform.
Team gpus_team(const lab::Options& options);

// The teams' contexts, queues and sub-devices released, then one small command through the lab's
// device and waited for. PoCL's worker threads finish releasing a sub-device's last commands a
// moment after clFinish returns, and a process that exits meanwhile crashed in PoCL 3.1 (now and
// then, at exit, after a correct run); the command runs only after that work is done.
void release(std::vector<Team>& teams, const lab::Env& env);

// Steps 6-11: the job C = A·B on each member alone, then split by rows of C across the members
// that split, evenly and by the rates measured alone, each in turns with the fastest member
// alone. Every run's C checked whole against the reference. One row per member alone and per
// split, the splits with their speed-up over the fastest member; each member's share and times
// go to `details`.
std::vector<lab::Result> split(lab::Cli& cli, Team& team, const lab::MatmulProblem<float>& problem,
                               nlohmann::json& details);

}  // namespace multi_device
