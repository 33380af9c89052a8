// user_event.cpp: part 5 of the events lab, a user event holding back a kernel: while the event
// is unset the kernel is CL_QUEUED or CL_SUBMITTED, never running; once the host sets it, the
// kernel runs and its result is checked.
#include "bench.hpp"

namespace events {

// Part 5: a user event holding back a kernel.
void user_event(Setup& setup, PartResult& result) {
  result.checked = "not RUNNING or COMPLETE while held; right result after";
  const cl::CommandQueue& queue = in_order_queue(setup);
  Bench bench(setup, setup.env->context);
  std::vector<double> waited;
  std::string while_held;
  for (int round = 0; round < setup.options->reps && result.failures.empty(); ++round) {
    const cl::Buffer out = bench.output();
    cl::Event kernel;
    {
      Gate gate(setup.env->context);
      // The kernel's wait list names the user event: it cannot start before the host sets it.
      const std::vector<cl::Event> gated = {gate.event()};
      queue.enqueueNDRangeKernel(bench.busy_kernel(setup.kernels, kSaltK1, out), cl::NullRange,
                                 bench.range(), cl::NullRange, &gated, &kernel);
      gate.open_after(setup.hold_ms);
      queue.flush();
      sleep_half(setup.hold_ms);
      const cl_int held = kernel.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>();
      while_held = gate.is_open() ? "not seen" : lab::execution_status_name(held);
      if (gate.is_open()) {
        if (round == 0) result.notes.push_back(not_held_note("the kernel had not started"));
      } else if (held != CL_QUEUED && held != CL_SUBMITTED) {
        result.failures.push_back(std::string("the kernel was ") +
                                  lab::execution_status_name(held) +
                                  " while its user event was unset: a command waits for every "
                                  "event in its wait list");
      }
      kernel.wait();
    }
    record(kernel, "events_busy (held)");
    const Stamps s = stamps_of(kernel);
    const double wait = seconds_between(s.queued, s.start);
    waited.push_back(wait);
    // Reported, not checked: a driver may stamp QUEUED when it submits the command rather than
    // when the host enqueued it (NVIDIA's does), and then QUEUED->START does not show the hold.
    if (wait < setup.hold_ms * 1e-3 && round == 0) {
      result.notes.push_back("the kernel started " + lab::format_seconds(wait) +
                             " after its QUEUED timestamp though the host held it for " +
                             std::to_string(setup.hold_ms) +
                             " ms: this driver stamps QUEUED when it submits the command");
    }
    bench.verify(queue, out, bench.reference(kSaltK1), "kernel output", result);
    result.details["last_round"] = {{"kernel", stamps_json(s, s.queued)},
                                    {"status_while_held", while_held}};
  }
  result.details["queued_to_start_s"] = waited;
  result.measured = while_held + " while held; started " + lab::format_seconds(median(waited)) +
                    " after it was queued";
}

}  // namespace events
