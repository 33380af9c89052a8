// peers.cpp: dlopen for the libraries the labs compare with.
#include "lab/peers.hpp"

#include "lab/report.hpp"

#include <dlfcn.h>

#include <cctype>
#include <cstdlib>
#include <ostream>
#include <string>
#include <string_view>

namespace lab {

namespace {

// OpenBLAS chooses its kernels for the CPU model it recognises when it is loaded; a model newer
// than its table (a recent Xeon in a VM, say) falls back to "Prescott", the SSE3 kernels, and
// runs at a fraction of what the CPU can do. A peer measured that way would flatter the lab:
// say so once, with the setting that gives its AVX2 or AVX-512 kernels.
void note_generic_openblas(void* handle, std::ostream& out) {
  static bool said = false;
  const auto corename =
      reinterpret_cast<const char* (*)()>(::dlsym(handle, "openblas_get_corename"));
  if (said || corename == nullptr || std::getenv("OPENBLAS_CORETYPE") != nullptr) return;
#if defined(__x86_64__) || defined(__i386__)
  const char* wide = __builtin_cpu_supports("avx512f") ? "SkylakeX"
                     : __builtin_cpu_supports("avx2")  ? "Haswell"
                                                       : nullptr;
  std::string name = corename();
  for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
  const bool generic = name == "prescott" || name == "core2" || name == "penryn" ||
                       name == "dunnington" || name == "nehalem" || name == "atom" ||
                       name == "opteron" || name == "barcelona" || name == "sandybridge";
  if (wide == nullptr || !generic) return;
  said = true;
  out << "  (note: OpenBLAS does not know this CPU's model and runs its " << corename()
      << " kernels, though the CPU has " << (std::string(wide) == "SkylakeX" ? "AVX-512" : "AVX2")
      << ": its rows are slower than it can be. OPENBLAS_CORETYPE=" << wide
      << " in the environment gives the faster ones)\n";
#else
  (void)out;
#endif
}

}  // namespace

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
  if (std::string_view(library).rfind("libopenblas", 0) == 0) note_generic_openblas(handle, out);
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
