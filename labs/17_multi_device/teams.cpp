// teams.cpp: the multi_device lab's devices, steps 3-5: which devices each part splits the job
// across, and the contexts they need. A context holds devices of one platform only, so devices
// of two platforms (PoCL's CPU and NVIDIA's GPU) need a context each, and nothing made in one
// context (a buffer, an event) can be used in the other; devices of one platform share one.
#ifndef CL_HPP_ENABLE_EXCEPTIONS  // the same settings as common/CMakeLists.txt gives every lab
#define CL_HPP_ENABLE_EXCEPTIONS  // OpenCL errors as cl::Error exceptions
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_TARGET_OPENCL_VERSION 120
#define CL_HPP_CL_1_2_DEFAULT_BUILD
#endif
#include <CL/opencl.hpp>

#include "parts.hpp"

#include <algorithm>

namespace multi_device {
namespace {

// Where a part looked for its devices, for the sentence that says none were there.
std::string searched(const lab::Options& options) {
  return options.platform.empty() ? " on any platform" : " on platform '" + options.platform + "'";
}

std::string units_text(cl_uint units) {
  return std::to_string(units) + (units == 1 ? " CU" : " CUs");
}

std::string device_name(const cl::Device& device) {
  return lab::trim_info(device.getInfo<CL_DEVICE_NAME>());
}

// One context per platform among `members` (in the order the platforms first appear), each
// member's `context` pointing at its own.
void make_contexts(Team& team) {
  std::vector<cl_platform_id> platforms;
  for (Member& m : team.members) {
    auto at = std::find(platforms.begin(), platforms.end(), m.platform());
    if (at == platforms.end()) at = platforms.insert(platforms.end(), m.platform());
    m.context = std::size_t(at - platforms.begin());
  }
  for (std::size_t c = 0; c < platforms.size(); ++c) {
    std::vector<cl::Device> devices;
    for (const Member& m : team.members) {
      if (m.context == c) devices.push_back(m.device);
    }
    team.contexts.emplace_back(devices);
  }
}

}  // namespace

// 3. The sub-devices: the device split with clCreateSubDevices into sub-devices of half its
//    compute units each (CL_DEVICE_PARTITION_EQUALLY), all of them in one context; the whole
//    device in a context of its own, to run the job alone
Team sub_devices_team(const lab::Env& env) {
  Team team{"sub-devices", {}, {}, ""};
  cl::Device device = env.device;  // createSubDevices is not const
  const cl_uint most = device.getInfo<CL_DEVICE_PARTITION_MAX_SUB_DEVICES>();
  const auto types = device.getInfo<CL_DEVICE_PARTITION_PROPERTIES>();
  const cl_uint units = device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
  if (most < 2 || units < 2) {
    team.skipped = device_name(device) + " cannot be partitioned (CL_DEVICE_PARTITION_MAX_SUB_" +
                   "DEVICES " + std::to_string(most) + ", " + std::to_string(units) +
                   " compute unit(s)): choose a CPU device (--type cpu)";
    return team;
  }
  if (std::find(types.begin(), types.end(), CL_DEVICE_PARTITION_EQUALLY) == types.end()) {
    team.skipped = device_name(device) + " does not offer CL_DEVICE_PARTITION_EQUALLY";
    return team;
  }
  const cl_device_partition_property properties[] = {CL_DEVICE_PARTITION_EQUALLY,
                                                     cl_device_partition_property(units / 2), 0};
  std::vector<cl::Device> subs;
  try {
    device.createSubDevices(properties, &subs);
  } catch (const cl::Error& error) {
    team.skipped = std::string("clCreateSubDevices failed with ") + lab::cl_error_name(error.err());
    return team;
  }
  team.members.push_back(
      {"whole device (" + units_text(units) + ")", env.platform, device, 0, false});
  for (std::size_t i = 0; i < subs.size(); ++i) {
    const cl_uint sub_units = subs[i].getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
    team.members.push_back({"sub-device " + std::to_string(i) + " (" + units_text(sub_units) + ")",
                            env.platform, subs[i], 1, true});
  }
  team.contexts.emplace_back(device);
  team.contexts.emplace_back(subs);
  return team;
}

// 4. A CPU and a GPU: the first of each among every platform's devices, in --list order
Team cpu_gpu_team(const lab::Options& options) {
  Team team{"cpu-gpu", {}, {}, ""};
  const std::string where = searched(options);
  const std::vector<lab::DeviceEntry> devices = lab::platform_devices(lab::all_devices(), options);
  for (cl_device_type type :
       {cl_device_type(CL_DEVICE_TYPE_CPU), cl_device_type(CL_DEVICE_TYPE_GPU)}) {
    const auto entry = std::find_if(devices.begin(), devices.end(), [&](const lab::DeviceEntry& e) {
      return (e.device.getInfo<CL_DEVICE_TYPE>() & type) != 0;
    });
    const std::string kind = lab::device_type_name(type);
    if (entry == devices.end()) {
      team.skipped =
          "no " + kind + " device" + where + " (--list shows them): the part needs a CPU and a GPU";
      team.members.clear();
      return team;
    }
    team.members.push_back(
        {kind + ": " + device_name(entry->device), entry->platform, entry->device, 0, true});
  }
  make_contexts(team);
  return team;
}

// 5. Every GPU of every platform
Team gpus_team(const lab::Options& options) {
  Team team{"gpus", {}, {}, ""};
  const std::string where = searched(options);
  std::size_t gpu = 0;
  for (const lab::DeviceEntry& e : lab::platform_devices(lab::all_devices(), options)) {
    if ((e.device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) == 0) continue;
    team.members.push_back({"GPU " + std::to_string(gpu++) + ": " + device_name(e.device),
                            e.platform, e.device, 0, true});
  }
  if (team.members.size() < 2) {
    team.skipped =
        std::to_string(team.members.size()) + " GPU(s)" + where + ": the part needs two or more";
    team.members.clear();
    return team;
  }
  make_contexts(team);
  return team;
}

void release(std::vector<Team>& teams, const lab::Env& env) {
  teams.clear();
  cl::Context context(env.device);
  cl::CommandQueue queue(context, env.device);
  cl::Buffer word(context, CL_MEM_READ_WRITE, sizeof(cl_uint));
  queue.enqueueFillBuffer(word, cl_uint{0}, 0, sizeof(cl_uint));
  queue.finish();
}

}  // namespace multi_device
