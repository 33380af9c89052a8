// wait_list.cpp: part 1 of the events lab, the event wait list. On an out-of-order queue, kernel 3
// adds the outputs of kernels 1 and 2 and waits for them through the events its wait list names
// (--wait-on); kernel 2 is held back by a user event, so a missing event shows.
#include "bench.hpp"

namespace events {
namespace {

// The note for a wait list that lacks an event whose command still ended first.
std::string lucky_order(const std::string& kernel) {
  return "kernel 3's wait list lacks " + kernel + "'s event, yet kernel 3 started after " + kernel +
         " ended: the order held by luck, nothing guaranteed it";
}

}  // namespace

// Part 1: two kernels and a third that waits on both through its event wait list.
void wait_list(Setup& setup, PartResult& result) {
  const std::string waits_on = setup.wait_k1 && setup.wait_k2 ? "k1 and k2"
                               : setup.wait_k1                ? "k1 only"
                               : setup.wait_k2                ? "k2 only"
                                                              : "nothing";
  result.checked = "k3 START >= END of k1, k2 (k3 waits on " + waits_on + ")";
  const cl::CommandQueue queue = out_of_order_queue(setup);
  Bench bench(setup, setup.env->context);
  const auto& k1_want = bench.reference(kSaltK1);
  const auto& k2_want = bench.reference(kSaltK2);
  const auto k3_want = combine_reference(k1_want, k2_want);
  std::vector<double> gaps;
  for (int round = 0; round < setup.options->reps && result.failures.empty(); ++round) {
    Gate gate(setup.env->context);
    const cl::Buffer a = bench.output(), b = bench.output(), c = bench.output();
    // Kernel 1 waits on nothing; kernel 2 waits on the gate, a user event the host opens after
    // the hold; kernel 3 waits on the events of its wait list, and on nothing else: the queue is
    // out of order, so the order they were enqueued in does not hold it back.
    cl::Event k1, k2, k3;
    queue.enqueueNDRangeKernel(bench.busy_kernel(setup.kernels, kSaltK1, a), cl::NullRange,
                               bench.range(), cl::NullRange, nullptr, &k1);
    const std::vector<cl::Event> gated = {gate.event()};
    queue.enqueueNDRangeKernel(bench.busy_kernel(setup.kernels, kSaltK2, b), cl::NullRange,
                               bench.range(), cl::NullRange, &gated, &k2);
    std::vector<cl::Event> waits;
    if (setup.wait_k1) waits.push_back(k1);
    if (setup.wait_k2) waits.push_back(k2);
    queue.enqueueNDRangeKernel(bench.combine_kernel(setup.kernels, a, b, c), cl::NullRange,
                               bench.range(), cl::NullRange, &waits, &k3);
    gate.open_after(setup.hold_ms);
    queue.flush();
    queue.finish();
    record(k1, "k1 events_busy");
    record(k2, "k2 events_busy (held)");
    record(k3, "k3 events_combine");

    const Stamps s1 = stamps_of(k1), s2 = stamps_of(k2), s3 = stamps_of(k3);
    gaps.push_back(seconds_between(std::max(s1.end, s2.end), s3.start));
    const auto why = [](bool listed, const std::string& k) {
      return listed ? "its wait list holds " + k + "'s event, so the runtime broke the wait list"
                    : "its wait list lacks " + k + "'s event: add it (--wait-on k1,k2)";
    };
    check_order(result, "kernel 3", s3, "kernel 1", s1, why(setup.wait_k1, "kernel 1"));
    check_order(result, "kernel 3", s3, "kernel 2", s2, why(setup.wait_k2, "kernel 2"));
    bench.verify(queue, a, k1_want, "k1 output", result);
    bench.verify(queue, b, k2_want, "k2 output", result);
    bench.verify(queue, c, k3_want, "k3 output c", result);
    result.details["last_round"] = {{"k1", stamps_json(s1, s1.queued)},
                                    {"k2", stamps_json(s2, s1.queued)},
                                    {"k3", stamps_json(s3, s1.queued)}};
    if (round == 0 && result.failures.empty()) {
      if (!setup.wait_k1) result.notes.push_back(lucky_order("kernel 1"));
      if (!setup.wait_k2) result.notes.push_back(lucky_order("kernel 2"));
    }
  }
  result.details["gap_s"] = gaps;
  result.details["wait_on"] = waits_on;
  result.measured = "k3 started " + after_or_before(median(gaps)) + " the later of k1/k2 ended";
}

}  // namespace events
