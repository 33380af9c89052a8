// peers.cpp: dlopen for the libraries the labs compare with.
#include "lab/peers.hpp"

#include "lab/report.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <ostream>
#include <string_view>

namespace lab {

void* load_symbol(const char* library, const char* symbol, std::ostream& out) {
  // After each call OpenBLAS's worker threads spin for up to 2^28 cycles (about 0.1 s) before
  // they sleep. Timed in turns with a kernel on a CPU device, a spinning thread holds a core the
  // kernel's work-groups need: on a 2-core VM the kernel ran at half speed for whole runs. With
  // the shortest timeout (2^4 cycles) they sleep at once; OpenBLAS reads it when it is loaded,
  // and a value the user set stays.
  if (std::string_view(library).rfind("libopenblas", 0) == 0) {
    ::setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
  }
  void* handle = ::dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    out << "  (" << library << " not found: install it to compare (scripts/setup.sh peers))\n";
    return nullptr;
  }
  void* function = ::dlsym(handle, symbol);
  if (function == nullptr) out << "  (" << library << " has no " << symbol << ")\n";
  return function;
}

void mark_peer(Result& row) {
  row.peer = true;
  if (!row.passed && row.skip_reason.empty()) {
    row.add_note(
        "this library's own result is wrong on this machine: its row does not change "
        "the lab's exit code");
  }
}

}  // namespace lab
