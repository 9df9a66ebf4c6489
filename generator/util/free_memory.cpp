#include "util/free_memory.hpp"

#include <dlfcn.h>
#include <malloc.h>

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

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

void fault_in_on_every_core(void* memory, std::size_t bytes, std::size_t from_bytes) {
  if (!memory || bytes < from_bytes) return;
  constexpr std::size_t kPage = 4096;
  const std::size_t parts = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8);
  auto touch = [&](std::size_t part) {
    volatile char* p = static_cast<char*>(memory);
    for (std::size_t at = bytes * part / parts / kPage * kPage; at < bytes * (part + 1) / parts; at += kPage) p[at] = 0;
  };
  std::vector<std::thread> helpers;
  for (std::size_t part = 1; part < parts; ++part) helpers.emplace_back(touch, part);
  touch(0);
  for (auto& t : helpers) t.join();
}

}  // namespace mesh2dsp
