// callbacks.cpp: part 4 of the events lab, clSetEventCallback for CL_SUBMITTED, CL_RUNNING and
// CL_COMPLETE on one kernel's event: every callback fires, the event is complete inside the
// COMPLETE one, and the order and threads they ran on are reported.
#include "bench.hpp"

#include <memory>

namespace events {
namespace {

// The longest the host waits for a callback after its command completed.
constexpr auto kCallbackTimeout = std::chrono::seconds(10);

// One call of a callback registered on the kernel's event: the status it was registered for, what
// it was told and saw, and when.
struct Transition {
  cl_int type = 0;      // the status the callback was registered for
  cl_int reported = 0;  // the status the runtime passed to it
  cl_int queried = 0;   // clGetEventInfo's status inside the callback
  double host_s = 0;    // host clock, from just before the user event opened
  bool main_thread = false;
};

struct Recorder {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<Transition> seen;
  std::chrono::steady_clock::time_point origin;
  std::thread::id main_thread;
};

// What each callback receives: the recorder (kept alive by whichever of them runs last) and the
// status it was registered for. The callback owns it and frees it.
struct Tag {
  std::shared_ptr<Recorder> recorder;
  cl_int type;
};

void CL_CALLBACK on_transition(cl_event event, cl_int status, void* data) {
  const std::unique_ptr<Tag> tag(static_cast<Tag*>(data));
  Recorder& r = *tag->recorder;
  cl_int queried = 0;
  clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof queried, &queried, nullptr);
  const auto now = std::chrono::steady_clock::now();  // runs on one of the runtime's threads
  const std::lock_guard<std::mutex> lock(r.mutex);
  r.seen.push_back({tag->type, status, queried,
                    std::chrono::duration<double>(now - r.origin).count(),
                    std::this_thread::get_id() == r.main_thread});
  r.changed.notify_all();
}

}  // namespace

// Part 4: callbacks on a kernel's event for CL_SUBMITTED, CL_RUNNING and CL_COMPLETE.
void callbacks(Setup& setup, PartResult& result) {
  result.checked = "SUBMITTED, RUNNING, COMPLETE callbacks all fire";
  const cl::CommandQueue& queue = in_order_queue(setup);
  Bench bench(setup, setup.env->context);
  std::vector<double> to_complete;
  std::string transitions, threads;
  bool in_order = true;
  for (int round = 0; round < setup.options->reps && result.failures.empty(); ++round) {
    auto recorder = std::make_shared<Recorder>();
    recorder->main_thread = std::this_thread::get_id();
    const cl::Buffer out = bench.output();
    cl::Event kernel;
    {
      // The kernel waits on a user event so that it cannot pass a state before its callback
      // for that state is registered.
      Gate gate(setup.env->context);
      kernel = bench.busy(setup.kernels, queue, kSaltK1, out, {gate.event()});
      for (const cl_int type : {CL_SUBMITTED, CL_RUNNING, CL_COMPLETE}) {
        auto tag = std::make_unique<Tag>(Tag{recorder, type});
        kernel.setCallback(type, on_transition, tag.get());
        tag.release();  // the callback owns it now
      }
      // Opened before any flush: a runtime that runs the queue inside clFlush (Oclgrind) would
      // otherwise wait there for ever.
      recorder->origin = std::chrono::steady_clock::now();
      gate.open();
      queue.flush();
      kernel.wait();
    }
    std::vector<Transition> seen;
    {
      std::unique_lock<std::mutex> lock(recorder->mutex);
      recorder->changed.wait_for(lock, kCallbackTimeout,
                                 [&] { return recorder->seen.size() == 3; });
      seen = recorder->seen;
    }
    queue.finish();
    record(kernel, "events_busy (callbacks)");
    const cl_int order[] = {CL_SUBMITTED, CL_RUNNING, CL_COMPLETE};
    for (const cl_int type : order) {
      if (std::none_of(seen.begin(), seen.end(),
                       [&](const Transition& t) { return t.type == type; })) {
        result.failures.push_back(std::string("the ") + lab::execution_status_name(type) +
                                  " callback did not fire within 10 s of the kernel completing: "
                                  "the runtime must call every callback registered on an event");
      }
    }
    // The order is reported, not checked: the specification does not promise that callbacks for
    // different statuses run in the order the statuses were reached (NVIDIA's driver calls all
    // three when the kernel completes, COMPLETE first).
    in_order =
        in_order && std::equal(seen.begin(), seen.end(), std::begin(order),
                               [](const Transition& t, cl_int type) { return t.type == type; });
    for (const Transition& t : seen) {
      if (t.type == CL_COMPLETE && (t.reported != CL_COMPLETE || t.queried != CL_COMPLETE)) {
        result.failures.push_back(std::string("the CL_COMPLETE callback was called with status ") +
                                  lab::execution_status_name(t.reported) +
                                  " while the event's status was " +
                                  lab::execution_status_name(t.queried) +
                                  ": the event must be complete when its COMPLETE callback runs");
      }
    }
    bench.verify(queue, out, bench.reference(kSaltK1), "kernel output", result);
    nlohmann::json list = nlohmann::json::array();
    transitions.clear();
    threads.clear();
    for (const Transition& t : seen) {
      list.push_back({{"registered_for", lab::execution_status_name(t.type)},
                      {"status_passed", lab::execution_status_name(t.reported)},
                      {"status_queried", lab::execution_status_name(t.queried)},
                      {"host_s", t.host_s},
                      {"on_main_thread", t.main_thread}});
      transitions += std::string(transitions.empty() ? "" : ", ") +
                     (lab::execution_status_name(t.type) + 3) + " +" +
                     lab::format_seconds(t.host_s);
      threads += std::string(threads.empty() ? "" : ", ") +
                 (lab::execution_status_name(t.type) + 3) + " on " +
                 (t.main_thread ? "the main thread" : "a runtime thread");
      if (t.type == CL_COMPLETE) to_complete.push_back(t.host_s);
    }
    const Stamps s = stamps_of(kernel);
    result.details["last_round"] = {{"callbacks", list}, {"kernel", stamps_json(s, s.queued)}};
  }
  if (!threads.empty()) {
    result.notes.push_back("times from the host opening the user event (last round); " + threads +
                           " (the main thread runs a callback when its own call, such as "
                           "clSetUserEventStatus, makes the transition)");
  }
  if (!transitions.empty()) {
    result.notes.push_back(
        in_order ? "the callbacks ran in the order of the statuses in every round"
                 : "the callbacks did not always run in the order of the statuses: allowed, the "
                   "specification does not promise an order between callbacks");
  }
  result.measured = transitions.empty() ? "no callback fired" : transitions;
  result.details["complete_callback_s"] = to_complete;
}

}  // namespace events
