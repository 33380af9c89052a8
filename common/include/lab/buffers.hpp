// buffers.hpp: the four ways a host array becomes a device buffer (the lecture's buffer flags),
// and mapped views that make a buffer's contents visible to the host.
#pragma once

#include "lab/data.hpp"
#include "lab/device.hpp"

#include <CL/opencl.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace lab {

// copy:  CL_MEM_COPY_HOST_PTR, the runtime copies the host array when the buffer is created.
// use:   CL_MEM_USE_HOST_PTR, the buffer is the host array (zero-copy on a CPU, cached copy or
//        slow remote access on a GPU); the host sees the device's writes after a map.
// alloc: CL_MEM_ALLOC_HOST_PTR, the runtime allocates host-reachable memory; filled and read
//        through map/unmap.
// write: a plain buffer, filled with clEnqueueWriteBuffer and read with clEnqueueReadBuffer.
enum class BufferMode { copy, use, alloc, write };

const std::vector<std::string>& buffer_mode_names();  // {"copy", "use", "alloc", "write"}
BufferMode parse_buffer_mode(const std::string& name);
std::string to_string(BufferMode mode);

// A host-visible view of a buffer's contents: either a mapping, unmapped when the view goes out
// of scope (or by unmap()), or plain host memory that already holds them (after a read).
template <typename T>
class Mapping {
 public:
  Mapping(const cl::CommandQueue& queue, const cl::Buffer& buffer, cl_map_flags flags,
          std::size_t count)
      : queue_(queue), buffer_(buffer), count_(count) {
    data_ = static_cast<T*>(queue_.enqueueMapBuffer(buffer_, CL_TRUE, flags, 0, count * sizeof(T)));
  }
  // A view of host memory: nothing to unmap.
  Mapping(T* host, std::size_t count) : data_(host), count_(count), mapped_(false) {}
  Mapping(Mapping&& other) noexcept
      : queue_(std::move(other.queue_)),
        buffer_(std::move(other.buffer_)),
        data_(other.data_),
        count_(other.count_),
        mapped_(other.mapped_) {
    other.data_ = nullptr;
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  Mapping& operator=(Mapping&&) = delete;
  ~Mapping() {
    try {
      unmap();
    } catch (const cl::Error&) {
      // Unmapping fails only when the queue is already broken, and the error that broke it is
      // the one being reported.
    }
  }

  T* data() const { return data_; }
  std::size_t size() const { return count_; }

  void unmap() {
    if (data_ == nullptr || !mapped_) return;
    cl::Event done;
    queue_.enqueueUnmapMemObject(buffer_, data_, nullptr, &done);
    data_ = nullptr;
    done.wait();
  }

 private:
  cl::CommandQueue queue_;
  cl::Buffer buffer_;
  T* data_ = nullptr;
  std::size_t count_;
  bool mapped_ = true;
};

// A read-only input buffer holding `host`, made the way `mode` says (the data is on its way to
// the device when this returns; the queue is in order).
template <typename T>
cl::Buffer make_input(const Env& env, BufferMode mode, HostVector<T>& host) {
  const std::size_t bytes = host.size() * sizeof(T);
  switch (mode) {
    case BufferMode::copy:
      return cl::Buffer(env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, host.data());
    case BufferMode::use:
      return cl::Buffer(env.context, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, bytes, host.data());
    case BufferMode::alloc: {
      cl::Buffer buffer(env.context, CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, bytes);
      Mapping<T> view(env.queue, buffer, CL_MAP_WRITE, host.size());
      std::copy(host.begin(), host.end(), view.data());
      return buffer;
    }
    case BufferMode::write: {
      cl::Buffer buffer(env.context, CL_MEM_READ_ONLY, bytes);
      env.queue.enqueueWriteBuffer(buffer, CL_FALSE, 0, bytes, host.data());
      return buffer;
    }
  }
  throw std::logic_error("make_input: unknown buffer mode");
}

// A write-only result buffer for `host.size()` elements. USE_HOST_PTR places it on `host`
// (mode use, or any mode with `use_host_ptr`, the lecture's "no fetch" version).
template <typename T>
cl::Buffer make_output(const Env& env, BufferMode mode, HostVector<T>& host, bool use_host_ptr) {
  const std::size_t bytes = host.size() * sizeof(T);
  if (use_host_ptr || mode == BufferMode::use) {
    return cl::Buffer(env.context, CL_MEM_WRITE_ONLY | CL_MEM_USE_HOST_PTR, bytes, host.data());
  }
  if (mode == BufferMode::alloc) {
    return cl::Buffer(env.context, CL_MEM_WRITE_ONLY | CL_MEM_ALLOC_HOST_PTR, bytes);
  }
  return cl::Buffer(env.context, CL_MEM_WRITE_ONLY, bytes);
}

// Brings the result into host memory the way its buffer allows: clEnqueueReadBuffer into `host`
// for copy and write buffers, a map for the others (for USE_HOST_PTR the map points into `host`
// itself). Waits for the queue's earlier commands, as a blocking read or map does.
template <typename T>
Mapping<T> fetch_output(const Env& env, BufferMode mode, const cl::Buffer& buffer,
                        HostVector<T>& host, bool use_host_ptr) {
  if (use_host_ptr || mode == BufferMode::use || mode == BufferMode::alloc) {
    return Mapping<T>(env.queue, buffer, CL_MAP_READ, host.size());
  }
  env.queue.enqueueReadBuffer(buffer, CL_TRUE, 0, host.size() * sizeof(T), host.data());
  return Mapping<T>(host.data(), host.size());
}

}  // namespace lab
