#include "util/free_memory.hpp"

#include <dlfcn.h>
#include <malloc.h>

#include <cstddef>

namespace mesh2dsp {

void return_free_memory_to_system() {
  using Mallctl = int (*)(const char*, void*, std::size_t*, void*, std::size_t);
  static const auto mallctl = reinterpret_cast<Mallctl>(dlsym(RTLD_DEFAULT, "mallctl"));
  if (mallctl) {
    // jemalloc's documented "arena.<i>.purge" with i = MALLCTL_ARENAS_ALL (4096): every arena.
    mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);
    return;
  }
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

}  // namespace mesh2dsp
