// buffers.hpp: the four ways a host array becomes a device buffer (the buffer flags of Liu's
// Intermediate OpenCL Programming), and mapped views that make a buffer's contents visible to the
// host.
#pragma once

#include "lab/data.hpp"
#include "lab/device.hpp"

#include <CL/opencl.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
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

// What a guarded buffer's host array and zones hold before a kernel runs. A kernel that leaves
// an element of its result unwritten leaves the sentinel there (NaN never compares equal, and no
// lab's integer result reaches 0x5A5A5A5A); a kernel that writes outside its data overwrites the
// guard pattern, a byte pattern no kernel computes by chance.
template <typename T>
T sentinel() {
  if constexpr (std::is_floating_point_v<T>) {
    return std::numeric_limits<T>::quiet_NaN();
  } else {
    return static_cast<T>(0x5A5A5A5AU);
  }
}
// Every guard byte. 0x7F7F7F7F is 3.4e38 as a float and 2139062143 as an int: a kernel that reads
// past the end of its input and adds or multiplies what it finds gets an absurd result, so the
// check catches reads too, not only writes.
constexpr unsigned char kGuardByte = 0x7F;

// Where a guarded buffer's data sits in its allocation: `front` guard elements (a whole number of
// the device's CL_DEVICE_MEM_BASE_ADDR_ALIGN, so the data can be a sub-buffer), the data, then
// `back` guard elements, at least the `reach` the launch can overshoot by.
struct GuardLayout {
  std::size_t front = 0;
  std::size_t count = 0;
  std::size_t back = 0;
  std::size_t total() const { return front + count + back; }
};
GuardLayout guard_layout(const cl::Device& device, std::size_t element, std::size_t count,
                         std::size_t reach);

// Elements of the guard zones a kernel changed, counted from the start of the data (negative:
// before it).
struct GuardCheck {
  std::size_t before = 0;  // elements written in the front guard
  std::size_t after = 0;   // elements written in the back guard
  long long first = 0;     // the lowest and highest index written outside the data
  long long last = 0;
  std::size_t total() const { return before + after; }
};
// Compares each guard element's bytes with kGuardByte.
GuardCheck check_guard_bytes(const unsigned char* front, std::size_t front_count,
                             const unsigned char* back, std::size_t back_count, std::size_t count,
                             std::size_t element);
// "the kernel wrote 32 elements past the end of c (indices 100000..100031): `hint`", or "" when
// nothing was written outside; says that reads are Oclgrind's to find.
std::string describe_guard_writes(const GuardCheck& check, const std::string& name,
                                  const std::string& hint);

// A host array of `count` elements between two guard zones, for a lab that makes its buffers
// itself: the lab makes a buffer over all of it (bytes() from all(), with whatever flags its
// buffer mode uses), so the zones travel with the data into the device buffer, and gives the
// kernel a sub-buffer over the data alone (region()). A kernel that writes before its first
// element or past its last (a padded launch without the bounds check overshoots by up to
// `reach`) then writes into a zone, not into the runtime's memory, and check() finds it. No zones
// on Oclgrind, which checks every access itself (region() is then the whole buffer).
// Sets `buffer`, laid out as `layout` (front zone, data, back zone), to the guard pattern in the
// zones and the sentinel in the data, and waits.
template <typename T>
void fill_guarded(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                  const GuardLayout& layout) {
  T guard;
  std::memset(static_cast<void*>(&guard), kGuardByte, sizeof guard);
  const std::size_t element = sizeof(T);
  if (layout.front > 0) queue.enqueueFillBuffer(buffer, guard, 0, layout.front * element);
  queue.enqueueFillBuffer(buffer, sentinel<T>(), layout.front * element, layout.count * element);
  if (layout.back > 0) {
    queue.enqueueFillBuffer(buffer, guard, (layout.front + layout.count) * element,
                            layout.back * element);
  }
  queue.finish();
}

// Which guard elements of `buffer`, laid out as `layout`, no longer hold the guard pattern.
template <typename T>
GuardCheck read_guards(const cl::CommandQueue& queue, const cl::Buffer& buffer,
                       const GuardLayout& layout) {
  const std::size_t element = sizeof(T);
  std::vector<unsigned char> front(layout.front * element), back(layout.back * element);
  if (!front.empty()) queue.enqueueReadBuffer(buffer, CL_TRUE, 0, front.size(), front.data());
  if (!back.empty()) {
    queue.enqueueReadBuffer(buffer, CL_TRUE, (layout.front + layout.count) * element, back.size(),
                            back.data());
  }
  return check_guard_bytes(front.data(), layout.front, back.data(), layout.back, layout.count,
                           element);
}

template <typename T>
class GuardedArray {
 public:
  // `initial` (count elements, or null for the sentinel) is what the data holds at first.
  GuardedArray(const cl::Device& device, std::size_t count, std::size_t reach,
               const T* initial = nullptr)
      : layout_(guard_layout(device, sizeof(T), count, reach)) {
    storage_.resize(layout_.total());
    std::memset(static_cast<void*>(storage_.data()), kGuardByte, storage_.size() * sizeof(T));
    if (initial != nullptr) {
      std::copy(initial, initial + count, data());
    } else {
      std::fill(data(), data() + count, sentinel<T>());
    }
  }

  // The zones and the data: what the buffer is made over.
  T* all() { return storage_.data(); }
  std::size_t bytes() const { return storage_.size() * sizeof(T); }
  // The data within them: in the host array, and as the sub-buffer's region of the buffer.
  T* data() { return storage_.data() + layout_.front; }
  std::size_t size() const { return layout_.count; }
  cl_buffer_region region() const { return {layout_.front * sizeof(T), layout_.count * sizeof(T)}; }

  // Sets `buffer` (made over all()) to the sentinel in the data and the guard pattern in the
  // zones, and waits.
  void reset(const cl::CommandQueue& queue, const cl::Buffer& buffer) const {
    fill_guarded<T>(queue, buffer, layout_);
  }

  // Which elements of the zones in `buffer` (made over all()) the kernels changed.
  GuardCheck check(const cl::CommandQueue& queue, const cl::Buffer& buffer) const {
    return read_guards<T>(queue, buffer, layout_);
  }

 private:
  GuardLayout layout_;
  HostVector<T> storage_;
};

// A buffer of `count` elements with guard zones around it, made from a host array the way a
// buffer mode says. The kernel gets buffer(), a sub-buffer over the data; a padded NDRange whose
// work-items skip the bounds check writes into the guards, not into someone else's memory, and
// check_guards() finds it. For copy and use the host array holds the guards too (COPY_HOST_PTR
// copies it whole, USE_HOST_PTR is it); for alloc the runtime's memory is filled through a map;
// for write with clEnqueueWriteBuffer.
template <typename T>
class GuardedBuffer {
 public:
  // `initial` (count elements, or null for the sentinel) is what the data holds at first;
  // `access` is CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY or CL_MEM_READ_WRITE; `huge_pages` puts the
  // host array in huge pages where Linux gives them (ask_for_huge_pages): for use, the buffer's.
  GuardedBuffer(const Env& env, BufferMode mode, cl_mem_flags access, std::size_t count,
                std::size_t reach, const T* initial = nullptr, bool huge_pages = false)
      : mode_(mode), layout_(guard_layout(env.device, sizeof(T), count, reach)) {
    if (huge_pages) {
      storage_ = huge_page_vector<T>(layout_.total());
    } else {
      storage_.resize(layout_.total());
    }
    std::memset(static_cast<void*>(storage_.data()), kGuardByte, storage_.size() * sizeof(T));
    T* data = storage_.data() + layout_.front;
    if (initial != nullptr) {
      std::copy(initial, initial + count, data);
    } else {
      std::fill(data, data + count, sentinel<T>());
    }
    const std::size_t bytes = storage_.size() * sizeof(T);
    switch (mode) {
      case BufferMode::copy:
        whole_ = cl::Buffer(env.context, access | CL_MEM_COPY_HOST_PTR, bytes, storage_.data());
        break;
      case BufferMode::use:
        whole_ = cl::Buffer(env.context, access | CL_MEM_USE_HOST_PTR, bytes, storage_.data());
        break;
      case BufferMode::alloc: {
        whole_ = cl::Buffer(env.context, access | CL_MEM_ALLOC_HOST_PTR, bytes);
        Mapping<T> view(env.queue, whole_, CL_MAP_WRITE, storage_.size());
        std::copy(storage_.begin(), storage_.end(), view.data());
        break;
      }
      case BufferMode::write:
        whole_ = cl::Buffer(env.context, access, bytes);
        env.queue.enqueueWriteBuffer(whole_, CL_TRUE, 0, bytes, storage_.data());
        break;
    }
    if (layout_.front + layout_.back == 0) {
      view_ = whole_;  // no guards (Oclgrind checks bounds itself)
    } else {
      const cl_buffer_region region{layout_.front * sizeof(T), count * sizeof(T)};
      view_ = whole_.createSubBuffer(0, CL_BUFFER_CREATE_TYPE_REGION, &region);
    }
  }

  // What the kernel gets.
  const cl::Buffer& buffer() const { return view_; }
  // The buffer with its guards, and where the data starts in it: for commands that must not get
  // a sub-buffer (PoCL 3.1 crashes on clEnqueueCopyBufferRect with one).
  const cl::Buffer& whole() const { return whole_; }
  std::size_t data_offset_bytes() const { return layout_.front * sizeof(T); }
  std::size_t size() const { return layout_.count; }
  // The data in the host array: for use, the buffer's own memory.
  T* host() { return storage_.data() + layout_.front; }

  // Sets the data to the sentinel and the guards to their pattern again (before each variant).
  void reset(const cl::CommandQueue& queue) { fill_guarded<T>(queue, whole_, layout_); }

  // The data made visible to the host the way the mode allows: a read into host() for copy and
  // write, a map for use and alloc (for use it points into host() itself). Waits for the queue.
  Mapping<T> fetch(const cl::CommandQueue& queue) {
    if (mode_ == BufferMode::use || mode_ == BufferMode::alloc) {
      return Mapping<T>(queue, view_, CL_MAP_READ, layout_.count);
    }
    queue.enqueueReadBuffer(view_, CL_TRUE, 0, layout_.count * sizeof(T), host());
    return Mapping<T>(host(), layout_.count);
  }

  // Which guard elements the kernels changed since the last reset().
  GuardCheck check_guards(const cl::CommandQueue& queue) const {
    return read_guards<T>(queue, whole_, layout_);
  }

 private:
  BufferMode mode_;
  GuardLayout layout_;
  HostVector<T> storage_;
  cl::Buffer whole_;
  cl::Buffer view_;
};

}  // namespace lab
