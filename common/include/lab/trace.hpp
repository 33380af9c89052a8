// trace.hpp: --trace FILE, a timeline of the commands a lab ran, written in the Chrome Trace Event
// Format that Perfetto (ui.perfetto.dev) and chrome://tracing open: one track per command queue
// (split into lanes where its commands overlap), each command a slice from its START to its END on
// the device's profiling clock, with its queued->submit and submit->start stages in the slice's
// arguments.
#pragma once

#include <CL/opencl.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace lab {

// One completed command: its track (queue), name, OpenCL command type and four timestamps (ns on
// the device's profiling clock).
struct TracedCommand {
  std::string track;
  std::string name;
  std::string type;  // "NDRangeKernel", "WriteBuffer", ...
  cl_ulong queued = 0, submit = 0, start = 0, end = 0;
  nlohmann::json args = nlohmann::json::object();  // extra facts for the slice ("warm-up": true)
};

class Trace {
 public:
  explicit Trace(std::string path);

  const std::string& path() const { return path_; }

  // Names the track of `queue` ("in-order queue", "sub-device 1"). Queues not named get
  // "queue 1", "queue 2", ... in the order their first command is recorded.
  void name_queue(const cl::CommandQueue& queue, const std::string& name);

  // Records a command that has completed, on its queue's track. `name` "" uses the label of the
  // kernel prepared last (set_label), else the command type.
  void add(const cl::Event& event, const std::string& name = "",
           nlohmann::json args = nlohmann::json::object());
  void add(TracedCommand command) { commands_.push_back(std::move(command)); }

  // What unnamed kernels are called from now on: prepare_kernel sets the kernel's name.
  void set_label(const std::string& label) { label_ = label; }

  const std::vector<TracedCommand>& commands() const { return commands_; }

  // The trace as JSON: traceEvents (a process; a named thread per lane of each track, a track
  // having as many lanes as it needs for no two commands on one lane to overlap; a complete event
  // per command, microseconds from the first command queued) and otherData (lab, device, the
  // host's time from the start of the trace to now, in microseconds).
  nlohmann::json json(const std::string& lab, const std::string& device) const;

  // Writes json() to path(); throws RuntimeError when the file cannot be written.
  void write(const std::string& lab, const std::string& device) const;

 private:
  std::string track_of(cl_command_queue queue);

  std::string path_;
  std::string label_;
  std::vector<TracedCommand> commands_;
  std::vector<std::pair<cl_command_queue, std::string>> tracks_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

// The process's trace while --trace is on, else nullptr. The shared timing helpers record every
// launch they wait for into it; labs record their other commands with active_trace()->add().
Trace* active_trace();

// Starts the process's trace: checks that `path` can be written (UsageError, exit 2, before any
// work when it cannot). Called by Cli::parse for --trace.
void start_trace(const std::string& path);

// Records `event` (completed) in the active trace, if any.
void trace_command(const cl::Event& event, const std::string& name = "",
                   nlohmann::json args = nlohmann::json::object());

// Writes the active trace, if any; called by run_main when the lab ends. With `announce` (a run
// that got to its result, passed or failed) it says where on stderr, and a write that fails is a
// warning: the lab's own result stands. A run that ended in an error writes what ran quietly, so
// its error stays the one line it printed.
void finish_trace(const std::string& lab, bool announce);

// Remembers the device name for the trace's header (open_device calls it).
void set_trace_device(const std::string& device);

// "CL_QUEUED", "CL_SUBMITTED", "CL_RUNNING", "CL_COMPLETE", or "an error status" (negative).
const char* execution_status_name(cl_int status);

// "NDRangeKernel", "ReadBuffer", "Marker", ... for a CL_COMMAND_* value.
std::string command_type_name(cl_command_type type);

}  // namespace lab
