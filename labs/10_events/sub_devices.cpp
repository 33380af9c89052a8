// sub_devices.cpp: part 7 of the events lab, clCreateSubDevices. The device is split into two
// halves, each with its queue, in one context, and the two-queue demo of part 6 runs across them.
// A device that cannot be partitioned skips the part, saying why.
#include "two_queues.hpp"

#include "bench.hpp"

namespace events {
namespace {

// Two sub-devices of the lab's device, or Skipped saying why it cannot be partitioned.
std::vector<cl::Device> partition(cl::Device device) {
  const cl_uint most = device.getInfo<CL_DEVICE_PARTITION_MAX_SUB_DEVICES>();
  if (most < 2) {
    throw Skipped{"the device cannot be partitioned (CL_DEVICE_PARTITION_MAX_SUB_DEVICES is " +
                  std::to_string(most) + ")"};
  }
  const auto types = device.getInfo<CL_DEVICE_PARTITION_PROPERTIES>();
  const auto offers = [&](cl_device_partition_property type) {
    return std::find(types.begin(), types.end(), type) != types.end();
  };
  const cl_uint units = device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
  std::vector<cl_device_partition_property> properties;
  if (offers(CL_DEVICE_PARTITION_EQUALLY)) {
    properties = {CL_DEVICE_PARTITION_EQUALLY,
                  static_cast<cl_device_partition_property>(std::max(1u, units / 2)), 0};
  } else if (offers(CL_DEVICE_PARTITION_BY_COUNTS) && units >= 2) {
    properties = {CL_DEVICE_PARTITION_BY_COUNTS,
                  static_cast<cl_device_partition_property>(units / 2),
                  static_cast<cl_device_partition_property>(units - units / 2),
                  CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
  } else {
    throw Skipped{"the device offers neither CL_DEVICE_PARTITION_EQUALLY nor BY_COUNTS over its " +
                  std::to_string(units) + " compute unit(s)"};
  }
  std::vector<cl::Device> subs;
  try {
    device.createSubDevices(properties.data(), &subs);
  } catch (const cl::Error& error) {
    throw Skipped{std::string("clCreateSubDevices failed with ") + lab::cl_error_name(error.err())};
  }
  if (subs.size() < 2) {
    throw Skipped{"partitioning gave " + std::to_string(subs.size()) + " sub-device(s), not 2"};
  }
  subs.resize(2);
  return subs;
}

}  // namespace

// Part 7: the two-queue demo on two sub-devices of the lab's device.
void sub_devices(Setup& setup, PartResult& result) {
  result.checked = kConsumerAfterProducer;
  QueuePair pair;
  pair.devices = partition(setup.env->device);
  const std::vector<cl::Device>& subs = pair.devices;
  pair.context = cl::Context(subs);
  pair.name_a = "sub-device 0";
  pair.name_b = "sub-device 1";
  pair.a = cl::CommandQueue(pair.context, subs[0], CL_QUEUE_PROFILING_ENABLE);
  pair.b = cl::CommandQueue(pair.context, subs[1], CL_QUEUE_PROFILING_ENABLE);
  name_queue(pair.a, pair.name_a);
  name_queue(pair.b, pair.name_b);
  pair.kernels_a = setup.build(lab::Env{setup.env->platform, subs[0], pair.context, pair.a});
  pair.kernels_b = setup.build(lab::Env{setup.env->platform, subs[1], pair.context, pair.b});
  const cl_uint units = subs[0].getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
  *setup.out << "sub_devices: 2 sub-devices of " << units << " compute unit(s) each, one context\n";
  two_queue_demo(setup, pair, result);
  result.details["compute_units_per_sub_device"] = units;
}

}  // namespace events
