// peers.cpp: dlopen for the libraries the labs compare with.
#include "lab/peers.hpp"

#include <dlfcn.h>

#include <ostream>

namespace lab {

void* load_symbol(const char* library, const char* symbol, std::ostream& out) {
  void* handle = ::dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    out << "  (" << library << " not found: install it to compare (scripts/setup.sh peers))\n";
    return nullptr;
  }
  void* function = ::dlsym(handle, symbol);
  if (function == nullptr) out << "  (" << library << " has no " << symbol << ")\n";
  return function;
}

}  // namespace lab
