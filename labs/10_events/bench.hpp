// bench.hpp: what the parts of the events lab share: the salts and the unwritten value, the
// profiling timestamps and the gaps between them, the user-event gate that holds commands back,
// the bench of buffers, launches and host references, the two kinds of queue, and the check that
// one command started after another ended.
#pragma once

#include "events.hpp"
#include "lab/host_threads.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <list>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace events {

// One salt per role, so that every command of a round writes different values.
inline constexpr cl_uint kSaltK1 = 0x0badcafeu, kSaltK2 = 0x5eed1e55u, kSaltK3 = 0x00c0ffeeu;
// What an output holds until a kernel writes it: a consumer that ran too early reads this.
inline constexpr cl_uint kUnwritten = 0xdeadbeefu;

struct Stamps {
  cl_ulong queued = 0, submit = 0, start = 0, end = 0;
};

inline Stamps stamps_of(const cl::Event& event) {
  return {event.getProfilingInfo<CL_PROFILING_COMMAND_QUEUED>(),
          event.getProfilingInfo<CL_PROFILING_COMMAND_SUBMIT>(),
          event.getProfilingInfo<CL_PROFILING_COMMAND_START>(),
          event.getProfilingInfo<CL_PROFILING_COMMAND_END>()};
}

// Seconds from `from` to `to` on the device's clock; negative when `to` came first.
inline double seconds_between(cl_ulong from, cl_ulong to) {
  return static_cast<double>(static_cast<std::int64_t>(to - from)) * 1e-9;
}

// "12.3 us after" or "4.56 ms before".
inline std::string after_or_before(double seconds) {
  return lab::format_seconds(std::abs(seconds)) + (seconds >= 0 ? " after" : " before");
}

inline double median(const std::vector<double>& values) { return lab::summarize(values).median; }

inline nlohmann::json stamps_json(const Stamps& s, cl_ulong origin) {
  const auto at = [origin](cl_ulong t) { return static_cast<std::int64_t>(t - origin); };
  return {{"queued_ns", at(s.queued)},
          {"submit_ns", at(s.submit)},
          {"start_ns", at(s.start)},
          {"end_ns", at(s.end)}};
}

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
inline void sleep_half(int hold_ms) {
  std::this_thread::sleep_for(std::chrono::microseconds(hold_ms * 500));
}

// The note for a check on held commands that could not be made: the host's flush returned only
// after the gate had opened.
inline std::string not_held_note(const std::string& check) {
  return "the check that " + check +
         " was not made: clFlush returned only after the user event had opened, so this "
         "runtime runs its queue inside the host's calls (Oclgrind does)";
}

// The host's reference of events_busy with `salt` (lab::busy_reference, on every host thread).
inline lab::HostVector<cl_uint> busy_reference(const lab::HostVector<cl_uint>& in, cl_uint work,
                                               cl_uint salt) {
  lab::HostVector<cl_uint> out(in.size());
  lab::busy_reference(in.data(), out.data(), in.size(), work, salt);
  return out;
}

// The host's reference of events_combine: c = a + 3 b.
inline lab::HostVector<cl_uint> combine_reference(const lab::HostVector<cl_uint>& a,
                                                  const lab::HostVector<cl_uint>& b) {
  lab::HostVector<cl_uint> c(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) c[i] = a[i] + 3u * b[i];
  return c;
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

  // One work-item per element: every launch's global range.
  cl::NDRange range() const { return cl::NDRange(setup_.n); }

  // events_busy with its arguments set (n, work, `salt`, the input, `out`), to enqueue at once:
  // the next call sets them again on the same kernel.
  cl::Kernel busy_kernel(const Kernels& kernels, cl_uint salt, const cl::Buffer& out) const {
    cl::Kernel kernel = kernels.busy;
    kernel.setArg(0, static_cast<cl_ulong>(setup_.n));
    kernel.setArg(1, setup_.work);
    kernel.setArg(2, salt);
    kernel.setArg(3, input_);
    kernel.setArg(4, out);
    return kernel;
  }

  // events_combine with its arguments set (n, `a`, `b`, `c`), to enqueue at once.
  cl::Kernel combine_kernel(const Kernels& kernels, const cl::Buffer& a, const cl::Buffer& b,
                            const cl::Buffer& c) const {
    cl::Kernel kernel = kernels.combine;
    kernel.setArg(0, static_cast<cl_ulong>(setup_.n));
    kernel.setArg(1, a);
    kernel.setArg(2, b);
    kernel.setArg(3, c);
    return kernel;
  }

  // Enqueues events_busy on `queue` after the events `waits`; its event.
  cl::Event busy(const Kernels& kernels, const cl::CommandQueue& queue, cl_uint salt,
                 const cl::Buffer& out, const std::vector<cl::Event>& waits = {}) const {
    return enqueue(queue, busy_kernel(kernels, salt, out), waits);
  }

  // Enqueues events_combine (c = a + 3 b) on `queue` after the events `waits`; its event.
  cl::Event combine(const Kernels& kernels, const cl::CommandQueue& queue, const cl::Buffer& a,
                    const cl::Buffer& b, const cl::Buffer& c,
                    const std::vector<cl::Event>& waits = {}) const {
    return enqueue(queue, combine_kernel(kernels, a, b, c), waits);
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
    queue.enqueueNDRangeKernel(kernel, cl::NullRange, range(), cl::NullRange,
                               waits.empty() ? nullptr : &waits, &event);
    return event;
  }

  const Setup& setup_;
  cl::Context context_;
  cl::Buffer input_;
  std::list<std::pair<cl_uint, lab::HostVector<cl_uint>>> references_;  // stable references
};

inline void name_queue(const cl::CommandQueue& queue, const std::string& name) {
  if (lab::Trace* trace = lab::active_trace()) trace->name_queue(queue, name);
}

// An out-of-order queue with profiling on the lab's device, or Skipped saying why there is none.
inline cl::CommandQueue out_of_order_queue(const Setup& setup) {
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

inline const cl::CommandQueue& in_order_queue(const Setup& setup) {
  name_queue(setup.env->queue, "in-order queue");
  return setup.env->queue;
}

inline void record(const cl::Event& event, const std::string& name) {
  lab::trace_command(event, name);
}

// A wait-list check: `later` must start at or after `earlier` ended. `why` says what the failure
// means ("its wait list lacks kernel 2's event").
inline void check_order(PartResult& result, const std::string& later, const Stamps& l,
                        const std::string& earlier, const Stamps& e, const std::string& why) {
  const double gap = seconds_between(e.end, l.start);
  if (gap < 0) {
    result.failures.push_back(later + " started " + lab::format_seconds(-gap) + " before " +
                              earlier + " ended: " + why);
  }
}

// Whether two commands ran at the same time, and for how long.
inline double overlap_seconds(const Stamps& a, const Stamps& b) {
  return seconds_between(std::max(a.start, b.start), std::min(a.end, b.end));
}

// The busy kernel's time (seconds, the median of 3 launches on the lab's in-order queue) at the
// run's size and work: main.cpp derives the hold from it.
inline double time_busy_kernel(const Setup& setup) {
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

// The default hold: 4 times the busy kernel's time, at least 30 ms, so that a kernel enqueued
// beside a held one has surely ended before the user event opens.
inline int default_hold_ms(double busy_s) {
  return static_cast<int>(std::min(10000.0, std::max(30.0, std::ceil(4e3 * busy_s))));
}

}  // namespace events
