// parts.cpp: the seven demos of the events lab. Each runs its commands (every user event opens
// from a timer thread, so no wait can last for ever), reads the four profiling timestamps of
// every command, checks each ordering it claims, and checks every element of every result.
#include "events.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <list>
#include <memory>
#include <mutex>
#include <ostream>
#include <thread>

namespace events {
namespace {

// One salt per role, so that every command of a round writes different values.
constexpr cl_uint kSaltK1 = 0x0badcafeu, kSaltK2 = 0x5eed1e55u, kSaltK3 = 0x00c0ffeeu;
// What an output holds until a kernel writes it: a consumer that ran too early reads this.
constexpr cl_uint kUnwritten = 0xdeadbeefu;
// The longest the host waits for a callback after its command completed.
constexpr auto kCallbackTimeout = std::chrono::seconds(10);

struct Stamps {
  cl_ulong queued = 0, submit = 0, start = 0, end = 0;
};

Stamps stamps_of(const cl::Event& event) {
  return {event.getProfilingInfo<CL_PROFILING_COMMAND_QUEUED>(),
          event.getProfilingInfo<CL_PROFILING_COMMAND_SUBMIT>(),
          event.getProfilingInfo<CL_PROFILING_COMMAND_START>(),
          event.getProfilingInfo<CL_PROFILING_COMMAND_END>()};
}

// Seconds from `from` to `to` on the device's clock; negative when `to` came first.
double seconds_between(cl_ulong from, cl_ulong to) {
  return static_cast<double>(static_cast<std::int64_t>(to - from)) * 1e-9;
}

// "12.3 us after" or "4.56 ms before".
std::string after_or_before(double seconds) {
  return lab::format_seconds(std::abs(seconds)) + (seconds >= 0 ? " after" : " before");
}

double median(const std::vector<double>& values) { return lab::summarize(values).median; }

nlohmann::json stamps_json(const Stamps& s, cl_ulong origin) {
  const auto at = [origin](cl_ulong t) { return static_cast<std::int64_t>(t - origin); };
  return {{"queued_ns", at(s.queued)},
          {"submit_ns", at(s.submit)},
          {"start_ns", at(s.start)},
          {"end_ns", at(s.end)}};
}

// A part that cannot run on this device, and why.
struct Skipped {
  std::string reason;
};

// A user event that holds back every command waiting on it until it opens. open_after() opens
// it from a timer thread, whatever the host is doing then: a runtime that runs its queues inside
// the host's own calls (Oclgrind's clFlush runs them to the end) would otherwise wait for ever
// for an event that only the blocked host could set. The destructor opens it too, so that no
// error path leaves a command waiting (the runtime would hang when the program exits).
class Gate {
 public:
  explicit Gate(const cl::Context& context) : event_(context) {}
  ~Gate() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      cancelled_ = true;
    }
    woken_.notify_all();
    if (timer_.joinable()) timer_.join();
    open();
  }
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;

  const cl::Event& event() const { return event_; }

  // Opens the gate now, from the calling thread; a second call does nothing.
  void open() {
    if (open_.exchange(true)) return;
    try {
      event_.setStatus(CL_COMPLETE);
    } catch (const cl::Error&) {
      // Only a released context fails here, and then nothing waits on the event any more.
    }
  }

  // Opens the gate `ms` milliseconds from now on a timer thread (sooner if destroyed).
  void open_after(int ms) {
    timer_ = std::thread([this, ms] {
      std::unique_lock<std::mutex> lock(mutex_);
      woken_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return cancelled_; });
      lock.unlock();
      open();
    });
  }

  // Whether the gate has opened (or is opening): a status read before this said false was read
  // while the commands behind the gate were still held back.
  bool is_open() const { return open_; }

 private:
  cl::UserEvent event_;
  std::atomic<bool> open_{false};
  std::mutex mutex_;
  std::condition_variable woken_;
  bool cancelled_ = false;
  std::thread timer_;
};

// Waits half the hold, so that the host looks at the held commands while the gate is surely
// still shut.
void sleep_half(int hold_ms) {
  std::this_thread::sleep_for(std::chrono::microseconds(hold_ms * 500));
}

// The note for a check on held commands that could not be made: the host's flush returned only
// after the gate had opened.
std::string not_held_note(const std::string& check) {
  return "the check that " + check +
         " was not made: clFlush returned only after the user event had opened, so this "
         "runtime runs its queue inside the host's calls (Oclgrind does)";
}

// The buffers, references and launches of one context (the device's, or the sub-devices').
class Bench {
 public:
  Bench(const Setup& setup, const cl::Context& context)
      : setup_(setup),
        context_(context),
        input_(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes(),
               const_cast<cl_uint*>(setup.input.data())) {}

  std::size_t bytes() const { return setup_.n * sizeof(cl_uint); }

  // An output buffer that holds kUnwritten until a kernel writes it.
  cl::Buffer output() const {
    lab::HostVector<cl_uint> unwritten(setup_.n, kUnwritten);
    return cl::Buffer(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes(),
                      unwritten.data());
  }

  cl::Event busy(const Kernels& kernels, const cl::CommandQueue& queue, cl_uint salt,
                 const cl::Buffer& out, const std::vector<cl::Event>& waits = {}) const {
    cl::Kernel kernel = kernels.busy;
    kernel.setArg(0, static_cast<cl_ulong>(setup_.n));
    kernel.setArg(1, setup_.work);
    kernel.setArg(2, salt);
    kernel.setArg(3, input_);
    kernel.setArg(4, out);
    return enqueue(queue, kernel, waits);
  }

  cl::Event combine(const Kernels& kernels, const cl::CommandQueue& queue, const cl::Buffer& a,
                    const cl::Buffer& b, const cl::Buffer& c,
                    const std::vector<cl::Event>& waits = {}) const {
    cl::Kernel kernel = kernels.combine;
    kernel.setArg(0, static_cast<cl_ulong>(setup_.n));
    kernel.setArg(1, a);
    kernel.setArg(2, b);
    kernel.setArg(3, c);
    return enqueue(queue, kernel, waits);
  }

  // The reference of events_busy with `salt`, computed once per salt.
  const lab::HostVector<cl_uint>& reference(cl_uint salt) {
    for (const auto& [s, values] : references_) {
      if (s == salt) return values;
    }
    references_.emplace_back(salt, busy_reference(setup_.input, setup_.work, salt));
    return references_.back().second;
  }

  // Reads `buffer` (every command is complete) and compares it with `want`, element by element;
  // a wrong element is a failure sentence naming the output.
  void verify(const cl::CommandQueue& queue, const cl::Buffer& buffer,
              const lab::HostVector<cl_uint>& want, const std::string& name,
              PartResult& result) const {
    lab::HostVector<cl_uint> got(setup_.n);
    queue.enqueueReadBuffer(buffer, CL_TRUE, 0, bytes(), got.data());
    const lab::CheckResult check =
        lab::compare(got.data(), want.data(), setup_.n, lab::Tolerance::exact(), *setup_.err, name);
    result.checked_elements += check.checked;
    result.wrong_elements += check.mismatches;
    if (check.mismatches > 0) {
      result.failures.push_back(name + ": " + std::to_string(check.mismatches) + " of " +
                                std::to_string(check.checked) +
                                " elements wrong (mismatch lines above; outputs hold " +
                                hex(kUnwritten) + " until a kernel writes them)");
    }
  }

 private:
  static std::string hex(cl_uint value) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%08x", value);
    return text;
  }

  cl::Event enqueue(const cl::CommandQueue& queue, const cl::Kernel& kernel,
                    const std::vector<cl::Event>& waits) const {
    cl::Event event;
    queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(setup_.n), cl::NullRange,
                               waits.empty() ? nullptr : &waits, &event);
    return event;
  }

  const Setup& setup_;
  cl::Context context_;
  cl::Buffer input_;
  std::list<std::pair<cl_uint, lab::HostVector<cl_uint>>> references_;  // stable references
};

void name_queue(const cl::CommandQueue& queue, const std::string& name) {
  if (lab::Trace* trace = lab::active_trace()) trace->name_queue(queue, name);
}

// An out-of-order queue with profiling on the lab's device, or Skipped saying why there is none.
cl::CommandQueue out_of_order_queue(const Setup& setup) {
  const cl::Device& device = setup.env->device;
  const auto properties = device.getInfo<CL_DEVICE_QUEUE_PROPERTIES>();
  if ((properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0) {
    throw Skipped{
        "the device offers no out-of-order queue (CL_DEVICE_QUEUE_ON_HOST_PROPERTIES "
        "lacks CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)"};
  }
  try {
    cl::CommandQueue queue(setup.env->context, device,
                           CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE);
    name_queue(queue, "out-of-order queue");
    return queue;
  } catch (const cl::Error& error) {
    if (error.err() != CL_INVALID_QUEUE_PROPERTIES) throw;
    throw Skipped{"the device refused an out-of-order queue (CL_INVALID_QUEUE_PROPERTIES)"};
  }
}

const cl::CommandQueue& in_order_queue(const Setup& setup) {
  name_queue(setup.env->queue, "in-order queue");
  return setup.env->queue;
}

void record(const cl::Event& event, const std::string& name) { lab::trace_command(event, name); }

// A wait-list check: `later` must start at or after `earlier` ended. `why` says what the failure
// means ("its wait list lacks kernel 2's event").
void check_order(PartResult& result, const std::string& later, const Stamps& l,
                 const std::string& earlier, const Stamps& e, const std::string& why) {
  const double gap = seconds_between(e.end, l.start);
  if (gap < 0) {
    result.failures.push_back(later + " started " + lab::format_seconds(-gap) + " before " +
                              earlier + " ended: " + why);
  }
}

// The note for a wait list that lacks an event whose command still ended first.
std::string lucky_order(const std::string& kernel) {
  return "kernel 3's wait list lacks " + kernel + "'s event, yet kernel 3 started after " + kernel +
         " ended: the order held by luck, nothing guaranteed it";
}

// 1. Two kernels and a third that waits on both through its event wait list.
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
    const cl::Event k1 = bench.busy(setup.kernels, queue, kSaltK1, a);
    const cl::Event k2 = bench.busy(setup.kernels, queue, kSaltK2, b, {gate.event()});
    std::vector<cl::Event> waits;
    if (setup.wait_k1) waits.push_back(k1);
    if (setup.wait_k2) waits.push_back(k2);
    const cl::Event k3 = bench.combine(setup.kernels, queue, a, b, c, waits);
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

// Whether two commands ran at the same time, and for how long.
double overlap_seconds(const Stamps& a, const Stamps& b) {
  return seconds_between(std::max(a.start, b.start), std::min(a.end, b.end));
}

// 2. The same independent kernels on an in-order and on an out-of-order queue.
void out_of_order(Setup& setup, PartResult& result) {
  result.checked = "in-order: each START >= previous END";
  const cl::CommandQueue ordered = in_order_queue(setup);
  const cl::CommandQueue unordered = out_of_order_queue(setup);
  Bench bench(setup, setup.env->context);
  const cl_uint salts[] = {kSaltK1, kSaltK2, kSaltK3};
  std::vector<double> gaps, spans_ordered, spans_unordered, overlaps;
  int rounds_overlapping = 0;
  for (int round = 0; round < setup.options->reps && result.failures.empty(); ++round) {
    for (const cl::CommandQueue* queue : {&ordered, &unordered}) {
      const bool in_order = queue == &ordered;
      std::vector<cl::Buffer> outs;
      std::vector<cl::Event> events;
      for (const cl_uint salt : salts) {
        outs.push_back(bench.output());
        events.push_back(bench.busy(setup.kernels, *queue, salt, outs.back()));
      }
      queue->finish();
      std::vector<Stamps> s;
      nlohmann::json stamps = nlohmann::json::array();
      for (std::size_t k = 0; k < events.size(); ++k) {
        record(events[k], "k" + std::to_string(k + 1) + " events_busy");
        s.push_back(stamps_of(events[k]));
        stamps.push_back(stamps_json(s.back(), s.front().queued));
        bench.verify(*queue, outs[k], bench.reference(salts[k]),
                     std::string(in_order ? "in-order" : "out-of-order") + " k" +
                         std::to_string(k + 1) + " output",
                     result);
      }
      cl_ulong first = s[0].start, last = s[0].end;
      for (const Stamps& x : s) first = std::min(first, x.start), last = std::max(last, x.end);
      (in_order ? spans_ordered : spans_unordered).push_back(seconds_between(first, last));
      if (in_order) {
        for (std::size_t k = 1; k < s.size(); ++k) {
          gaps.push_back(seconds_between(s[k - 1].end, s[k].start));
          check_order(result, "on the in-order queue kernel " + std::to_string(k + 1), s[k],
                      "kernel " + std::to_string(k), s[k - 1],
                      "an in-order queue runs its commands one after another");
        }
      } else {
        double most = 0;
        for (std::size_t i = 0; i < s.size(); ++i) {
          for (std::size_t j = i + 1; j < s.size(); ++j)
            most = std::max(most, overlap_seconds(s[i], s[j]));
        }
        overlaps.push_back(most);
        if (most > 0) ++rounds_overlapping;
      }
      result.details[in_order ? "in_order_last_round" : "out_of_order_last_round"] = stamps;
    }
  }
  result.details["in_order_gap_s"] = gaps;
  result.details["out_of_order_overlap_s"] = overlaps;
  result.details["span_in_order_s"] = spans_ordered;
  result.details["span_out_of_order_s"] = spans_unordered;
  const std::size_t rounds = spans_unordered.size();
  result.measured =
      "in order: " + after_or_before(median(gaps)) + " the previous; out of order: overlap in " +
      std::to_string(rounds_overlapping) + " of " + std::to_string(rounds) + " rounds";
  result.notes.push_back(
      (rounds_overlapping > 0
           ? "the out-of-order queue ran independent kernels at the same time (up to " +
                 lab::format_seconds(*std::max_element(overlaps.begin(), overlaps.end())) +
                 " of overlap): allowed, never promised"
           : std::string("the out-of-order queue ran the kernels one after another: allowed, "
                         "since it may, but need not, overlap independent commands")) +
      "; 3 kernels took " + lab::format_seconds(median(spans_unordered)) + " out of order, " +
      lab::format_seconds(median(spans_ordered)) + " in order");
}

// 3. A barrier and a marker on an out-of-order queue.
void marker_barrier(Setup& setup, PartResult& result) {
  result.checked = "kC START >= kA, kB END; marker complete only after kD";
  const cl::CommandQueue queue = out_of_order_queue(setup);
  Bench bench(setup, setup.env->context);
  const auto& a_want = bench.reference(kSaltK1);
  const auto& b_want = bench.reference(kSaltK2);
  const auto c_want = combine_reference(a_want, b_want);
  std::vector<double> barrier_gaps, marker_gaps, later_starts;
  for (int round = 0; round < setup.options->reps && result.failures.empty(); ++round) {
    // The barrier: kC names no event, yet must wait for kA and for kB, held by a user event.
    const cl::Buffer a = bench.output(), b = bench.output(), c = bench.output();
    cl::Event ka, kb, barrier, kc;
    {
      Gate gate(setup.env->context);
      ka = bench.busy(setup.kernels, queue, kSaltK1, a);
      kb = bench.busy(setup.kernels, queue, kSaltK2, b, {gate.event()});
      queue.enqueueBarrierWithWaitList(nullptr, &barrier);
      kc = bench.combine(setup.kernels, queue, a, b, c);
      gate.open_after(setup.hold_ms);
      queue.flush();
      sleep_half(setup.hold_ms);
      const cl_int held = kc.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>();
      if (gate.is_open()) {
        if (round == 0) result.notes.push_back(not_held_note("kernel C waited behind the barrier"));
      } else if (held == CL_RUNNING || held == CL_COMPLETE) {
        result.failures.push_back(std::string("kernel C was ") + lab::execution_status_name(held) +
                                  " while kernel B, enqueued before the barrier, was still held "
                                  "back: commands after a barrier must wait for every command "
                                  "before it");
      }
      barrier.wait();
      for (const auto& [name, k] : {std::pair<const char*, cl::Event>{"A", ka}, {"B", kb}}) {
        const cl_int status = k.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>();
        if (status != CL_COMPLETE) {
          result.failures.push_back(std::string("the barrier completed while kernel ") + name +
                                    " was " + lab::execution_status_name(status) +
                                    ": a barrier completes after every command before it");
        }
      }
      queue.finish();
    }
    // The marker: it completes once kD (held) has; kF, enqueued after it, waits for nothing.
    const cl::Buffer d = bench.output(), e = bench.output(), f = bench.output();
    cl::Event ke, kd, marker, kf;
    {
      Gate gate(setup.env->context);
      ke = bench.busy(setup.kernels, queue, kSaltK3, e);
      kd = bench.busy(setup.kernels, queue, kSaltK1, d, {gate.event()});
      const std::vector<cl::Event> marked = {kd};
      queue.enqueueMarkerWithWaitList(&marked, &marker);
      kf = bench.busy(setup.kernels, queue, kSaltK2, f);
      gate.open_after(setup.hold_ms);
      queue.flush();
      sleep_half(setup.hold_ms);
      const cl_int held = marker.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>();
      if (gate.is_open()) {
        if (round == 0) result.notes.push_back(not_held_note("the marker waited for kernel D"));
      } else if (held == CL_COMPLETE) {
        result.failures.push_back(
            "the marker was complete while kernel D, which it waits for, was still held back");
      }
      marker.wait();
      const cl_int kd_status = kd.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>();
      if (kd_status != CL_COMPLETE) {
        result.failures.push_back(std::string("the marker completed while kernel D was ") +
                                  lab::execution_status_name(kd_status) +
                                  ": a marker completes only after the commands it waits for");
      }
      queue.finish();
    }
    record(ka, "kA events_busy");
    record(kb, "kB events_busy (held)");
    record(barrier, "barrier");
    record(kc, "kC events_combine");
    record(ke, "kE events_busy");
    record(kd, "kD events_busy (held)");
    record(marker, "marker");
    record(kf, "kF events_busy");

    const Stamps sa = stamps_of(ka), sb = stamps_of(kb), sbar = stamps_of(barrier),
                 sc = stamps_of(kc), sd = stamps_of(kd), se = stamps_of(ke), sm = stamps_of(marker),
                 sf = stamps_of(kf);
    const std::string barrier_rule = "a command after a barrier waits for every command before it";
    check_order(result, "kernel C", sc, "kernel A", sa, barrier_rule);
    check_order(result, "kernel C", sc, "kernel B", sb, barrier_rule);
    const cl_ulong before_barrier = std::max(sa.end, sb.end);
    // The kernels' timestamps decide the barrier's check. A marker or barrier does no work, and
    // drivers differ in what they stamp on it (NVIDIA's are not on the kernels' clock), so the
    // marker is checked through its status above and its timestamps are only reported when they
    // fall inside the round.
    const auto in_round = [&](cl_ulong t) { return t >= sa.queued && t - sa.queued < 3600e9; };
    const bool marker_stamped = in_round(sm.end) && in_round(sbar.end);
    if (!marker_stamped && round == 0) {
      result.notes.push_back(
          "this driver's marker and barrier timestamps are not on the kernels' clock (a marker "
          "END of " +
          std::to_string(sm.end) + " ns against kernel D's " + std::to_string(sd.end) +
          "): the lab checks them through their status instead");
    }
    barrier_gaps.push_back(seconds_between(before_barrier, sc.start));
    if (marker_stamped) {
      marker_gaps.push_back(seconds_between(sd.end, sm.end));
      later_starts.push_back(seconds_between(sm.end, sf.start));
    }
    bench.verify(queue, a, a_want, "kA output", result);
    bench.verify(queue, b, b_want, "kB output", result);
    bench.verify(queue, c, c_want, "kC output c", result);
    bench.verify(queue, d, bench.reference(kSaltK1), "kD output", result);
    bench.verify(queue, e, bench.reference(kSaltK3), "kE output", result);
    bench.verify(queue, f, bench.reference(kSaltK2), "kF output", result);
    const cl_ulong origin = sa.queued;
    result.details["last_round"] = {
        {"kA", stamps_json(sa, origin)},        {"kB", stamps_json(sb, origin)},
        {"barrier", stamps_json(sbar, origin)}, {"kC", stamps_json(sc, origin)},
        {"kE", stamps_json(se, origin)},        {"kD", stamps_json(sd, origin)},
        {"marker", stamps_json(sm, origin)},    {"kF", stamps_json(sf, origin)}};
  }
  result.details["barrier_gap_s"] = barrier_gaps;
  result.details["marker_after_kD_s"] = marker_gaps;
  result.details["kF_start_from_marker_end_s"] = later_starts;
  result.measured =
      "kC started " + after_or_before(median(barrier_gaps)) + " kA/kB ended; " +
      (marker_gaps.empty() ? std::string("marker complete after kD (status)")
                           : "marker ended " + after_or_before(median(marker_gaps)) + " kD");
  if (later_starts.empty()) return;
  const double kf = median(later_starts);
  result.notes.push_back(
      "kF, enqueued after the marker with no wait list, started " + after_or_before(kf) +
      " the marker completed" +
      (kf < 0 ? ": a marker holds back no later command, a barrier does"
              : ": this device kept the order, though a marker does not require it"));
}

// 4. Callbacks on a kernel's event for CL_SUBMITTED, CL_RUNNING and CL_COMPLETE.
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

// 5. A user event holding back a kernel.
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
      kernel = bench.busy(setup.kernels, queue, kSaltK1, out, {gate.event()});
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

// 6 and 7. Two queues of one context: independent kernels on each (do they overlap?), then a
// producer on queue A, held by a user event, and a consumer on queue B that waits on its event.
const char* const kConsumerAfterProducer = "consumer START >= producer END";

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
  ~QueuePair() {
    try {
      if (a() != nullptr) a.finish();
      if (b() != nullptr) b.finish();
      wait_until_released(a);
      wait_until_released(b);
    } catch (const cl::Error&) {
      // A queue that cannot be finished has no command the runtime could still be releasing.
    }
  }
};

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
      producer = bench.busy(pair.kernels_a, pair.a, kSaltK3, p, {gate.event()});
      consumer = bench.combine(pair.kernels_b, pair.b, p, y, c, {producer});
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

}  // namespace

std::vector<lab::Part> parts() {
  std::vector<lab::Part> table;
  for (const char* name : {"wait_list", "out_of_order", "marker_barrier", "callbacks", "user_event",
                           "two_queues", "sub_devices"}) {
    table.push_back({name, "events_busy.cl", {"events_combine.cl"}});
  }
  return table;
}

lab::HostVector<cl_uint> busy_reference(const lab::HostVector<cl_uint>& in, cl_uint work,
                                        cl_uint salt) {
  lab::HostVector<cl_uint> out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    cl_uint x = in[i] ^ salt;
    for (cl_uint step = 0; step < work; ++step) {
      x = x * 1664525u + 1013904223u;
      x ^= x >> 15;
    }
    out[i] = x;
  }
  return out;
}

lab::HostVector<cl_uint> combine_reference(const lab::HostVector<cl_uint>& a,
                                           const lab::HostVector<cl_uint>& b) {
  lab::HostVector<cl_uint> c(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) c[i] = a[i] + 3u * b[i];
  return c;
}

double time_busy_kernel(const Setup& setup) {
  Bench bench(setup, setup.env->context);
  const cl::Buffer out = bench.output();
  std::vector<double> times;
  for (int run = 0; run < 3; ++run) {
    const cl::Event event = bench.busy(setup.kernels, setup.env->queue, kSaltK1, out);
    event.wait();
    const Stamps s = stamps_of(event);
    times.push_back(seconds_between(s.start, s.end));
  }
  return median(times);
}

int default_hold_ms(double busy_s) {
  return static_cast<int>(std::min(10000.0, std::max(30.0, std::ceil(4e3 * busy_s))));
}

PartResult run_part(const std::string& part, Setup& setup) {
  using Demo = void (*)(Setup&, PartResult&);
  static const std::vector<std::pair<std::string, Demo>> demos = {
      {"wait_list", wait_list},           {"out_of_order", out_of_order},
      {"marker_barrier", marker_barrier}, {"callbacks", callbacks},
      {"user_event", user_event},         {"two_queues", two_queues},
      {"sub_devices", sub_devices}};
  for (const auto& [name, demo] : demos) {
    if (name != part) continue;
    PartResult result;
    try {
      demo(setup, result);
    } catch (const Skipped& skipped) {
      result.status = Status::skipped;
      result.reason = skipped.reason;
    }
    result.part = name;
    if (result.status != Status::skipped) {
      result.status = result.failures.empty() ? Status::passed : Status::failed;
    }
    return result;
  }
  throw lab::UsageError("--part: no part named '" + part + "'");
}

}  // namespace events
