// trace.cpp: the Chrome Trace Event Format timeline behind --trace.
#include "lab/trace.hpp"

#include "lab/error.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>

namespace lab {
namespace {

std::unique_ptr<Trace>& the_trace() {
  static std::unique_ptr<Trace> trace;
  return trace;
}

std::string& the_device() {
  static std::string device;
  return device;
}

}  // namespace

const char* execution_status_name(cl_int status) {
  switch (status) {
    case CL_QUEUED:
      return "CL_QUEUED";
    case CL_SUBMITTED:
      return "CL_SUBMITTED";
    case CL_RUNNING:
      return "CL_RUNNING";
    case CL_COMPLETE:
      return "CL_COMPLETE";
    default:
      return "an error status";
  }
}

std::string command_type_name(cl_command_type type) {
  switch (type) {
    case CL_COMMAND_NDRANGE_KERNEL:
      return "NDRangeKernel";
    case CL_COMMAND_TASK:
      return "Task";
    case CL_COMMAND_READ_BUFFER:
      return "ReadBuffer";
    case CL_COMMAND_WRITE_BUFFER:
      return "WriteBuffer";
    case CL_COMMAND_COPY_BUFFER:
      return "CopyBuffer";
    case CL_COMMAND_READ_BUFFER_RECT:
      return "ReadBufferRect";
    case CL_COMMAND_WRITE_BUFFER_RECT:
      return "WriteBufferRect";
    case CL_COMMAND_COPY_BUFFER_RECT:
      return "CopyBufferRect";
    case CL_COMMAND_FILL_BUFFER:
      return "FillBuffer";
    case CL_COMMAND_MAP_BUFFER:
      return "MapBuffer";
    case CL_COMMAND_UNMAP_MEM_OBJECT:
      return "UnmapMemObject";
    case CL_COMMAND_MARKER:
      return "Marker";
    case CL_COMMAND_BARRIER:
      return "Barrier";
    case CL_COMMAND_MIGRATE_MEM_OBJECTS:
      return "MigrateMemObjects";
    case CL_COMMAND_USER:
      return "User";
    default:
      return "Command " + std::to_string(type);
  }
}

Trace::Trace(std::string path) : path_(std::move(path)) {}

void Trace::name_queue(const cl::CommandQueue& queue, const std::string& name) {
  for (auto& [handle, track] : tracks_) {
    if (handle == queue()) {
      track = name;
      return;
    }
  }
  tracks_.emplace_back(queue(), name);
}

std::string Trace::track_of(cl_command_queue queue) {
  for (const auto& [handle, track] : tracks_) {
    if (handle == queue) return track;
  }
  tracks_.emplace_back(queue, "queue " + std::to_string(tracks_.size() + 1));
  return tracks_.back().second;
}

void Trace::add(const cl::Event& event, const std::string& name, nlohmann::json args) {
  TracedCommand command;
  const cl_command_type type = event.getInfo<CL_EVENT_COMMAND_TYPE>();
  command.type = command_type_name(type);
  command.name = !name.empty()                                            ? name
                 : (type == CL_COMMAND_NDRANGE_KERNEL && !label_.empty()) ? label_
                                                                          : command.type;
  command.track = track_of(event.getInfo<CL_EVENT_COMMAND_QUEUE>()());
  command.queued = event.getProfilingInfo<CL_PROFILING_COMMAND_QUEUED>();
  command.submit = event.getProfilingInfo<CL_PROFILING_COMMAND_SUBMIT>();
  command.start = event.getProfilingInfo<CL_PROFILING_COMMAND_START>();
  command.end = event.getProfilingInfo<CL_PROFILING_COMMAND_END>();
  command.args = std::move(args);
  commands_.push_back(std::move(command));
}

nlohmann::json Trace::json(const std::string& lab, const std::string& device) const {
  // A command without timestamps (NVIDIA stamps markers and barriers with 0) has no place on the
  // timeline; otherData lists it.
  const auto timed = [](const TracedCommand& c) {
    return c.queued != 0 && c.start != 0 && c.end != 0;
  };
  cl_ulong origin = std::numeric_limits<cl_ulong>::max();
  nlohmann::json untimed = nlohmann::json::array();
  for (const auto& c : commands_) {
    if (timed(c)) {
      origin = std::min({origin, c.queued, c.submit, c.start});
    } else {
      untimed.push_back(c.name);
    }
  }
  const auto us = [origin](cl_ulong t) { return t >= origin ? double(t - origin) / 1e3 : 0.0; };
  const auto stage = [](cl_ulong from, cl_ulong to) {
    return to >= from ? double(to - from) / 1e3 : 0.0;
  };

  nlohmann::json events = nlohmann::json::array();
  events.push_back({{"name", "process_name"},
                    {"ph", "M"},
                    {"pid", 1},
                    {"args", {{"name", lab + " on " + device}}}});
  // Tracks in order of first use, so the first queue is on top.
  std::vector<std::string> tracks;
  for (const auto& c : commands_) {
    if (timed(c) && std::find(tracks.begin(), tracks.end(), c.track) == tracks.end()) {
      tracks.push_back(c.track);
    }
  }
  const auto track_index = [&tracks](const TracedCommand& c) {
    return static_cast<std::size_t>(std::find(tracks.begin(), tracks.end(), c.track) -
                                    tracks.begin());
  };
  // Lanes: a viewer draws the complete slices of one thread as a stack, so two commands that
  // overlap without one containing the other cannot share a thread (Perfetto drops or misplaces
  // one of them, hiding the very overlap an out-of-order queue shows). Each queue's commands are
  // dealt, by start time, onto the first lane whose last command has ended.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < commands_.size(); ++i) {
    if (timed(commands_[i])) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [this](std::size_t a, std::size_t b) {
    return commands_[a].start < commands_[b].start;
  });
  std::vector<std::vector<cl_ulong>> lane_ends(tracks.size());  // per track, per lane
  std::vector<std::size_t> lane_of(commands_.size(), 0);
  for (const std::size_t i : order) {
    auto& ends = lane_ends[track_index(commands_[i])];
    std::size_t lane = 0;
    while (lane < ends.size() && ends[lane] > commands_[i].start) ++lane;
    if (lane == ends.size()) ends.push_back(0);
    ends[lane] = commands_[i].end;
    lane_of[i] = lane;
  }
  // One thread per lane, a queue's lanes side by side: tid 1 is the first queue's first lane.
  std::vector<std::size_t> first_tid(tracks.size(), 1);
  for (std::size_t t = 1; t < tracks.size(); ++t) {
    first_tid[t] = first_tid[t - 1] + lane_ends[t - 1].size();
  }
  for (std::size_t t = 0; t < tracks.size(); ++t) {
    for (std::size_t lane = 0; lane < lane_ends[t].size(); ++lane) {
      const std::size_t tid = first_tid[t] + lane;
      const std::string name =
          lane == 0 ? tracks[t] : tracks[t] + " (overlap lane " + std::to_string(lane + 1) + ")";
      events.push_back({{"name", "thread_name"},
                        {"ph", "M"},
                        {"pid", 1},
                        {"tid", tid},
                        {"args", {{"name", name}}}});
      events.push_back({{"name", "thread_sort_index"},
                        {"ph", "M"},
                        {"pid", 1},
                        {"tid", tid},
                        {"args", {{"sort_index", tid - 1}}}});
    }
  }
  std::size_t lanes = 0;
  for (const auto& ends : lane_ends) lanes += ends.size();
  for (std::size_t i = 0; i < commands_.size(); ++i) {
    const TracedCommand& c = commands_[i];
    if (!timed(c)) continue;
    const std::size_t tid = first_tid[track_index(c)] + lane_of[i];
    nlohmann::json args = c.args;
    args["command"] = c.type;
    args["queue"] = c.track;
    args["queued_us"] = us(c.queued);
    args["queued_to_submit_us"] = stage(c.queued, c.submit);
    args["submit_to_start_us"] = stage(c.submit, c.start);
    args["start_to_end_us"] = stage(c.start, c.end);
    events.push_back({{"name", c.name},
                      {"cat", c.type},
                      {"ph", "X"},
                      {"pid", 1},
                      {"tid", tid},
                      {"ts", us(c.start)},
                      {"dur", stage(c.start, c.end)},
                      {"args", args}});
  }
  const double host_us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - started_)
          .count();
  return {{"traceEvents", events},
          {"displayTimeUnit", "ns"},
          {"otherData",
           {{"lab", lab},
            {"device", device},
            {"clock",
             "the device's profiling clock; ts in microseconds from the first command "
             "queued"},
            {"commands", commands_.size() - untimed.size()},
            {"commands_without_timestamps", untimed},
            {"tracks", tracks.size()},
            {"lanes", lanes},
            {"host_elapsed_us", host_us}}}};
}

void Trace::write(const std::string& lab, const std::string& device) const {
  std::ofstream file(path_, std::ios::trunc);
  file << json(lab, device).dump(1) << "\n";
  file.close();
  if (!file) throw RuntimeError("--trace: could not write " + path_);
}

Trace* active_trace() { return the_trace().get(); }

void start_trace(const std::string& path) {
  // Opening for appending creates the file without losing what is there should the lab stop
  // before it writes; the whole trace replaces it at the end.
  std::ofstream probe(path, std::ios::app);
  if (!probe) {
    throw UsageError("--trace: cannot write " + path +
                     ": choose a file in a folder that exists and that you can write to");
  }
  the_trace() = std::make_unique<Trace>(path);
}

void trace_command(const cl::Event& event, const std::string& name, nlohmann::json args) {
  if (Trace* trace = active_trace()) trace->add(event, name, std::move(args));
}

void set_trace_device(const std::string& device) { the_device() = device; }

void finish_trace(const std::string& lab, bool announce) {
  Trace* trace = active_trace();
  if (trace == nullptr) return;
  try {
    trace->write(lab, the_device());
    if (announce) {
      std::cerr << lab << ": trace of " << trace->commands().size() << " commands written to "
                << trace->path() << " (open it in https://ui.perfetto.dev)\n";
    }
  } catch (const std::exception& error) {
    if (announce) std::cerr << lab << ": warning: " << error.what() << "\n";
  }
  the_trace().reset();
}

}  // namespace lab
