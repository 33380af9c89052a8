// two_queues.cpp: part 6 of the events lab, two in-order queues of one device and context.
// Independent kernels on each may overlap (reported); a consumer on queue B waits for a producer
// on queue A, held by a user event, through the producer's event: events are the only way to
// order commands of different queues. Part 7 (sub_devices.cpp) runs the same demo across two
// sub-devices.
#include "two_queues.hpp"

#include "bench.hpp"

namespace events {
namespace {

// Waits (at most 2 s) until nothing but `queue` itself holds the queue: no command's event, the
// runtime's own references included, is left on it.
void wait_until_released(const cl::CommandQueue& queue) {
  if (queue() == nullptr) return;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (queue.getInfo<CL_QUEUE_REFERENCE_COUNT>() > 1 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

}  // namespace

QueuePair::~QueuePair() {
  try {
    if (a() != nullptr) a.finish();
    if (b() != nullptr) b.finish();
    wait_until_released(a);
    wait_until_released(b);
  } catch (const cl::Error&) {
    // A queue that cannot be finished has no command the runtime could still be releasing.
  }
}

void two_queue_demo(Setup& setup, const QueuePair& pair, PartResult& result) {
  result.checked = kConsumerAfterProducer;
  Bench bench(setup, pair.context);
  const auto& x_want = bench.reference(kSaltK1);
  const auto& y_want = bench.reference(kSaltK2);
  const auto& p_want = bench.reference(kSaltK3);
  const auto c_want = combine_reference(p_want, y_want);
  std::vector<double> gaps, overlaps;
  int rounds_overlapping = 0;
  for (int round = 0; round < setup.options->reps && result.failures.empty(); ++round) {
    const cl::Buffer x = bench.output(), y = bench.output(), p = bench.output(), c = bench.output();
    // Independent kernels, one on each queue: nothing orders them.
    const cl::Event kx = bench.busy(pair.kernels_a, pair.a, kSaltK1, x);
    const cl::Event ky = bench.busy(pair.kernels_b, pair.b, kSaltK2, y);
    pair.a.flush();
    pair.b.flush();
    kx.wait();
    ky.wait();
    // The dependency across queues: only the producer's event orders the consumer.
    cl::Event producer, consumer;
    {
      Gate gate(pair.context);
      const std::vector<cl::Event> gated = {gate.event()};
      pair.a.enqueueNDRangeKernel(bench.busy_kernel(pair.kernels_a, kSaltK3, p), cl::NullRange,
                                  bench.range(), cl::NullRange, &gated, &producer);
      const std::vector<cl::Event> after_producer = {producer};
      pair.b.enqueueNDRangeKernel(bench.combine_kernel(pair.kernels_b, p, y, c), cl::NullRange,
                                  bench.range(), cl::NullRange, &after_producer, &consumer);
      gate.open_after(setup.hold_ms);
      pair.a.flush();
      pair.b.flush();
      consumer.wait();
    }
    pair.a.finish();
    pair.b.finish();
    record(kx, "events_busy");
    record(ky, "events_busy");
    record(producer, "producer events_busy (held)");
    record(consumer, "consumer events_combine");
    const Stamps sx = stamps_of(kx), sy = stamps_of(ky), sp = stamps_of(producer),
                 sc = stamps_of(consumer);
    const double overlap = overlap_seconds(sx, sy);
    overlaps.push_back(overlap);
    if (overlap > 0) ++rounds_overlapping;
    gaps.push_back(seconds_between(sp.end, sc.start));
    check_order(result, "the consumer on " + pair.name_b, sc, "the producer on " + pair.name_a, sp,
                "it waits on the producer's event, so the runtime broke the dependency");
    bench.verify(pair.a, x, x_want, pair.name_a + " independent output", result);
    bench.verify(pair.b, y, y_want, pair.name_b + " independent output", result);
    bench.verify(pair.a, p, p_want, "producer output", result);
    bench.verify(pair.b, c, c_want, "consumer output c", result);
    const cl_ulong origin = std::min(sx.queued, sy.queued);
    result.details["last_round"] = {{"independent_a", stamps_json(sx, origin)},
                                    {"independent_b", stamps_json(sy, origin)},
                                    {"producer", stamps_json(sp, origin)},
                                    {"consumer", stamps_json(sc, origin)}};
  }
  result.details["consumer_gap_s"] = gaps;
  result.details["independent_overlap_s"] = overlaps;
  const double most = *std::max_element(overlaps.begin(), overlaps.end());
  result.measured = "consumer started " + after_or_before(median(gaps)) +
                    " the producer ended; overlap in " + std::to_string(rounds_overlapping) +
                    " of " + std::to_string(overlaps.size()) + " rounds";
  result.notes.push_back(
      "the consumer on " + pair.name_b + " waited for the producer on " + pair.name_a + " (held " +
      std::to_string(setup.hold_ms) + " ms by a user event) through its event; " +
      (rounds_overlapping > 0
           ? "independent kernels on the two ran at the same time (up to " +
                 lab::format_seconds(most) + " of overlap)"
           : std::string("independent kernels on the two never overlapped here: allowed, since "
                         "nothing promises that separate queues run at the same time")));
}

// Part 6: two queues of the lab's device, in its context.
void two_queues(Setup& setup, PartResult& result) {
  QueuePair pair;
  pair.context = setup.env->context;
  pair.a = cl::CommandQueue(pair.context, setup.env->device, CL_QUEUE_PROFILING_ENABLE);
  pair.b = cl::CommandQueue(pair.context, setup.env->device, CL_QUEUE_PROFILING_ENABLE);
  pair.kernels_a = pair.kernels_b = setup.kernels;
  pair.name_a = "queue A";
  pair.name_b = "queue B";
  name_queue(pair.a, pair.name_a);
  name_queue(pair.b, pair.name_b);
  two_queue_demo(setup, pair, result);
}

}  // namespace events
