// two_queues.hpp: what parts 6 and 7 of the events lab share (two_queues.cpp, sub_devices.cpp):
// two queues of one context and the demo that runs across them.
#pragma once

#include "events.hpp"

#include <string>
#include <vector>

namespace events {

// What both parts check.
inline constexpr const char* kConsumerAfterProducer = "consumer START >= producer END";

// Two queues, on one device or on two sub-devices, with the kernels built for each.
//
// Order of release matters for sub-devices. PoCL's driver thread lets go of a finished command's
// event only after it has told the host that the command completed, and PoCL 3.1's context
// keeps no reference to the sub-devices it was made from. Releasing the sub-devices as soon as
// the last blocking read returned freed them while the driver thread still held that read's
// event; its clReleaseEvent then read the freed device (a segfault in about one run in twenty,
// when the memory had been reused by then). So the devices are the last member, released only
// after no command holds either queue.
struct QueuePair {
  std::vector<cl::Device> devices;  // the sub-devices, if any: released last
  cl::Context context;
  cl::CommandQueue a, b;
  Kernels kernels_a, kernels_b;
  std::string name_a, name_b;

  QueuePair() = default;
  QueuePair(const QueuePair&) = delete;
  QueuePair& operator=(const QueuePair&) = delete;
  // Finishes both queues and waits until the runtime has let go of every command on them.
  ~QueuePair();
};

// Independent kernels, one on each queue of `pair` (do they overlap?), then a producer on queue
// a, held by a user event, and a consumer on queue b that waits on its event: checked from their
// timestamps and results, every round.
void two_queue_demo(Setup& setup, const QueuePair& pair, PartResult& result);

}  // namespace events
