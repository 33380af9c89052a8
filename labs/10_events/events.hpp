// events.hpp: what the events lab's main.cpp sees: the setup every part reads, the seven parts
// (one file each), the row each part fills in, and the report of one row per part. What the parts
// share among themselves is in bench.hpp.
#pragma once

#include "lab/lab.hpp"

#include <CL/opencl.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace events {

// The two kernels of the lab, built for one device of a context.
struct Kernels {
  cl::Kernel busy;     // events_busy: `work` steps per element, salted
  cl::Kernel combine;  // events_combine: c = a + 3 b
};

// What every part needs: the device, the kernels, the input and its size, and the options.
struct Setup {
  const lab::Options* options = nullptr;
  lab::Env* env = nullptr;
  Kernels kernels;  // for env->device, in env->context
  // Builds the kernels for another device in another context (the sub-devices).
  std::function<Kernels(const lab::Env&)> build;
  std::uint64_t n = 0;
  cl_uint work = 0;
  double busy_s = 0;        // the busy kernel's time at -n and --work, measured once
  int hold_ms = 30;         // how long the host keeps a user event unset
  bool hold_given = false;  // --hold set it; else default_hold_ms(busy_s)
  bool wait_k1 = true;      // --wait-on: which events kernel 3 of wait_list waits for
  bool wait_k2 = true;
  lab::HostVector<cl_uint> input;
  std::ostream* out = nullptr;  // narrative (silent under --json/--csv)
  std::ostream* err = nullptr;  // failure sentences and mismatch lines
};

enum class Status { passed, failed, skipped };

// One row of the report.
struct PartResult {
  std::string part;
  std::string checked;   // what the part checks, in a few words
  std::string measured;  // the gaps it measured ("k3 started 12.3 us after ...")
  Status status = Status::passed;
  std::vector<std::string> failures;  // one sentence per broken check (printed on stderr)
  std::string reason;                 // why the part was skipped
  std::vector<std::string> notes;     // facts that are not failures (an overlap, a lucky order)
  std::size_t checked_elements = 0;
  std::size_t wrong_elements = 0;
  nlohmann::json details = nlohmann::json::object();  // timestamps of the last round
};

// A part that cannot run on this device, and why: a part throws it before its first command.
struct Skipped {
  std::string reason;
};

// The seven parts, in the order the course notes meet them (main.cpp lists them). Each runs its
// commands `--reps` times, checking every ordering it claims and every element of every result
// in every round, and fills in `result` (all but its part and status); each throws Skipped when
// the device lacks what it needs.
void wait_list(Setup& setup, PartResult& result);       // wait_list.cpp
void out_of_order(Setup& setup, PartResult& result);    // out_of_order.cpp
void marker_barrier(Setup& setup, PartResult& result);  // marker_barrier.cpp
void callbacks(Setup& setup, PartResult& result);       // callbacks.cpp
void user_event(Setup& setup, PartResult& result);      // user_event.cpp
void two_queues(Setup& setup, PartResult& result);      // two_queues.cpp
void sub_devices(Setup& setup, PartResult& result);     // sub_devices.cpp

// Prints the rows as a table (part, what was checked, what was measured, status), or as JSON,
// CSV or --summary lines, with the failures and skip reasons.
void print_report(const std::vector<PartResult>& rows, const Setup& setup, lab::OutputFormat format,
                  std::ostream& out);

}  // namespace events
