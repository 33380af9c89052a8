// events.hpp: the events lab's demos (one function per part), the user-event gate that holds a
// command back, the checks on profiling timestamps, and the report of one row per part.
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

// The parts in the order the course notes meet them, each building the busy kernel (the one
// --kernel-file replaces) and the combining one.
std::vector<lab::Part> parts();

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

// The busy kernel's time (seconds, the median of 3 launches on the lab's in-order queue) at the
// run's size and work.
double time_busy_kernel(const Setup& setup);

// The default hold: 4 times the busy kernel's time, at least 30 ms, so that a kernel enqueued
// beside a held one has surely ended before the user event opens.
int default_hold_ms(double busy_s);

// The host's reference of events_busy and events_combine, computed the same way.
lab::HostVector<cl_uint> busy_reference(const lab::HostVector<cl_uint>& in, cl_uint work,
                                        cl_uint salt);
lab::HostVector<cl_uint> combine_reference(const lab::HostVector<cl_uint>& a,
                                           const lab::HostVector<cl_uint>& b);

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

// Runs one part (a name from parts()) `--reps` times, checking every
// ordering it claims in every round. A device that lacks what the part needs gives a skipped
// row whose reason says what is missing.
PartResult run_part(const std::string& part, Setup& setup);

// Prints the rows as a table (part, what was checked, what was measured, status), or as JSON,
// CSV or --summary lines, with the failures and skip reasons.
void print_report(const std::vector<PartResult>& rows, const Setup& setup, lab::OutputFormat format,
                  std::ostream& out);

}  // namespace events
